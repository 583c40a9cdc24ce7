/// Every threshold of the recogniser in one value, in physical units (millimetres, degrees,
/// seconds) so one configuration suits a 7" panel and a 55" one alike. The recogniser turns
/// millimetres into screen pixels with `PixelDensity.pixelsPerMillimetre`.
///
/// Defaults start from the phone SDKs (see docs/gestures.md for the sources): 1 dp = 0.159 mm.
public struct GestureThresholds: Sendable, Hashable, Codable {
    // MARK: Taps and presses
    /// Farthest a finger may wander from its touch-down point and still tap. Android's touch
    /// slop is 1.3 mm, MapLibre's 0.6 mm; kiosk panels and users are less clean: a resting
    /// finger wandered 2.4 mm on a recorded optical panel.
    public var tapMaxMovement: Double = 3 /* mm */
    /// Longest touch that still counts as a tap.
    public var tapMaxDuration: Double = 0.4 /* s */
    /// Longest gap from the first tap's lift to the second touch-down of a double tap (Android: 300 ms).
    public var doubleTapTimeout: Double = 0.3 /* s */
    /// Farthest the second tap of a double tap may land from the first (Android: 100 dp = 16 mm).
    public var doubleTapMaxDistance: Double = 12 /* mm */
    /// How long a still finger must stay down to long-press (Android: 400..500 ms).
    public var longPressTime: Double = 0.5 /* s */
    /// Farthest a finger may wander and still long-press.
    public var longPressSlop: Double = 3 /* mm */
    /// Longest two-finger tap, from the first finger down to the last finger up (MapLibre: 150 ms).
    public var twoFingerTapMaxDuration: Double = 0.3 /* s */
    /// Farthest each finger of a two-finger tap may wander (MapLibre: 5 dp = 0.8 mm).
    public var twoFingerTapSlop: Double = 3 /* mm */

    // MARK: One finger
    /// Distance from the touch-down point at which one finger starts to pan. Nothing is lost
    /// by waiting: the pan's first event carries the motion from the touch-down point.
    public var panStartDistance: Double = 3 /* mm */
    /// Span of the release velocity estimate, ending at the finger's last report.
    public var velocityWindow: Double = 0.1 /* s */
    /// Longest gap between the finger's last report and its lift for the release to carry
    /// momentum (MapLibre: 150 ms). Longer, the finger had stopped: evdev reports nothing for a
    /// still finger. Shorter gaps are normal: some panels release 100 ms after the last report.
    public var momentumMaxPause: Double = 0.15 /* s */
    /// Slowest release that carries momentum; slower releases report zero velocity
    /// (Qt: 75 px/s; MapLibre ignores flings below 1000 px/s on phones, about 60..150 mm/s).
    public var momentumMinVelocity: Double = 50 /* mm/s */
    /// Zoom levels for a quick-zoom drag over the full screen height (MapLibre's figure).
    public var quickZoomLevelsPerScreenHeight: Double = 4 /* zoom levels */

    // MARK: Two fingers
    /// Change of the distance between two fingers that starts a pinch (Qt: 40 px, about 10 mm).
    public var pinchStartSpanChange: Double = 5 /* mm */
    /// Turn of the finger line that starts a rotation. Deliberate, so that the few degrees of
    /// incidental twist in a pinch do not rotate the map (users measured about 10 deg on Google
    /// Maps iOS; mapbox-gestures uses 15.3 deg).
    public var rotationStartAngle: Double = 12 /* deg */
    /// Focal-point travel that starts a two-finger pan. Two resting fingers settling into the
    /// glass moved 5 mm together on a recorded panel; the first event carries the motion since
    /// the fingers landed, so waiting loses nothing.
    public var twoFingerPanStartDistance: Double = 6 /* mm */
    /// Largest angle between either finger's motion and the fingers' common motion for the
    /// fingers to count as moving together (tilt, rotation about the centre, two-finger pan).
    public var parallelMaxAngle: Double = 30 /* deg */
    /// Largest angle of the finger line from horizontal for a tilt (MapLibre: 20, Qt: 40).
    public var tiltMaxFingerLineAngle: Double = 25 /* deg */
    /// Largest angle of the common motion from vertical for a tilt.
    public var tiltMaxDirectionAngle: Double = 30 /* deg */
    /// Vertical travel of each finger that starts a tilt (MapLibre: 16 dp = 2.5 mm on phones;
    /// Qt: 80 px; more than the 5 mm two resting fingers settled on a recorded kiosk panel).
    public var tiltStartDistance: Double = 6 /* mm */
    /// Tilt per millimetre of vertical finger travel; up tilts towards the horizon.
    public var tiltDegreesPerMillimetre: Double = 1 /* deg/mm */
    /// Largest angle of the common motion from horizontal for a rotation about the screen
    /// centre (`TwoFingerHorizontalMode.rotate`).
    public var centreRotationMaxDirectionAngle: Double = 30 /* deg */
    /// Horizontal travel of the focal point that starts a rotation about the screen centre.
    public var centreRotationStartDistance: Double = 6 /* mm */
    /// Rotation about the screen centre per millimetre of horizontal finger travel.
    public var centreRotationDegreesPerMillimetre: Double = 0.5 /* deg/mm */

