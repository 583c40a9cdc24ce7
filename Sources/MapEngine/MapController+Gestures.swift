import Foundation
import TouchCore
import Gestures

/// Gesture handling: the map point under the finger (or the fingers' focal point) stays under it.
extension MapController {
    /// Feeds one gesture event. Order of precedence: a discrete gesture inside a visible
    /// on-screen control goes to that control only; then `gestureHandler` may take it; then the
    /// gesture mask; then the default behaviour.
    public func handle(_ e: GestureEvent) {
        step(to: e.time, emitIdleAtSameTime: false)
        let t = now
        if e.phase == .recognized, let control = controls.control(at: e.position) {
            if e.kind == .tap || e.kind == .doubleTap { activate(control, at: t) }
            return
        }
        let ending = e.phase == .ended || e.phase == .cancelled
        if let handler = gestureHandler, handler(e) {
            if ending && activeGestures.contains(e.kind) { endGesture(e, applyDefault: false) }
            return
        }
        guard configuration.gestureMask.contains(MapController.mask(for: e.kind)) else {
            if ending && activeGestures.contains(e.kind) { endGesture(e, applyDefault: false) }
            return
        }
        switch e.kind {
        case .tap:
            touchStopsFling(at: t)
            noteGesture(at: t)
            handleTap(at: e.position, time: t)
        case .longPress:
            touchStopsFling(at: t)
            noteGesture(at: t)
            handleLongPress(at: e.position, time: t)
        case .doubleTap:
            zoomByOne(+1, about: e.position, at: t)
        case .twoFingerTap:
            zoomByOne(-1, about: e.position, at: t)
        case .pan, .twoFingerPan, .pinch, .rotate, .tilt, .quickZoom:
            handleContinuous(e)
        }
    }

    /// The mask bit that enables a gesture kind.
    public static func mask(for kind: GestureKind) -> GestureMask {
        switch kind {
        case .tap: return .tap
        case .doubleTap: return .doubleTap
        case .twoFingerTap: return .twoFingerTap
        case .longPress: return .longPress
        case .pan: return .pan
        case .twoFingerPan: return .twoFingerPan
        case .pinch: return .pinch
        case .rotate: return .rotate
        case .tilt: return .tilt
        case .quickZoom: return .quickZoom
        }
    }

    func handleContinuous(_ e: GestureEvent) {
        let t = now
        switch e.phase {
        case .began, .changed:
            if !activeGestures.contains(e.kind) {
                let interrupting = stopMotion()
                activeGestures.insert(e.kind)
                beginMotion(gesture: true, interrupting: interrupting, at: t)
            }
            userTookOver(at: t)
            apply(e)
        case .ended, .cancelled:
            guard activeGestures.contains(e.kind) else { return }
            endGesture(e, applyDefault: true)
        case .recognized:
            return   // continuous gestures have no recognized phase
        }
    }

    /// Ends a continuous gesture: applies its last increment, starts a fling after a fast pan
    /// release (when momentum is enabled) and marks idle when nothing else moves.
    func endGesture(_ e: GestureEvent, applyDefault: Bool) {
        let t = now
        activeGestures.remove(e.kind)
        if applyDefault {
            userTookOver(at: t)
            if e.phase == .ended { apply(e) }
            if e.phase == .ended, e.kind == .pan || e.kind == .twoFingerPan,
               configuration.gestureMask.contains(.momentum),
               let v = configuration.momentum.startVelocity(e.velocity) {
                momentum = momentumSoftenedAtBounds(Momentum(velocity: v, start: t, origin: e.position, applied: .zero,
                                                             law: configuration.momentum))
            }
        }
        checkIdle(at: t)
    }

    /// Applies one increment: translation anchor -> position, scale and rotation about
    /// position (pan, twoFingerPan, pinch, rotate); scale only about position (quickZoom, whose
    /// finger travel is the zoom); tilt only, about the screen centre (tilt).
    func apply(_ e: GestureEvent) {
        let t = now
        switch e.kind {
        case .tilt:
            guard e.tilt != 0 else { return }
            var c = camera
            c.tilt = camera.tilt + e.tilt
            changeCamera(to: c, at: t, coalesce: true)
        case .quickZoom:
            guard e.scale > 0, e.scale != 1, let c = projection.coordinate(at: e.position),
                  let cam = cameraKeeping(c, at: e.position, zoom: camera.zoom + log2(e.scale),
                                          bearing: camera.bearing, tilt: camera.tilt) else { return }
            changeCamera(to: cam, at: t, coalesce: true)
        default:
            guard e.translation.length > 0 || (e.scale > 0 && e.scale != 1) || e.rotation != 0 else { return }
            let scale = e.scale > 0 && e.scale.isFinite ? e.scale : 1
            // Turning the map clockwise on screen turns the bearing anticlockwise.
            guard let c = projection.coordinate(at: e.anchor),
                  let cam = cameraKeeping(c, at: e.position, zoom: camera.zoom + log2(scale),
                                          bearing: camera.bearing - e.rotation, tilt: camera.tilt) else { return }
            changeCamera(to: cam, at: t, coalesce: true)
        }
    }

    /// Double tap (+1) and two-finger tap (-1): an animation of exactly one zoom level that keeps
    /// the map point under `point` there.
    func zoomByOne(_ delta: Double, about point: Point, at t: Double) {
        let zoom = configuration.limits.clampZoom(camera.zoom + delta)
        noteGesture(at: t)
        guard zoom != camera.zoom else { touchStopsFling(at: t); return }
        let s = projection.coordinate(at: point) != nil ? point : screenSize.center
        guard let c = projection.coordinate(at: s),
              let end = cameraKeeping(c, at: s, zoom: zoom, bearing: camera.bearing, tilt: camera.tilt)
        else { return }
        userTookOver(at: t)
        startAnimation(to: end, duration: configuration.tapZoomDuration,
                       focus: CameraAnimation.Focus(coordinate: c, screen: s), byGesture: true, at: t)
    }

    /// A finger on the map stops a fling or a programmatic animation (not a mode transition).
    func touchStopsFling(at t: Double) {
        if momentum != nil { momentum = nil }
        if let a = animation, !a.endFollowsSource { animation = nil }
        checkIdle(at: t)
    }

    /// Restarts the quiet interval of free mode.
    func noteGesture(at t: Double) {
        if cameraMode == .free { quietSince = t }
    }
}
