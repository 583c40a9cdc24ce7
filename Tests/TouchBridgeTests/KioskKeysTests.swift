import Foundation
import Testing
import TouchCore
import MapEngine
import Rendering
import Display
@testable import TouchBridge
@testable import Kiosk

/// The keys issue 15 added: control socket, target bounds, home reset, marker looks, the udev
/// calibration string and touch rotation that follows the display.
@Suite struct KioskKeysTests {
    func parse(_ text: String, file: String = "test.toml") throws -> KioskConfiguration {
        try KioskConfiguration.parse(text: text, file: file)
    }
    func error(_ text: String, file: String = "test.toml") -> ConfigError? {
        do { _ = try parse(text, file: file); return nil } catch let e as ConfigError { return e } catch { return nil }
    }

    @Test func controlBoundsHomeAndCalibrationString() throws {
        let cfg = try parse("""
        [control]
        socket = "/run/touchbridge/control.sock"
        [map]
        bounds = [9.47, 47.05, 9.64, 47.27]
        [camera]
        home_after_s = 90
        [[touch]]
        calibration = "0 -1 1 1 0 0"
        """)
        #expect(cfg.control.socket == "/run/touchbridge/control.sock")
        #expect(cfg.map.bounds == CoordinateBounds(west: 9.47, south: 47.05, east: 9.64, north: 47.27))
        #expect(cfg.mapConfiguration(density: .init(pixelsPerMillimetre: 4, source: .assumed)).limits.targetBounds == cfg.map.bounds)
        #expect(cfg.camera.homeAfterSeconds == 90 && cfg.mapConfiguration(density: .init(pixelsPerMillimetre: 4, source: .assumed)).homeAfterInterval == 90)
        #expect(cfg.touch[0].calibration == [0, -1, 1, 1, 0, 0])
        #expect(cfg.touch[0].rotation == nil)
        let off = try parse("")
        #expect(off.control.socket == "" && off.map.bounds == nil && off.mapConfiguration(density: .init(pixelsPerMillimetre: 4, source: .assumed)).homeAfterInterval == nil)
    }

    @Test func badValuesNameTheKey() {
        #expect(error("[control]\nsocket = \"relative.sock\"\n")?.message.contains("absolute path") == true)
        #expect(error("[map]\nbounds = [1, 2, 3]\n")?.key == "map.bounds")
        #expect(error("[map]\nbounds = [10, 47, 9, 48]\n")?.message.contains("west (10.0) must be below east (9.0)") == true)
        #expect(error("[camera]\nhome_after_s = -1\n")?.key == "camera.home_after_s")
        let cal = error("[[touch]]\ncalibration = \"0 -1 one 1 0 0\"\n")
        #expect(cal?.line == 2 && cal?.message.contains("not a list of numbers") == true)
        #expect(error("[[touch]]\ncalibration = \"0 1 0\"\n")?.message.contains("six numbers") == true)
        #expect(error("[[markers]]\nlatitude = 1\nlongitude = 2\ncolor = \"red\"\n")?.message.contains("#RRGGBB") == true)
        let icon = error("[[markers]]\nlatitude = 1\nlongitude = 2\nicon = \"nope.png\"\n", file: "/etc/tb/k.toml")
        #expect(icon?.key == "markers.icon" && icon?.line == 4 && icon?.message.contains("/etc/tb/nope.png") == true)
    }

    @Test func markerIconAndColourReachTheMarker() throws {
        // A 3x2 PNG written by the renderer's own writer, next to the configuration.
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-icon-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let frame = OwnedFrameBuffer(width: 3, height: 2)
        try frame.buffer.writePNG(to: dir.appendingPathComponent("i.png").path)
        let cfg = try parse("""
        [[markers]]
        id = "a"
        latitude = 1
        longitude = 2
        icon = "i.png"
        [[markers]]
        id = "b"
        latitude = 1
        longitude = 2
        color = "#00a000"
        """, file: dir.appendingPathComponent("k.toml").path)
        let a = cfg.markers[0].marker, b = cfg.markers[1].marker
        #expect(a.icon == .image(name: dir.appendingPathComponent("i.png").path, size: Size(width: 3, height: 2), anchor: Point(x: 0.5, y: 1)))
        #expect(a.iconHitMask == nil)   // an RGB image: every pixel is drawn
        #expect(b.icon == .defaultPin && b.pinColorRGB == 0x00A000)
    }

    @Test func touchRotationFollowsTheDisplayUnlessSet() throws {
        let follow = KioskConfiguration.TouchSettings()
        let c90 = MapView.calibration(follow, udev: nil, displayRotation: 90)
        #expect(c90 == Calibration.identity.then(Calibration.rotation(degrees: 90)!))
        var own = KioskConfiguration.TouchSettings()
        own.rotation = 0
        #expect(MapView.calibration(own, udev: nil, displayRotation: 90) == .identity)
        // The udev matrix string, as is, then the display's turn.
        let cfg = try KioskConfiguration.parse(text: "[[touch]]\ncalibration = \"0 -1 1 1 0 0\"\n", file: "t.toml")
        #expect(MapView.calibration(cfg.touch[0], udev: nil, displayRotation: 0) == Calibration(matrix: [0, -1, 1, 1, 0, 0]))
        let display = try KioskConfiguration.parse(text: "[display]\nrotation = 180\n", file: "t.toml").display
        #expect(display.rotation == 180 && display.rotationIsExplicit)
        #expect(!KioskConfiguration().display.rotationIsExplicit)
    }

    @Test func panelOrientationNames() {
        #expect(DRMPanelOrientation.rotation(forName: "Normal") == 0)
        #expect(DRMPanelOrientation.rotation(forName: "Upside Down") == 180)
        #expect(DRMPanelOrientation.rotation(forName: "Left Side Up") == 90)
        #expect(DRMPanelOrientation.rotation(forName: "Right Side Up") == 270)
        #expect(DRMPanelOrientation.rotation(forName: "Sideways") == nil)
    }
}

@Suite struct IconHitMaskTests {
    /// A 10x10 ARGB icon: an opaque disc of radius 4 in the middle, transparent corners.
    func disc() -> CairoImage? {
        var px = [UInt32](repeating: 0, count: 100)
        for y in 0..<10 { for x in 0..<10 where (Double(x) - 4.5) * (Double(x) - 4.5) + (Double(y) - 4.5) * (Double(y) - 4.5) <= 16 {
            px[y * 10 + x] = 0xFF2040E0
        } }
        return CairoImage.argb(px, width: 10, height: 10)
    }

    @Test func aTapHitsTheDrawnPixelsOnly() throws {
        let img = try #require(disc())
        let mask = try #require(MarkerLook.hitMask(img))
        #expect(mask.isOpaque(x: 5, y: 5) && !mask.isOpaque(x: 0, y: 0) && !mask.isOpaque(x: 9, y: 0))
        var m = Marker(id: "disc", position: Coordinate(latitude: 0, longitude: 0),
                       icon: .image(name: "disc", size: Size(width: 10, height: 10), anchor: Point(x: 0.5, y: 1)))
        m.iconHitMask = mask
        let at = Point(x: 100, y: 100)   // the icon's box is (95, 90)...(105, 100)
        #expect(m.iconContains(Point(x: 100.5, y: 95.5), markerAt: at))
        #expect(!m.iconContains(Point(x: 95.5, y: 90.5), markerAt: at))     // transparent corner
        #expect(!m.iconContains(Point(x: 104.5, y: 99.5), markerAt: at))
        m.iconHitMask = nil
        #expect(m.iconContains(Point(x: 95.5, y: 90.5), markerAt: at))      // without a mask: the box
    }
}
