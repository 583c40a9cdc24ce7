/// The recogniser's states (see docs/gestures.md for the diagram). Raw values are the names
/// used in transition logs.
public enum GestureState: String, Sendable, Hashable, Codable, CaseIterable {
    /// No finger down and nothing pending.
    case idle
    /// One fresh finger down: still a tap, long press or pan candidate.
    case oneFingerDown
    /// The finger left over when one of two lifted (and the lift grace passed): it can only
    /// pan, once it has moved `panStartDistance` (no tap, no long press).
    case leftoverFinger
    /// A tap has lifted; waiting for the double-tap timeout or a second touch nearby.
    case tapPending
    /// The second touch of a possible double tap is down: double tap, or quick zoom if it drags.
    case secondTapDown
    /// The second touch is held longer than a tap with quick zoom on: a quick zoom if it drags,
    /// nothing at all if it lifts (no stray single tap).
    case secondTapHeld
    /// The long press has been reported; the finger is still down.
    case longPressed
    /// One-finger pan.
    case panning
    /// The panning finger lifted: a touch-down nearby within `liftGraceTime` (a lift and
    /// return, or a one-frame contact dropout) continues the same pan.
    case panLifted
    /// Double tap and drag: zoom about the tap point.
    case quickZooming
    /// Two fingers down, not yet decided: two-finger tap, tilt, pinch, rotate or pan.
    case twoFingersDown
    /// One finger of an undecided pair has lifted; a two-finger tap if the other lifts soon.
    case twoFingerTapLifting
    /// Pinch, rotate and two-finger pan as one transform about the focal point.
    case transforming
    /// One finger of the transform lifted: the other still drags the map; a finger down within
    /// `liftGraceTime` re-pairs and the transform goes on, else it ends and the finger pans on.
    case transformLifted
    /// Two side-by-side fingers moving vertically together tilt the map (exclusive).
    case tilting
    /// Two fingers moving horizontally together turn the map about the screen centre (exclusive).
    case centreRotating
    /// A gesture was cancelled or is over: contacts are ignored until all have lifted.
    case waitingForLift
}

/// What can happen to the recogniser: derived from the contact frames, or a deadline expiring.
public enum GestureInput: String, Sendable, Hashable, Codable, CaseIterable {
    /// A contact came down (at most two contacts are down).
    case fingerDown
    /// A contact lifted normally.
    case fingerUp
    /// Contacts that stay down moved (or were reported again).
    case motion
    /// A contact ended by cancellation (palm, unplug, resync) or a palm touched.
    case cancel
    /// A third contact came down: it is an extra finger, ignored while the pair goes on (the
    /// pair is re-made from the fingers down when one of it lifts).
    case tooManyFingers
    /// No double tap can follow any more: the timeout after a tap lifted expired, or the second
    /// touch is held longer than a tap. The pending tap is confirmed.
    case doubleTapTimeout
    /// The long-press time of a still finger expired.
    case longPressTimeout
    /// `liftGraceTime` passed since a finger lifted from a pan or a transform without a return.
    case liftGraceTimeout
    /// The app changed the gesture mask or the configuration: the running gesture ends cleanly
    /// (`ended`), fingers still down are ignored until they lift.
    case interrupt
}

/// One step of the state machine, `old -> input -> new`, for logs and the `tune` tool.
public struct GestureTransition: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Time of the frame or deadline, seconds.
    public var time: Double
    public var from: GestureState
    public var input: GestureInput
    public var to: GestureState
    /// Why (threshold crossed and its value), or `bug: ...` for an input that cannot happen
    /// in that state (logged and ignored, like libinput's `log_gesture_bug`).
    public var note: String?

    public init(time: Double, from: GestureState, input: GestureInput, to: GestureState, note: String? = nil) {
        self.time = time
        self.from = from
        self.input = input
        self.to = to
        self.note = note
    }

    /// True for an input the state cannot receive: a recogniser bug.
    public var isBug: Bool { note?.hasPrefix("bug:") ?? false }

    public var description: String {
        let t = (time * 1000).rounded() / 1000
        return "\(t) \(from.rawValue) -> \(input.rawValue) -> \(to.rawValue)" + (note.map { " (\($0))" } ?? "")
    }
}
