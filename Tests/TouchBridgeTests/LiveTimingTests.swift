import Foundation
import Testing
import TouchCore
import Gestures
import MapEngine
import Platform
@testable import TouchDevices
@testable import TouchBridge
@testable import Kiosk

/// Live is not replay (issue 29): a kiosk that was not scheduled for a while (a busy board,
/// SIGSTOP) wakes with input waiting in its touchscreens and a deadline (long press, double tap,
/// lift grace) already past. The input must be judged by its kernel timestamps: what was
/// stamped before the deadline is read and handled first. Scripted devices (each batch one
/// read) adopted by the kiosk's own device manager; explicit times, no sleeps.
@Suite struct LiveTimingTests {
    let path = "/dev/input/event43"

    func makeView() throws -> MapView {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))] // no real devices on this host
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 6), zoom: 5)
        return try MapView(configuration: cfg, display: MemoryDisplay(width: 1280, height: 800), log: KioskLog(level: .error))
    }

    /// `script`'s events as reads: the first read ends at `firstRead` (events at or before it),
    /// the second read has the rest (what waits in the device while the kiosk is stopped).
    func plug(_ view: MapView, _ script: TouchScript, firstRead: Double) -> TouchDevice {
        let n = script.events.firstIndex { $0.time > firstRead } ?? script.events.count
        let source = ScriptedEventSource([.init(Array(script.events[..<n])), .init(Array(script.events[n...]))])
        let device = TouchDevice(path: path, descriptor: pollable(), capabilities: script.device, source: source,
                                 screen: view.screen, now: script.events.first?.time ?? 0)
        view.handle(view.input.adopt(device, foundBy: "script"))
        view.pipeline.begin(at: script.events.first?.time ?? 0)
        return device
    }

    /// The gestures the pipeline delivers from now on, `changed` left out.
    func observe(_ view: MapView) -> () -> [String] {
        final class Box { var kinds: [String] = [] }
        let box = Box()
        view.pipeline.gestureObserver = { e in if e.phase != .changed { box.kinds.append("\(e.kind).\(e.phase)") } }
        return { box.kinds }
    }

    func tapScript(_ view: MapView) -> TouchScript {
        var s = TouchScript(screen: view.screen, start: 1)
        s.tap(Point(x: 640, y: 400), hold: 0.07) // down at 1.0, lift at 1.07
        return s
    }

    /// The timer of the long-press deadline (1.5 s) fires at 1.8 s with the lift (1.07 s) still
    /// unread: the kiosk reads it first, so the touch is a tap.
    @Test func aLiftWaitingWhenTheLongPressTimerFiresIsATap() throws {
        let view = try makeView()
        let kinds = observe(view)
        let device = plug(view, tapScript(view), firstRead: 1.0)
        view.handle(view.input.handle(fd: device.fd))
        #expect(view.pipeline.contactsDown == 1)
        view.catchUp(to: 1.8) // what the loop's timer does
        #expect(view.pipeline.contactsDown == 0)
        #expect(kinds() == ["tap.recognized"])
    }

    /// The same wake-up in the old order (deadlines first, then the input): a long press. This
    /// is the live miss of issue 29; it shows the test above can fail.
    @Test func deadlinesBeforeTheWaitingInputGiveTheWrongGesture() throws {
        let view = try makeView()
        let kinds = observe(view)
        let device = plug(view, tapScript(view), firstRead: 1.0)
        view.handle(view.input.handle(fd: device.fd))
        view.pipeline.advance(to: 1.8)
        view.handle(view.input.readAll())
        #expect(kinds().contains("longPress.recognized"))
        #expect(!kinds().contains("tap.recognized"))
    }

    /// A drag that ends resting: the kiosk read the touch-down, then slept through the move and
    /// past the long-press time. Read late, the move still comes before the deadline: a pan
    /// that moves the map, no long press.
    @Test func aDragReadLateIsAPanNotALongPress() throws {
        let view = try makeView()
        let kinds = observe(view)
        var s = TouchScript(screen: view.screen, start: 1)
        s.frame([0: Point(x: 400, y: 420)])
        s.wait(0.05)
        s.move([0: Point(x: 400, y: 420)], [0: Point(x: 700, y: 460)], duration: 0.25, lift: false)
        for _ in 0..<30 { s.wait(0.01); s.frame([0: Point(x: 700, y: 460)]) } // resting
        s.wait(0.01)
        s.frame([:], lift: [0])
        let device = plug(view, s, firstRead: 1.0)
        view.handle(view.input.handle(fd: device.fd))
        let before = view.controller.camera
        view.catchUp(to: 2.2)
        #expect(kinds() == ["pan.began", "pan.ended"])
        #expect(view.controller.camera.target != before.target)
        #expect(view.pipeline.contactsDown == 0)
    }

    /// A double tap whose second touch and lift wait unread when the first tap's double-tap
    /// timer fires: one double tap, not a tap and then a second tap (or a long press).
    @Test func aSecondTapWaitingWhenTheDoubleTapTimerFiresIsADoubleTap() throws {
        let view = try makeView()
        let kinds = observe(view)
        var s = TouchScript(screen: view.screen, start: 1)
        s.tap(Point(x: 640, y: 400), hold: 0.07)
        s.wait(0.12)
        s.tap(Point(x: 642, y: 401), hold: 0.07)
        let device = plug(view, s, firstRead: 1.08) // the first tap read; the second waits
        view.handle(view.input.handle(fd: device.fd))
        view.catchUp(to: 2.0) // past the first tap's double-tap deadline (1.37) and a long press
        #expect(kinds().first == "doubleTap.recognized")
        #expect(!kinds().contains("tap.recognized") && !kinds().contains("longPress.recognized"))
        view.catchUp(to: 4)
        #expect(view.controller.camera.zoom > 5.5) // the double tap zoomed in
    }

    /// A kiosk started before its touchscreen (or given another by hotplug) judges gestures at
    /// the density of the panel it reads, as `replay` does with the recording's device: with
    /// the start's density (no panel yet: 96 dpi) a short drag stays within the long-press slop.
    @Test func aPanelPluggedInLaterBringsItsDensity() throws {
        let view = try makeView()
        let before = view.pipeline.recognizer.pixelsPerMillimetre
        let s = tapScript(view)
        let expected = Replay.density(configuration: view.configuration, touch: s.device, screen: view.screen).pixelsPerMillimetre
        #expect(abs(expected - before) > 0.5)
        _ = plug(view, s, firstRead: 1.0)
        #expect(view.pipeline.recognizer.pixelsPerMillimetre == expected)
        #expect(view.pipeline.pixelsPerMillimetre == expected)
    }

    /// A new density never splits a gesture: it waits for the fingers to lift (and for a tap's
    /// double-tap wait to end), then applies.
    @Test func aNewDensityWaitsForTheGestureToEnd() throws {
        let view = try makeView()
        let device = plug(view, tapScript(view), firstRead: 1.0)
        let old = view.pipeline.recognizer.pixelsPerMillimetre
        view.handle(view.input.handle(fd: device.fd)) // the finger is down
        #expect(view.pipeline.contactsDown == 1)
        view.pipeline.useDensity(PixelDensity(pixelsPerMillimetre: old * 2, source: .displaySize), gestures: view.configuration.gestures)
        #expect(view.pipeline.recognizer.pixelsPerMillimetre == old)
        #expect(view.pipeline.pixelsPerMillimetre == old * 2) // what the next gesture gets
        view.catchUp(to: 1.2) // lifted at 1.07; the tap waits for a second one until 1.37
        #expect(view.pipeline.recognizer.pixelsPerMillimetre == old)
        view.catchUp(to: 1.5)
        #expect(view.pipeline.recognizer.pixelsPerMillimetre == old * 2)
    }

    /// The kernel's buffer overflowed while the kiosk slept (SYN_DROPPED): the log names the
    /// device, the finger still down keeps its id at where it is now, and the pan goes on and
    /// ends at the lift (not cancelled, not lost).
    @Test func anOverflowIsSaidAndTheGestureGoesOn() throws {
        let view = try makeView()
        let kinds = observe(view)
        var s = TouchScript(screen: view.screen, start: 1)
        s.move([0: Point(x: 300, y: 400)], [0: Point(x: 600, y: 400)], duration: 0.5, lift: false)
        let moved = s.events
        for _ in 0..<15 { s.wait(0.01); s.frame([0: Point(x: 600, y: 400)]) } // resting: no fling
        s.wait(0.01)
        s.frame([:], lift: [0])
        let cut = moved.firstIndex { $0.time > 1.1 } ?? moved.count
        // The state libevdev re-reads after the drop: the finger down where the move ended.
        func last(_ code: UInt16) -> Int32 { moved.last { $0.type == EV.ABS && $0.code == code }!.value }
        var slots = [SlotState](repeating: SlotState(), count: 10)
        slots[0] = SlotState(trackingID: last(ABS.MT_TRACKING_ID), x: last(ABS.MT_POSITION_X), y: last(ABS.MT_POSITION_Y))
        let source = ScriptedEventSource([
            .init(Array(moved[..<cut])),
            .init([InputEvent(time: 1.45, type: EV.SYN, code: SYN.DROPPED, value: 0)], stateAfterDrop: DeviceState(slots: slots)),
            .init(Array(s.events[moved.count...])),
        ])
        let device = TouchDevice(path: path, descriptor: pollable(), capabilities: s.device, source: source,
                                 screen: view.screen, now: 1)
        view.handle(view.input.adopt(device, foundBy: "script"))
        view.pipeline.begin(at: 1)
        let start = view.controller.camera
        view.handle(view.input.handle(fd: device.fd))
        #expect(kinds() == ["pan.began"])
        let events = view.input.handle(fd: device.fd)
        let warnings = events.compactMap { e -> String? in if case .warning(let w, .warning) = e { return w } else { return nil } }
        #expect(warnings.count == 1 && warnings[0].contains(path) && warnings[0].contains("overflowed"))
        view.handle(events)
        #expect(view.pipeline.contactsDown == 1)
        #expect(kinds() == ["pan.began"]) // not cancelled
        view.handle(view.input.handle(fd: device.fd))
        view.catchUp(to: 3)
        #expect(kinds() == ["pan.began", "pan.ended"])
        // The map followed the finger all the way (300 px at zoom 5), from the state after the drop.
        let p0 = view.controller.projection.point(for: start.target)
        #expect(p0.map { abs($0.x - (640 + 300)) < 2 } == true)
    }
}
