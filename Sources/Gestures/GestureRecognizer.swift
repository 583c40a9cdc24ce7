import Foundation
import TouchCore

/// The pure gesture recogniser: contact frames and deadline expiries in, gesture events out.
///
/// It never reads a clock: time comes from the frames, and the caller asks `nextDeadline` and
/// calls `expire(at:)` when it passes (`process` also fires any deadline at or before the
/// frame's time first, so events always come out in time order).
///
/// Like libinput's touchpad gesture code it is an explicit state machine (`GestureState`) fed
/// explicit inputs (`GestureInput`); each state has one handler that switches over every input
/// with no `default:`, and every step is recorded as `old -> input -> new` in `trace` and sent
/// to `log`. What a state needs to remember lives in its payload (`GestureSessions.swift`),
/// made whole on entry. The state diagram is in docs/gestures.md.
///
/// A frame is turned into inputs in this order: `cancel` (a cancelled id or a palm: everything
/// stops), `motion` of the contacts that stay down, `fingerUp` for each lift, then `fingerDown`
/// (or `tooManyFingers` for a third contact) for each new contact.
public struct GestureRecognizer: Sendable {
    public private(set) var thresholds: GestureThresholds
    /// Which gestures are recognised. A disabled gesture neither fires nor blocks the others.
    /// (The kiosk recognises every gesture and lets the map's mask decide what moves the
    /// camera, so a disabled gesture still reaches the app's gesture hook.)
    public var mask: GestureMask
    public let pixelsPerMillimetre: Double
    /// The screen the contacts are in: quick zoom scales by its height, rotation about the
    /// centre turns about its centre.
    public let screen: Size
    public private(set) var twoFingerHorizontal: TwoFingerHorizontalMode
    /// Called with every transition as it happens (optional).
    public var log: (@Sendable (GestureTransition) -> Void)?

    public internal(set) var state: GestureState = .idle
    /// The transitions of the last `process`, `expire` or `interrupt` call.
    public internal(set) var trace: [GestureTransition] = []

    // Contacts down as last seen, screen px.
    var contacts = ContactTable()
    /// Contacts already known to be palms (cancelled once, then ignored until lifted).
    var palms: [Int] = []
    /// The ids lifted in this frame (kept to reuse its storage: no allocation per frame).
    var lifted: [Int] = []
    var now: Double = 0
    var out: [GestureEvent] = []

    // State payloads (see GestureSessions.swift); each is meaningful only in its states.
    @usableFromInline var touch: OneFingerTouch
    @usableFromInline var series = TapSeries(point: .zero, liftTime: 0, unconfirmedTap: nil)
    var pair: TwoFingerSession
    @usableFromInline var grace = LiftGrace(liftTime: 0, liftPoint: .zero)

    public init(thresholds: GestureThresholds = GestureThresholds(), mask: GestureMask = .all,
                density: PixelDensity = .assumed, screen: Size,
                twoFingerHorizontal: TwoFingerHorizontalMode = .rotate,
                log: (@Sendable (GestureTransition) -> Void)? = nil) {
        self.thresholds = thresholds
        self.mask = mask
        self.pixelsPerMillimetre = density.pixelsPerMillimetre
        self.screen = screen
        self.twoFingerHorizontal = twoFingerHorizontal
        self.log = log
        self.touch = OneFingerTouch(id: 0, at: .zero, time: 0, velocityWindow: thresholds.velocityWindow)
        self.pair = TwoFingerSession(ids: (0, 1), geometry: TwoFingerGeometry(a: .zero, b: .zero), since: 0, now: 0,
                                     tapPossible: false)
    }

    // MARK: - Public entry points

    /// When `expire(at:)` must be called next, seconds (nil: nothing pending).
    /// Inlinable: a caller that keeps the recogniser in a class (MapPipeline, every frame)
    /// otherwise copied the whole recogniser, retains and all, to call this getter.
    @inlinable public var nextDeadline: Double? {
        switch state {
        case .tapPending:
            return series.liftTime + thresholds.doubleTapTimeout
        case .oneFingerDown:
            guard mask.contains(.longPress), touch.maxMove <= px(thresholds.longPressSlop) else { return nil }
            return touch.downTime + thresholds.longPressTime
        case .secondTapDown:
            return touch.downTime + thresholds.tapMaxDuration
        case .panLifted, .transformLifted:
            return grace.liftTime + thresholds.liftGraceTime
        case .panning:
            return touch.debt != .zero ? touch.debtTime + Self.catchUpTick : nil
        case .idle, .leftoverFinger, .secondTapHeld, .longPressed, .quickZooming, .twoFingersDown,
             .twoFingerTapLifting, .transforming, .tilting, .centreRotating, .waitingForLift:
            return nil
        }
    }

