import Gestures

/// Everything tunable about the controller. Units beside each value.
public struct MapConfiguration: Sendable, Hashable, Codable {
    public var limits: CameraLimits
    /// Which gestures move the map; a disabled one is ignored (momentum off: no fling).
    public var gestureMask: GestureMask
    public var momentum: MomentumLaw
    /// Seconds between animation frames the controller asks for.
    public var frameInterval: Double
    /// Seconds for double tap / two-finger tap zoom.
    public var tapZoomDuration: Double
    /// Seconds for the compass's return to north and flat.
    public var compassDuration: Double
    /// Seconds for the move into following or overview mode.
    public var modeTransitionDuration: Double
    /// Zoom and tilt (degrees) of the following camera.
    public var followingZoom: Double
    public var followingTilt: Double
    /// Seconds of quiet since the last gesture before free mode returns to following; nil = never.
    public var autoReturnInterval: Double?
    /// Seconds with no finger down (free mode) before the camera animates back to
    /// `MapController.homeCamera` and the info window closes; nil = never.
    public var homeAfterInterval: Double? = nil
    /// Padding (px) around what overview mode fits.
    public var overviewPadding: Double
    /// Zoom used when fitting a single point.
    public var fitMaxZoom: Double
    /// Tap radius (px) around a point of interest's dot.
    public var poiHitRadius: Double
    /// Show the compass even when north is up and the map flat.
    public var compassAlwaysVisible: Bool

    public init(limits: CameraLimits = CameraLimits(), gestureMask: GestureMask = .all,
                momentum: MomentumLaw = MomentumLaw(), frameInterval: Double = 1.0 / 60,
                tapZoomDuration: Double = 0.3, compassDuration: Double = 0.3,
                modeTransitionDuration: Double = 0.6, followingZoom: Double = 16, followingTilt: Double = 45,
                autoReturnInterval: Double? = 5, overviewPadding: Double = 48, fitMaxZoom: Double = 16,
                poiHitRadius: Double = 12, compassAlwaysVisible: Bool = false) {
        self.limits = limits
        self.gestureMask = gestureMask
        self.momentum = momentum
        self.frameInterval = frameInterval
        self.tapZoomDuration = tapZoomDuration
        self.compassDuration = compassDuration
        self.modeTransitionDuration = modeTransitionDuration
        self.followingZoom = followingZoom
        self.followingTilt = followingTilt
        self.autoReturnInterval = autoReturnInterval
        self.overviewPadding = overviewPadding
        self.fitMaxZoom = fitMaxZoom
        self.poiHitRadius = poiHitRadius
        self.compassAlwaysVisible = compassAlwaysVisible
    }
}
