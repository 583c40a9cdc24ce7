import Foundation
import TouchCore
import Gestures

/// Cameras for predicted frames: what the map would show if the fingers were already where the
/// touch predictor expects them when the frame reaches the glass. Nothing here changes the
/// controller; the real contact frames alone drive the camera, the events and the delegate.
extension MapController {
    /// Whether the camera follows the fingers now: a pan, two-finger pan, pinch or rotation is
    /// running (and no tilt or quick zoom, whose camera is not where the fingers are).
    public var followsFingers: Bool {
        !gestures.isEmpty && !gestures.contains(.tilt) && !gestures.contains(.quickZoom)
    }

    /// The camera with the fingers' focal point moved from `anchor` to `position`, their span
    /// scaled by `scale` and turned by `rotation` degrees clockwise on screen, each part only
    /// while the gesture that applies it runs (scale while pinching, rotation while rotating).
    /// The current camera when no finger-following gesture runs.
    public func cameraFollowing(anchor: Point, position: Point, scale: Double, rotation: Double) -> CameraPosition {
        guard followsFingers else { return camera }
        let s = gestures.contains(.pinch) && scale > 0 && scale.isFinite ? scale : 1
        let r = gestures.contains(.rotate) && rotation.isFinite ? rotation : 0
        guard let c = projection.coordinate(at: anchor),
              let cam = cameraKeeping(c, at: position, zoom: camera.zoom + log2(s),
                                      bearing: camera.bearing - r, tilt: camera.tilt) else { return camera }
        return cam
    }
}

extension MapController {
    /// The camera a running fling or animation will show at `time` (nothing changes), for a
    /// frame that reaches the glass then; nil while fingers drive the camera or nothing moves.
    /// Without it the first frame after a fast release would step back from the predicted
    /// frames before it.
    public func motionCamera(at time: Double) -> CameraPosition? {
        guard gestures.isEmpty, time > now else { return nil }
        if let m = motion.momentum {
            let d = m.law.displacement(m.velocity, after: min(time, m.end) - m.start)
            guard (d - m.applied).length > 0 else { return camera }
            return cameraKeeping(screen: m.origin + m.applied, at: m.origin + d,
                                 zoom: camera.zoom, bearing: camera.bearing, tilt: camera.tilt)
        }
        if let a = motion.animation { return cameraOf(a, at: min(time, a.end)) }
        return nil
    }
}
