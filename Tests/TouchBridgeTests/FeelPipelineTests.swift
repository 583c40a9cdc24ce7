import Foundation
import Testing
import TouchCore
import Gestures
import MapEngine
@testable import TouchBridge
@testable import Kiosk

/// Issue 14 at the kiosk's level: the runtime mask API and SIGHUP end a running gesture
/// cleanly and keep markers and the open info window; the shipped configurations start where
/// they say; the recogniser's transitions reach the log.
@Suite struct FeelPipelineTests {
    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String] = []
        func add(_ s: String) { lock.lock(); items.append(s); lock.unlock() }
        var all: [String] { lock.lock(); defer { lock.unlock() }; return items }
    }

    func makeView() throws -> MapView {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))] // no real devices on this host
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 6), zoom: 4.2)
        cfg.markers = [.init(id: "bern", coordinate: Coordinate(latitude: 46.95, longitude: 7.45), title: "Bern")]
        let view = try MapView(configuration: cfg, display: MemoryDisplay(width: 1280, height: 800), log: KioskLog(level: .error))
        view.add(Marker(id: "app", position: Coordinate(latitude: 48.8566, longitude: 2.3522), title: "Paris"))
        return view
    }

    /// Two fingers spreading about the screen centre at 60 Hz from `t0`, `frames` frames.
    func spread(_ view: MapView, from t0: Double, frames: Int, startSpan: Double = 200) -> Double {
        var t = t0
        for k in 0..<frames {
            let half = (startSpan + 6 * Double(k)) / 2
            view.pipeline.handle(ContactFrame(time: t, contacts: [Contact(id: 1, position: Point(x: 640 - half, y: 400)),
                                                                  Contact(id: 2, position: Point(x: 640 + half, y: 400))]))
            t += 1.0 / 60
        }
        return t
    }

    func types(_ lines: [String]) -> [String] {
        lines.compactMap { l -> String? in
            guard let d = try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any], let type = d["type"] as? String
            else { return nil }
            if type == "gesture" { return "\(d["gesture"]!).\(d["phase"]!)" }
            return type
        }
    }

    @Test func changingTheMaskMidPinchEndsItCleanlyAndKeepsTheInfoWindow() throws {
        let view = try makeView()
        let lines = Lines()
        view.pipeline.sink = { lines.add($0) }
        view.selectedMarker = "app"
        view.pipeline.begin(at: 100)
        var t = spread(view, from: 100, frames: 20)
        #expect(types(lines.all).contains("pinch.began"))
        let before = lines.all.count
        view.setGestureMask(GestureMask.all.subtracting(.rotate), at: t)
        #expect(Array(types(Array(lines.all[before...])).drop { $0 == "didChange" }) == ["pinch.ended", "idleAt"],
                "ended, then idleAt: \(lines.all[before...])")
        #expect(view.gestureMask == GestureMask.all.subtracting(.rotate))
        // The fingers still down are ignored until they lift: no camera change.
        let camera = view.controller.camera
        t = spread(view, from: t, frames: 10, startSpan: 320)
        view.pipeline.handle(ContactFrame(time: t, contacts: []))
        view.pipeline.advance(to: t + 2)
        #expect(view.controller.camera == camera)
        #expect(view.selectedMarker == "app", "the open info window stays open")
        #expect(Set(view.controller.markers.map(\.id)) == ["bern", "app"])
        // A new pinch works again.
        _ = spread(view, from: t + 3, frames: 20)
        #expect(view.controller.camera.zoom > camera.zoom)
    }

    @Test func aReloadMidPinchEndsItCleanlyAndKeepsMarkersAndTheInfoWindow() throws {
        let view = try makeView()
        let lines = Lines()
        view.pipeline.sink = { lines.add($0) }
        view.selectedMarker = "bern"
        view.pipeline.begin(at: 100)
        let t = spread(view, from: 100, frames: 20)
        let before = lines.all.count
        var new = view.configuration
        new.gestures.thresholds.pinchStartSpanChange = 7
        new.markers.append(.init(id: "zurich", coordinate: Coordinate(latitude: 47.37, longitude: 8.54), title: "Zurich"))
        view.pipeline.reconfigure(new, at: t)
        #expect(Array(types(Array(lines.all[before...])).drop { $0 == "didChange" }) == ["pinch.ended", "idleAt"],
                "ended, then idleAt: \(lines.all[before...])")
        #expect(view.pipeline.recognizer.thresholds.pinchStartSpanChange == 7)
        #expect(view.selectedMarker == "bern", "a reload keeps the open info window")
        #expect(Set(view.controller.markers.map(\.id)) == ["bern", "app", "zurich"], "app markers stay")
    }

    @Test func theShippedDefaultStartsWhereItSaysAndStaysThere() throws {
        let cfg = try KioskConfiguration.load(path: repoRoot.appendingPathComponent("Configs/default.toml").path)
        let screen = Size(width: 1280, height: 800)
        let p = MapPipeline(configuration: cfg, screen: screen, density: PixelDensity(pixelsPerMillimetre: 5, source: .assumed))
        p.begin(at: 10)
        #expect(p.controller.camera == cfg.map.camera && p.controller.cameraMode == .free)
        // A slow pan, then a long wait: the camera stays where the pan left it.
        for k in 0...30 {
            p.handle(ContactFrame(time: 11 + Double(k) / 60, contacts: [Contact(id: 1, position: Point(x: 400 + 10 * Double(k), y: 400))]))
        }
        p.handle(ContactFrame(time: 11.7, contacts: []))
        p.advance(to: 15)
        let left = p.controller.camera
        #expect(left != cfg.map.camera)
        p.advance(to: 60)
        #expect(p.controller.camera == left && p.controller.cameraMode == .free && p.controller.nextDeadline == nil)
    }

    @Test func theFollowingKioskExampleStartsFollowing() throws {
        let cfg = try KioskConfiguration.load(path: repoRoot.appendingPathComponent("Configs/following-kiosk.toml").path)
        let p = MapPipeline(configuration: cfg, screen: Size(width: 1280, height: 800),
                            density: PixelDensity(pixelsPerMillimetre: 5, source: .assumed))
        p.begin(at: 10)
        #expect(p.controller.cameraMode == .following)
        let cam = p.controller.camera
        #expect(cam.bearing == 30 && cam.tilt == 45 && cam.zoom == 16)
        // The Navigation SDK's following camera: the position low on the screen (at 0.75 of the
        // height, on the vertical centre line), the camera behind it facing its heading.
        let p0 = try #require(p.controller.projection.point(for: Coordinate(latitude: 48.8566, longitude: 2.3522)))
        #expect(abs(p0.x - 640) < 1 && abs(p0.y - 600) < 1)
    }

    @Test func recogniserTransitionsReachTheLog() {
        let p = MapPipeline(configuration: KioskConfiguration(), screen: Size(width: 1280, height: 800),
                            density: PixelDensity(pixelsPerMillimetre: 5, source: .assumed))
        let logged = Lines()
        p.logTransitions { level, message in logged.add("\(level) \(message)") }
        p.begin(at: 1)
        p.handle(ContactFrame(time: 1, contacts: [Contact(id: 1, position: Point(x: 100, y: 100))]))
        p.handle(ContactFrame(time: 1.05, contacts: []))
        #expect(logged.all.first == "debug gesture: 1.0 idle -> fingerDown -> oneFingerDown", "\(logged.all)")
        #expect(logged.all.contains { $0.contains("oneFingerDown -> fingerUp -> tapPending") })
    }
}