    /// `nextDeadline`, read in place: for a caller that keeps the recogniser in a class property,
    /// where reading the property copies all of the recogniser (800 bytes and a retain per
    /// array, string and closure in it) before the getter runs, on every frame.
    public mutating func nextDeadlineInPlace() -> Double? { nextDeadline }

    /// Fires every deadline at or before `time`.
    public mutating func expire(at time: Double) -> [GestureEvent] {
        trace.removeAll(keepingCapacity: true)
        out.removeAll(keepingCapacity: true)
        fireDeadlines(upTo: time)
        return out
    }

    /// Ends the running gesture cleanly (`ended` for a continuous one; a pending tap is
    /// dropped); contacts still down are ignored until they lift. For a mask or configuration
    /// change in the middle of a gesture.
    public mutating func interrupt(at time: Double, reason: String) -> [GestureEvent] {
        trace.removeAll(keepingCapacity: true)
        out.removeAll(keepingCapacity: true)
        fireDeadlines(upTo: time)
        handle(.interrupt, note: reason)
        return out
    }

    /// New thresholds, mask and two-finger choice (a re-read configuration); the running
    /// gesture ends first (`interrupt`), the contacts down are kept.
    public mutating func reconfigure(thresholds newThresholds: GestureThresholds, mask newMask: GestureMask,
                                     twoFingerHorizontal horizontal: TwoFingerHorizontalMode,
                                     at time: Double) -> [GestureEvent] {
        let events = interrupt(at: time, reason: "configuration re-read")
        thresholds = newThresholds
        mask = newMask
        twoFingerHorizontal = horizontal
        return events
    }

    /// Feeds one contact frame; returns the gesture events it (and any deadline passed before
    /// it) produced.
    public mutating func process(_ frame: ContactFrame) -> [GestureEvent] {
        // (Emptying an empty array still costs a call: most frames have no transition.)
        if !trace.isEmpty { trace.removeAll(keepingCapacity: true) }
        // One removeLast per event: removeAll(keepingCapacity:) went through the generic
        // replaceSubrange, a sixth of a frame's instructions.
        while !out.isEmpty { _ = out.removeLast() }
        fireDeadlines(upTo: frame.time)
        now = max(now, frame.time)
        let incoming = frame.contacts // sorted by id, ids unique

        // Palms and cancellations (rare): look only when there is something to see.
        var newPalm = false
        if !palms.isEmpty || incoming.contains(where: { $0.toolType == .palm }) {
            newPalm = incoming.contains { $0.toolType == .palm && !palms.contains($0.id) }
            palms = incoming.filter { $0.toolType == .palm }.map(\.id)
        }
        let cancelledID = frame.cancelled.isEmpty ? nil : frame.cancelled.first { contacts[$0] != nil }
        if newPalm || cancelledID != nil {
            contacts.removeAll()
            for c in incoming where contacts[c.id] == nil { contacts.insert(id: c.id, point: c.position) }
            let why = newPalm ? "palm contact" : "contact \(cancelledID.map(String.init) ?? "?") cancelled"
            handle(.cancel, note: why)
            return out
        }

        // The common frame: the same fingers as before (both lists sorted by id), new positions.
        if contacts.takePositions(ifSameIDs: incoming) {
            if !incoming.isEmpty { handle(.motion) }
            return out
        }

        var staying = false
        for c in incoming {
            if let i = contacts.index(of: c.id) {
                contacts.setPoint(c.position, at: i)
                staying = true
            }
        }
        // Lifts and touch-downs. A lifted contact leaves before the motion is looked at: its
        // last position is stale in this frame, and a pair made of one fresh and one stale
        // position would move the focal point by half a step. Lifts go in id order.
        lifted.removeAll(keepingCapacity: true)
        var i = 0
        while i < contacts.count {
            let id = contacts.id(at: i)
            if incoming.contains(where: { $0.id == id }) {
                i += 1
            } else {
                lifted.append(id)
                contacts.remove(at: i)
            }
        }
        if staying { handle(.motion) }
        for id in lifted { handle(.fingerUp, id: id) }
        for c in incoming where contacts[c.id] == nil {
            contacts.insert(id: c.id, point: c.position)
            handle(contacts.count > 2 ? .tooManyFingers : .fingerDown, id: c.id)
        }
        return out
    }

