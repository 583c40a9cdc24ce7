import CCairo
import Foundation
import Testing
@testable import Display

@Suite struct DRMErrorTests {
    @Test func missingDeviceIsAnErrorNamingThePath() {
        let path = "/nonexistent/dri/card7"
        #expect(throws: DisplayError.noDevice(path: path)) { try DRMDisplay(path: path) }
        #expect(DisplayError.noDevice(path: path).description.contains(path))
    }

    @Test func aFileThatIsNotADRMCardIsSaidToBeSo() {
        #expect(throws: DisplayError.notDRMDevice(path: "/dev/null")) { try DRMDisplay(path: "/dev/null") }
    }

    @Test func modeSetRefusedMeansAnotherProcessHoldsMaster() {
        for e in [EACCES, EBUSY, EPERM] {
            let err = DisplayError.settingCrtc("/dev/dri/card0", errno: e)
            #expect(err == .masterHeld(path: "/dev/dri/card0"))
            #expect(err.description.contains("another process holds DRM master"))
            #expect(err.description.contains("display server may be running"))
        }
        #expect(DisplayError.settingCrtc("/dev/dri/card0", errno: EINVAL) != .masterHeld(path: "/dev/dri/card0"))
    }

    @Test func connectorChoiceAndItsErrors() throws {
        let all = [ConnectorDescription(name: "HDMI-A-1", connected: false, modeCount: 0),
                   ConnectorDescription(name: "Virtual-1", connected: true, modeCount: 12)]
        #expect(try ConnectorDescription.select(all, name: nil, path: "/dev/dri/card0") == 1)
        #expect(try ConnectorDescription.select(all, name: "Virtual-1", path: "/dev/dri/card0") == 1)
        #expect(throws: DisplayError.self) { try ConnectorDescription.select(all, name: "HDMI-A-1", path: "/dev/dri/card0") }
        do {
            _ = try ConnectorDescription.select([all[0]], name: nil, path: "/dev/dri/card0")
            Issue.record("no error")
        } catch let e as DisplayError {
            #expect(e.description.contains("no connected display on /dev/dri/card0"))
            #expect(e.description.contains("HDMI-A-1 (disconnected)"))
        }
        do {
            _ = try ConnectorDescription.select(all, name: "DP-3", path: "/dev/dri/card0")
            Issue.record("no error")
        } catch let e as DisplayError {
            #expect(e.description.contains("DP-3") && e.description.contains("Virtual-1"))
        }
    }

    @Test func modeChoiceAndAMissingModeListsTheAvailableOnes() throws {
        let modes = [ModeDescription(width: 1920, height: 1080, refreshHz: 75, preferred: true),
                     ModeDescription(width: 1280, height: 800, refreshHz: 75, preferred: false),
                     ModeDescription(width: 1280, height: 800, refreshHz: 60, preferred: false)]
        #expect(try ModeDescription.select(modes, request: nil, path: "c", connector: "V") == 0)
        #expect(try ModeDescription.select(modes, request: ModeRequest(width: 1280, height: 800), path: "c", connector: "V") == 1)
        #expect(try ModeDescription.select(modes, request: ModeRequest(width: 1280, height: 800, refreshHz: 60), path: "c", connector: "V") == 2)
        do {
            _ = try ModeDescription.select(modes, request: ModeRequest(width: 800, height: 600, refreshHz: 60), path: "/dev/dri/card0", connector: "Virtual-1")
            Issue.record("no error")
        } catch let e as DisplayError {
            #expect(e.description.contains("800x600@60 does not exist on Virtual-1"))
            #expect(e.description.contains("1920x1080@75 (preferred), 1280x800@75, 1280x800@60"))
        }
    }

    @Test func modeRequestsDescribeThemselves() {
        #expect(ModeRequest(width: 1920, height: 1080).description == "1920x1080")
        #expect(ModeRequest(width: 1280, height: 800, refreshHz: 75).description == "1280x800@75")
    }
}

@Suite struct FBDevAndPNGTests {
    @Test func fbdevErrors() {
        #expect(throws: DisplayError.noDevice(path: "/nonexistent/fb9")) { try FBDevDisplay(path: "/nonexistent/fb9") }
        #expect(throws: DisplayError.notFramebuffer(path: "/dev/null")) { try FBDevDisplay(path: "/dev/null") }
    }

    /// A folder whose name holds "%" (issue 31: `png_dir` with "%s" crashed the kiosk, and
    /// "100%frames" wrote to "1000.000000rames"): the name is kept as it is.
    @Test func aPercentInTheFolderIsNotAFormat() throws {
        #expect(PNGDisplay.numbered("/tmp/a %s b/100%frames/frame-%05d.png", 42) == "/tmp/a %s b/100%frames/frame-00042.png")
        #expect(PNGDisplay.numbered("out/%n%n%n/frame-%d.png", 7) == "out/%n%n%n/frame-7.png")
        #expect(PNGDisplay.numbered("plain", 3) == "plain3")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-png-%s-100%frames-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = PNGDisplay(width: 8, height: 8, output: .numbered(pattern: dir.path + "/frame-%05d.png"))
        #expect(try display.present())
        #expect(FileManager.default.fileExists(atPath: dir.path + "/frame-00000.png"))
    }

    @Test func pngBackendWritesNumberedFramesWithTheDrawnPixels() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-png-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let display = PNGDisplay(width: 64, height: 48, output: .numbered(pattern: dir.path + "/frame-%03d.png"))
        for colour: UInt32 in [0x00ff_0000, 0x0000_ff00] {
            let f = display.backBuffer()
            for y in 0..<f.height { for x in 0..<f.width { f.pixels.storeBytes(of: colour, toByteOffset: y * f.stride + 4 * x, as: UInt32.self) } }
            #expect(try display.present())
        }
        #expect(display.framesWritten == 2)
        #expect(display.lastPath == dir.path + "/frame-001.png")
        for (i, want) in [(0, UInt32(0xff0000)), (1, 0x00ff00)] {
            let s = cairo_image_surface_create_from_png(dir.path + String(format: "/frame-%03d.png", i))!
            defer { cairo_surface_destroy(s) }
            #expect(cairo_surface_status(s) == CAIRO_STATUS_SUCCESS)
            #expect(cairo_image_surface_get_width(s) == 64)
            let px = UnsafeRawPointer(cairo_image_surface_get_data(s)!).load(fromByteOffset: 10 * Int(cairo_image_surface_get_stride(s)) + 40, as: UInt32.self)
            #expect(px & 0xffffff == want)
        }
        let bad = PNGDisplay(width: 8, height: 8, output: .file("/nonexistent-dir/x.png"))
        #expect(throws: DisplayError.self) { try bad.present() }
        // After close: the frame handed out before still points at live memory, and
        // backBuffer/present neither trap nor write.
        let early = display.backBuffer()
        display.close()
        early.pixels.storeBytes(of: UInt32(0x0000ff), toByteOffset: 0, as: UInt32.self)
        #expect(display.backBuffer().pixels.load(as: UInt32.self) == 0x0000ff)
        #expect(try display.present() == false)
        #expect(display.framesWritten == 2)
    }

    @Test func pacerAllowsOneFramePerRefresh() {
        var pacer = FramePacer(refreshHz: 75)
        #expect(pacer.mayPresent(now: 10.0))
        pacer.didPresent(at: 10.0)
        #expect(!pacer.mayPresent(now: 10.005))       // 5 ms later: too early at 75 Hz (13.3 ms)
        #expect(pacer.mayPresent(now: 10.0134))
        #expect(abs(pacer.nextPresentTime - (10.0 + 1.0 / 75)) < 1e-9)
    }
}
