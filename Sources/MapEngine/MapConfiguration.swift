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
    /// How far (px) from a line or an area's outline a tap still hits the overlay (the façade
    /// sets it from a finger width in mm through the panel density).
    public var overlayHitSlop: Double = 24
    /// Group markers that lie close together on screen into cluster bubbles (MarkerClusters.swift).
    public var clusterMarkers: Bool = false
    /// Markers within this many screen px of a cluster's first marker join it.
    public var clusterRadius: Double = 48
    /// Where following mode puts the position: this fraction of the screen height from the top.
    public var followingPuckY: Double = 0.75
    /// Longest time (s) a new position from `setPosition` glides from the one shown.
    public var positionTransition: Double = 1.0

    public init(limits: CameraLimits = CameraLimits(), gestureMask: GestureMask = .all,
                momentum: MomentumLaw = MomentumLaw(), frameInterval: Double = 1.0 / 60,
                tapZoomDuration: Double = 0.3, compassDuration: Double = 0.3,
                modeTransitionDuration: Double = 0.6, followingZoom: Double = 16, followingTilt: Double = 45,
                autoReturnInterval: Double? = 5, overviewPadding: Double = 48, fitMaxZoom: Double = 16,
                poiHitRadius: Double = 12, compassAlwaysVisible: Bool = false, overlayHitSlop: Double = 24,
                clusterMarkers: Bool = false, clusterRadius: Double = 48, followingPuckY: Double = 0.75,
                positionTransition: Double = 1.0) {
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
        self.overlayHitSlop = overlayHitSlop
        self.clusterMarkers = clusterMarkers
        self.clusterRadius = clusterRadius
        self.followingPuckY = followingPuckY
        self.positionTransition = positionTransition
    }

    enum CodingKeys: String, CodingKey {
        case limits, gestureMask, momentum, frameInterval, tapZoomDuration, compassDuration, modeTransitionDuration
        case followingZoom, followingTilt, autoReturnInterval, homeAfterInterval, overviewPadding, fitMaxZoom
        case poiHitRadius, compassAlwaysVisible, overlayHitSlop, clusterMarkers, clusterRadius, followingPuckY
        case positionTransition
    }

    /// Decodes what older versions wrote too: a field they did not have takes its default.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let d = MapConfiguration()
        self.init(limits: try c.decodeIfPresent(CameraLimits.self, forKey: .limits) ?? d.limits,
                  gestureMask: try c.decodeIfPresent(GestureMask.self, forKey: .gestureMask) ?? d.gestureMask,
                  momentum: try c.decodeIfPresent(MomentumLaw.self, forKey: .momentum) ?? d.momentum,
                  frameInterval: try c.decodeIfPresent(Double.self, forKey: .frameInterval) ?? d.frameInterval,
                  tapZoomDuration: try c.decodeIfPresent(Double.self, forKey: .tapZoomDuration) ?? d.tapZoomDuration,
                  compassDuration: try c.decodeIfPresent(Double.self, forKey: .compassDuration) ?? d.compassDuration,
                  modeTransitionDuration: try c.decodeIfPresent(Double.self, forKey: .modeTransitionDuration) ?? d.modeTransitionDuration,
                  followingZoom: try c.decodeIfPresent(Double.self, forKey: .followingZoom) ?? d.followingZoom,
                  followingTilt: try c.decodeIfPresent(Double.self, forKey: .followingTilt) ?? d.followingTilt,
                  autoReturnInterval: try c.decodeIfPresent(Double.self, forKey: .autoReturnInterval),
                  overviewPadding: try c.decodeIfPresent(Double.self, forKey: .overviewPadding) ?? d.overviewPadding,
                  fitMaxZoom: try c.decodeIfPresent(Double.self, forKey: .fitMaxZoom) ?? d.fitMaxZoom,
                  poiHitRadius: try c.decodeIfPresent(Double.self, forKey: .poiHitRadius) ?? d.poiHitRadius,
                  compassAlwaysVisible: try c.decodeIfPresent(Bool.self, forKey: .compassAlwaysVisible) ?? d.compassAlwaysVisible,
                  overlayHitSlop: try c.decodeIfPresent(Double.self, forKey: .overlayHitSlop) ?? d.overlayHitSlop,
                  clusterMarkers: try c.decodeIfPresent(Bool.self, forKey: .clusterMarkers) ?? d.clusterMarkers,
                  clusterRadius: try c.decodeIfPresent(Double.self, forKey: .clusterRadius) ?? d.clusterRadius,
                  followingPuckY: try c.decodeIfPresent(Double.self, forKey: .followingPuckY) ?? d.followingPuckY,
                  positionTransition: try c.decodeIfPresent(Double.self, forKey: .positionTransition) ?? d.positionTransition)
        homeAfterInterval = try c.decodeIfPresent(Double.self, forKey: .homeAfterInterval)
    }
}
