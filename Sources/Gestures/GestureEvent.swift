import TouchCore

/// The gestures of a phone map. Raw values are the names of the JSON event stream.
public enum GestureKind: String, Sendable, Hashable, Codable, CaseIterable {
    case tap, doubleTap, twoFingerTap, longPress, pan, pinch, rotate, tilt, twoFingerPan, quickZoom
}

/// A discrete gesture is `recognized` once; a continuous one is began, changed..., ended or cancelled.
public enum GesturePhase: String, Sendable, Hashable, Codable {
    case recognized, began, changed, ended, cancelled
}

/// One gesture event. Continuous events carry the increment since the previous event of the
/// same frame sequence, so a consumer applies them in order and never needs a baseline:
/// the map point that was under `anchor` ends up under `position`, scaled by `scale` and
/// turned by `rotation` about it, and tilted by `tilt`.
/// For one input frame the recogniser splits the frame's whole transform over the events it
/// emits: each component (translation, scale, rotation, tilt) appears in exactly one of them.
public struct GestureEvent: Sendable, Hashable, Codable {
    public var kind: GestureKind
    public var phase: GesturePhase
    /// Timestamp of the input frame (or deadline) that produced this event, seconds.
    public var time: Double
    /// Where it happened: the tap point, the finger, or the two fingers' focal point, after the frame.
    public var position: Point
    /// The focal point before this increment (equal to `position` when there is no translation).
    public var anchor: Point
    /// Span ratio to apply about `position` (1 = none). Zoom change is log2(scale).
    public var scale: Double
    /// Degrees, clockwise on screen, to turn the map about `position` (0 = none).
    public var rotation: Double
    /// Degrees of viewing-angle change (positive tilts further away from straight down).
    public var tilt: Double
    /// Release velocity in px/s: on a pan `ended`, and on the pan's lift event (see `isLift`);
    /// zero otherwise.
    public var velocity: Point
    /// Number of fingers involved (0 on a pan's lift event: no finger is down).
    public var fingers: Int
    /// Why the recogniser decided this (threshold crossed and its value), for `tune` and logs.
    public var reason: String?

    public init(kind: GestureKind, phase: GesturePhase, time: Double, position: Point,
                anchor: Point? = nil, scale: Double = 1, rotation: Double = 0, tilt: Double = 0,
                velocity: Point = Point(x: 0, y: 0), fingers: Int = 1, reason: String? = nil) {
        self.kind = kind
        self.phase = phase
        self.time = time
        self.position = position
        self.anchor = anchor ?? position
        self.scale = scale
        self.rotation = rotation
        self.tilt = tilt
        self.velocity = velocity
        self.fingers = fingers
        self.reason = reason
    }

    /// A fast pan release: a `pan changed` with no finger down, no translation and the release
    /// velocity, emitted at the lift so the glide starts there. The pan stays open for the lift
    /// grace (a returning finger continues it); its later `ended` repeats the same velocity.
    public var isLift: Bool { kind == .pan && phase == .changed && fingers == 0 }

    /// Translation carried by this event.
    public var translation: Point { position - anchor }
}

/// Which gestures are on, in the spirit of HERE's NMAMapGestureType. A disabled gesture neither
/// fires nor blocks the others.
public struct GestureMask: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let tap = GestureMask(rawValue: 1 << 0)
    public static let doubleTap = GestureMask(rawValue: 1 << 1)
    public static let twoFingerTap = GestureMask(rawValue: 1 << 2)
    public static let longPress = GestureMask(rawValue: 1 << 3)
    public static let pan = GestureMask(rawValue: 1 << 4)
    public static let twoFingerPan = GestureMask(rawValue: 1 << 5)
    public static let pinch = GestureMask(rawValue: 1 << 6)
    public static let rotate = GestureMask(rawValue: 1 << 7)
    public static let tilt = GestureMask(rawValue: 1 << 8)
    public static let momentum = GestureMask(rawValue: 1 << 9)
    public static let quickZoom = GestureMask(rawValue: 1 << 10)

    public static let all: GestureMask = [.tap, .doubleTap, .twoFingerTap, .longPress, .pan,
                                          .twoFingerPan, .pinch, .rotate, .tilt, .momentum, .quickZoom]
    public static let none: GestureMask = []

    /// Names as used in the configuration file.
    public static let names: [(String, GestureMask)] = [
        ("tap", .tap), ("doubleTap", .doubleTap), ("twoFingerTap", .twoFingerTap),
        ("longPress", .longPress), ("pan", .pan), ("twoFingerPan", .twoFingerPan),
        ("pinch", .pinch), ("rotate", .rotate), ("tilt", .tilt), ("momentum", .momentum),
        ("quickZoom", .quickZoom),
    ]
}
