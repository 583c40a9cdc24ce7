import Foundation
import TouchCore
import Gestures

/// Gesture handling: the map point under the finger (or the fingers' focal point) stays under it.
extension MapController {
    /// Feeds one gesture event. Order of precedence: a discrete gesture inside a visible
    /// on-screen control goes to that control only; then `gestureHandler` may take it; then the
    /// gesture mask; then the default behaviour.
    ///
    /// The mask works as HERE's: a gesture that is off is still recognised and handed to
    /// `gestureHandler`, and causes no camera change of its kind. Continuous gestures are masked
    /// per component: translation needs `pan` (and `twoFingerPan` for two-finger gestures),
    /// zoom needs `pinch` (or `quickZoom`), rotation `rotate`, tilt `tilt`. With translation
    /// off, a pinch or rotation turns about the fingers' focal point at touch-down.
    public func handle(_ e: GestureEvent) {
        step(to: e.time, emitIdleAtSameTime: false)
        let t = now
        if e.phase == .recognized, let control = controls.control(at: e.position) {
            if e.kind == .tap || e.kind == .doubleTap { activate(control, at: t) }
            return
        }
        let ending = e.phase == .ended || e.phase == .cancelled
        if let handler = gestureHandler, handler(e) {
            if ending && gestures.contains(e.kind) { endGesture(e, applyDefault: false) }
            return
        }
        let mask = configuration.gestureMask
        // A stopped zoom step counts only for the next step of the same series.
        if e.kind != .doubleTap && e.kind != .twoFingerTap { stoppedZoomStep = nil }
        switch e.kind {
        case .tap:
            guard mask.contains(.tap) else { return }
            touchStopsFling(at: t)
            noteGesture(at: t)
            handleTap(at: e.position, time: t)
        case .longPress:
            guard mask.contains(.longPress) else { return }
            touchStopsFling(at: t)
            noteGesture(at: t)
            handleLongPress(at: e.position, time: t)
        case .doubleTap:
            guard mask.contains(.doubleTap) else { return }
            zoomByOne(+1, about: e.position, at: t)
        case .twoFingerTap:
            guard mask.contains(.twoFingerTap) else { return }
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

    /// Whether the mask lets a gesture kind translate the map: `pan` is the master switch,
    /// two-finger gestures also need `twoFingerPan`.
    func translationAllowed(_ kind: GestureKind) -> Bool {
        let mask = configuration.gestureMask
        switch kind {
        case .pan: return mask.contains(.pan)
        case .twoFingerPan, .pinch, .rotate: return mask.contains(.pan) && mask.contains(.twoFingerPan)
        case .tilt, .quickZoom, .tap, .doubleTap, .twoFingerTap, .longPress: return false
        }
    }

    /// Whether a continuous gesture of this kind can change the camera under the mask at all.
    func canMove(_ kind: GestureKind) -> Bool {
        let mask = configuration.gestureMask
        switch kind {
        case .pan, .twoFingerPan: return translationAllowed(kind)
        case .pinch: return mask.contains(.pinch) || translationAllowed(kind)
        case .rotate: return mask.contains(.rotate) || translationAllowed(kind)
        case .tilt: return mask.contains(.tilt)
        case .quickZoom: return mask.contains(.quickZoom)
        case .tap, .doubleTap, .twoFingerTap, .longPress: return false
        }
    }

    func handleContinuous(_ e: GestureEvent) {
        let t = now
        switch e.phase {
        case .began, .changed:
            if !gestures.contains(e.kind) {
                // The first two-finger event's anchor is the focal point at touch-down.
                gestures.begin(e)
                if canMove(e.kind) {
                    let interrupting = stopMotion()
                    beginMotion(gesture: true, interrupting: interrupting, at: t)
                }
            }
            guard canMove(e.kind) else { return }
            userTookOver(at: t)
            var e = e
            if e.kind == .pan, !e.isLift, case let .caught(a) = gestures.panLift {
                e.anchor = a
                gestures.panLift = .glideStarted
            }
            apply(e)
            if e.isLift {
                // The glide starts at the lift; the pan's `ended` after the grace must not restart it.
                // (A catch not yet dragged keeps its anchor.)
                if gestures.panLift == .none { gestures.panLift = .glideStarted }
                startFling(e)
            }
        case .ended, .cancelled:
            guard gestures.contains(e.kind) else { return }
            endGesture(e, applyDefault: canMove(e.kind))
        case .recognized:
            return   // continuous gestures have no recognized phase
        }
    }

    /// Ends a continuous gesture: applies its last increment, starts a fling after a fast pan
    /// release (when momentum and translation are enabled) and marks idle when nothing else moves.
    func endGesture(_ e: GestureEvent, applyDefault: Bool) {
        let t = now
        gestures.kinds.remove(e.kind)
        if applyDefault {
            userTookOver(at: t)
            if e.phase == .ended { apply(e) }
            // A pan whose lift already started the glide keeps it running: no second start, no
            // jump. (If a finger came back, the touch-down stopped it, as any touch does.)
            if e.phase == .ended, !(e.kind == .pan && gestures.panLift != .none) { startFling(e) }
        }
        gestures.ended(e.kind)
        checkIdle(at: t)
    }

    /// Starts a fling from a pan's release velocity, when momentum and translation are enabled
    /// and the velocity is fast enough.
    func startFling(_ e: GestureEvent) {
        guard e.kind == .pan || e.kind == .twoFingerPan,
              configuration.gestureMask.contains(.momentum), translationAllowed(e.kind),
              let v = configuration.momentum.startVelocity(e.velocity) else { return }
        let fling = momentumSoftenedAtBounds(Momentum(velocity: v, start: now, origin: e.position, applied: .zero,
                                                      law: configuration.momentum))
        switch motion {
        case .animating:
            break   // an app's animation started during the pan runs on; the release does not fling
        case .flinging:
            motion = fling.map(CameraMotion.flinging) ?? .still
        case .still, .followingSource:
            if let fling { motion = .flinging(fling) }
        }
    }

    /// Applies one increment, masked per component: translation anchor -> position, scale and
    /// rotation about position (pan, twoFingerPan, pinch, rotate; about the touch-down focal
    /// point when translation is off); scale only about position (quickZoom, whose finger
    /// travel is the zoom); tilt only (tilt).
    func apply(_ e: GestureEvent) {
        let t = now
        let mask = configuration.gestureMask
        switch e.kind {
        case .tilt:
            guard e.tilt != 0, mask.contains(.tilt) else { return }
            var c = camera
            c.tilt = camera.tilt + e.tilt
            changeCamera(to: c, at: t, coalesce: true)
        case .quickZoom:
            guard mask.contains(.quickZoom), e.scale > 0, e.scale != 1, let c = projection.coordinate(at: e.position),
                  let cam = cameraKeeping(c, at: e.position, zoom: camera.zoom + log2(e.scale),
                                          bearing: camera.bearing, tilt: camera.tilt) else { return }
            changeCamera(to: cam, at: t, coalesce: true)
        case .pan, .twoFingerPan, .pinch, .rotate, .tap, .doubleTap, .twoFingerTap, .longPress:
            let moves = translationAllowed(e.kind)
            let scale = mask.contains(.pinch) && e.scale > 0 && e.scale.isFinite ? e.scale : 1
            let rotation = mask.contains(.rotate) ? e.rotation : 0
            // Without translation the map turns and zooms about one fixed point.
            let centre = moves ? e.position : (gestures.focus ?? e.position)
            let from = moves ? e.anchor : centre
            guard from != centre || scale != 1 || rotation != 0 else { return }
            // Turning the map clockwise on screen turns the bearing anticlockwise.
            guard let c = projection.coordinate(at: from),
                  let cam = cameraKeeping(c, at: centre, zoom: camera.zoom + log2(scale),
                                          bearing: camera.bearing - rotation, tilt: camera.tilt) else { return }
            changeCamera(to: cam, at: t, coalesce: true)
        }
    }

    /// Double tap (+1) and two-finger tap (-1): an animation that keeps the map point under
    /// `point` there. Steps add to the target, not to where an animation has got to: to the
    /// running step's target, or to that of a step a touch-down stopped while the camera has
    /// not moved since, so n steps land exactly n levels away whatever the rhythm.
    func zoomByOne(_ delta: Double, about point: Point, at t: Double) {
        noteGesture(at: t)
        var base = camera.zoom
        if let a = motion.animation, a.isZoomStep {
            base = a.to.zoom
        } else if let stopped = stoppedZoomStep, stopped.camera == camera,
                  t - stopped.time <= MapController.zoomSeriesGap {
            base = stopped.zoom
        }
        stoppedZoomStep = nil
        let zoom = configuration.limits.clampZoom(base + delta)
        guard zoom != camera.zoom else { touchStopsFling(at: t); return }
        let s = projection.coordinate(at: point) != nil ? point : screenSize.center
        guard let c = projection.coordinate(at: s),
              let end = cameraKeeping(c, at: s, zoom: zoom, bearing: camera.bearing, tilt: camera.tilt)
        else { return }
        startAnimation(to: end, duration: configuration.tapZoomDuration,
                       focus: CameraAnimation.Focus(coordinate: c, screen: s), byGesture: true,
                       isZoomStep: true, at: t)
        // After willMove, as for a pan: a gesture's willMove(true) comes first, then cameraMode free.
        userTookOver(at: t)
    }

    /// Longest time from a touch-down that stopped a zoom step to the next step of the same
    /// series (a tap lasts at most 0.4 s and the next must follow within 0.3 s), seconds.
    static let zoomSeriesGap = 1.0

    /// A finger on the map stops a fling or a programmatic animation (not a mode transition).
    func touchStopsFling(at t: Double) {
        switch motion {
        case .flinging: motion = .still
        case let .animating(a) where !a.endFollowsSource: motion = .still
        case .animating, .still, .followingSource: break
        }
        checkIdle(at: t)
    }

    /// A tap or long press: auto-return, once armed by a gesture move, counts from here.
    func noteGesture(at t: Double) {
        if cameraMode == .free && returnArmed && fingersDown == 0 { quietSince = lastLift ?? t }
    }
}
