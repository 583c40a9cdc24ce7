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
/// to `log`. The state diagram is in docs/gestures.md.
///
/// A frame is turned into inputs in this order: `cancel` (a cancelled id or a palm: everything
/// stops), `motion` of the contacts that stay down, `fingerUp` for each lift, then `fingerDown`
/// (or `tooManyFingers` for a third contact) for each new contact.
public struct GestureRecognizer: Sendable {
    public let thresholds: GestureThresholds
    /// Which gestures are on. A disabled gesture neither fires nor blocks the others.
    public var mask: GestureMask
    public let pixelsPerMillimetre: Double
    /// The screen the contacts are in: quick zoom scales by its height, rotation about the
    /// centre turns about its centre.
    public let screen: Size
    public let twoFingerHorizontal: TwoFingerHorizontalMode
    /// Called with every transition as it happens (optional).
    public var log: (@Sendable (GestureTransition) -> Void)?

    public private(set) var state: GestureState = .idle
    /// The transitions of the last `process` or `expire` call.
    public private(set) var trace: [GestureTransition] = []

    // Contacts down as last seen, screen px.
    private var contacts: [Int: Point] = [:]
    /// Contacts already known to be palms (cancelled once, then ignored until lifted).
    private var palms: Set<Int> = []
    private var now: Double = 0
    private var out: [GestureEvent] = []

    // One finger.
    private var finger = 0
    private var downPoint = Point.zero
    private var downTime = 0.0
    private var maxMove = 0.0
    /// A fresh touch may still tap or long-press; one left over from two fingers may only pan.
    private var fresh = true
    /// Last position delivered in a pan or quick-zoom event.
    private var lastPoint = Point.zero
    private var velocity: VelocityTracker

    // Taps.
    private var tapPoint = Point.zero
    private var tapLiftTime = 0.0
    /// The pending tap ended a double tap: its timeout confirms nothing.
    private var tapEndedDoubleTap = false
    /// The second touch of a possible double tap has been down longer than a tap.
    private var secondTouchTooLong = false

