import Foundation
import TouchCore
import Gestures

/// What moves the camera by itself: one thing at a time. (Fingers are `GestureMotion`: a pan's
/// lift starts a fling while the pan stays open for its lift grace, so the two overlap.)
enum CameraMotion {
    /// Nothing moves the camera by itself.
    case still
    /// A timed animation: a zoom step, a programmatic move, a mode transition, the home reset.
    case animating(CameraAnimation)
    /// A fling after a fast pan release.
    case flinging(Momentum)
    /// Following mode sitting on a position source that moves.
    case followingSource

    var animation: CameraAnimation? { if case let .animating(a) = self { return a }; return nil }
    var momentum: Momentum? { if case let .flinging(m) = self { return m }; return nil }
    var isStill: Bool { if case .still = self { return true }; return false }
    /// An animation or a fling: what a touch-down stops.
    var isTimed: Bool {
        switch self {
        case .animating, .flinging: return true
        case .still, .followingSource: return false
        }
    }
}

/// The continuous gestures between their began and ended/cancelled, and what belongs to them.
struct GestureMotion {
    /// A pan's lift and what followed it (the recogniser reports a pan's `ended` a lift grace
    /// after the last finger lifted; the fling starts at the lift).
    enum PanLift: Equatable {
        /// No lift yet in this pan.
        case none
        /// The lift started the glide: the pan's `ended` after the grace keeps it running (no
        /// second start, no jump).
        case glideStarted
        /// A finger came back within the grace and stopped the glide: where the map point that
        /// was under the lifted finger is now, so the continued pan drags it, not a new one.
        case caught(anchor: Point)
    }

    /// The gestures running.
    var kinds = GestureKindSet()
    /// The fingers' focal point at touch-down of the running two-finger gesture: the centre of
    /// its zoom and rotation when translation is masked off.
    var focus: Point?
    /// The running pan's lift (`.none` while no pan runs).
    var panLift = PanLift.none

    var isEmpty: Bool { kinds.isEmpty }
    func contains(_ kind: GestureKind) -> Bool { kinds.contains(kind) }

    /// A continuous gesture's first event: a two-finger gesture's anchor is the focal point.
    mutating func begin(_ e: GestureEvent) {
        if focus == nil, e.kind == .twoFingerPan || e.kind == .pinch || e.kind == .rotate { focus = e.anchor }
        kinds.insert(e.kind)
        if e.kind == .pan { panLift = .none }
    }

    /// After a continuous gesture ended or was cancelled (and its last increment was applied
    /// with the focus and lift it had): a pan's lift is forgotten, the focus once none runs.
    mutating func ended(_ kind: GestureKind) {
        if kind == .pan { panLift = .none }
        if kinds.isEmpty { focus = nil }
    }
}

/// Where the delegate's willMove ... didChange ... idleAt sequence stands.
enum MoveReport {
    /// No move under way: nothing moved yet, or idleAt went out.
    case idle
    /// willMove went out. `changeDue`: a gesture's didChange held until its input frame is over.
    case moving(changeDue: Double?)
    /// Everything stopped at `idleDue`: idleAt goes out at the next advance (a held didChange first).
    case stopped(idleDue: Double, changeDue: Double?)

    /// willMove sent and idleAt not yet.
    var isMoving: Bool { if case .idle = self { return false }; return true }

    var idleDue: Double? { if case let .stopped(t, _) = self { return t }; return nil }

    /// The time of a held didChange (only while moving: setting it when idle does nothing).
    var changeDue: Double? {
        get {
            switch self {
            case .idle: return nil
            case let .moving(c), let .stopped(_, c): return c
            }
        }
        set {
            switch self {
            case .idle: break
            case .moving: self = .moving(changeDue: newValue)
            case let .stopped(t, _): self = .stopped(idleDue: t, changeDue: newValue)
            }
        }
    }
}
