import MapEngine
import Foundation
import Testing
import Gestures
import TouchCore
@testable import TouchBridge
@testable import Kiosk

let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

@Suite struct ConfigurationTests {
    func parse(_ text: String) throws -> KioskConfiguration {
        try KioskConfiguration.parse(text: text, file: "test.toml")
    }
    func error(_ text: String) -> ConfigError? {
        do { _ = try parse(text); return nil } catch let e as ConfigError { return e } catch { return nil }
    }

    /// Every threshold of the recogniser can be set from the file by the name tune, warnings
    /// and docs/gestures.md use (GestureThresholds.table), and lands in that threshold.
    @Test func everyThresholdIsSettableByItsTableName() throws {
        var text = "[gestures]\n"
        for (i, key) in GestureThresholds.table.enumerated() { text += "\(key.name) = \(Double(i) + 7.5)\n" }
        let t = try parse(text).gestures.thresholds
        #expect(GestureThresholds.table.count == GestureThresholds().entries.count)
        for (i, key) in GestureThresholds.table.enumerated() {
            #expect(t[keyPath: key.keyPath] == Double(i) + 7.5, "\(key.name)")
        }
        // An older snake_case name and its table name for the same threshold: refused.
        #expect(throws: ConfigError.self) { _ = try self.parse("[gestures]\npan_threshold_mm = 3\npanStartDistance = 4\n") }
        #expect(try parse("[gestures]\nfling_min_speed_mm_s = 80\n").gestures.thresholds.momentumMinVelocity == 80)
    }