    // Two fingers.
    private var ids = (0, 1)
    private var twoStartTime = 0.0
    private var start = TwoFingerGeometry(a: .zero, b: .zero)
    private var previous = TwoFingerGeometry(a: .zero, b: .zero)
    /// Turn of the finger line since `start`, unwrapped, degrees.
    private var turned = 0.0
    /// Focal point as last delivered: the next translation starts here.
    private var deliveredFocal = Point.zero
    private var twoFingerTapPossible = false
    private var maxMoveA = 0.0
    private var maxMoveB = 0.0
    private var pinchActive = false
    private var rotateActive = false
    private var panActive = false
    /// +1 when the fingers turn the map about the centre from above it, -1 from below.
    private var centreSign = 1.0

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
        self.velocity = VelocityTracker(window: thresholds.velocityWindow)
    }

    // MARK: - Public entry points

    /// When `expire(at:)` must be called next, seconds (nil: nothing pending).
    public var nextDeadline: Double? {
        switch state {
        case .tapPending:
            return tapLiftTime + thresholds.doubleTapTimeout
        case .oneFingerDown:
            guard fresh, mask.contains(.longPress), maxMove <= px(thresholds.longPressSlop) else { return nil }
            return downTime + thresholds.longPressTime
        case .secondTapDown:
            return secondTouchTooLong ? nil : downTime + thresholds.tapMaxDuration
        case .idle, .longPressed, .panning, .quickZooming, .twoFingersDown,
             .twoFingerTapLifting, .transforming, .tilting, .centreRotating, .waitingForLift:
            return nil
        }
    }

    /// Fires every deadline at or before `time`.
    public mutating func expire(at time: Double) -> [GestureEvent] {
        trace.removeAll(keepingCapacity: true)
        out.removeAll(keepingCapacity: true)
        fireDeadlines(upTo: time)
        return out
    }

    /// Feeds one contact frame; returns the gesture events it (and any deadline passed before
    /// it) produced.
    public mutating func process(_ frame: ContactFrame) -> [GestureEvent] {
        trace.removeAll(keepingCapacity: true)
        out.removeAll(keepingCapacity: true)
        fireDeadlines(upTo: frame.time)
        now = max(now, frame.time)
        let incoming = frame.contacts // sorted by id, ids unique

        // Palms and cancellations (rare): look only when there is something to see.
        var newPalm = false
        if !palms.isEmpty || incoming.contains(where: { $0.toolType == .palm }) {
            newPalm = incoming.contains { $0.toolType == .palm && !palms.contains($0.id) }
            palms = Set(incoming.filter { $0.toolType == .palm }.map(\.id))
        }
        let cancelledID = frame.cancelled.isEmpty ? nil : frame.cancelled.first { contacts[$0] != nil }
        if newPalm || cancelledID != nil {
            var current: [Int: Point] = [:]
            for c in incoming { current[c.id] = c.position }
            contacts = current
            let why = newPalm ? "palm contact" : "contact \(cancelledID!) cancelled"
            handle(.cancel, note: why)
            return out
        }

        var staying = false
        var allKnown = true
        for c in incoming {
            if let i = contacts.index(forKey: c.id) {
                contacts.values[i] = c.position // one hash lookup, not two
                staying = true
            } else {
                allKnown = false
            }
        }
        if staying { handle(.motion) }
        // Lifts and touch-downs (the common frame has neither).
        if !(allKnown && incoming.count == contacts.count) {
            let ids = Set(incoming.map(\.id))
            for id in contacts.keys.sorted() where !ids.contains(id) {
                contacts[id] = nil
                handle(.fingerUp, id: id)
            }
            for c in incoming where contacts[c.id] == nil {
                contacts[c.id] = c.position
                handle(contacts.count > 2 ? .tooManyFingers : .fingerDown, id: c.id)
            }
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
            case .idle, .longPressed, .panning, .quickZooming, .twoFingersDown,
                 .twoFingerTapLifting, .transforming, .tilting, .centreRotating, .waitingForLift:
                return
            }
        }
        now = max(now, time)
    }

    private mutating func handle(_ input: GestureInput, id: Int = 0, note: String? = nil) {
        let old = state
        var why: String? = note
        switch state {
        case .idle: idle(input, id, &why)
        case .oneFingerDown: oneFingerDown(input, id, &why)
        case .tapPending: tapPending(input, id, &why)
        case .secondTapDown: secondTapDown(input, id, &why)
        case .longPressed: longPressed(input, id, &why)
        case .panning: panning(input, id, &why)
        case .quickZooming: quickZooming(input, id, &why)
        case .twoFingersDown: twoFingersDown(input, id, &why)
        case .twoFingerTapLifting: twoFingerTapLifting(input, id, &why)
        case .transforming: transforming(input, id, &why)
        case .tilting: tilting(input, id, &why)
        case .centreRotating: centreRotating(input, id, &why)
        case .waitingForLift: waitingForLift(input, id, &why)
        }
        // Motion that changes nothing is not worth a log line.
        if input == .motion && old == state && why == nil { return }
        let step = GestureTransition(time: now, from: old, input: input, to: state, note: why)
        trace.append(step)
        log?(step)
    }

    private func bug(_ input: GestureInput) -> String {
        "bug: \(input.rawValue) cannot happen in \(state.rawValue); ignored"
    }

    // MARK: - State handlers

    private mutating func idle(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .fingerDown:
            startOneFinger(id, fresh: true)
        case .cancel, .tooManyFingers:
            abandon()
        case .fingerUp, .motion, .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func oneFingerDown(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let p = contacts[finger] else { return }
            trackOneFinger(p)
            let d = p.distance(to: downPoint)
            if mask.contains(.pan) && d > px(thresholds.panStartDistance) {
                let r = "moved \(mm(d)) mm > panStartDistance \(fmt(thresholds.panStartDistance)) mm"
                beginPan(at: p, from: downPoint, reason: r)
                why = r
            }
        case .fingerUp:
            let held = now - downTime
            if !fresh {
                state = .idle
            } else if held > thresholds.tapMaxDuration {
                why = "held \(fmt(held * 1000)) ms > tapMaxDuration \(fmt(thresholds.tapMaxDuration * 1000)) ms: no tap"
                state = .idle
            } else if maxMove > px(thresholds.tapMaxMovement) {
                why = "moved \(mm(maxMove)) mm > tapMaxMovement \(fmt(thresholds.tapMaxMovement)) mm: no tap"
                state = .idle
            } else {
                let r = "tap: held \(fmt(held * 1000)) ms <= \(fmt(thresholds.tapMaxDuration * 1000)) ms, "
                    + "moved \(mm(maxMove)) mm <= \(fmt(thresholds.tapMaxMovement)) mm"
                tapPoint = downPoint
                if mask.contains(.doubleTap) {
                    tapLiftTime = now
                    tapEndedDoubleTap = false
                    why = r + "; waiting doubleTapTimeout \(fmt(thresholds.doubleTapTimeout * 1000)) ms"
                    state = .tapPending
                } else {
                    if mask.contains(.tap) {
                        emit(.tap, .recognized, at: tapPoint, reason: r + "; double tap disabled")
                    }
                    why = r
                    state = .idle
                }
            }
        case .fingerDown:
            startTwoFingers(tapPossible: fresh && maxMove <= px(thresholds.twoFingerTapSlop),
                            since: fresh ? downTime : now)
        case .longPressTimeout:
            let r = "still \(fmt(thresholds.longPressTime * 1000)) ms (longPressTime), "
                + "moved \(mm(maxMove)) mm <= longPressSlop \(fmt(thresholds.longPressSlop)) mm"
            emit(.longPress, .recognized, at: contacts[finger] ?? downPoint, reason: r)
            why = r
            state = .longPressed
        case .cancel, .tooManyFingers:
            abandon()
        case .doubleTapTimeout:
            why = bug(input)
        }
    }

    private mutating func tapPending(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .fingerDown:
            let p = contacts[id] ?? .zero
            let gap = now - tapLiftTime
            let d = p.distance(to: tapPoint)
            if gap <= thresholds.doubleTapTimeout && d <= px(thresholds.doubleTapMaxDistance) {
                why = "second touch \(fmt(gap * 1000)) ms after the tap, \(mm(d)) mm away"
                finger = id
                downPoint = p
                downTime = now
                maxMove = 0
                lastPoint = p
                fresh = true
                secondTouchTooLong = false
                velocity.reset()
                velocity.add(time: now, position: p)
                state = .secondTapDown
            } else {
                why = "touch \(mm(d)) mm away > doubleTapMaxDistance \(fmt(thresholds.doubleTapMaxDistance)) mm"
                confirmTap(because: "the next touch is too far for a double tap")
                startOneFinger(id, fresh: true)
            }
        case .doubleTapTimeout:
            confirmTap(because: "no second touch within doubleTapTimeout \(fmt(thresholds.doubleTapTimeout * 1000)) ms")
            why = tapEndedDoubleTap ? "double-tap series over" : "tap confirmed"
            state = .idle
        case .cancel, .tooManyFingers:
            confirmTap(because: "a palm or several fingers followed")
            abandon()
        case .fingerUp, .motion, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func secondTapDown(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let p = contacts[finger] else { return }
            trackOneFinger(p)
            let d = p.distance(to: downPoint)
            guard d > px(thresholds.panStartDistance) else { return }
            let moved = "moved \(mm(d)) mm > panStartDistance \(fmt(thresholds.panStartDistance)) mm"
            if mask.contains(.quickZoom) {
                let scale = quickZoomScale(from: downPoint.y, to: p.y)
                emit(.quickZoom, .began, at: downPoint, scale: scale,
                     reason: "double tap and drag: " + moved)
                lastPoint = p
                why = "quick zoom: " + moved
                state = .quickZooming
            } else {
                confirmTap(because: "the second touch dragged")
                fresh = false
                why = moved
                if mask.contains(.pan) {
                    beginPan(at: p, from: downPoint, reason: moved)
                } else {
                    state = .oneFingerDown
                }
            }
        case .fingerUp:
            let held = now - downTime
            if held <= thresholds.tapMaxDuration && maxMove <= px(thresholds.tapMaxMovement) {
                let r = "second tap: held \(fmt(held * 1000)) ms, moved \(mm(maxMove)) mm"
                emit(.doubleTap, .recognized, at: downPoint, reason: r)
                tapPoint = downPoint
                tapLiftTime = now
                tapEndedDoubleTap = true
                why = r
                state = .tapPending
            } else {
                confirmTap(because: "the second touch was no tap")
                why = "second touch held \(fmt(held * 1000)) ms or moved \(mm(maxMove)) mm: no double tap"
                state = .idle
            }
        case .fingerDown:
            confirmTap(because: "a second finger came down")
            startTwoFingers(tapPossible: maxMove <= px(thresholds.twoFingerTapSlop), since: downTime)
        case .doubleTapTimeout:
            // Held longer than a tap: no double tap can come of it, so the first tap stands.
            // The touch may still quick-zoom if it drags; without quick zoom it is a fresh
            // touch that can long-press.
            secondTouchTooLong = true
            confirmTap(because: "the second touch is held longer than tapMaxDuration "
                       + "\(fmt(thresholds.tapMaxDuration * 1000)) ms")
            why = "second touch held longer than tapMaxDuration \(fmt(thresholds.tapMaxDuration * 1000)) ms"
            if !mask.contains(.quickZoom) { state = .oneFingerDown }
        case .cancel, .tooManyFingers:
            confirmTap(because: "a palm or several fingers followed")
            abandon()
        case .longPressTimeout:
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
        case .cancel, .tooManyFingers:
            abandon()
        case .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func panning(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let p = contacts[finger] else { return }
            trackOneFinger(p)
            if p != lastPoint {
                emit(.pan, .changed, at: p, anchor: lastPoint)
                lastPoint = p
            }
        case .fingerUp:
            let lastReport = velocity.lastTime ?? now
            let pause = now - lastReport
            let (v, n) = velocity.velocity(at: lastReport)
            let speed = v.length
            let minimum = px(thresholds.momentumMinVelocity)
            var release = Point.zero
            let r: String
            if !mask.contains(.momentum) {
                r = "momentum disabled"
            } else if pause > thresholds.momentumMaxPause {
                r = "lifted \(fmt(pause * 1000)) ms after the last report > momentumMaxPause "
                    + "\(fmt(thresholds.momentumMaxPause * 1000)) ms"
            } else if speed < minimum {
                r = "release \(mm(speed)) mm/s < momentumMinVelocity \(fmt(thresholds.momentumMinVelocity)) mm/s "
                    + "(\(n) samples in \(fmt(thresholds.velocityWindow * 1000)) ms)"
            } else {
                release = v
                r = "release \(mm(speed)) mm/s >= momentumMinVelocity \(fmt(thresholds.momentumMinVelocity)) mm/s "
                    + "(\(n) samples in \(fmt(thresholds.velocityWindow * 1000)) ms)"
            }
            emit(.pan, .ended, at: lastPoint, velocity: release, reason: r)
            why = r
            state = .idle
        case .fingerDown:
            emit(.pan, .ended, at: lastPoint, reason: "a second finger came down")
            startTwoFingers(tapPossible: false, since: now)
            if mask.contains(.twoFingerPan) {
                // The pan goes on with two fingers from here: no jump, no threshold.
                panActive = true
                emit(.twoFingerPan, .began, at: start.focal, fingers: 2,
                     reason: "second finger added during a pan")
                state = .transforming
            }
        case .cancel, .tooManyFingers:
            emit(.pan, .cancelled, at: lastPoint, reason: input == .cancel ? why : "third finger")
            abandon()
        case .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func quickZooming(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let p = contacts[finger] else { return }
            if p.y != lastPoint.y {
                emit(.quickZoom, .changed, at: downPoint, scale: quickZoomScale(from: lastPoint.y, to: p.y))
            }
            lastPoint = p
        case .fingerUp:
            emit(.quickZoom, .ended, at: downPoint)
            state = .idle
        case .fingerDown:
            emit(.quickZoom, .ended, at: downPoint, reason: "a second finger came down")
            startTwoFingers(tapPossible: false, since: now)
        case .cancel, .tooManyFingers:
            emit(.quickZoom, .cancelled, at: downPoint, reason: input == .cancel ? why : "more fingers")
            abandon()
        case .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func twoFingersDown(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let g = currentPair() else { return }
            trackPair(g)
            why = decideTwoFingers(g)
            previous = g
        case .fingerUp:
            tapPoint = previous.focal
            if twoFingerTapStillPossible() {
                state = .twoFingerTapLifting
                return
            }
            why = twoFingerTapRuledOut()
            if let other = contacts.keys.first {
                startOneFinger(other, fresh: false)
            } else {
                state = .idle
            }
        case .cancel, .tooManyFingers:
            abandon()
        case .fingerDown, .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func twoFingerTapLifting(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let (rid, p) = contacts.first else { return }
            let moved = p.distance(to: rid == ids.0 ? start.a : start.b)
            if moved > px(thresholds.twoFingerTapSlop) {
                why = "remaining finger moved \(mm(moved)) mm > twoFingerTapSlop \(fmt(thresholds.twoFingerTapSlop)) mm"
                startOneFinger(rid, fresh: false)
            }
        case .fingerUp:
            let held = now - twoStartTime
            if held <= thresholds.twoFingerTapMaxDuration {
                let r = "two-finger tap: \(fmt(held * 1000)) ms <= twoFingerTapMaxDuration "
                    + "\(fmt(thresholds.twoFingerTapMaxDuration * 1000)) ms, each finger moved <= "
                    + "\(fmt(thresholds.twoFingerTapSlop)) mm"
                emit(.twoFingerTap, .recognized, at: tapPoint, fingers: 2, reason: r)
                why = r
            } else {
                why = "two fingers held \(fmt(held * 1000)) ms > twoFingerTapMaxDuration "
                    + "\(fmt(thresholds.twoFingerTapMaxDuration * 1000)) ms: no two-finger tap"
            }
            state = .idle
        case .fingerDown:
            startTwoFingers(tapPossible: false, since: now)
        case .cancel, .tooManyFingers:
            abandon()
        case .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func transforming(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let g = currentPair() else { return }
            trackPair(g)
            why = emitTransform(g)
            previous = g
        case .fingerUp:
            endTransform(.ended, reason: "a finger lifted")
            if let other = contacts.keys.first {
                // Re-baselined on the remaining finger: it pans once it moves past the pan start.
                startOneFinger(other, fresh: false)
            } else {
                state = .idle
            }
        case .cancel, .tooManyFingers:
            endTransform(.cancelled, reason: input == .cancel ? (why ?? "cancelled") : "third finger")
            abandon()
        case .fingerDown, .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func tilting(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let g = currentPair() else { return }
            let tilt = tiltIncrement(from: previous, to: g)
            if tilt != 0 {
                emit(.tilt, .changed, at: g.focal, tilt: tilt, fingers: 2)
            }
            previous = g
        case .fingerUp:
            emit(.tilt, .ended, at: previous.focal, fingers: 2, reason: "a finger lifted")
            abandon()
        case .cancel, .tooManyFingers:
            emit(.tilt, .cancelled, at: previous.focal, fingers: 2,
                 reason: input == .cancel ? why : "third finger")
            abandon()
        case .fingerDown, .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func centreRotating(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let g = currentPair() else { return }
            let r = centreRotationIncrement(from: previous, to: g)
            if r != 0 {
                emit(.rotate, .changed, at: screen.center, rotation: r, fingers: 2)
            }
            previous = g
        case .fingerUp:
            emit(.rotate, .ended, at: screen.center, fingers: 2, reason: "a finger lifted")
            abandon()
        case .cancel, .tooManyFingers:
            emit(.rotate, .cancelled, at: screen.center, fingers: 2,
                 reason: input == .cancel ? why : "third finger")
            abandon()
        case .fingerDown, .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    private mutating func waitingForLift(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .fingerUp, .cancel:
            if contacts.isEmpty { state = .idle }
        case .motion, .fingerDown, .tooManyFingers:
            break
        case .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    // MARK: - One finger

    private mutating func startOneFinger(_ id: Int, fresh: Bool) {
        let p = contacts[id] ?? .zero
        finger = id
        downPoint = p
        downTime = now
        maxMove = 0
        lastPoint = p
        self.fresh = fresh
        velocity.reset()
        velocity.add(time: now, position: p)
        state = .oneFingerDown
    }

    private mutating func trackOneFinger(_ p: Point) {
        maxMove = max(maxMove, p.distance(to: downPoint))
        velocity.add(time: now, position: p)
    }

    /// Starts a pan whose first event carries the translation from `from` (the touch-down
    /// point), so the map point first touched stays under the finger.
    private mutating func beginPan(at p: Point, from: Point, reason: String) {
        emit(.pan, .began, at: p, anchor: from, reason: reason)
        lastPoint = p
        state = .panning
    }

    /// Confirms the pending first tap, if there is one that still counts.
    private mutating func confirmTap(because reason: String) {
        guard !tapEndedDoubleTap, mask.contains(.tap) else { return }
        tapEndedDoubleTap = true
        emit(.tap, .recognized, at: tapPoint, reason: "tap confirmed: " + reason)
    }

    private func quickZoomScale(from y0: Double, to y1: Double) -> Double {
        guard screen.height > 0 else { return 1 }
        let levels = (y1 - y0) / screen.height * thresholds.quickZoomLevelsPerScreenHeight
        return exp2(levels)
    }

    // MARK: - Two fingers

    private mutating func startTwoFingers(tapPossible: Bool, since: Double) {
        let sorted = contacts.keys.sorted()
        guard sorted.count == 2 else { state = .waitingForLift; return }
        ids = (sorted[0], sorted[1])
        let g = TwoFingerGeometry(a: contacts[sorted[0]]!, b: contacts[sorted[1]]!)
        start = g
        previous = g
        turned = 0
        deliveredFocal = g.focal
        twoStartTime = since
        twoFingerTapPossible = tapPossible && mask.contains(.twoFingerTap)
        maxMoveA = 0
        maxMoveB = 0
        pinchActive = false
        rotateActive = false
        panActive = false
        state = .twoFingersDown
    }

    private func currentPair() -> TwoFingerGeometry? {
        guard let a = contacts[ids.0], let b = contacts[ids.1] else { return nil }
        return TwoFingerGeometry(a: a, b: b)
    }

    private mutating func trackPair(_ g: TwoFingerGeometry) {
        maxMoveA = max(maxMoveA, g.a.distance(to: start.a))
        maxMoveB = max(maxMoveB, g.b.distance(to: start.b))
        turned += angleDifference(g.angle, previous.angle)
    }

    /// Why the pair cannot be a two-finger tap any more, for the log.
    private func twoFingerTapRuledOut() -> String {
        let t = thresholds
        if !mask.contains(.twoFingerTap) { return "no two-finger tap: disabled" }
        if !twoFingerTapPossible { return "no two-finger tap: the first finger had moved or the pair followed another gesture" }
        let held = now - twoStartTime
        if held > t.twoFingerTapMaxDuration {
            return "no two-finger tap: \(fmt(held * 1000)) ms > twoFingerTapMaxDuration \(fmt(t.twoFingerTapMaxDuration * 1000)) ms"
        }
        return "no two-finger tap: a finger moved \(mm(max(maxMoveA, maxMoveB))) mm > twoFingerTapSlop \(fmt(t.twoFingerTapSlop)) mm"
    }

    private func twoFingerTapStillPossible() -> Bool {
        twoFingerTapPossible
            && now - twoStartTime <= thresholds.twoFingerTapMaxDuration
            && max(maxMoveA, maxMoveB) <= px(thresholds.twoFingerTapSlop)
    }

    /// The undecided pair: tilt first (decided from the geometry), then pinch and rotate, then
    /// fingers moving together (rotation about the centre or two-finger pan). Returns the reason
    /// when it decided.
    private mutating func decideTwoFingers(_ g: TwoFingerGeometry) -> String? {
        let t = thresholds
        let dA = g.a - start.a, dB = g.b - start.b
        let focalMove = g.focal - start.focal
        // Moving together: each finger carries at least half the common motion, in its direction
        // (a pinch about one still finger moves the focal point too, but is no common motion).
        let together = focalMove.length > 0
            && min(dA.length, dB.length) >= focalMove.length / 2
            && angleBetween(dA, focalMove) <= t.parallelMaxAngle
            && angleBetween(dB, focalMove) <= t.parallelMaxAngle
        let lineAngle = start.lineAngleFromHorizontal
        let vertical = together && angleFromVertical(focalMove) <= t.tiltMaxDirectionAngle
        let tiltCandidate = mask.contains(.tilt) && vertical && lineAngle <= t.tiltMaxFingerLineAngle

        if tiltCandidate && min(abs(dA.y), abs(dB.y)) >= px(t.tiltStartDistance) {
            let r = "tilt: finger line \(fmt(lineAngle)) deg <= \(fmt(t.tiltMaxFingerLineAngle)) deg from horizontal, "
                + "both fingers moved \(mm(min(abs(dA.y), abs(dB.y)))) mm >= tiltStartDistance "
                + "\(fmt(t.tiltStartDistance)) mm vertically together"
            emit(.tilt, .began, at: g.focal, tilt: tiltIncrement(from: previous, to: g), fingers: 2, reason: r)
            state = .tilting
            return r
        }

        let spanChange = g.span - start.span
        var reasons: [String] = []
        if mask.contains(.pinch) && abs(spanChange) >= px(t.pinchStartSpanChange) {
            pinchActive = true
            reasons.append("pinch: span changed \(mm(spanChange)) mm, |.| >= pinchStartSpanChange \(fmt(t.pinchStartSpanChange)) mm")
        }
        if mask.contains(.rotate) && abs(turned) >= t.rotationStartAngle {
            rotateActive = true
            reasons.append("rotate: turned \(fmt(turned)) deg, |.| >= rotationStartAngle \(fmt(t.rotationStartAngle)) deg")
        }
        if !reasons.isEmpty {
            state = .transforming
            _ = emitTransform(g, began: reasons.joined(separator: "; "))
            return reasons.joined(separator: "; ")
        }
        if tiltCandidate { return nil } // moving vertically side by side: wait for the tilt start

        let horizontal = together && angleFromHorizontal(focalMove) <= t.centreRotationMaxDirectionAngle
        if horizontal && twoFingerHorizontal == .rotate && mask.contains(.rotate) {
            guard abs(focalMove.x) >= px(t.centreRotationStartDistance) else { return nil }
            centreSign = start.focal.y <= screen.center.y ? 1 : -1
            let r = "rotate about the screen centre: fingers moved \(mm(abs(focalMove.x))) mm >= "
                + "centreRotationStartDistance \(fmt(t.centreRotationStartDistance)) mm horizontally together"
            emit(.rotate, .began, at: screen.center, rotation: centreRotationIncrement(from: previous, to: g),
                 fingers: 2, reason: r)
            state = .centreRotating
            return r
        }
        if mask.contains(.twoFingerPan) && focalMove.length >= px(t.twoFingerPanStartDistance) {
            panActive = true
            let r = "twoFingerPan: focal point moved \(mm(focalMove.length)) mm >= twoFingerPanStartDistance "
                + "\(fmt(t.twoFingerPanStartDistance)) mm"
            state = .transforming
            _ = emitTransform(g, began: r)
            return r
        }
        return nil
    }

    /// Emits this frame's part of the pinch/rotate/pan transform. Components are split so each
    /// appears in exactly one event: the translation (from the last delivered focal point) goes
    /// with twoFingerPan when it is active, else with the pinch, else with the rotation; the
    /// scale with the pinch; the rotation with the rotate. A component whose gesture is not
    /// active is not applied (so a pinch's incidental twist does not rotate the map), except
    /// the translation, which always keeps the map point under the fingers' focal point.
    private mutating func emitTransform(_ g: TwoFingerGeometry, began: String? = nil) -> String? {
        let t = thresholds
        // Why each gesture began with this frame (nil: it did not begin now). Three optionals
        // rather than a dictionary: this runs on every two-finger frame.
        var newPinch: String?, newRotate: String?, newPan: String?
        if !pinchActive && mask.contains(.pinch) && abs(g.span - start.span) >= px(t.pinchStartSpanChange) {
            pinchActive = true
            newPinch = "pinch: span changed \(mm(g.span - start.span)) mm, |.| >= pinchStartSpanChange \(fmt(t.pinchStartSpanChange)) mm"
        }
        if !rotateActive && mask.contains(.rotate) && abs(turned) >= t.rotationStartAngle {
            rotateActive = true
            newRotate = "rotate: turned \(fmt(turned)) deg, |.| >= rotationStartAngle \(fmt(t.rotationStartAngle)) deg"
        }
        let focalMove = g.focal - start.focal
        if !panActive && mask.contains(.twoFingerPan) && focalMove.length >= px(t.twoFingerPanStartDistance) {
            panActive = true
            newPan = "twoFingerPan: focal point moved \(mm(focalMove.length)) mm >= "
                + "twoFingerPanStartDistance \(fmt(t.twoFingerPanStartDistance)) mm"
        }
        if let began {
            // Everything active now began with this frame.
            if pinchActive && newPinch == nil { newPinch = began }
            if rotateActive && newRotate == nil { newRotate = began }
            if panActive && newPan == nil { newPan = began }
        }

        let scale = previous.span > 0 ? g.span / previous.span : 1
        let rotation = angleDifference(g.angle, previous.angle)
        var translationCarried = false
        // In this order: twoFingerPan, pinch, rotate; the first active one carries the translation.
        func step(_ kind: GestureKind, _ active: Bool, _ reason: String?, _ s: Double, _ r: Double) {
            guard active else { return }
            let anchor = translationCarried ? g.focal : deliveredFocal
            translationCarried = true
            let phase: GesturePhase = reason != nil ? .began : .changed
            if phase == .changed && anchor == g.focal && s == 1 && r == 0 { return }
            emit(kind, phase, at: g.focal, anchor: anchor, scale: s, rotation: r, fingers: 2, reason: reason)
        }
        step(.twoFingerPan, panActive, newPan, 1, 0)
        step(.pinch, pinchActive, newPinch, scale, 0)
        step(.rotate, rotateActive, newRotate, 1, rotation)
        if translationCarried { deliveredFocal = g.focal }
        if newPan == nil && newPinch == nil && newRotate == nil { return nil }
        return [newPan, newPinch, newRotate].compactMap { $0 }.joined(separator: "; ")
    }

    private mutating func endTransform(_ phase: GesturePhase, reason: String) {
        for kind in [GestureKind.twoFingerPan, .pinch, .rotate] {
            let active = kind == .pinch ? pinchActive : kind == .rotate ? rotateActive : panActive
            if active { emit(kind, phase, at: deliveredFocal, fingers: 2, reason: reason) }
        }
        pinchActive = false
        rotateActive = false
        panActive = false
    }

    /// Up tilts towards the horizon: degrees per millimetre of the focal point's vertical travel.
    private func tiltIncrement(from a: TwoFingerGeometry, to b: TwoFingerGeometry) -> Double {
        -(b.focal.y - a.focal.y) / pixelsPerMillimetre * thresholds.tiltDegreesPerMillimetre
    }

    /// Like turning a wheel: moving right above the centre turns clockwise, below it anticlockwise.
    private func centreRotationIncrement(from a: TwoFingerGeometry, to b: TwoFingerGeometry) -> Double {
        centreSign * (b.focal.x - a.focal.x) / pixelsPerMillimetre * thresholds.centreRotationDegreesPerMillimetre
    }

    // MARK: - Leaving

    /// Drops everything; contacts still down are ignored until they lift.
    private mutating func abandon() {
        pinchActive = false
        rotateActive = false
        panActive = false
        state = contacts.isEmpty ? .idle : .waitingForLift
    }

    // MARK: - Helpers

    private func px(_ millimetres: Double) -> Double { millimetres * pixelsPerMillimetre }
    private func mm(_ pixels: Double) -> String { fmt(pixels / pixelsPerMillimetre) }

    private mutating func emit(_ kind: GestureKind, _ phase: GesturePhase, at position: Point,
                               anchor: Point? = nil, scale: Double = 1, rotation: Double = 0,
                               tilt: Double = 0, velocity: Point = .zero, fingers: Int = 1,
                               reason: String? = nil) {
        out.append(GestureEvent(kind: kind, phase: phase, time: now, position: position, anchor: anchor,
                                scale: scale, rotation: rotation, tilt: tilt, velocity: velocity,
                                fingers: fingers, reason: reason))
    }
}
