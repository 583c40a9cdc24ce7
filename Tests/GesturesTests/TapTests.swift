import Testing
import TouchCore
@testable import Gestures

/// Taps, double taps, long presses and two-finger taps, and the ambiguities between them.
struct TapTests {
    @Test(arguments: Rig.all)
    func tapIsConfirmedOnlyWhenTheDoubleTapTimeoutExpires(rig: Rig) {
        var s = Script(rig)
        s.tap(1, 80, 60)
        var r = rig.recognizer()
        var early: [GestureEvent] = []
        for f in s.frames { early += r.process(f) }
        #expect(early.isEmpty, "no tap before a double tap is ruled out")
        let lift = s.frames.last!.time
        #expect(r.nextDeadline == lift + 0.3)
        #expect(r.expire(at: lift + 0.29).isEmpty)
        let late = r.expire(at: lift + 1)
        #expect(names(late) == ["tap.recognized"])
        #expect(late[0].time == lift + 0.3)
        #expect(late[0].position.distance(to: Point(x: 80, y: 60) * rig.ppm) < 0.3 * rig.ppm)
        #expect(late[0].reason?.contains("doubleTapTimeout") == true)
        #expect(r.nextDeadline == nil)
        #expect(r.state == .idle)
    }

    @Test(arguments: Rig.all)
    func jitteryTapWithSmallDriftIsStillATap(rig: Rig) {
        var s = Script(rig, jitter: 0.4)
        s.down(1, 80, 60)
        s.move([1: (81.5, 60.5)], over: 0.1)
        s.up(1)
        var r = rig.recognizer()
        #expect(names(run(s, &r)) == ["tap.recognized"])
    }

    @Test(arguments: Rig.all)
    func smallMoveBeyondTheTapSlopIsAPanNotATap(rig: Rig) {
        var s = Script(rig)
        s.down(1, 80, 60)
        s.move([1: (85, 60)], over: 0.15)
        s.up(1)
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["pan.began", "pan.changed", "pan.ended"])
        #expect(of(.tap, events).isEmpty)
    }

    @Test(arguments: Rig.all)
    func twoQuickTapsAreOneDoubleTapAndNoTap(rig: Rig) {
        var s = Script(rig)
        s.tap(1, 80, 60)
        s.wait(0.15)
        s.tap(2, 82, 61)
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(names(events) == ["doubleTap.recognized"])
        #expect(events[0].time == s.frames.last!.time, "a double tap fires on the second lift")
        #expect(events[0].position.distance(to: Point(x: 82, y: 61) * rig.ppm) < 0.3 * rig.ppm)
    }

    @Test(arguments: Rig.all)
    func tappingOnKeepsProducingDoubleTaps(rig: Rig) {
        var s = Script(rig)
        for i in 0..<4 {
            s.tap(i, 80, 60)
            s.wait(0.12)
        }
        var r = rig.recognizer()
        #expect(names(run(s, &r)) == ["doubleTap.recognized", "doubleTap.recognized", "doubleTap.recognized"])
    }

    @Test func secondTapTooLateGivesTwoTaps() {
        var s = Script(.plain)
        s.tap(1, 80, 60)
        s.wait(0.35)
        s.tap(2, 80, 60)
        var r = Rig.plain.recognizer()
        #expect(names(run(s, &r)) == ["tap.recognized", "tap.recognized"])
    }

    @Test func secondTapTooFarConfirmsTheFirstAtOnce() {
        var s = Script(.plain)
        s.tap(1, 80, 60)
        s.wait(0.1)
        s.down(2, 120, 60)
        var r = Rig.plain.recognizer()
        var events: [GestureEvent] = []
        for f in s.frames { events += r.process(f) }
        #expect(names(events) == ["tap.recognized"], "the far touch rules out a double tap")
        #expect(events[0].time == s.frames.last!.time)
    }

    @Test(arguments: Rig.all)
    func stillFingerLongPressesAtItsPosition(rig: Rig) {
        var s = Script(rig)
        s.down(1, 90, 70)
        let downTime = s.frames[0].time
        s.hold(0.8)
        s.up(1)
        var r = rig.recognizer()
        _ = r.process(s.frames[0])
        #expect(r.nextDeadline == downTime + 0.5)
        r = rig.recognizer()
        let events = run(s, &r)
        #expect(names(events) == ["longPress.recognized"])
        #expect(abs(events[0].time - (downTime + 0.5)) < 1e-9)
        #expect(events[0].position.distance(to: Point(x: 90, y: 70) * rig.ppm) < 0.3 * rig.ppm)
    }

    @Test func touchHeldBetweenTapAndLongPressIsNothing() {
        var s = Script(.plain)
        s.down(1, 90, 70)
        s.hold(0.45)
        s.up(1)
        var r = Rig.plain.recognizer()
        #expect(run(s, &r).isEmpty)
    }

    @Test func draggingAfterALongPressDoesNotPan() {
        var s = Script(.plain)
        s.down(1, 90, 70)
        s.hold(0.6)
        s.move([1: (130, 70)], over: 0.3)
        s.up(1)
        var r = Rig.plain.recognizer()
        #expect(names(run(s, &r)) == ["longPress.recognized"])
    }

    @Test func movingBeforeTheLongPressTimeCancelsIt() {
        var s = Script(.plain)
        s.down(1, 90, 70)
        s.move([1: (94, 70)], over: 0.2)
        s.hold(0.6)
        s.up(1)
        var r = Rig.plain.recognizer()
        let events = run(s, &r)
        #expect(of(.longPress, events).isEmpty)
        #expect(of(.pan, events).first?.phase == .began)
    }

    @Test(arguments: Rig.all)
    func twoFingerTapIsRepeatable(rig: Rig) {
        var s = Script(rig)
        for _ in 0..<2 {
            s.down(1, 80, 60)
            s.down(2, 110, 62)
            s.hold(0.08)
            s.up(1)
            s.up(2)
            s.wait(0.2)
        }
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(names(events) == ["twoFingerTap.recognized", "twoFingerTap.recognized"])
        #expect(events[0].fingers == 2)
        #expect(events[0].position.distance(to: Point(x: 95, y: 61) * rig.ppm) < 0.3 * rig.ppm)
    }

    @Test func twoFingersHeldTooLongAreNoTwoFingerTap() {
        var s = Script(.plain)
        s.down(1, 80, 60)
        s.down(2, 110, 62)
        s.hold(0.5)
        s.up(1)
        s.up(2)
        var r = Rig.plain.recognizer()
        #expect(run(s, &r).isEmpty)
    }

    @Test func twoFingerTapFromAPanelReportingOneContactPerFrame() {
        // PenMount/eGalax style: each finger lands and lifts in its own frame, 8 ms apart.
        var s = Script(Rig(name: "one contact per frame", hz: 125, density: Rig.withResolution))
        s.down(1, 80, 60)
        s.down(2, 110, 62)
        s.hold(0.05)
        s.up(2)
        s.up(1)
        var r = Rig.plain.recognizer()
        #expect(names(run(s, &r)) == ["twoFingerTap.recognized"])
    }
}

