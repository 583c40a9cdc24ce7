import Foundation
import Testing
import Platform
import TouchCore
import Gestures
import MapEngine
@testable import TouchBridge
@testable import Kiosk

/// The façade as an app uses it: a MapView on a memory display, a delegate, markers; input
/// through the same assembler as a panel's (scripted frames with explicit times).
@Suite struct MapViewTests {
    final class Recorder: MapViewDelegate {
        var calls: [String] = []
        var handleMarkerTaps = false
        func willMove(gesture: Bool) { calls.append("willMove(\(gesture))") }
        func idleAt(_ camera: CameraPosition) { calls.append("idleAt") }
        func didTapAt(_ c: Coordinate) { calls.append("didTapAt") }
        func didTap(marker: Marker) -> Bool { calls.append("didTap(\(marker.id))"); return handleMarkerTaps }
        func didCloseInfoWindowOf(_ m: Marker) { calls.append("didClose(\(m.id))") }
        func didLongPressAt(_ c: Coordinate) { calls.append("didLongPressAt") }
    }

    func makeView() throws -> (MapView, Recorder) {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))] // no real devices on this host
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 6), zoom: 4.2)
        let view = try MapView(configuration: cfg, display: MemoryDisplay(width: 1280, height: 800), log: KioskLog(level: .error))
        let rec = Recorder()
        view.delegate = rec
        view.add(Marker(id: "paris", position: Coordinate(latitude: 48.8566, longitude: 2.3522), title: "Paris", snippet: "Capital"))
        return (view, rec)
    }

    func play(_ view: MapView, _ script: TouchScript) {
        var a = FrameAssembler(capabilities: script.device, screen: view.screen)
        for e in script.events { if let f = a.process(e) { view.pipeline.handle(f) } }
        view.pipeline.advance(to: script.time + 3)
    }

    @Test func tappingAMarkerOpensItsWindowAndATapElsewhereClosesIt() throws {
        let (view, rec) = try makeView()
        let tip = view.controller.projection.point(for: Coordinate(latitude: 48.8566, longitude: 2.3522))!
        var s = TouchScript(screen: view.screen, start: 1)
        s.tap(PinGeometry.headCenter(tip: tip))
        s.wait(1)
        s.tap(Point(x: 200, y: 700))
        play(view, s)
        #expect(rec.calls == ["didTap(paris)", "didClose(paris)", "didTapAt"])
        #expect(view.selectedMarker == nil)
    }

    @Test func theInfoWindowIsHitWhereItIsDrawn() throws {
        let (view, _) = try makeView()
        view.selectedMarker = "paris"
        view.drawAndPresent(now: 1)
        let (origin, size) = try #require(view.controller.infoWindowFrame())
        let f = view.drawnFrame
        func rgb(_ p: Point) -> UInt32 { f.pixel(x: Int(p.x), y: Int(p.y)) & 0xffffff }
        // White just inside the top and bottom of the box, map just outside it.
        #expect(rgb(origin + Point(x: size.width / 2, y: 3)) == 0xffffff)
        #expect(rgb(origin + Point(x: 4, y: size.height - 14)) == 0xffffff)
        #expect(rgb(origin + Point(x: size.width / 2, y: -3)) != 0xffffff)
        #expect(rgb(origin + Point(x: size.width + 3, y: size.height / 2)) != 0xffffff)
    }

    @Test func aDelegateSuppliesItsOwnInfoWindow() throws {
        let (view, _) = try makeView()
        final class Custom: MapViewDelegate {
            func markerInfoWindow(_ marker: Marker) -> InfoWindowContent? {
                InfoWindowContent(title: "Custom \(marker.id)", lines: ["line one", "line two"], backgroundRGB: 0xFFF3C4)
            }
        }
        let custom = Custom()
        view.delegate = custom
        view.selectedMarker = "paris"
        let scene = view.pipeline.scene(attribution: nil)
        #expect(scene.infoWindow?.content.title == "Custom paris")
        #expect(scene.infoWindow?.content.snippetText == "line one\nline two")
        view.drawAndPresent(now: 1)
        let (origin, size) = try #require(view.controller.infoWindowFrame())
        #expect(view.drawnFrame.pixel(x: Int(origin.x + size.width / 2), y: Int(origin.y + 3)) & 0xffffff == 0xFFF3C4)
    }

    @Test func aDelegateThatHandlesTheMarkerTapKeepsTheWindowClosed() throws {
        let (view, rec) = try makeView()
        rec.handleMarkerTaps = true
        let tip = view.controller.projection.point(for: Coordinate(latitude: 48.8566, longitude: 2.3522))!
        var s = TouchScript(screen: view.screen, start: 1)
        s.tap(PinGeometry.headCenter(tip: tip))
        play(view, s)
        #expect(rec.calls == ["didTap(paris)"])
        #expect(view.selectedMarker == nil)
    }

    @Test func aPanMovesTheCameraBetweenWillMoveAndOneIdleAt() throws {
        let (view, rec) = try makeView()
        let before = view.controller.camera
        var s = TouchScript(screen: view.screen, start: 1)
        s.move([0: Point(x: 800, y: 400)], [0: Point(x: 500, y: 380)], duration: 0.5)
        play(view, s)
        #expect(rec.calls.first == "willMove(true)")
        #expect(rec.calls.filter { $0 == "idleAt" }.count == 1)
        #expect(view.controller.camera.target.longitude > before.target.longitude)
    }

    @Test func framesAreDrawnOnlyWhenSomethingChanged() throws {
        let (view, _) = try makeView()
        let display = view.display as! MemoryDisplay
        #expect(view.pipeline.takeNeedsRedraw())
        view.drawAndPresent(now: 10)
        #expect(display.presented == 1)
        // Nothing happened: nothing to draw, no deadline pending.
        view.pipeline.advance(to: 20)
        #expect(!view.pipeline.takeNeedsRedraw())
        #expect(view.pipeline.nextDeadline == nil)
    }

    /// Once the first frame is on the glass and nothing moves, the kiosk does the renderer's
    /// idle work (the world's names measured), without arming a wake-up for it.
    @Test func theKioskDoesTheRenderersIdleWorkWhenIdle() throws {
        let (view, _) = try makeView()
        view.beforeWait()
        #expect((view.display as! MemoryDisplay).presented == 1)
        #expect(!view.renderer.prepareWhileIdle(), "the idle work is done")
        #expect(view.eventLoop.deadline == nil)
    }

    /// A DRM driver may refuse a page flip (EBUSY) while no flip of ours is pending, so no flip
    /// event will come: the kiosk must try again by itself, or the frame drawn after the fingers
    /// lift (the exact camera, not a predicted one) stays off the glass until the next touch.
    @Test func aRefusedFrameIsPresentedWithoutWaitingForInput() throws {
        let (view, _) = try makeView()
        let display = view.display as! MemoryDisplay
        display.busyPresents = 1
        let before = MonotonicClock.now()
        view.beforeWait()
        #expect(display.presented == 0)
        let retry = try #require(view.eventLoop.deadline)
        #expect(retry >= before && retry <= MonotonicClock.now() + 0.1)
        // At the wake-up the frame is drawn again and shown; then nothing more is pending.
        view.beforeWait()
        #expect(display.presented == 1)
        #expect(view.eventLoop.deadline == nil)
    }

    @Test func aTapOnADrawnPlaceNameIsAPOITap() throws {
        let (view, _) = try makeView()
        final class POIs: MapViewDelegate { var names: [String] = []; func didTapPOI(name: String, coordinate: Coordinate) { names.append(name) } }
        let pois = POIs()
        view.delegate = pois
        view.drawAndPresent(now: 1)
        let place = try #require(view.renderer.drawnPlaces.first { $0.kind == .city && $0.name != "Paris" })
        var s = TouchScript(screen: view.screen, start: 2)
        s.tap(place.point)
        play(view, s)
        #expect(pois.names == [place.name])
    }

    @Test func twoTouchscreensAreOneSurface() throws {
        let (view, _) = try makeView()
        var kinds: [GestureKind] = []
        view.pipeline.gestureObserver = { if $0.phase == .began { kinds.append($0.kind) } }
        // Each device numbers its contacts from 0 and reports only its own.
        for i in 0..<40 {
            let t = 1 + Double(i) / 100
            let d = Double(i) * 6
            view.feed(ContactFrame(time: t, contacts: [Contact(id: 0, position: Point(x: 500 - d, y: 400))]), from: "/dev/input/event5")
            view.feed(ContactFrame(time: t + 0.002, contacts: [Contact(id: 0, position: Point(x: 700 + d, y: 400))]), from: "/dev/input/event6")
        }
        #expect(kinds.contains(.pinch))
        #expect(view.pipeline.contactsDown == 2)
        view.feed(ContactFrame(time: 2, contacts: [], cancelled: [0]), from: "/dev/input/event6")
        #expect(view.pipeline.contactsDown == 1)
    }

    @Test func aCustomGestureHandlerReplacesTheDefault() throws {
        let (view, rec) = try makeView()
        var seen: [GestureKind] = []
        view.gestureHandler = { e in seen.append(e.kind); return e.kind == .pan }
        var s = TouchScript(screen: view.screen, start: 1)
        s.move([0: Point(x: 800, y: 400)], [0: Point(x: 500, y: 380)], duration: 0.5)
        let before = view.controller.camera
        play(view, s)
        #expect(seen.contains(.pan))
        #expect(view.controller.camera == before)
        #expect(!rec.calls.contains("willMove(true)"))
    }
}
