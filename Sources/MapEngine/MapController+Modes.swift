import Foundation
import TouchCore

/// Camera modes (following, overview, free), the auto-return timer and the on-screen controls.
extension MapController {
    /// The on-screen controls with their current visibility: the compass while the map is
    /// turned or tilted (or always, by configuration), the Re-center button in overview and
    /// free modes when there is a position source to return to.
    public var controls: MapControls {
        MapControls(screen: screenSize,
                    compassVisible: configuration.compassAlwaysVisible || camera.bearing != 0 || camera.tilt != 0,
                    recenterVisible: cameraMode != .following && positionSource != nil)
    }

    /// A tap on a control: it acts, the map does not.
    func activate(_ control: MapControls.Control, at t: Double) {
        switch control {
        case .compass:
            userTookOver(at: t)
            var c = camera
            c.bearing = 0
            c.tilt = 0
            startAnimation(to: c, duration: configuration.compassDuration, byGesture: false, at: t)
        case .recenter:
            enterFollowing(at: t)
        }
    }

    /// Switches mode: following animates onto the position source and tracks it, overview
    /// animates to fit the route (or the overlays and markers), free leaves the camera where it is and starts
    /// the quiet interval.
    public func setCameraMode(_ mode: CameraMode, at time: Double? = nil) {
        let t = programmaticTime(time)
        switch mode {
        case .following: enterFollowing(at: t)
        case .overview: enterOverview(at: t)
        case .free: appTookOver(at: t)
        }
    }

    /// Back to following the position source (the Re-center button).
    public func recenter(at time: Double? = nil) {
        setCameraMode(.following, at: time)
    }

    /// The camera of following mode at a time, as the Navigation SDK frames it: `followingZoom`,
    /// tilted `followingTilt` (clamped for the zoom), facing the heading (the current bearing
    /// kept when the heading is unknown), and the position low on the screen, at
    /// (width / 2, `followingPuckY` x height): the target lies ahead of it.
    public func followingCamera(at t: Double) -> CameraPosition? {
        guard let fix = positionFix(at: t) else { return nil }
        let base = configuration.limits.clamp(CameraPosition(target: fix.coordinate, zoom: configuration.followingZoom,
                                                             bearing: fix.headingKnown ? fix.heading : camera.bearing,
                                                             tilt: configuration.followingTilt))
        let puck = Point(x: screenSize.width / 2, y: min(max(configuration.followingPuckY, 0), 1) * screenSize.height)
        return framing(fix.coordinate, at: puck, from: base) ?? base
    }

    /// `base` moved (same zoom, bearing and tilt) so that `coordinate` projects to the screen
    /// point `s`, checked with the real projection and corrected for what clamping and rounding
    /// leave (within 0.01 px unless the limits hold the target); nil when `s` is above the horizon.
    func framing(_ coordinate: Coordinate, at s: Point, from base: CameraPosition) -> CameraPosition? {
        var aim = s
        var best: CameraPosition?
        for _ in 0..<4 {
            var cam = base
            let proj = Projection(camera: cam, screen: screenSize)
            guard let g = proj.groundOffset(screen: aim) else { return best }
            let offset = proj.worldPoint(ground: g) - proj.centerWorld
            let world = WebMercator.worldPoint(coordinate, zoom: cam.zoom)
            cam.target = WebMercator.coordinate(world: world - offset, zoom: cam.zoom)
            cam = configuration.limits.clamp(cam)
            best = cam
            guard let p = Projection(camera: cam, screen: screenSize).point(for: coordinate) else { return best }
            let miss = s - p
            if miss.length < 0.01 { break }
            aim = aim + miss
        }
        return best
    }
    /// The user moved the camera: free mode, and auto-return is armed; it counts from the last
    /// finger lift (from now when no finger is down).
    func userTookOver(at t: Double) {
        returnArmed = true
        quietSince = fingersDown == 0 ? (lastLift ?? t) : nil
        setMode(.free, at: t)
    }

    /// The app moved the camera: free mode, and no auto-return (the app decides where to look).
    func appTookOver(at t: Double) {
        returnArmed = false
        quietSince = nil
        setMode(.free, at: t)
    }

    /// Starts in a mode without animating or reporting (the configured `[camera] mode` at
    /// start): following sits on the position source, overview shows the route or markers.
    public func start(in mode: CameraMode) {
        switch mode {
        case .free:
            break
        case .following:
            guard let target = followingCamera(at: now) else { return }
            camera = target
        case .overview:
            guard let target = overviewCamera() else { return }
            camera = target
        }
        cameraMode = mode
        returnArmed = false
        quietSince = nil
    }

    func setMode(_ mode: CameraMode, at t: Double) {
        guard mode != cameraMode else { return }
        cameraMode = mode
        emit(.cameraMode(mode), at: t)
    }

    func enterFollowing(at t: Double) {
        guard let target = followingCamera(at: t) else { return }
        quietSince = nil
        returnArmed = false
        setMode(.following, at: t)
        startAnimation(to: target, duration: configuration.modeTransitionDuration, byGesture: false,
                       endFollowsSource: true, at: t)
    }

    func enterOverview(at t: Double) {
        quietSince = nil
        returnArmed = false
        setMode(.overview, at: t)
        guard let target = overviewCamera() else { return }
        startAnimation(to: target, duration: configuration.modeTransitionDuration, byGesture: false, at: t)
    }

    /// In following mode with no animation or gesture, the camera sits on the source.
    func trackPositionSource(at t: Double) {
        guard cameraMode == .following, motion.animation == nil, gestures.isEmpty,
              let source = positionSource, let target = followingCamera(at: t) else {
            if case .followingSource = motion { motion = .still }
            return
        }
        changeCamera(to: target, at: t)
        let moving = source.isMoving(at: t)
        switch motion {
        case .still where moving: motion = .followingSource
        case .followingSource where !moving: motion = .still
        default: break   // (a fling in following mode runs on; the camera sits on the source as well)
        }
    }
}
