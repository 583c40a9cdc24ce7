import Foundation
import TouchCore

// The per-state payloads of the recogniser. Like libinput's per-state structs, each is made
// whole when its state is entered, so a transition resets every fact by construction: no
// boolean lives beside the state enum.

/// One finger's touch (oneFingerDown, leftoverFinger, secondTapDown, secondTapHeld,
/// longPressed, panning, quickZooming).
@usableFromInline struct OneFingerTouch: Sendable {
    var id: Int
    var downPoint: Point
    @usableFromInline var downTime: Double
    /// Farthest the finger has been from `downPoint`, px.
    @usableFromInline var maxMove = 0.0
    /// Last position delivered in a pan or quick-zoom event.
    var lastPoint: Point
    var velocity: VelocityTracker
    /// The finger's position and time in the frame before the last one tracked: a pan's first
    /// step is the finger's own step from there.
    var previousPoint: Point
    var previousTime: Double
    /// Translation the pan still owes the finger: the dead zone it crossed before the pan
    /// began, paid back a time-based fraction per frame (`catchUpTime`), so the map never
    /// jumps and the point touched first comes back under the finger.
    @usableFromInline var debt = Point.zero
    /// When the debt was last paid.
    @usableFromInline var debtTime: Double

    init(id: Int, at p: Point, time: Double, velocityWindow: Double) {
        self.id = id
        downPoint = p
        downTime = time
        lastPoint = p
        previousPoint = p
        previousTime = time
        debtTime = time
        velocity = VelocityTracker(window: velocityWindow)
        velocity.add(time: time, position: p)
    }

    mutating func track(_ p: Point, at time: Double) {
        maxMove = max(maxMove, p.distance(to: downPoint))
        previousPoint = velocity.samples.last?.position ?? p
        previousTime = velocity.lastTime ?? time
        velocity.add(time: time, position: p)
    }
}

/// The taps of a series (tapPending): where and when the last one lifted, and the single tap
/// still to confirm when no double tap follows (nil once a double tap ended the series, so the
/// timeout confirms nothing).
@usableFromInline struct TapSeries: Sendable {
    var point: Point
    @usableFromInline var liftTime: Double
    var unconfirmedTap: Point?
}

/// Which parts of the two-finger transform are on (transforming).
struct TransformParts: OptionSet, Sendable {
    let rawValue: UInt8
    static let pan = TransformParts(rawValue: 1)
    static let pinch = TransformParts(rawValue: 2)
    static let rotate = TransformParts(rawValue: 4)
}

/// What the fingers did before a threshold was crossed and the map has not followed yet: paid
/// back a fraction per frame (`GestureThresholds.catchUpTime`) so the map points under the
/// fingers at touch-down come back under them without a jump.
struct CatchUpDebt: Sendable {
    /// Zoom levels (log2 of the span ratio) not yet applied.
    var scaleLog2 = 0.0
    /// Degrees of rotation (finger line or about the screen centre) not yet applied.
    var rotation = 0.0
    /// Degrees of tilt not yet applied.
    var tilt = 0.0

    var isZero: Bool { scaleLog2 == 0 && rotation == 0 && tilt == 0 }

    /// Takes `fraction` of what is owed, leaving the rest.
    mutating func pay(_ fraction: Double) -> CatchUpDebt {
        let f = min(max(fraction, 0), 1)
        let part = CatchUpDebt(scaleLog2: scaleLog2 * f, rotation: rotation * f, tilt: tilt * f)
        scaleLog2 -= part.scaleLog2
        rotation -= part.rotation
        tilt -= part.tilt
        return part
    }
}

/// Two fingers down together (twoFingersDown, twoFingerTapLifting, transforming,
/// transformLifted, tilting, centreRotating).
struct TwoFingerSession: Sendable {
    var ids: (Int, Int)
    /// When the pair (or the first finger of a possible two-finger tap) came down.
    var startTime: Double
    var start: TwoFingerGeometry
    var previous: TwoFingerGeometry
    /// Turn of the finger line since `start`, unwrapped, degrees.
    var turned = 0.0
    /// Focal point as last delivered: the next translation starts here.
    var deliveredFocal: Point
    /// Still a candidate for a two-finger tap (fresh first finger, no extra finger).
    var tapPossible: Bool
    var maxMoveA = 0.0
    var maxMoveB = 0.0
    var active: TransformParts = []
    /// +1 when the fingers turn the map about the centre from above it, -1 from below.
    var centreSign = 1.0
    var debt = CatchUpDebt()
    /// The point the catch-up turns and scales about, in the pair's own coordinates (origin the
    /// focal point, unit the span, x along finger a -> b, y a quarter turn clockwise from it):
    /// the fixed point of the fingers' change before the transform was recognised (a pinch about
    /// a resting thumb: the thumb), so the pre-threshold change is paid back as one similarity
    /// and the map point under that point stays under it. Zero (the focal point) otherwise.
    var pivot = Point.zero
    /// How far the pivot's map point still trails the pivot (px), paid like `debt`.
    var pivotDebt = Point.zero
    /// Where the pivot's map point was last drawn: the next increment starts there.
    var deliveredPivot: Point
    /// Time of the last frame the transform saw (the catch-up pays per elapsed time).
    var lastTime: Double

    init(ids: (Int, Int), geometry g: TwoFingerGeometry, since: Double, now: Double, tapPossible: Bool) {
        self.ids = ids
        startTime = since
        start = g
        previous = g
        deliveredFocal = g.focal
        deliveredPivot = g.focal
        self.tapPossible = tapPossible
        lastTime = now
    }

    func contains(_ id: Int) -> Bool { ids.0 == id || ids.1 == id }
}

/// A finger lifted in the middle of a pan or transform (panLifted, transformLifted).
@usableFromInline struct LiftGrace: Sendable {
    @usableFromInline var liftTime: Double
    /// Where the finger was last seen.
    var liftPoint: Point
    /// The release velocity (panLifted) and why, for the pan's `ended` if no finger returns.
    var release = Point.zero
    var releaseReason = ""
    /// The finger still down and its last delivered position (transformLifted).
    var remaining: Int?
    var remainingPoint = Point.zero
}
