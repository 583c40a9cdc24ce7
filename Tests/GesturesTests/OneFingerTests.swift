import Testing
import TouchCore
@testable import Gestures

/// One-finger pan with release velocity, and quick zoom.
struct OneFingerTests {
    @Test(arguments: Rig.all)
    func panTranslationsAddUpToTheFingersMotionFromTouchDown(rig: Rig) {
        var s = Script(rig)
        s.down(1, 60, 60)
        s.move([1: (100, 80)], over: 0.4)
        s.hold(0.2)
        s.up(1)
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["pan.began", "pan.changed", "pan.ended"])
        let first = s.frames.first!.contacts[0].position
        let last = s.frames[s.frames.count - 2].contacts[0].position
        let total = events.reduce(Point.zero) { $0 + $1.translation }
        #expect((total - (last - first)).length < 1e-9, "the map point first touched stays under the finger")
        // The dead zone is not paid in the first event (no jump): it carries the finger's own
        // step and a part of the distance crossed before, the rest comes over the next frames.
        let began = events[0], crossing = s.frames.firstIndex { $0.time == began.time }!
        let before = s.frames[crossing - 1].contacts[0].position
        let owed = before - first
        let f = 1 - exp(-(began.time - s.frames[crossing - 1].time) / GestureThresholds().catchUpTime)
        #expect((began.translation - ((began.position - before) + owed * f)).length < 1e-9)
        #expect(began.translation.length < (began.position - first).length - 0.5 * owed.length)
        #expect(events[0].reason?.contains("panStartDistance") == true)
        // Held still before lifting: no momentum.
        #expect(events.last!.velocity == .zero)
        #expect(events.last!.reason?.contains("momentumMinVelocity") == true)
    }

    @Test(arguments: Rig.all)
    func flickReleaseVelocityComesFromTheLast100Milliseconds(rig: Rig) {
        var s = Script(rig)
        s.down(1, 40, 60)
        s.move([1: (60, 60)], over: 0.4)   // slow start: 50 mm/s
        s.move([1: (120, 60)], over: 0.3)  // flick: 200 mm/s
        s.up(1)
        var r = rig.recognizer()
        let ended = run(s, &r).last!
        #expect(ended.kind == .pan && ended.phase == .ended)
        let mmPerSecond = ended.velocity.x / rig.ppm
        #expect(abs(mmPerSecond - 200) < 20, "measured \(mmPerSecond) mm/s")
        #expect(abs(ended.velocity.y / rig.ppm) < 15)
    }

    @Test func momentumDisabledReleasesWithZeroVelocity() {
        var s = Script(.plain)
        s.down(1, 40, 60)
        s.move([1: (120, 60)], over: 0.3)
        s.up(1)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.momentum))
        let events = run(s, &r)
        #expect(events.last!.phase == .ended)
        #expect(events.last!.velocity == .zero)
    }

    @Test(arguments: Rig.all)
    func quickZoomScalesByFourLevelsPerScreenHeight(rig: Rig) {
        var s = Script(rig)
        s.tap(1, 80, 40)
        s.wait(0.1)
        s.down(2, 80, 40)
        let quarter = Rig.screen.height / 4 / rig.ppm
        s.move([2: (80, 40 + quarter)], over: 0.4)
        s.up(2)
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["quickZoom.began", "quickZoom.changed", "quickZoom.ended"])
        let down = s.frames.first { $0.contacts.first?.id == 2 }!.contacts[0].position
        let last = s.frames[s.frames.count - 2].contacts[0].position
        let levels = log2(events.reduce(1.0) { $0 * $1.scale })
        #expect(abs(levels - 4 * (last.y - down.y) / Rig.screen.height) < 1e-9)
        #expect(abs(levels - 1) < 0.02, "a quarter screen height down zooms in one level")
        #expect(events.allSatisfy { $0.position == down && $0.translation == .zero })
    }

    @Test func quickZoomDisabledTurnsTheDragIntoTapThenPan() {
        var s = Script(.plain)
        s.tap(1, 80, 40)
        s.wait(0.1)
        s.down(2, 80, 40)
        s.move([2: (80, 80)], over: 0.3)
        s.up(2)
        var r = Rig.plain.recognizer(mask: GestureMask.all.subtracting(.quickZoom))
        #expect(story(run(s, &r)) == ["tap.recognized", "pan.began", "pan.changed", "pan.ended"])
    }
}

import Foundation

extension OneFingerTests {
    @Test func aLiftReportedLateStillCarriesTheFlick() {
        // Windows-8-style panels release a contact about 100 ms after its last report.
        var s = Script(.plain)
        s.down(1, 40, 60)
        s.move([1: (120, 60)], over: 0.4)   // 200 mm/s
        s.wait(0.1)
        s.up(1)
        var r = Rig.plain.recognizer()
        let ended = run(s, &r).last!
        #expect(abs(ended.velocity.x / Rig.plain.ppm - 200) < 20)
    }

    @Test func aFingerThatStoppedBeforeLiftingCarriesNoMomentum() {
        // evdev reports nothing while a finger is perfectly still.
        var s = Script(.plain, jitter: 0)
        s.down(1, 40, 60)
        s.move([1: (120, 60)], over: 0.4)
        s.wait(0.3)
        s.up(1)
        var r = Rig.plain.recognizer()
        let ended = run(s, &r).last!
        #expect(ended.velocity == .zero)
        #expect(ended.reason?.contains("momentumMaxPause") == true)
    }
}
