import Foundation
import TouchCore

/// The two-finger states: deciding, the glued transform (pinch, rotate, two-finger pan) with
/// its catch-up and lift grace, tilt and rotation about the centre. Extra fingers never stop
/// anything: a third contact is ignored, and when a finger of the pair lifts while others are
/// down the pair is re-made from them (re-baselined, so nothing jumps).
extension GestureRecognizer {
    // MARK: - State handlers

    mutating func twoFingersDown(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let g = contacts.geometry(of: pair.ids) else { return }
            trackPair(g)
            why = decideTwoFingers(g)
            finishFrame(g)
        case .fingerUp:
            if contacts.isEmpty && !pair.contains(id) {
                // The last finger down lifted, though not one of the pair (the pair went in the
                // same frame): nothing was decided, no tap.
                why = "the last finger lifted"
                state = .idle
                return
            }
            guard pair.contains(id) else { why = "an extra finger lifted"; return }
            if contacts.count >= 2 {
                why = "a finger of the pair lifted: re-paired with the fingers still down"
                startTwoFingers(tapPossible: false, since: now)
                return
            }
            if twoFingerTapStillPossible() {
                state = .twoFingerTapLifting
                return
            }
            why = twoFingerTapRuledOut()
            if let other = contacts.lowestID { startLeftoverFinger(other) } else { state = .idle }
        case .tooManyFingers:
            pair.tapPossible = false
            why = "extra finger: ignored, the pair goes on"
        case .cancel, .interrupt:
            abandon()
        case .fingerDown, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    mutating func twoFingerTapLifting(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let rid = contacts.lowestID, let p = contacts[rid] else { return }
            let moved = p.distance(to: rid == pair.ids.0 ? pair.start.a : pair.start.b)
            if moved > px(thresholds.twoFingerTapSlop) {
                why = "remaining finger moved \(mm(moved)) mm > twoFingerTapSlop \(fmt(thresholds.twoFingerTapSlop)) mm"
                startLeftoverFinger(rid)
            }
        case .fingerUp:
            let held = now - pair.startTime
            if held <= thresholds.twoFingerTapMaxDuration {
                let r = "two-finger tap: \(fmt(held * 1000)) ms <= twoFingerTapMaxDuration "
                    + "\(fmt(thresholds.twoFingerTapMaxDuration * 1000)) ms, each finger moved <= "
                    + "\(fmt(thresholds.twoFingerTapSlop)) mm"
                emit(.twoFingerTap, .recognized, at: pair.previous.focal, fingers: 2, reason: r)
                why = r
            } else {
                why = "two fingers held \(fmt(held * 1000)) ms > twoFingerTapMaxDuration "
                    + "\(fmt(thresholds.twoFingerTapMaxDuration * 1000)) ms: no two-finger tap"
            }
            state = .idle
        case .fingerDown:
            startTwoFingers(tapPossible: false, since: now)
        case .cancel, .interrupt:
            abandon()
        case .tooManyFingers, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    mutating func transforming(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let g = contacts.geometry(of: pair.ids) else { return }
            trackPair(g)
            why = emitTransform(g)
            finishFrame(g)
        case .fingerUp:
            if pairGoesOnAfterLift(id, &why, extra: "the pair goes on",
                                   rePaired: "re-paired with a finger still down, the transform goes on") { return }
            guard let rid = contacts.lowestID else {
                endTransform(.ended, reason: "the fingers lifted")
                state = .idle
                return
            }
            // The remaining finger drags on from where the map last followed it (an extra finger
            // left over when the whole pair lifted in one frame: from where it is).
            let remainingPoint = rid == pair.ids.0 ? pair.previous.a : rid == pair.ids.1 ? pair.previous.b : (contacts[rid] ?? .zero)
            grace = LiftGrace(liftTime: now, liftPoint: id == pair.ids.0 ? pair.previous.a : pair.previous.b,
                              remaining: rid, remainingPoint: remainingPoint)
            why = "a finger lifted: the other drags on; the transform goes on if a finger comes down within "
                + "liftGraceTime \(fmt(thresholds.liftGraceTime * 1000)) ms"
            state = .transformLifted
        case .tooManyFingers:
            why = "extra finger: ignored, the transform goes on"
        case .cancel:
            endTransform(.cancelled, reason: why ?? "cancelled")
            abandon()
        case .interrupt:
            endTransform(.ended, reason: why ?? "interrupted")
            abandon()
        case .fingerDown, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    mutating func transformLifted(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        switch input {
        case .motion:
            guard let rid = grace.remaining, let p = contacts[rid], p != grace.remainingPoint else { return }
            // One finger drags the map on: the same transform, translation only.
            if let kind = translationCarrier() {
                emit(kind, .changed, at: p, anchor: grace.remainingPoint, fingers: 1)
            }
            grace.remainingPoint = p
        case .fingerDown:
            guard let rid = grace.remaining else { why = bug(input); return }
            let gap = now - grace.liftTime
            rePair(keeping: rid)
            why = "finger back after \(fmt(gap * 1000)) ms: re-paired, the transform goes on"
            state = .transforming
        case .fingerUp:
            endTransform(.ended, reason: "the fingers lifted")
            state = .idle
        case .liftGraceTimeout:
            endTransform(.ended, reason: "no finger came back within liftGraceTime \(fmt(thresholds.liftGraceTime * 1000)) ms")
            guard let rid = grace.remaining, let p = contacts[rid] else { abandon(); return }
            touch = OneFingerTouch(id: rid, at: p, time: now, velocityWindow: thresholds.velocityWindow)
            if mask.contains(.pan) {
                // Two fingers to one is one continuous move: the pan starts at once, no dead zone,
                // from where the map last followed the finger.
                beginPan(at: p, from: grace.remainingPoint, reason: "the remaining finger drags on")
                why = "the remaining finger pans on, no dead zone"
            } else {
                state = .leftoverFinger
            }
        case .cancel:
            endTransform(.cancelled, reason: why ?? "cancelled")
            abandon()
        case .interrupt:
            endTransform(.ended, reason: why ?? "interrupted")
            abandon()
        case .tooManyFingers, .doubleTapTimeout, .longPressTimeout:
            why = bug(input)
        }
    }

    /// Tilting and centre-rotating: an exclusive two-finger gesture with one increment per
    /// frame (the tilt at the focal point, or the rotation about the screen centre); lifts,
    /// extra fingers and cancels are handled alike.
    mutating func exclusivePair(_ input: GestureInput, _ id: Int, _ why: inout String?) {
        let tilts = state == .tilting
        let what = tilts ? "the tilt" : "the rotation"
        switch input {
        case .motion:
            guard let g = contacts.geometry(of: pair.ids) else { return }
            let catchUp = payPairDebt()
            if tilts {
                let tilt = tiltIncrement(from: pair.previous, to: g) + catchUp.tilt
                if tilt != 0 { emit(.tilt, .changed, at: g.focal, tilt: tilt, fingers: 2) }
            } else {
                let r = centreRotationIncrement(from: pair.previous, to: g) + catchUp.rotation
                if r != 0 { emit(.rotate, .changed, at: screen.center, rotation: r, fingers: 2) }
            }
            finishFrame(g)
        case .fingerUp:
            if pairGoesOnAfterLift(id, &why, extra: "\(what) goes on", rePaired: "re-paired, \(what) goes on") { return }
            endRunningPair(.ended, reason: "a finger lifted")
            abandon()
        case .tooManyFingers:
            why = "extra finger: ignored, \(what) goes on"
        case .cancel, .interrupt:
            endRunningPair(input == .cancel ? .cancelled : .ended, reason: why)
            abandon()
        case .fingerDown, .doubleTapTimeout, .longPressTimeout, .liftGraceTimeout:
            why = bug(input)
        }
    }

    // MARK: - Lifts in a running pair (transforming, tilting, centreRotating)

    /// The lifts every running two-finger gesture handles alike; true when this one was such a
    /// lift. The last finger down ends the gesture (maybe with the whole pair in this frame); an
    /// extra finger changes nothing; a finger of the pair with two or more still down re-pairs
    /// and the gesture goes on. False: one finger is left, the state decides.
    mutating func pairGoesOnAfterLift(_ id: Int, _ why: inout String?, extra: String, rePaired: String) -> Bool {
        if contacts.isEmpty {
            endRunningPair(.ended, reason: "the fingers lifted")
            state = .idle
            return true
        }
        guard pair.contains(id) else { why = "an extra finger lifted: " + extra; return true }
        if contacts.count >= 2 {
            rePair(keeping: id == pair.ids.0 ? pair.ids.1 : pair.ids.0)
            why = "a finger of the pair lifted: " + rePaired
            return true
        }
        return false
    }

    /// Ends the running two-finger gesture: `ended` or `cancelled` for each active part of the
    /// transform, the tilt at the focal point, or the rotation about the centre.
    mutating func endRunningPair(_ phase: GesturePhase, reason: String?) {
        switch state {
        case .transforming, .transformLifted: endTransform(phase, reason: reason ?? phase.rawValue)
        case .tilting: emit(.tilt, phase, at: pair.previous.focal, fingers: 2, reason: reason)
        case .centreRotating: emit(.rotate, phase, at: screen.center, fingers: 2, reason: reason)
        case .idle, .oneFingerDown, .leftoverFinger, .tapPending, .secondTapDown, .secondTapHeld, .longPressed,
             .panning, .panLifted, .quickZooming, .twoFingersDown, .twoFingerTapLifting, .waitingForLift:
            break // nothing two-fingered runs
        }
    }

    // MARK: - The pair

    /// A new pair from the two lowest ids down (state twoFingersDown, nothing active).
    mutating func startTwoFingers(tapPossible: Bool, since: Double) {
        guard contacts.count >= 2 else {
            state = .waitingForLift
            return
        }
        let a = contacts.point(at: 0), b = contacts.point(at: 1)
        pair = TwoFingerSession(ids: (contacts.id(at: 0), contacts.id(at: 1)), geometry: TwoFingerGeometry(a: a, b: b), since: since,
                                now: now, tapPossible: tapPossible && mask.contains(.twoFingerTap))
        state = .twoFingersDown
    }

    /// The pair re-made from `kept` and the lowest other finger down, keeping what is active:
    /// every baseline restarts from here, so the map neither jumps nor waits for a threshold.
    /// What was still owed to the old pair is dropped: its fingers are not all down any more.
    /// When `kept` has lifted too (both fingers of the pair lifted in one frame while extra
    /// fingers stay down: anonymous protocol-A contacts often do) the pair is re-made from the
    /// two lowest fingers down, so it never names fingers that are gone.
    mutating func rePair(keeping wanted: Int) {
        guard let kept = contacts[wanted] != nil ? wanted : contacts.lowestID else { return }
        guard let other = contacts.lowestID(excluding: kept), let a = contacts[kept], let b = contacts[other] else {
            return
        }
        let (ia, ib) = kept < other ? (kept, other) : (other, kept)
        let g = kept < other ? TwoFingerGeometry(a: a, b: b) : TwoFingerGeometry(a: b, b: a)
        var next = TwoFingerSession(ids: (ia, ib), geometry: g, since: pair.startTime, now: now, tapPossible: false)
        // The kept finger's motion in this frame is not delivered yet: the next translation
        // starts that much behind the new focal point.
        if pair.contains(kept) {
            let before = kept == pair.ids.0 ? pair.previous.a : pair.previous.b
            next.deliveredFocal = g.focal - (a - before)
        }
        next.deliveredPivot = next.deliveredFocal
        next.active = pair.active
        next.centreSign = pair.centreSign
        pair = next
    }

    mutating func trackPair(_ g: TwoFingerGeometry) {
        pair.maxMoveA = max(pair.maxMoveA, g.a.distance(to: pair.start.a))
        pair.maxMoveB = max(pair.maxMoveB, g.b.distance(to: pair.start.b))
        pair.turned += angleDifference(g.angle, pair.previous.angle)
    }

    mutating func finishFrame(_ g: TwoFingerGeometry) {
        pair.previous = g
        pair.lastTime = now
    }

    /// This frame's payment of the pair's catch-up debt. Nothing owed (most frames): nothing
    /// paid, without working out the fraction (an exp per frame).
    mutating func payPairDebt() -> CatchUpDebt {
        pair.debt.isZero ? CatchUpDebt() : pair.debt.pay(catchUpFraction())
    }

    /// Share of the catch-up debt paid this frame: 1 - exp(-dt / catchUpTime), so the payment
    /// depends on elapsed time, not on the panel's report rate.
    func catchUpFraction() -> Double {
        let dt = max(now - pair.lastTime, 0)
        guard thresholds.catchUpTime > 0 else { return 1 }
        return 1 - exp(-dt / thresholds.catchUpTime)
    }

    /// Why the pair cannot be a two-finger tap any more, for the log.
    func twoFingerTapRuledOut() -> String {
        let t = thresholds
        if !mask.contains(.twoFingerTap) { return "no two-finger tap: disabled" }
        if !pair.tapPossible {
            return "no two-finger tap: the first finger had moved, an extra finger came or the pair followed another gesture"
        }
        let held = now - pair.startTime
        if held > t.twoFingerTapMaxDuration {
            return "no two-finger tap: \(fmt(held * 1000)) ms > twoFingerTapMaxDuration \(fmt(t.twoFingerTapMaxDuration * 1000)) ms"
        }
        return "no two-finger tap: a finger moved \(mm(max(pair.maxMoveA, pair.maxMoveB))) mm > twoFingerTapSlop \(fmt(t.twoFingerTapSlop)) mm"
    }

    func twoFingerTapStillPossible() -> Bool {
        pair.tapPossible
            && now - pair.startTime <= thresholds.twoFingerTapMaxDuration
            && max(pair.maxMoveA, pair.maxMoveB) <= px(thresholds.twoFingerTapSlop)
    }

    /// The undecided pair: tilt first (decided from the geometry), then pinch and rotate, then
    /// fingers moving together (rotation about the centre or two-finger pan). Returns the reason
    /// when it decided.
    mutating func decideTwoFingers(_ g: TwoFingerGeometry) -> String? {
        let t = thresholds
        let start = pair.start, previous = pair.previous
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
            // The travel before the decision is owed and paid back over the next frames.
            pair.debt.tilt = tiltIncrement(from: start, to: previous)
            let catchUp = payPairDebt()
            emit(.tilt, .began, at: g.focal, tilt: tiltIncrement(from: previous, to: g) + catchUp.tilt, fingers: 2, reason: r)
            state = .tilting
            return r
        }

        let spanChange = g.span - start.span
        var reasons: [String] = []
        if mask.contains(.pinch) && abs(spanChange) >= px(t.pinchStartSpanChange) {
            reasons.append("pinch: span changed \(mm(spanChange)) mm, |.| >= pinchStartSpanChange \(fmt(t.pinchStartSpanChange)) mm")
        }
        if mask.contains(.rotate) && abs(pair.turned) >= t.rotationStartAngle {
            reasons.append("rotate: turned \(fmt(pair.turned)) deg, |.| >= rotationStartAngle \(fmt(t.rotationStartAngle)) deg")
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
            pair.centreSign = start.focal.y <= screen.center.y ? 1 : -1
            let r = "rotate about the screen centre: fingers moved \(mm(abs(focalMove.x))) mm >= "
                + "centreRotationStartDistance \(fmt(t.centreRotationStartDistance)) mm horizontally together"
            pair.debt.rotation = centreRotationIncrement(from: start, to: previous)
            let catchUp = payPairDebt()
            emit(.rotate, .began, at: screen.center, rotation: centreRotationIncrement(from: previous, to: g) + catchUp.rotation,
                 fingers: 2, reason: r)
            state = .centreRotating
            return r
        }
        if mask.contains(.twoFingerPan) && focalMove.length >= px(t.twoFingerPanStartDistance) {
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
    ///
    /// The span and angle change made before a part's threshold was crossed is not dropped: it
    /// becomes a debt paid back a time-based fraction per frame (`catchUpTime`), so by the lift
    /// the map points under the fingers at touch-down are under them again, without a jump.
    mutating func emitTransform(_ g: TwoFingerGeometry, began: String? = nil) -> String? {
        let t = thresholds
        let start = pair.start, previous = pair.previous
        let beginning = pair.active.isEmpty
        // Why each gesture began with this frame (nil: it did not begin now).
        var newPinch: String?, newRotate: String?, newPan: String?
        if !pair.active.contains(.pinch) && mask.contains(.pinch) && abs(g.span - start.span) >= px(t.pinchStartSpanChange) {
            pair.active.insert(.pinch)
            newPinch = "pinch: span changed \(mm(g.span - start.span)) mm, |.| >= pinchStartSpanChange \(fmt(t.pinchStartSpanChange)) mm"
            if start.span > 0 && previous.span > 0 { pair.debt.scaleLog2 += log2(previous.span / start.span) }
        }
        if !pair.active.contains(.rotate) && mask.contains(.rotate) && abs(pair.turned) >= t.rotationStartAngle {
            pair.active.insert(.rotate)
            newRotate = "rotate: turned \(fmt(pair.turned)) deg, |.| >= rotationStartAngle \(fmt(t.rotationStartAngle)) deg"
            pair.debt.rotation += pair.turned - angleDifference(g.angle, previous.angle)
        }
        let focalMove = g.focal - start.focal
        if !pair.active.contains(.pan) && mask.contains(.twoFingerPan) && focalMove.length >= px(t.twoFingerPanStartDistance) {
            pair.active.insert(.pan)
            newPan = "twoFingerPan: focal point moved \(mm(focalMove.length)) mm >= "
                + "twoFingerPanStartDistance \(fmt(t.twoFingerPanStartDistance)) mm"
        }
        if let began {
            // Everything active now began with this frame.
            if pair.active.contains(.pinch) && newPinch == nil { newPinch = began }
            if pair.active.contains(.rotate) && newRotate == nil { newRotate = began }
            if pair.active.contains(.pan) && newPan == nil { newPan = began }
        }

        if beginning && !pair.active.isEmpty { choosePivot(g) }

        // This frame's part of what is owed: the same time-based fraction of the scale, the
        // rotation and the pivot's travel.
        var catchUp = CatchUpDebt()
        if !pair.debt.isZero || pair.pivotDebt != .zero {
            let f = min(max(catchUpFraction(), 0), 1)
            catchUp = pair.debt.pay(f)
            pair.pivotDebt = pair.pivotDebt * (1 - f)
        }
        let scale = (previous.span > 0 ? g.span / previous.span : 1) * (catchUp.scaleLog2 == 0 ? 1 : exp2(catchUp.scaleLog2))
        let rotation = angleDifference(g.angle, previous.angle) + catchUp.rotation
        var translationCarried = false
        // The frame's change is one similarity: the pivot's map point goes from where it was drawn
        // to where the pivot is (less what it still trails by), scaled and turned about there.
        // Events carry it as "the map point at `anchor` to the focal point, scaled and turned
        // about the focal point": the anchor is the point the similarity takes to the focal point.
        let pivotNow = g.point(atPair: pair.pivot) - pair.pivotDebt
        let sApplied = pair.active.contains(.pinch) ? scale : 1, rApplied = pair.active.contains(.rotate) ? rotation : 0
        var framePosition = g.focal
        var frameAnchor = Self.anchor(from: pair.deliveredPivot, to: pivotNow, scale: sApplied, rotation: rApplied, focal: g.focal)
        if beginning {
            // The first event's anchor is the touch-down focal point (with translation masked off
            // the controller turns and zooms about it) and its position where this frame's
            // similarity takes that point (the focal point itself when the pivot is).
            frameAnchor = pair.deliveredFocal
            framePosition = Self.image(of: frameAnchor, from: pair.deliveredPivot, to: pivotNow, scale: sApplied, rotation: rApplied)
        }
        // In this order: twoFingerPan, pinch, rotate; the first active one carries the translation.
        func step(_ kind: GestureKind, _ active: Bool, _ reason: String?, _ s: Double, _ r: Double) {
            guard active else { return }
            let anchor = translationCarried ? framePosition : frameAnchor
            translationCarried = true
            guard let reason else {
                if anchor == framePosition && s == 1 && r == 0 { return }
                // Every frame's case, without a reason: built once in place (through `emit`
                // the event was built, copied and the copy destroyed, a fifth of the frame).
                out.append(GestureEvent(kind: kind, phase: .changed, time: now, position: framePosition, anchor: anchor,
                                        scale: s, rotation: r, velocity: Point(x: 0, y: 0), fingers: 2, reason: nil))
                return
            }
            emit(kind, .began, at: framePosition, anchor: anchor, scale: s, rotation: r, fingers: 2, reason: reason)
        }
        step(.twoFingerPan, pair.active.contains(.pan), newPan, 1, 0)
        step(.pinch, pair.active.contains(.pinch), newPinch, scale, 0)
        step(.rotate, pair.active.contains(.rotate), newRotate, 1, rotation)
        if translationCarried { pair.deliveredFocal = g.focal; pair.deliveredPivot = pivotNow }
        if newPan == nil && newPinch == nil && newRotate == nil { return nil }
        return [newPan, newPinch, newRotate].compactMap { $0 }.joined(separator: "; ")
    }

    /// Where the catch-up turns and scales about, chosen when a pinch or rotation begins the
    /// transform: the fixed point of the fingers' change since touch-down (the one similarity
    /// taking both touch-down points to where the fingers are), kept within the fingers (half a
    /// span from the focal point). A pinch about a resting finger has that finger as its fixed
    /// point, so its map point never moves; a plain two-finger pan has none and keeps the focal
    /// point (its travel is paid at once).
    mutating func choosePivot(_ g: TwoFingerGeometry) {
        guard pair.active.contains(.pinch) || pair.active.contains(.rotate) else { return }
        let start = pair.start, previous = pair.previous
        // In complex numbers: z -> g.a + m (z - start.a), m = (g.b - g.a) / (start.b - start.a);
        // its fixed point is (g.a - m start.a) / (1 - m).
        let d0 = start.b - start.a, d1 = g.b - g.a
        let n0 = d0.x * d0.x + d0.y * d0.y
        guard n0 > 0 else { return }
        let mx = (d1.x * d0.x + d1.y * d0.y) / n0, my = (d1.y * d0.x - d1.x * d0.y) / n0
        let dx = 1 - mx, dy = -my
        let den = dx * dx + dy * dy
        guard den > 1e-12 else { return }
        let msa = Point(x: mx * start.a.x - my * start.a.y, y: mx * start.a.y + my * start.a.x)
        let num = g.a - msa
        let q = Point(x: (num.x * dx + num.y * dy) / den, y: (num.y * dx - num.x * dy) / den)
        guard q.x.isFinite, q.y.isFinite else { return }
        var u = start.pairCoordinates(of: q)
        let l = u.length
        if l > 0.5 { u = u * (0.5 / l) }
        let q0 = start.point(atPair: u)
        pair.pivot = u
        // Nothing was delivered before: the pivot's map point is drawn where the pivot was at
        // touch-down; its travel up to the last frame is owed (this frame's is delivered).
        pair.deliveredPivot = q0
        pair.pivotDebt = previous.point(atPair: u) - q0
    }

    /// Where the similarity "`from` to `to`, then scaled by `scale` and turned by `rotation`
    /// degrees about `to`" takes `z`.
    static func image(of z: Point, from: Point, to: Point, scale: Double, rotation: Double) -> Point {
        let v = z - from
        let r = rotation * .pi / 180
        let c = cos(r) * scale, sn = sin(r) * scale
        return to + Point(x: c * v.x - sn * v.y, y: sn * v.x + c * v.y)
    }

    /// The point that the similarity "`from` to `to`, then scaled by `scale` and turned by
    /// `rotation` degrees about `to`" takes to `focal`.
    static func anchor(from: Point, to: Point, scale: Double, rotation: Double, focal: Point) -> Point {
        let v = focal - to
        guard v != .zero || scale != 1 || rotation != 0 else { return from }
        if scale == 1 && rotation == 0 { return from + v }
        let r = -rotation * .pi / 180, k = 1 / scale
        let c = cos(r) * k, sn = sin(r) * k
        return from + Point(x: c * v.x - sn * v.y, y: sn * v.x + c * v.y)
    }

    /// The active part that carries the translation (twoFingerPan, else pinch, else rotate).
    func translationCarrier() -> GestureKind? {
        if pair.active.contains(.pan) { return .twoFingerPan }
        if pair.active.contains(.pinch) { return .pinch }
        if pair.active.contains(.rotate) { return .rotate }
        return nil
    }

    mutating func endTransform(_ phase: GesturePhase, reason: String) {
        let at = state == .transformLifted ? grace.remainingPoint : pair.deliveredFocal
        for (kind, part) in [(GestureKind.twoFingerPan, TransformParts.pan), (.pinch, .pinch), (.rotate, .rotate)]
            where pair.active.contains(part) {
            emit(kind, phase, at: at, fingers: 2, reason: reason)
        }
        pair.active = []
    }

    /// Up tilts towards the horizon: degrees per millimetre of the focal point's vertical travel.
    func tiltIncrement(from a: TwoFingerGeometry, to b: TwoFingerGeometry) -> Double {
        -(b.focal.y - a.focal.y) / pixelsPerMillimetre * thresholds.tiltDegreesPerMillimetre
    }

    /// Like turning a wheel: moving right above the centre turns clockwise, below it anticlockwise.
    func centreRotationIncrement(from a: TwoFingerGeometry, to b: TwoFingerGeometry) -> Double {
        pair.centreSign * (b.focal.x - a.focal.x) / pixelsPerMillimetre * thresholds.centreRotationDegreesPerMillimetre
    }
}
