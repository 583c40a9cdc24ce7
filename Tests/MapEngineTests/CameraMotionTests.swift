import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// The controller's camera motion is one value (issue 25): an animation, a fling, following a
/// moving source, or nothing; never two at once.
@Suite struct CameraMotionTests {
    @Test func aFlingReplacesNothingButTheStillCameraAndEndsStill() {
        let c = controller(zoom: 13)
        let start = Point(x: 400, y: 400), release = Point(x: 500, y: 400)
        c.handle(gesture(.pan, .began, 0.9, at: start))
        c.handle(gesture(.pan, .changed, 1.0, at: release, from: start))
        #expect(c.motion.isStill)
        #expect(c.gestures.contains(.pan))
        c.handle(gesture(.pan, .ended, 1.0, at: release, velocity: Point(x: 2000, y: 0)))
        #expect(c.motion.momentum != nil, "a fast release flings")
        #expect(c.gestures.isEmpty && c.gestures.panLift == .none && c.gestures.focus == nil)
        _ = runUntilIdle(c)
        #expect(c.motion.isStill)
        if case .idle = c.report {} else { Issue.record("idleAt went out: \(c.report)") }
    }

    /// Before the enum a programmatic animation started during a pan ran beside the release's
    /// fling (both moved the camera every frame, the animation winning). Now the animation the
    /// app asked for runs on to its target and the release does not fling.
    @Test func anAppsAnimationDuringAPanIsNotJoinedByTheReleaseFling() {
        let c = controller(zoom: 13)
        let start = Point(x: 400, y: 400), release = Point(x: 500, y: 400)
        c.handle(gesture(.pan, .began, 0.9, at: start))
        c.handle(gesture(.pan, .changed, 0.95, at: release, from: start))
        var target = c.camera
        target.zoom = 15
        c.animate(to: target, duration: 0.5, at: 0.96)
        c.handle(gesture(.pan, .ended, 1.0, at: release, velocity: Point(x: 2000, y: 0)))
        #expect(c.motion.animation?.to == target)
        #expect(c.motion.momentum == nil)
        _ = runUntilIdle(c)
        #expect(c.camera == target)
    }

    @Test func aTouchDownStopsTheLiftGlideAndTheContinuedPanDragsTheSamePoint() {
        let c = controller(zoom: 13)
        let start = Point(x: 400, y: 400), release = Point(x: 500, y: 400)
        c.handle(gesture(.pan, .began, 0.9, at: start))
        c.handle(gesture(.pan, .changed, 1.0, at: release, from: start))
        c.touchesChanged(count: 0, at: 1.0)
        let lift = gesture(.pan, .changed, 1.0, at: release, from: release, velocity: Point(x: 2000, y: 0), fingers: 0)
        #expect(lift.isLift)
        c.handle(lift)
        #expect(c.motion.momentum != nil)
        #expect(c.gestures.panLift == .glideStarted)
        c.advance(to: 1.05)
        c.touchesChanged(count: 1, at: 1.05)
        guard case let .caught(anchor) = c.gestures.panLift else { Issue.record("caught: \(c.gestures.panLift)"); return }
        #expect(c.motion.isStill)
        let coord = c.projection.coordinate(at: anchor)!
        let finger = Point(x: 520, y: 420)
        c.handle(gesture(.pan, .changed, 1.06, at: finger, from: Point(x: 510, y: 410)))
        #expect(c.gestures.panLift == .glideStarted, "the anchor is used once")
        #expect(screenPoint(c, coord).distance(to: finger) < 0.01, "the point under the lifted finger follows the new one")
    }
}
