import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// Issue 14 (lift grace): a fling glides from the lift, in the frame after the lift and every
/// frame of the grace; the pan's `ended` at the grace's expiry neither restarts nor jumps it.
@Suite struct LiftGlideTests {
    @Test(arguments: [60.0, 120.0])
    func aFlingGlidesFromTheLiftWithNoStopAndNoJumpAtTheGraceExpiry(hz: Double) throws {
        var s = FeelStream(hz: hz)
        s.jitter = 0
        s.timeJitter = 0
        s.down(1, 60, 70)
        s.move([1: (110, 70)], over: 0.1)
        s.up(1)
        let run = FeelRun()
        run.play(s.frames, settle: 4)
        let liftIndex = s.frames.count - 1
        let tLift = s.frames[liftIndex].time
        let grace = GestureThresholds().liftGraceTime
        // The lift event came at the lift; the pan ended once, at the grace's expiry.
        let lift = try #require(run.gestures.first { $0.isLift })
        #expect(lift.time == tLift && lift.velocity.x > 0)
        let ended = run.gestures.filter { $0.kind == .pan && $0.phase == .ended }
        #expect(ended.count == 1 && abs(ended[0].time - (tLift + grace)) < 1e-9)
        // Screen position of one map point, step by step from the lift.
        let c = try #require(Projection(camera: run.camera(afterFrame: liftIndex), screen: testScreen)
            .coordinate(at: testScreen.center))
        let steps = run.timeline.filter { $0.time >= tLift }
        var speeds: [(time: Double, speed: Double)] = []
        for (a, b) in zip(steps, steps.dropFirst()) where b.time > a.time {
            let pa = try #require(Projection(camera: a.camera, screen: testScreen).point(for: c))
            let pb = try #require(Projection(camera: b.camera, screen: testScreen).point(for: c))
            speeds.append((b.time, pa.distance(to: pb) / (b.time - a.time)))
        }
        // The first step after the lift moves, and every step during the grace.
        let inGrace = speeds.filter { $0.time <= tLift + grace + 1 / hz }
        #expect(inGrace.count >= Int(grace / run.controller.configuration.frameInterval))
        #expect(inGrace.allSatisfy { $0.speed > 0 }, "\(inGrace)")
        // The glide decays: no step faster than the one before (a restart at the expiry would be).
        let moving = speeds.prefix { $0.speed > 0 }
        for (a, b) in zip(moving, moving.dropFirst()) {
            #expect(b.speed <= a.speed * 1.02 + 1, "speed up at \(b.time - tLift) s: \(a.speed) -> \(b.speed) px/s")
        }
        #expect(moving.count > speeds.filter { $0.time <= tLift + grace }.count, "the glide outlasts the grace")
        #expect(run.delegate.story == ["willMove(true)", "didChange", "idleAt"], "\(run.delegate.story)")
        let idle = try #require(run.delegate.calls.first { $0.name == "idleAt" })
        #expect(idle.time > tLift + grace, "idleAt only when the glide ends")
    }

    @Test func aSlowReleaseGivesNoLiftEventAndNoGlide() {
        var s = FeelStream(hz: 60)
        s.down(1, 60, 70)
        s.move([1: (80, 70)], over: 0.3)
        s.hold(0.2)
        s.up(1)
        let run = FeelRun()
        run.play(s.frames)
        #expect(!run.gestures.contains { $0.isLift })
        let tLift = s.frames[s.frames.count - 1].time
        let still = run.camera(afterFrame: s.frames.count - 1)
        #expect(run.cameras(from: tLift).allSatisfy { $0 == still })
        #expect(run.delegate.story == ["willMove(true)", "didChange", "idleAt"])
    }
}