    // MARK: Feel: lift grace and catch-up (issue 14; config names wired by the coordinator)
    /// How long a finger may be off the glass during a pan or a two-finger transform and come
    /// back as the same gesture: a one-frame contact dropout is 8..33 ms, a finger re-placed
    /// on purpose about 50..80 ms. Longer, the gesture ends (a fling starts this much later).
    public var liftGraceTime: Double = 0.08 /* s */
    /// Farthest from where a finger lifted that a returning finger may land and continue.
    public var liftGraceMaxDistance: Double = 20 /* mm */
    /// Time constant of the catch-up: the pinch, rotation and tilt made before their threshold
    /// was crossed are paid back smoothly, this much of what is left shrinking by 1/e per
    /// `catchUpTime` (86% paid after 2x, 95% after 3x), so no single frame jumps.
    public var catchUpTime: Double = 0.08 /* s */

    public init() {}

    /// Every threshold with its name and unit, in declaration order (from `table`).
    public var entries: [(name: String, value: Double, unit: String)] {
        Self.table.map { ($0.name, self[keyPath: $0.keyPath], $0.unit) }
    }
}

/// One threshold's names: `name` is the one the configuration file, `tune`, warnings, gesture
/// reasons and docs/gestures.md all use (the property's name); `fileAlias` is an older file key
/// still read.
public struct GestureThresholdKey: Sendable {
    public let name: String
    public let unit: String
    public let fileAlias: String?
    public let keyPath: WritableKeyPath<GestureThresholds, Double> & Sendable

    init(_ name: String, _ unit: String, _ keyPath: WritableKeyPath<GestureThresholds, Double> & Sendable, alias: String? = nil) {
        self.name = name
        self.unit = unit
        self.fileAlias = alias
        self.keyPath = keyPath
    }
}