extension TapTests {
    @Test func tapThenTouchAndHoldIsATapThenALongPress() {
        var s = Script(.plain)
        s.tap(1, 80, 60)
        s.wait(0.1)
        s.down(2, 81, 60)
        let second = s.lastTime
        s.hold(0.8)
        s.up(2)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.quickZoom))
        let events = run(s, &r)
        #expect(names(events) == ["tap.recognized", "longPress.recognized"])
        #expect(abs(events[0].time - (second + 0.4)) < 1e-9, "confirmed once the second touch outlasts a tap")
        #expect(abs(events[1].time - (second + 0.5)) < 1e-9)
    }

    @Test func doubleTapAndHoldWithQuickZoomOnGivesNoStrayTapAndCanStillZoom() {
        var s = Script(.plain)
        s.tap(1, 80, 60)
        s.wait(0.1)
        s.down(2, 81, 60)
        let second = s.lastTime
        s.hold(0.8)
        s.move([2: (81, 90)], over: 0.3)
        s.up(2)
        var r = Rig.plain.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["quickZoom.began", "quickZoom.changed", "quickZoom.ended"])
        #expect(events[0].time > second + 0.8, "nothing before the drag")
    }
}

extension TapTests {
    @Test func theLogSaysWhyTwoFingersWereNoTwoFingerTap() {
        var s = Script(.plain, jitter: 0)
        s.down(1, 80, 60)
        s.down(2, 110, 62)
        s.hold(0.5)
        s.up(1)
        s.up(2)
        var r = Rig.plain.recognizer()
        var notes: [String] = []
        for f in s.frames {
            _ = r.process(f)
            notes += r.trace.compactMap(\.note)
        }
        #expect(notes.contains { $0.hasPrefix("no two-finger tap: ") && $0.contains("> twoFingerTapMaxDuration 300.0 ms") })
    }
}
