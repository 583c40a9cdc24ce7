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
    /// animates to fit the route (or the markers), free leaves the camera where it is and starts
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

    /// The camera of following mode at a time: centred on the source, facing its heading,
    /// `followingTilt` (clamped for the zoom) at `followingZoom`.
    public func followingCamera(at t: Double) -> CameraPosition? {
        guard let fix = positionSource?.fix(at: t) else { return nil }
        return configuration.limits.clamp(CameraPosition(target: fix.coordinate, zoom: configuration.followingZoom,
                                                         bearing: fix.heading, tilt: configuration.followingTilt))
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
            let points = route.isEmpty ? markers.map(\.position) : route
            guard let target = CameraFit.camera(fitting: points, screen: screenSize, padding: configuration.overviewPadding,
                                                limits: configuration.limits, maxZoom: configuration.fitMaxZoom)
            else { return }
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
        let points = route.isEmpty ? markers.map(\.position) : route
        guard let target = CameraFit.camera(fitting: points, screen: screenSize, padding: configuration.overviewPadding,
                                            limits: configuration.limits, maxZoom: configuration.fitMaxZoom)
        else { return }
        startAnimation(to: target, duration: configuration.modeTransitionDuration, byGesture: false, at: t)
    }

    /// In following mode with no animation or gesture, the camera sits on the source.
    func trackPositionSource(at t: Double) {
        guard cameraMode == .following, animation == nil, activeGestures.isEmpty,
              let source = positionSource, let target = followingCamera(at: t) else {
            followingMotion = false
            return
        }
        changeCamera(to: target, at: t)
        followingMotion = source.isMoving(at: t)
    }
}