    // MARK: - Dispatch

    private mutating func fireDeadlines(upTo time: Double) {
        while let deadline = nextDeadline, deadline <= time {
            now = max(now, deadline)
            switch state {
            case .tapPending, .secondTapDown:
                handle(.doubleTapTimeout)
            case .oneFingerDown:
                handle(.longPressTimeout)
            case .panLifted, .transformLifted:
                handle(.liftGraceTimeout)
            case .panning:
                // The finger rests: the catch-up goes on (not an input of the state machine;
                // one tick per call, a frame that follows pays for the rest of the time).
                let paid = payPanDebt()
                if paid != .zero { emit(.pan, .changed, at: touch.lastPoint, anchor: touch.lastPoint - paid) }
                now = max(now, time)
                return
            case .idle, .leftoverFinger, .secondTapHeld, .longPressed, .quickZooming, .twoFingersDown,
                 .twoFingerTapLifting, .transforming, .tilting, .centreRotating, .waitingForLift:
                return
            }
        }
        now = max(now, time)
    }

    mutating func handle(_ input: GestureInput, id: Int = 0, note: String? = nil) {
        let old = state
        var why: String? = note
        switch state {
        case .idle: idle(input, id, &why)
        case .oneFingerDown: oneFingerDown(input, id, &why)
        case .leftoverFinger: leftoverFinger(input, id, &why)
        case .tapPending: tapPending(input, id, &why)
        case .secondTapDown: secondTapDown(input, id, &why)
        case .secondTapHeld: secondTapHeld(input, id, &why)
        case .longPressed: longPressed(input, id, &why)
        case .panning: panning(input, id, &why)
        case .panLifted: panLifted(input, id, &why)
        case .quickZooming: quickZooming(input, id, &why)
        case .twoFingersDown: twoFingersDown(input, id, &why)
        case .twoFingerTapLifting: twoFingerTapLifting(input, id, &why)
        case .transforming: transforming(input, id, &why)
        case .transformLifted: transformLifted(input, id, &why)
        case .tilting, .centreRotating: exclusivePair(input, id, &why)
        case .waitingForLift: waitingForLift(input, id, &why)
        }
        // Motion that changes nothing is not worth a log line.
        if input == .motion && old == state && why == nil { return }
        let step = GestureTransition(time: now, from: old, input: input, to: state, note: why)
        trace.append(step)
        log?(step)
    }

    func bug(_ input: GestureInput) -> String {
        "bug: \(input.rawValue) cannot happen in \(state.rawValue); ignored"
    }

    // MARK: - One-finger state handlers

