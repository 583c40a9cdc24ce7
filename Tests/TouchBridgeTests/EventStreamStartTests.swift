import Foundation
import Testing
import TouchCore
import Gestures
import MapEngine
@testable import TouchBridge
@testable import Kiosk

/// Issue 30: the stream's first line shows the camera the kiosk really starts with and says
/// its mode; didChange lines are not repeated.
@Suite struct EventStreamStartTests {
    static let evemu = repoRoot.appendingPathComponent("Tests/TouchCoreTests/Fixtures/evemu")

    func json(_ line: String) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any] ?? [:]
    }

    @Test func theStartLineShowsTheFollowingCameraAndTheMode() throws {
        var cfg = try KioskConfiguration.parse(text: """
        [map]
        latitude = 0.0
        longitude = 0.0
        zoom = 3.0
        [camera]
        mode = "following"
        position = [47.14, 9.52]
        following_zoom = 16.0
        """, file: "t.toml")
        cfg.gestures.pixelsPerMM = 5
        var lines: [String] = []
        let p = MapPipeline(configuration: cfg, screen: Size(width: 1280, height: 800),
                            density: PixelDensity(pixelsPerMillimetre: 5, source: .assumed)) { lines.append($0) }
        p.start()
        let start = json(lines[0])
        #expect(start["type"] as? String == "start" && start["mode"] as? String == "following", "\(lines[0])")
        let cam = start["camera"] as? [String: Any]
        #expect(cam?["zoom"] as? Double == 16 && cam?["tilt"] as? Double == 45, "\(lines[0])")
        // The camera after the clock starts is the one the line announced.
        p.begin(at: 100)
        #expect(abs(p.controller.camera.zoom - 16) < 1e-9 && p.controller.cameraMode == .following)
        // Free: said too.
        var free: [String] = []
        let q = MapPipeline(configuration: KioskConfiguration(), screen: Size(width: 1280, height: 800),
                            density: PixelDensity(pixelsPerMillimetre: 5, source: .assumed)) { free.append($0) }
        q.start()
        #expect(json(free[0])["mode"] as? String == "free" && (json(free[0])["camera"] as? [String: Any])?["zoom"] as? Double == 3)
    }

    @Test(arguments: ["Atmel maXTouch Touchscreen.1-finger-drag-up-down", "ELAN CANDO Windows7.1-finger-drag-up-down",
                      "Atmel maXTouch Touchscreen.4-finger-drag-down"])
    func noTwoDidChangeLinesInARowCarryTheSameCamera(_ name: String) throws {
        var cfg = KioskConfiguration()
        // Bounds close around the start: pans run against the edge, where the camera stops.
        cfg.map.bounds = CoordinateBounds(west: 2.3, south: 48.8, east: 2.4, north: 48.9)
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 48.85, longitude: 2.35), zoom: 12)
        let rec = try Replay.load(path: Self.evemu.appendingPathComponent(name + ".events").path, descPath: nil)
        var lines: [String] = []
        Replay.run(rec, screen: Size(width: 1280, height: 800), configuration: cfg, contacts: false) { lines.append($0) }
        var previous = ""
        var changes = 0
        for l in lines {
            if json(l)["type"] as? String == "didChange" {
                changes += 1
                #expect(l != previous, "a repeated line: \(l)")
            }
            previous = l
        }
        #expect(changes > 0)
    }
}
