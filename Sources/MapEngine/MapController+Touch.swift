import Foundation
import TouchCore

/// Fingers on the glass, before any gesture is recognised: touch-down stops the camera, the last
/// lift starts the auto-return count.
extension MapController {
    /// The number of contacts down changed (the event loop calls this for every frame whose
    /// count differs from the last, before the frame's gesture events).
    ///
    /// A finger landing stops every camera animation in that frame, as Android's scrollers
    /// (`forceFinished` on ACTION_DOWN) and UIScrollView do: the fling, a zoom step, a
    /// programmatic animation, a mode transition. The move it stopped ends the GMS way: one
    /// `idleAt` (sent once the frame is over) at the camera where it stopped; a gesture that
    /// follows starts a new move with `willMove(gesture: true)`, and a tap or long press that
    /// follows reports the place under the finger on the stopped map.
    public func touchesChanged(count: Int, at time: Double) {
        step(to: time, emitIdleAtSameTime: false)
        let t = now
        let before = fingersDown
        fingersDown = max(count, 0)
        homeFingersChanged(from: before, to: fingersDown, at: t)
        if fingersDown > before { touchDown(at: t) }
        if fingersDown == 0 && before > 0 {
            lastLift = t
            // Auto-return counts from the last lift, and only after a gesture moved the map.
            if returnArmed && cameraMode == .free { quietSince = t }
        }
    }

    func touchDown(at t: Double) {
        guard motion.isTimed else { return }
        if let a = motion.animation, a.isZoomStep {
            stoppedZoomStep = (a.to.zoom, camera, t)
        }
        let wasModeTransition = motion.animation.map { !$0.isZoomStep && (cameraMode != .free) } ?? false
        if let m = motion.momentum, gestures.panLift != .none, gestures.contains(.pan) {
            gestures.panLift = .caught(anchor: m.origin + m.applied)
        }
        motion = .still
        if wasModeTransition {
            // The finger took the camera from a flight into following or overview: it is the
            // user's now (free), and auto-return counts from the lift.
            returnArmed = true
            quietSince = nil
            setMode(.free, at: t)
        }
        checkIdle(at: t)
    }
}