    /// Pixel density is decided in one place, the same for the kiosk and replay: the device's
    /// resolution first, the file's pixels_per_mm only when nothing better is known.
    @Test func pixelDensityPrecedence() throws {
        let cfg = try parse("[gestures]\npixels_per_mm = 5\n")
        let screen = Size(width: 1000, height: 500)
        let withResolution = DeviceCapabilities(name: "p", absinfo: [
            ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 1999, resolution: 20),
            ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 999, resolution: 20)])
        let d1 = Replay.density(configuration: cfg, touch: withResolution, screen: screen)
        #expect(d1.source == .deviceResolution)
        #expect(abs(d1.pixelsPerMillimetre - 10) < 0.01) // 1000 px over ~100 mm, not the file's 5
        let d2 = Replay.density(configuration: cfg, touch: DeviceCapabilities(name: "q"), screen: screen)
        #expect(d2.pixelsPerMillimetre == 5)
        let d3 = Replay.density(configuration: try parse(""), touch: nil, screen: screen, displayMM: Size(width: 100, height: 50))
        #expect(d3.source == .displaySize && d3.pixelsPerMillimetre == 10)
    }

    @Test func defaultFileDocumentsAndSetsEveryKey() throws {
        let path = repoRoot.appendingPathComponent("Configs/default.toml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for key in ConfigSchema.keys {
            // Every key appears in the documented default file (set or shown commented out).
            #expect(text.contains("\n\(key.name) =") || text.contains("\n# \(key.name) ="), "\(key.path) is not documented in default.toml")
        }
        let cfg = try KioskConfiguration.load(path: path)
        #expect(cfg.display.backend == .drm)
        #expect(cfg.display.mode == nil && cfg.display.card == nil)
        #expect(cfg.touch.count == 1 && cfg.touch[0].match == nil)
        #expect(cfg.touch[0].calibration == [1, 0, 0, 0, 1, 0])
        #expect(cfg.gestures.enabled == .all)
        #expect(cfg.gestures.thresholds[keyPath: try #require(GestureThresholds.key(named: "rotate_threshold_deg")).keyPath] == 12)
        #expect(cfg.gestures.pixelsPerMM == 3.78)
        // The documented values are the recogniser's own defaults, and consistent.
        #expect(cfg.gestures.thresholds == GestureThresholds())
        #expect(cfg.gestures.thresholds.problems.isEmpty)
        #expect(cfg.markers.first?.title == "Paris")
        // The shipped file stays where it starts: no auto-return, no position to fly to.
        #expect(cfg.camera.autoReturnSeconds == 0 && cfg.camera.position == nil && cfg.camera.mode == .free)
        #expect(abs(cfg.map.camera.target.latitude - 48.8566) < 1e-9)
    }

    @Test func everyKeyIsReadIntoTheConfiguration() throws {
        let cfg = try parse("""
        [display]
        backend = "png"
        card = "/dev/dri/card1"
        connector = "HDMI-A-1"
        mode = "1920x1080@60"
        rotation = 270
        fbdev = "/dev/fb1"
        png_dir = "/tmp/frames"
        size = "800x480"
        max_fps = 30
        physical_size_mm = [154.0, 86.0]
        [[touch]]
        match = "0eef:0001"
        calibration = [0, 1, 0, -1, 0, 1]
        rotation = 90
        mirror = "horizontal"
        smoothing = true
        grab = true
        pens = true
        [[touch]]
        match = "name:ELAN"
        [gestures]
        enabled = ["tap", "pan"]
        two_finger_horizontal = "pan"
        tap_slop_mm = 2.5
        tap_max_duration_s = 0.25
        double_tap_timeout_s = 0.35
        double_tap_slop_mm = 9
        long_press_s = 0.6
        pan_threshold_mm = 2
        pinch_threshold_mm = 5
        rotate_threshold_deg = 15
        tilt_threshold_mm = 3
        fling_min_speed_mm_s = 60
        pixels_per_mm = 5
        [map]
        source = "mbtiles"
        mbtiles = "/srv/map.mbtiles"
        latitude = 1.5
        longitude = -2.5
        zoom = 4
        bearing = 370
        tilt = 30
        min_zoom = 1
        max_zoom = 8
        [[markers]]
        id = "a"
        latitude = 1
        longitude = 2
        title = "A"
        snippet = "first"
        z_index = 3
        [camera]
        mode = "following"
        position_source = "track"
        position = [3.0, 4.0]
        heading = 90
        auto_return_s = 7.5
        [log]
        events = "-"
        level = "debug"
        """)
        #expect(cfg.display.backend == .png)
        #expect(cfg.display.card == "/dev/dri/card1" && cfg.display.connector == "HDMI-A-1")
        #expect(cfg.display.mode == .init(width: 1920, height: 1080, refreshHz: 60))
        #expect(cfg.display.rotation == 270 && cfg.display.fbdev == "/dev/fb1" && cfg.display.pngDirectory == "/tmp/frames")
        #expect(cfg.display.pngSize == (800, 480) && cfg.display.maxFPS == 30)
        #expect(cfg.display.physicalSizeMM?.0 == 154 && cfg.display.physicalSizeMM?.1 == 86)
        #expect(cfg.touch.count == 2)
        #expect(cfg.touch[0].match == .vendorProduct(vendor: 0x0eef, product: 0x0001))
        #expect(cfg.touch[0].calibration == [0, 1, 0, -1, 0, 1] && cfg.touch[0].rotation == 90)
        #expect(cfg.touch[0].mirror == .horizontal && cfg.touch[0].smoothing && cfg.touch[0].grab)
        #expect(cfg.touch[0].pens && !cfg.touch[1].pens)
        #expect(cfg.touch[1].match == .name("ELAN"))
        #expect(cfg.gestures.enabled == [.tap, .pan] && cfg.gestures.twoFingerHorizontal == .pan)
        var want = GestureThresholds()
        for (k, v) in ["tap_slop_mm": 2.5, "tap_max_duration_s": 0.25, "double_tap_timeout_s": 0.35,
                       "double_tap_slop_mm": 9, "long_press_s": 0.6, "pan_threshold_mm": 2,
                       "pinch_threshold_mm": 5, "rotate_threshold_deg": 15, "tilt_threshold_mm": 3,
                       "fling_min_speed_mm_s": 60] {
            want[keyPath: try #require(GestureThresholds.key(named: k)).keyPath] = v
        }
        #expect(cfg.gestures.thresholds == want)
        #expect(cfg.gestures.pixelsPerMM == 5)
        #expect(cfg.map.source == .mbtiles("/srv/map.mbtiles"))
        #expect(cfg.map.camera.target.latitude == 1.5 && cfg.map.camera.target.longitude == -2.5)
        #expect(cfg.map.camera.zoom == 4 && cfg.map.camera.bearing == 10 && cfg.map.camera.tilt == 30)
        #expect(cfg.map.minZoom == 1 && cfg.map.maxZoom == 8)
        #expect(cfg.markers == [.init(id: "a", coordinate: .init(latitude: 1, longitude: 2), title: "A", snippet: "first", zIndex: 3)])
        #expect(cfg.camera.mode == .following && cfg.camera.positionSource == .track)
        #expect(cfg.camera.position == .init(latitude: 3, longitude: 4) && cfg.camera.heading == 90 && cfg.camera.autoReturnSeconds == 7.5)
        #expect(cfg.log.events == "-" && cfg.log.level == "debug")
    }

    @Test func exampleConfigsAreValid() throws {
        for name in ["portrait-panel.toml", "mbtiles-map.toml"] {
            let cfg = try KioskConfiguration.load(path: repoRoot.appendingPathComponent("Configs/\(name)").path, checkFiles: false)
            #expect(cfg.touch.count >= 1)
        }
    }

    @Test func emptyFileGivesDefaults() throws {
        #expect(try parse("") == KioskConfiguration())
    }

    @Test func unknownKeyNamesFileLineKeyAndSuggests() {
        let e = error("[display]\nbackend = \"drm\"\nconector = \"HDMI-A-1\"\n")
        #expect(e?.file == "test.toml")
        #expect(e?.line == 3)
        #expect(e?.key == "display.conector")
        #expect(e?.message.contains("did you mean 'connector'") == true)
        #expect(e?.description.hasPrefix("test.toml:3: key 'display.conector'") == true)
    }

    @Test func unknownSectionSuggests() {
        let e = error("\n[gesture]\ntap_slop_mm = 3\n")
        #expect(e?.line == 2 && e?.message.contains("'gestures'") == true)
    }

    @Test func wrongTypeNamesTheKeyAndLine() {
        let e = error("[map]\n\nzoom = \"high\"\n")
        #expect(e?.line == 3 && e?.key == "map.zoom" && e?.message.contains("expected a number") == true)
    }

    @Test func badValueInSecondArrayTableNamesItsLine() {
        let e = error("[[touch]]\nmatch = \"auto\"\n[[touch]]\nrotation = 45\n")
        #expect(e?.line == 4 && e?.key == "touch.rotation")
    }

    @Test func syntaxErrorNamesTheLine() {
        let e = error("[display]\nbackend = \"drm\n")
        #expect(e?.line == 2)
        #expect(e?.message.contains("syntax") == true)
    }

    @Test func valueErrorsAreSpecific() {
        #expect(error("[display]\nmode = \"big\"\n")?.message.contains("1920x1080") == true)
        #expect(error("[gestures]\nenabled = [\"tapp\"]\n")?.message.contains("did you mean 'tap'") == true)
        #expect(error("[[touch]]\ncalibration = [1, 0, 0]\n")?.message.contains("six numbers") == true)
        #expect(error("[map]\nsource = \"mbtiles\"\n")?.message.contains("mbtiles =") == true)
        #expect(error("[map]\nmin_zoom = 10\nmax_zoom = 5\n")?.key == "map.min_zoom")
        #expect(error("[camera]\nmode = \"following\"\n")?.message.contains("position") == true)
    }

    /// Files edited on Windows end their lines with CR LF: every error keeps its line (issue 19).
    @Test func crlfFilesKeepTheirErrorLines() {
        let cases: [(String, Int, String?)] = [
            ("[display]\nbackend = \"drm\"\nconector = \"HDMI-A-1\"\n", 3, "display.conector"),
            ("\n[gesture]\ntap_slop_mm = 3\n", 2, nil),
            ("[map]\n\nzoom = \"high\"\n", 3, "map.zoom"),
            ("[[touch]]\nmatch = \"auto\"\n[[touch]]\nrotation = 45\n", 4, "touch.rotation"),
            ("# a comment\n[display]\nbackend = \"drm\n", 3, nil),
            ("[map]\nmin_zoom = 10\n\n\nmax_zoom = 5\n", 2, "map.min_zoom"),
            ("[log]\nlevel = \"info\"\n[display]\n\n[\u{1}]\n", 5, nil),
        ]
        for (lf, line, key) in cases {
            let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
            let a = error(lf), b = error(crlf)
            #expect(a?.line == line, "LF: \(String(describing: a))")
            #expect(b?.line == line && b?.key == a?.key, "CRLF: \(String(describing: b)) for \(crlf.debugDescription)")
            if let key { #expect(b?.key == key) }
        }
        // A file mixing both line ends (appended to on another system) counts each once.
        #expect(error("[display]\r\nbackend = \"drm\"\n\r\nconector = 1\r\n")?.line == 4)
    }

    @Test func missingFileSaysSo() {
        do {
            _ = try KioskConfiguration.load(path: "/nonexistent/touchbridge.toml")
            Issue.record("expected an error")
        } catch let e as ConfigError {
            #expect(e.file == "/nonexistent/touchbridge.toml" && e.message.contains("cannot read"))
        } catch { Issue.record("wrong error \(error)") }
    }
}

/// MomentumLaw is in px/s, the file in mm/s: the conversion happens once, with the panel's
/// density, and the slowest fling is the recogniser's own momentumMinVelocity.
@Suite struct MomentumDensityTests {
    /// A one-finger pan at `mmPerSecond` to the right, lifted while moving; returns how far the
    /// map kept moving (px) in the 0.3 s after the lift.
    func glideAfterLift(_ pipeline: MapPipeline, ppm: Double, mmPerSecond: Double) -> Double {
        let dt = 1.0 / 120
        var x = 400.0, t = 10.0
        for _ in 0..<60 {
            pipeline.handle(ContactFrame(time: t, contacts: [Contact(id: 1, position: Point(x: x, y: 300))]))
            x += mmPerSecond * ppm * dt; t += dt
        }
        pipeline.handle(ContactFrame(time: t, contacts: []))
        let atLift = pipeline.controller.camera.target
        pipeline.advance(to: t + 0.3)
        let after = pipeline.controller.camera.target
        return abs(after.longitude - atLift.longitude)
    }

    @Test func aSlowFlingOnALargePanelIsKeptAtTheRecognisersMinimum() throws {
        // 2 px/mm (a large panel); 60 mm/s = 120 px/s: above the recogniser's 50 mm/s, below
        // MomentumLaw's fixed 150 px/s.
        let density = PixelDensity(pixelsPerMillimetre: 2, source: .deviceResolution)
        let cfg = KioskConfiguration()
        let screen = Size(width: 1920, height: 1080)
        let m = cfg.mapConfiguration(density: density).momentum
        #expect(abs(m.minStartSpeed - 100) < 1e-9)
        #expect(m.startVelocity(Point(x: 120, y: 0)) != nil)

        let converted = MapPipeline(configuration: cfg, screen: screen, density: density)
        #expect(glideAfterLift(converted, ppm: 2, mmPerSecond: 60) > 0)
        // The same release with the px/s law as it was (150 px/s, whatever the panel): no fling.
        let fixedPX = MapPipeline(screen: screen, camera: cfg.map.camera, recognizer: cfg.gestures.recognizer(density: density, screen: screen),
                                  mapConfiguration: MapConfiguration())
        #expect(glideAfterLift(fixedPX, ppm: 2, mmPerSecond: 60) == 0)
    }

    @Test func defaultsAreTheLawsFiguresAt96DPIAndTheFileSetsMillimetres() throws {
        let m96 = KioskConfiguration().mapConfiguration(density: .assumed).momentum
        #expect(abs(m96.stopSpeed - MomentumLaw().stopSpeed) < 1e-9)
        #expect(abs(m96.maxStartSpeed - MomentumLaw().maxStartSpeed) < 1e-9)
        #expect(m96.timeConstant == MomentumLaw().timeConstant)

        let cfg = try KioskConfiguration.parse(text: """
            [gestures]
            fling_min_speed_mm_s = 40
            momentum_stop_speed_mm_s = 5
            momentum_max_speed_mm_s = 1000
            """, file: "t.toml")
        let m = cfg.mapConfiguration(density: PixelDensity(pixelsPerMillimetre: 4, source: .displaySize)).momentum
        #expect(m.minStartSpeed == 160 && m.stopSpeed == 20 && m.maxStartSpeed == 4000)
        #expect(throws: ConfigError.self) { try KioskConfiguration.parse(text: "[gestures]\nmomentum_stop_speed_mm_s = 0\n", file: "t.toml") }
        #expect(throws: ConfigError.self) {
            try KioskConfiguration.parse(text: "[gestures]\nmomentum_stop_speed_mm_s = 5\nmomentum_max_speed_mm_s = 4\n", file: "t.toml")
        }
    }
}
