import Foundation
import Testing
import TouchCore
@testable import Gestures

/// Third fingers, palms and cancelled contacts end gestures cleanly; disabled gestures neither
/// fire nor block the others.
struct CancelAndMaskTests {
    @Test(arguments: Rig.all)
    func thirdFingerNeverFreezesAPinchAndTheNextTouchWorksAgain(rig: Rig) {
        var s = Script(rig, seed: 21)
        s.down(1, 80, 70)
        s.down(2, 120, 70)
        s.move([1: (70, 70), 2: (130, 70)], over: 0.2)
        s.down(3, 100, 100)
        s.move([1: (60, 70), 2: (140, 70), 3: (100, 120)], over: 0.2)
        s.up(3)
        s.move([1: (50, 70), 2: (150, 70)], over: 0.2)
        s.up(1)
        s.up(2)
        s.wait(0.5)
        s.tap(4, 90, 60)
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["pinch.began", "pinch.changed", "pinch.ended", "tap.recognized"])
        // The pinch went on while the third finger was down and after it lifted: 40 -> 100 mm.
        let zoom = log2(of(.pinch, events).reduce(1.0) { $0 * $1.scale })
        #expect(abs(zoom - log2(100.0 / 40)) < 0.02, "zoom \(zoom)")
        #expect(r.state == .idle)
    }

    @Test func threeFingersLandingTogetherDoNothing() {
        var s = Script(.plain)
        s.down(1, 80, 70)
        s.down(2, 110, 70)
        s.down(3, 140, 70)
        s.hold(0.05)
        s.up(1)
        s.up(2)
        s.up(3)
        var r = Rig.plain.recognizer()
        #expect(run(s, &r).isEmpty)
        #expect(r.state == .idle)
    }

    @Test(arguments: Rig.all)
    func cancelledContactCancelsAPanWithoutMomentum(rig: Rig) {
        var s = Script(rig)
        s.down(1, 60, 60)
        s.move([1: (120, 60)], over: 0.3)
        s.cancel(1)
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["pan.began", "pan.changed", "pan.cancelled"])
        #expect(events.last!.velocity == .zero)
        #expect(events.last!.reason?.contains("cancelled") == true)
        #expect(r.state == .idle)
    }

    @Test func palmDuringATiltCancelsItAndIsIgnoredUntilLifted() {
        var s = Script(.plain, seed: 4)
        s.down(1, 80, 70)
        s.down(2, 120, 70)
        s.move([1: (80, 60), 2: (120, 60)], over: 0.2)
        s.palm(3, 100, 110)
        s.move([1: (80, 40), 2: (120, 40)], over: 0.2)
        s.up(3)
        s.up(1)
        s.up(2)
        var r = Rig.plain.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["tilt.began", "tilt.changed", "tilt.cancelled"])
        #expect(r.state == .idle)
    }

    @Test func palmLandingAloneCancelsAPossibleTap() {
        var s = Script(.plain)
        s.down(1, 80, 70)
        s.palm(2, 120, 110)
        s.up(2)
        s.up(1)
        var r = Rig.plain.recognizer()
        #expect(run(s, &r).isEmpty)
    }

    @Test(arguments: Rig.all)
    func withDoubleTapOffATapFiresOnTheLift(rig: Rig) {
        var s = Script(rig)
        s.tap(1, 80, 60)
        var r = rig.recognizer(mask: GestureMask.all.subtracting(.doubleTap))
        var events: [GestureEvent] = []
        for f in s.frames { events += r.process(f) }
        #expect(names(events) == ["tap.recognized"])
        #expect(events[0].time == s.frames.last!.time)
        #expect(r.nextDeadline == nil)
    }

    @Test func withDoubleTapOffTwoQuickTapsAreTwoTaps() {
        var s = Script(.plain)
        s.tap(1, 80, 60)
        s.wait(0.1)
        s.tap(2, 80, 60)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.doubleTap))
        #expect(names(run(s, &r)) == ["tap.recognized", "tap.recognized"])
    }

    @Test func withTapOffADoubleTapStillFiresAndASingleTapIsSilent() {
        var s = Script(.plain)
        s.tap(1, 80, 60)
        s.wait(1)
        s.tap(2, 80, 60)
        s.wait(0.1)
        s.tap(3, 80, 60)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.tap))
        #expect(names(run(s, &r)) == ["doubleTap.recognized"])
    }

    @Test(arguments: Rig.all)
    func withRotateOffATwistDoesNothingAndPinchStillWorks(rig: Rig) {
        var s = Script(rig, seed: 8)
        s.down(1, 80, 70)
        s.down(2, 120, 70)
        s.pair(1, 2, over: 0.4) { f in (Point(x: 100, y: 70), 40, 45 * f) }    // twist only
        s.up(1)
        s.up(2)
        s.wait(0.5)
        s.down(3, 80, 70)
        s.down(4, 120, 70)
        s.pair(3, 4, over: 0.4) { f in (Point(x: 100, y: 70), 40 + 30 * f, 45 * f) }    // twist and spread
        s.up(3)
        s.up(4)
        var r = rig.recognizer(mask: GestureMask.all.subtracting(.rotate))
        let events = run(s, &r)
        #expect(story(events) == ["pinch.began", "pinch.changed", "pinch.ended"])
        #expect(events.allSatisfy { $0.rotation == 0 })
    }

    @Test func withTiltOffFingersMovedUpTogetherPan() {
        var s = Script(.plain, seed: 2)
        s.down(1, 80, 70)
        s.down(2, 120, 70)
        s.move([1: (80, 45), 2: (120, 45)], over: 0.3)
        s.up(1)
        s.up(2)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.tilt))
        #expect(story(run(s, &r)) == ["twoFingerPan.began", "twoFingerPan.changed", "twoFingerPan.ended"])
    }

    @Test func withPanOffADragDoesNothingAndATapStillWorks() {
        var s = Script(.plain)
        s.down(1, 60, 60)
        s.move([1: (120, 60)], over: 0.3)
        s.up(1)
        s.wait(0.5)
        s.tap(2, 80, 60)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.pan))
        #expect(names(run(s, &r)) == ["tap.recognized"])
    }

    @Test func withLongPressOffAHeldFingerStillPans() {
        var s = Script(.plain)
        s.down(1, 60, 60)
        s.hold(0.8)
        s.move([1: (90, 60)], over: 0.3)
        s.up(1)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.longPress))
        #expect(story(run(s, &r)) == ["pan.began", "pan.changed", "pan.ended"])
    }

    @Test func withTwoFingerTapOffATwoFingerTouchIsNothing() {
        var s = Script(.plain)
        s.down(1, 80, 60)
        s.down(2, 110, 62)
        s.hold(0.08)
        s.up(1)
        s.up(2)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.twoFingerTap))
        #expect(run(s, &r).isEmpty)
    }

    @Test func withEverythingOffNothingFires() {
        var s = Script(.plain)
        s.tap(1, 80, 60)
        s.wait(0.1)
        s.tap(2, 80, 60)
        s.down(3, 60, 60)
        s.hold(0.8)
        s.move([3: (90, 60)], over: 0.3)
        s.down(4, 90, 100)
        s.move([3: (60, 40), 4: (120, 120)], over: 0.3)
        s.up(3)
        s.up(4)
        var r = Rig.plain.recognizer(mask: .none)
        #expect(run(s, &r).isEmpty)
    }
}

extension CancelAndMaskTests {
    @Test func aFingerTurningIntoAPalmCancelsOnceAndLogsOnce() {
        // MT_TOOL_PALM on a slot already down: the same id changes its tool type.
        var r = Rig.plain.recognizer()
        var steps: [GestureTransition] = []
        var events: [GestureEvent] = []
        for (i, x) in stride(from: 100.0, through: 200, by: 10).enumerated() {
            let tool: ToolType = i >= 6 ? .palm : .finger
            events += r.process(ContactFrame(time: 1 + Double(i) / 60,
                                             contacts: [Contact(id: 1, position: Point(x: x, y: 100), toolType: tool)]))
            steps += r.trace
        }
        events += r.process(ContactFrame(time: 1.3, contacts: []))
        steps += r.trace
        #expect(story(events) == ["pan.began", "pan.changed", "pan.cancelled"])
        #expect(steps.filter { $0.input == .cancel }.count == 1)
        #expect(r.state == .idle)
    }
}