extension GestureThresholds {
    /// The one table of thresholds. A new threshold is its property above plus one line here;
    /// the file reader, decoding, `entries` (tune, logs) and the docs test follow from it.
    public static let table: [GestureThresholdKey] = [
        .init("tapMaxMovement", "mm", \.tapMaxMovement, alias: "tap_slop_mm"),
        .init("tapMaxDuration", "s", \.tapMaxDuration, alias: "tap_max_duration_s"),
        .init("doubleTapTimeout", "s", \.doubleTapTimeout, alias: "double_tap_timeout_s"),
        .init("doubleTapMaxDistance", "mm", \.doubleTapMaxDistance, alias: "double_tap_slop_mm"),
        .init("longPressTime", "s", \.longPressTime, alias: "long_press_s"),
        .init("longPressSlop", "mm", \.longPressSlop),
        .init("twoFingerTapMaxDuration", "s", \.twoFingerTapMaxDuration),
        .init("twoFingerTapSlop", "mm", \.twoFingerTapSlop),
        .init("panStartDistance", "mm", \.panStartDistance, alias: "pan_threshold_mm"),
        .init("velocityWindow", "s", \.velocityWindow),
        .init("momentumMaxPause", "s", \.momentumMaxPause),
        .init("momentumMinVelocity", "mm/s", \.momentumMinVelocity, alias: "fling_min_speed_mm_s"),
        .init("quickZoomLevelsPerScreenHeight", "zoom levels", \.quickZoomLevelsPerScreenHeight),
        .init("pinchStartSpanChange", "mm", \.pinchStartSpanChange, alias: "pinch_threshold_mm"),
        .init("rotationStartAngle", "deg", \.rotationStartAngle, alias: "rotate_threshold_deg"),
        .init("twoFingerPanStartDistance", "mm", \.twoFingerPanStartDistance),
        .init("parallelMaxAngle", "deg", \.parallelMaxAngle),
        .init("tiltMaxFingerLineAngle", "deg", \.tiltMaxFingerLineAngle),
        .init("tiltMaxDirectionAngle", "deg", \.tiltMaxDirectionAngle),
        .init("tiltStartDistance", "mm", \.tiltStartDistance, alias: "tilt_threshold_mm"),
        .init("tiltDegreesPerMillimetre", "deg/mm", \.tiltDegreesPerMillimetre),
        .init("centreRotationMaxDirectionAngle", "deg", \.centreRotationMaxDirectionAngle),
        .init("centreRotationStartDistance", "mm", \.centreRotationStartDistance),
        .init("centreRotationDegreesPerMillimetre", "deg/mm", \.centreRotationDegreesPerMillimetre),
        .init("liftGraceTime", "s", \.liftGraceTime),
        .init("liftGraceMaxDistance", "mm", \.liftGraceMaxDistance),
        .init("catchUpTime", "s", \.catchUpTime),
    ]

    /// The table row for a file key: its name or its older alias.
    public static func key(named name: String) -> GestureThresholdKey? {
        table.first { $0.name == name || $0.fileAlias == name }
    }
}

extension GestureThresholds {
    /// Problems with this configuration, written for the person editing it; empty when sound.
    /// The recogniser still runs with any values; the caller decides whether to warn or refuse.
    public var problems: [String] {
        var p: [String] = []
        for e in entries where !(e.value.isFinite && e.value > 0) {
            p.append("gesture threshold \(e.name) is \(e.value) \(e.unit); it must be a positive number")
        }
        if panStartDistance < tapMaxMovement {
            p.append("panStartDistance \(panStartDistance) mm is below tapMaxMovement \(tapMaxMovement) mm: "
                     + "touches that move between the two are taken as pans and never tap; "
                     + "set panStartDistance to at least tapMaxMovement")
        }
        if longPressSlop > panStartDistance {
            p.append("longPressSlop \(longPressSlop) mm is above panStartDistance \(panStartDistance) mm: "
                     + "the extra slop has no effect, the finger pans first")
        }
        if longPressTime <= tapMaxDuration {
            p.append("longPressTime \(longPressTime) s is not above tapMaxDuration \(tapMaxDuration) s: "
                     + "a held tap becomes a long press before it can lift as a tap")
        }
        for (name, angle) in [("rotationStartAngle", rotationStartAngle), ("parallelMaxAngle", parallelMaxAngle),
                              ("tiltMaxFingerLineAngle", tiltMaxFingerLineAngle),
                              ("tiltMaxDirectionAngle", tiltMaxDirectionAngle),
                              ("centreRotationMaxDirectionAngle", centreRotationMaxDirectionAngle)] where angle >= 90 {
            p.append("\(name) is \(angle) deg; it must be below 90 deg")
        }
        return p
    }

    /// Decodes a partial configuration: every threshold not given keeps its default.
    public init(from decoder: any Decoder) throws {
        struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }
        let c = try decoder.container(keyedBy: Name.self)
        self.init()
        for key in Self.table {
            if let v = try c.decodeIfPresent(Double.self, forKey: Name(stringValue: key.name)) { self[keyPath: key.keyPath] = v }
        }
    }
}

/// What two fingers moved horizontally together do.
public enum TwoFingerHorizontalMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// HERE SDK: turn the map about the screen centre.
    case rotate
    /// Google Maps: pan the map with the fingers.
    case pan
}