    private mutating func idle(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .fingerDown:
            startOneFinger(id)
        case .cancel, .interrupt:
            abandon()
        case .fingerUp:
            // Fingers that lift in one frame are handed over one by one: when the first lift
            // ended the gesture (a pinch, a rotation, a two-finger tap), the others come here.
            why = "the rest of the same lift: the gesture already ended"
        case .motion, .tooManyFingers, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func oneFingerDown(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            if case let (p, moved)? = trackFingerPastPanStart(), mask.contains(.pan) {
                beginPan(at: p, from: touch.downPoint, reason: moved, catchingUp: true)
                why = moved
            }
        case .fingerUp:
            let held = now - touch.downTime
            if held > thresholds.tapMaxDuration {
                why = "held \(fmt(held * 1000)) ms > tapMaxDuration \(fmt(thresholds.tapMaxDuration * 1000)) ms: no tap"
                state = .idle
            } else if touch.maxMove > px(thresholds.tapMaxMovement) {
                why = "moved \(mm(touch.maxMove)) mm > tapMaxMovement \(fmt(thresholds.tapMaxMovement)) mm: no tap"
                state = .idle
            } else {
                let r = "tap: held \(fmt(held * 1000)) ms <= \(fmt(thresholds.tapMaxDuration * 1000)) ms, "
                    + "moved \(mm(touch.maxMove)) mm <= \(fmt(thresholds.tapMaxMovement)) mm"
                if mask.contains(.doubleTap) {
                    series = TapSeries(point: touch.downPoint, liftTime: now, unconfirmedTap: touch.downPoint)
                    why = r + "; waiting doubleTapTimeout \(fmt(thresholds.doubleTapTimeout * 1000)) ms"
                    state = .tapPending
                } else {
                    if mask.contains(.tap) {
                        emit(.tap, .recognized, at: touch.downPoint, reason: r + "; double tap disabled")
                    }
                    why = r
                    state = .idle
                }
            }
        case .fingerDown:
            startTwoFingers(tapPossible: touch.maxMove <= px(thresholds.twoFingerTapSlop), since: touch.downTime)
        case .longPressTimeout:
            let r = "still \(fmt(thresholds.longPressTime * 1000)) ms (longPressTime), "
                + "moved \(mm(touch.maxMove)) mm <= longPressSlop \(fmt(thresholds.longPressSlop)) mm"
            emit(.longPress, .recognized, at: contacts[touch.id] ?? touch.downPoint, reason: r)
            why = r
            state = .longPressed
        case .cancel, .interrupt:
            abandon()
        case .tooManyFingers, .doubleTapTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func leftoverFinger(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            if case let (p, moved)? = trackFingerPastPanStart(), mask.contains(.pan) {
                beginPan(at: p, from: touch.downPoint, reason: moved, catchingUp: true)
                why = moved
            }
        case .fingerUp:
            state = .idle
        case .fingerDown:
            startTwoFingers(tapPossible: false, since: now)
        case .cancel, .interrupt:
            abandon()
        case .tooManyFingers, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func tapPending(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .fingerDown:
            let p = contacts[id] ?? .zero
            let gap = now - series.liftTime
            let d = p.distance(to: series.point)
            if gap <= thresholds.doubleTapTimeout && d <= px(thresholds.doubleTapMaxDistance) {
                why = "second touch \(fmt(gap * 1000)) ms after the tap, \(mm(d)) mm away"
                touch = OneFingerTouch(id: id, at: p, time: now, velocityWindow: thresholds.velocityWindow)
                state = .secondTapDown
            } else {
                why = "touch \(mm(d)) mm away > doubleTapMaxDistance \(fmt(thresholds.doubleTapMaxDistance)) mm"
                confirmTap(because: "the next touch is too far for a double tap")
                startOneFinger(id)
            }
        case .doubleTapTimeout:
            let endedSeries = series.unconfirmedTap == nil
            confirmTap(because: "no second touch within doubleTapTimeout \(fmt(thresholds.doubleTapTimeout * 1000)) ms")
            why = endedSeries ? "double-tap series over" : "tap confirmed"
            state = .idle
        case .cancel:
            confirmTap(because: "a palm or several fingers followed")
            abandon()
        case .interrupt:
            abandon() // the pending tap belongs to the old configuration: dropped
        case .fingerUp, .motion, .tooManyFingers, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func secondTapDown(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard case let (p, moved)? = trackFingerPastPanStart() else { return }
            if mask.contains(.quickZoom) {
                beginQuickZoom(at: p, reason: moved)
                why = "quick zoom: " + moved
            } else {
                confirmTap(because: "the second touch dragged")
                why = moved
                if mask.contains(.pan) {
                    beginPan(at: p, from: touch.downPoint, reason: moved, catchingUp: true)
                } else {
                    state = .leftoverFinger
                }
            }
        case .fingerUp:
            let held = now - touch.downTime
            if held <= thresholds.tapMaxDuration && touch.maxMove <= px(thresholds.tapMaxMovement) {
                let r = "second tap: held \(fmt(held * 1000)) ms, moved \(mm(touch.maxMove)) mm"
                emit(.doubleTap, .recognized, at: touch.downPoint, reason: r)
                // The series goes on: a further tap nearby is another double tap (continuous zoom).
                series = TapSeries(point: touch.downPoint, liftTime: now, unconfirmedTap: nil)
                why = r
                state = .tapPending
            } else {
                confirmTap(because: "the second touch was no tap")
                why = "second touch held \(fmt(held * 1000)) ms or moved \(mm(touch.maxMove)) mm: no double tap"
                state = .idle
            }
        case .fingerDown:
            confirmTap(because: "a second finger came down")
            startTwoFingers(tapPossible: touch.maxMove <= px(thresholds.twoFingerTapSlop), since: touch.downTime)
        case .doubleTapTimeout:
            // Held longer than a tap: no double tap can come of it.
            let held = "second touch held longer than tapMaxDuration \(fmt(thresholds.tapMaxDuration * 1000)) ms"
            if mask.contains(.quickZoom) {
                // Double tap and hold: the start of a quick zoom; if it lifts unmoved, nothing
                // (not the first tap: the person meant the pair).
                why = held + ": quick zoom if it drags, nothing if it lifts"
                state = .secondTapHeld
            } else {
                // Without quick zoom it is a fresh touch that can long-press; the first tap stands.
                confirmTap(because: held)
                why = held
                state = .oneFingerDown
            }
        case .cancel:
            confirmTap(because: "a palm or several fingers followed")
            abandon()
        case .interrupt:
            abandon()
        case .tooManyFingers, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func secondTapHeld(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard case let (p, moved)? = trackFingerPastPanStart() else { return }
            beginQuickZoom(at: p, reason: moved)
            why = "quick zoom: " + moved
        case .fingerUp:
            why = "double tap and hold lifted without moving: no gesture"
            state = .idle
        case .fingerDown:
            startTwoFingers(tapPossible: false, since: now)
        case .cancel, .interrupt:
            abandon()
        case .tooManyFingers, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func longPressed(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            break // a long press ends the gesture: dragging afterwards does not pan
        case .fingerUp:
            state = .idle
        case .fingerDown:
            startTwoFingers(tapPossible: false, since: now)
        case .cancel, .interrupt:
            abandon()
        case .tooManyFingers, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func panning(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let p = contacts[touch.id] else { return }
            touch.track(p, at: now)
            let paid = payPanDebt()
            if p != touch.lastPoint || paid != .zero {
                emit(.pan, .changed, at: p, anchor: touch.lastPoint - paid)
                touch.lastPoint = p
            }
        case .fingerUp:
            // What the catch-up still owes is paid with the lift: the point touched first ends
            // under the finger (a lift within ~0.3 s of the pan's start pays a few px here).
            let rest = takePanDebt()
            if rest != .zero {
                emit(.pan, .changed, at: touch.lastPoint, anchor: touch.lastPoint - rest, reason: "catch-up paid at the lift")
            }
            // The release is judged now; the pan ends once the lift grace passes with no return.
            let (v, r) = releaseVelocity()
            grace = LiftGrace(liftTime: now, liftPoint: touch.lastPoint, release: v, releaseReason: r)
            if v != .zero {
                // A fast release: the glide starts now, in the frame of the lift, not when the
                // grace expires (that stopped the map for liftGraceTime). No finger is down.
                emit(.pan, .changed, at: touch.lastPoint, velocity: v, fingers: 0, reason: "lift: " + r)
            }
            why = "finger lifted: the pan goes on if a finger returns within liftGraceTime "
                + "\(fmt(thresholds.liftGraceTime * 1000)) ms"
            state = .panLifted
        case .fingerDown:
            emit(.pan, .ended, at: touch.lastPoint, anchor: touch.lastPoint - takePanDebt(), reason: "a second finger came down")
            startTwoFingers(tapPossible: false, since: now)
            if mask.contains(.twoFingerPan) {
                // The pan goes on with two fingers from here: no jump, no threshold.
                pair.active = [.pan]
                emit(.twoFingerPan, .began, at: pair.start.focal, fingers: 2,
                     reason: "second finger added during a pan")
                state = .transforming
            }
        case .cancel:
            emit(.pan, .cancelled, at: touch.lastPoint, reason: why)
            abandon()
        case .interrupt:
            emit(.pan, .ended, at: touch.lastPoint, anchor: touch.lastPoint - takePanDebt(), reason: why)
            abandon()
        case .tooManyFingers, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func panLifted(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .fingerDown:
            let p = contacts[id] ?? .zero
            let d = p.distance(to: grace.liftPoint)
            let gap = now - grace.liftTime
            if d <= px(thresholds.liftGraceMaxDistance) {
                // Same pan: the new contact carries on from where it landed (no jump, no dead zone).
                touch.id = id
                touch.lastPoint = p
                touch.velocity.add(time: now, position: p)
                why = "finger back after \(fmt(gap * 1000)) ms, \(mm(d)) mm from its lift: the pan goes on"
                state = .panning
            } else {
                emit(.pan, .ended, at: touch.lastPoint, velocity: grace.release, reason: grace.releaseReason)
                why = "touch \(mm(d)) mm from the lift > liftGraceMaxDistance \(fmt(thresholds.liftGraceMaxDistance)) mm: a new touch"
                startOneFinger(id)
            }
        case .liftGraceTimeout:
            emit(.pan, .ended, at: touch.lastPoint, velocity: grace.release, reason: grace.releaseReason)
            why = grace.releaseReason
            state = .idle
        case .cancel:
            emit(.pan, .cancelled, at: touch.lastPoint, reason: why)
            abandon()
        case .interrupt:
            emit(.pan, .ended, at: touch.lastPoint, reason: why)
            abandon()
        case .motion, .fingerUp, .tooManyFingers, .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func quickZooming(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let p = contacts[touch.id] else { return }
            if p.y != touch.lastPoint.y {
                emit(.quickZoom, .changed, at: touch.downPoint, scale: quickZoomScale(from: touch.lastPoint.y, to: p.y))
            }
            touch.lastPoint = p
        case .fingerUp:
            emit(.quickZoom, .ended, at: touch.downPoint)
            state = .idle
        case .fingerDown:
            emit(.quickZoom, .ended, at: touch.downPoint, reason: "a second finger came down")
            startTwoFingers(tapPossible: false, since: now)
        case .cancel:
            emit(.quickZoom, .cancelled, at: touch.downPoint, reason: why)
            abandon()
        case .interrupt:
            emit(.quickZoom, .ended, at: touch.downPoint, reason: why)
            abandon()
        case .tooManyFingers, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    private mutating func waitingForLift(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .fingerUp, .cancel:
            if contacts.isEmpty { state = .idle }
        case .motion, .fingerDown, .tooManyFingers, .interrupt:
            break
        case .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    // MARK: - One finger

    mutating func startOneFinger(_ id: Int) {
        touch = OneFingerTouch(id: id, at: contacts[id] ?? .zero, time: now, velocityWindow: thresholds.velocityWindow)
        state = .oneFingerDown
    }

    /// The finger left over from two: it may only pan (from where it is now).
    mutating func startLeftoverFinger(_ id: Int) {
        touch = OneFingerTouch(id: id, at: contacts[id] ?? .zero, time: now, velocityWindow: thresholds.velocityWindow)
        state = .leftoverFinger
    }

    /// Starts a pan that brings the map point under `from` to the finger. Without catch-up the
    /// first event carries all of it (two fingers to one: `from` is where the map last
    /// followed the finger, a step). After a dead zone (`catchingUp`) the first event carries
    /// the finger's own step in this frame; the distance crossed before it is a debt, paid back
    /// a time-based fraction per frame as pinch and rotate do (`payPanDebt`), so the map does
    /// not jump by the dead zone when the pan is recognised.
    /// The one finger's motion, tracked; its point and the reason when it has moved more than
    /// panStartDistance from where it came down (the states where a drag may start a pan or a
    /// quick zoom), else nil.
    private mutating func trackFingerPastPanStart() -> (Point, String)? {
        guard let p = contacts[touch.id] else { return nil }
        touch.track(p, at: now)
        let d = p.distance(to: touch.downPoint)
        guard d > px(thresholds.panStartDistance) else { return nil }
        return (p, "moved \(mm(d)) mm > panStartDistance \(fmt(thresholds.panStartDistance)) mm")
    }

    mutating func beginPan(at p: Point, from: Point, reason: String, catchingUp: Bool = false) {
        var anchor = from
        if catchingUp {
            touch.debt = touch.previousPoint - from
            touch.debtTime = touch.previousTime
            anchor = touch.previousPoint - payPanDebt()
        } else {
            touch.debt = .zero
        }
        emit(.pan, .began, at: p, anchor: anchor, reason: reason)
        touch.lastPoint = p
        state = .panning
    }

    /// While a pan owes the finger its dead zone and no frame comes (a panel sends nothing for
    /// a still finger), the catch-up goes on at this interval, seconds.
    public static let catchUpTick = 1.0 / 60

    /// This frame's part of the pan's debt: 1 - exp(-dt / catchUpTime) of it, all of it once
    /// less than half a pixel would be left (so it ends, exactly, within a bounded time:
    /// about catchUpTime x ln(debt / 0.5 px), 0.3 s for a 20 px dead zone).
    mutating func payPanDebt() -> Point {
        guard touch.debt != .zero else { return .zero }
        let dt = max(now - touch.debtTime, 0)
        let f = thresholds.catchUpTime > 0 ? 1 - exp(-dt / thresholds.catchUpTime) : 1
        var part = touch.debt * f
        if (touch.debt - part).length < 0.5 { part = touch.debt }
        touch.debt = part == touch.debt ? .zero : touch.debt - part
        touch.debtTime = now
        return part
    }

    /// All the pan still owes, now.
    mutating func takePanDebt() -> Point {
        let rest = touch.debt
        touch.debt = .zero
        return rest
    }

    private mutating func beginQuickZoom(at p: Point, reason: String) {
        let scale = quickZoomScale(from: touch.downPoint.y, to: p.y)
        emit(.quickZoom, .began, at: touch.downPoint, scale: scale, reason: "double tap and drag: " + reason)
        touch.lastPoint = p
        state = .quickZooming
    }

    /// The pan's release velocity at the lift (zero when it carries no momentum) and why.
    private func releaseVelocity() -> (Point, String) {
        let lastReport = touch.velocity.lastTime ?? now
        let pause = now - lastReport
        let (v, n) = touch.velocity.velocity(at: lastReport)
        let speed = v.length
        let minimum = px(thresholds.momentumMinVelocity)
        if !mask.contains(.momentum) { return (.zero, "momentum disabled") }
        if pause > thresholds.momentumMaxPause {
            return (.zero, "lifted \(fmt(pause * 1000)) ms after the last report > momentumMaxPause "
                    + "\(fmt(thresholds.momentumMaxPause * 1000)) ms")
        }
        let samples = "(\(n) samples in \(fmt(thresholds.velocityWindow * 1000)) ms)"
        if speed < minimum {
            return (.zero, "release \(mm(speed)) mm/s < momentumMinVelocity \(fmt(thresholds.momentumMinVelocity)) mm/s " + samples)
        }
        return (v, "release \(mm(speed)) mm/s >= momentumMinVelocity \(fmt(thresholds.momentumMinVelocity)) mm/s " + samples)
    }

    /// Confirms the pending first tap, if there is one that still counts.
    mutating func confirmTap(because reason: String) {
        guard let p = series.unconfirmedTap else { return }
        series.unconfirmedTap = nil
        guard mask.contains(.tap) else { return }
        emit(.tap, .recognized, at: p, reason: "tap confirmed: " + reason)
    }

    private func quickZoomScale(from y0: Double, to y1: Double) -> Double {
        guard screen.height > 0 else { return 1 }
        let levels = (y1 - y0) / screen.height * thresholds.quickZoomLevelsPerScreenHeight
        return exp2(levels)
    }

    // MARK: - Leaving

    /// Drops everything; contacts still down are ignored until they lift.
    mutating func abandon() {
        state = contacts.isEmpty ? .idle : .waitingForLift
    }

    // MARK: - Helpers

    @usableFromInline func px(_ millimetres: Double) -> Double { millimetres * pixelsPerMillimetre }
    func mm(_ pixels: Double) -> String { fmt(pixels / pixelsPerMillimetre) }

    mutating func emit(_ kind: GestureKind, _ phase: GesturePhase, at position: Point,
                       anchor: Point? = nil, scale: Double = 1, rotation: Double = 0,
                       tilt: Double = 0, velocity: Point = Point(x: 0, y: 0), fingers: Int = 1,
                       reason: consuming String? = nil) {
        out.append(GestureEvent(kind: kind, phase: phase, time: now, position: position, anchor: anchor,
                                scale: scale, rotation: rotation, tilt: tilt, velocity: velocity,
                                fingers: fingers, reason: reason))
    }
}
