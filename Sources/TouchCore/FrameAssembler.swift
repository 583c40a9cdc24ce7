/// The raw state of one multitouch slot (or of a single-touch device), in device units, as the
/// kernel keeps it. `trackingID` -1 means no contact (for a single-touch device: BTN_TOUCH up).
public struct SlotState: Sendable, Hashable, Codable {
    public var trackingID: Int32
    public var x: Int32
    public var y: Int32
    public var pressure: Int32?
    public var touchMajor: Int32?
    public var toolType: Int32?

    public init(trackingID: Int32 = -1, x: Int32 = 0, y: Int32 = 0, pressure: Int32? = nil,
                touchMajor: Int32? = nil, toolType: Int32? = nil) {
        self.trackingID = trackingID; self.x = x; self.y = y
        self.pressure = pressure; self.touchMajor = touchMajor; self.toolType = toolType
    }
}

/// A device's state as re-read after SYN_DROPPED (libevdev's view once it has synced).
public struct DeviceState: Sendable, Hashable, Codable {
    /// Protocol B: every slot. Empty for other devices.
    public var slots: [SlotState]
    public var currentSlot: Int
    /// Single-touch and protocol A: ABS_X/ABS_Y/ABS_PRESSURE, trackingID >= 0 when BTN_TOUCH is down.
    public var single: SlotState

    public init(slots: [SlotState] = [], currentSlot: Int = 0, single: SlotState = SlotState()) {
        self.slots = slots; self.currentSlot = currentSlot; self.single = single
    }
}

/// Turns the evdev event stream of one touchscreen (protocol B, protocol A or single-touch)
/// into one contact frame per SYN_REPORT: every contact down with a stable id and a calibrated,
/// filtered, clamped screen position. Pure: events in, frames out; time is the events' own.
public struct FrameAssembler: Sendable {
    public let capabilities: DeviceCapabilities
    public let kind: TouchscreenKind
    public var mapping: ScreenMapping
    public var filters: FilterOptions

    /// A contact being followed: our stable id plus the filter state.
    struct Tracked: Sendable, Hashable {
        var id: Int
        var trackingID: Int32
        var filter: ContactFilter?
        /// Cancelled because the tool became a palm: ignored until the touch ends.
        var palm = false
    }
    struct Slot: Sendable, Hashable {
        var raw = SlotState()
        var contact: Tracked?
    }
    /// A protocol A contact as reported between two SYN_MT_REPORTs.
    struct AnonymousContact: Sendable, Hashable {
        var trackingID: Int32?
        var x: Int32?
        var y: Int32?
        var pressure: Int32?
        var touchMajor: Int32?
        var toolType: Int32?
        var isEmpty: Bool { x == nil && y == nil && trackingID == nil }
    }

    var nextID = 0
    // Protocol B
    var slots: [Slot]
    var currentSlot = 0
    // Protocol A: contacts of the report being assembled, and those of the last frame.
    var reportA: [AnonymousContact] = []
    var currentA = AnonymousContact()
    var previousA: [Slot] = []
    // Single-touch (and BTN_TOUCH for protocol A)
    var single = Slot()
    var buttonTouch: Bool?
    var buttonReleasedInReport = false
    /// After SYN_DROPPED: events up to the next SYN_REPORT are incomplete and ignored.
    var dropping = false
    /// Ids to report as cancelled in the next frame.
    var pendingCancelled: [Int] = []
    /// The storage of the last frame's contacts, reused for the next one when it is free.
    var frameContacts: [Contact] = []

    let xAxis: AbsInfo
    let yAxis: AbsInfo
    let pressureAxis: AbsInfo?
    let hasToolType: Bool
    /// Looked up once: asking the capabilities hashes into a dictionary.
    let hasTouchMajor: Bool
    let hasButtonTouch: Bool
    let hysteresisMargin: Double
    let touchMajorScale: Double

    /// - Parameters:
    ///   - capabilities: the device (from evemu or a live node); must have absolute position axes.
    ///   - calibration: libinput matrix on normalised coordinates.
    ///   - screen: the output size in pixels.
    public init(capabilities: DeviceCapabilities, calibration: Calibration = .identity, screen: Size,
                filters: FilterOptions = .default) {
        self.capabilities = capabilities
        self.kind = capabilities.touchKind ?? .singleTouch
        let axes = capabilities.positionAxes
            ?? (AbsInfo(minimum: 0, maximum: Int32(screen.width)), AbsInfo(minimum: 0, maximum: Int32(screen.height)))
        xAxis = axes.x
        yAxis = axes.y
        mapping = ScreenMapping(xAxis: axes.x, yAxis: axes.y, calibration: calibration, screen: screen)
        self.filters = filters
        switch kind {
        case .protocolB(let n): slots = Array(repeating: Slot(), count: max(0, min(n, 64)))
        case .protocolA, .singleTouch: slots = []
        }
        switch kind {
        case .protocolB, .protocolA: pressureAxis = capabilities.absinfo[ABS.MT_PRESSURE]
        case .singleTouch: pressureAxis = capabilities.absinfo[ABS.PRESSURE]
        }
        hasToolType = capabilities.hasAbs(ABS.MT_TOOL_TYPE)
        hasTouchMajor = capabilities.hasAbs(ABS.MT_TOUCH_MAJOR)
        hasButtonTouch = capabilities.has(EV.KEY, BTN.TOUCH)
        hysteresisMargin = Double(max(axes.x.fuzz, axes.y.fuzz, 0))
        touchMajorScale = axes.x.resolution > 0 ? 1 / Double(axes.x.resolution) : 1
    }

    /// Contacts currently down (palms excluded).
    public var contactsDown: Int { currentContactIDs().count }

    // MARK: - Events

    /// Feeds one event; returns a frame when the event is a SYN_REPORT.
    public mutating func process(_ e: InputEvent) -> ContactFrame? {
        if dropping {
            if e.type == EV.SYN && e.code == SYN.REPORT { dropping = false }
            return nil
        }
        switch e.type {
        case EV.SYN:
            switch e.code {
            case SYN.REPORT: return report(time: e.time)
            case SYN.MT_REPORT:
                // At most 64 contacts a report (as many as slots): a device that never sends
                // SYN_REPORT cannot grow this without bound.
                if !currentA.isEmpty && reportA.count < 64 { reportA.append(currentA) }
                currentA = AnonymousContact()
            case SYN.DROPPED:
                dropping = true
                reportA = []; currentA = AnonymousContact(); buttonReleasedInReport = false
            default: break
            }
        case EV.KEY where e.code == BTN.TOUCH:
            buttonTouch = e.value != 0
            if e.value == 0 { buttonReleasedInReport = true }
        case EV.ABS:
            switch kind {
            case .protocolB: absB(e.code, e.value)
            case .protocolA: absA(e.code, e.value)
            case .singleTouch: absSingle(e.code, e.value)
            }
        default: break
        }
        return nil
    }

    mutating func absB(_ code: UInt16, _ value: Int32) {
        if code == ABS.MT_SLOT {
            currentSlot = (0..<slots.count).contains(Int(value)) ? Int(value) : -1
            return
        }
        guard slots.indices.contains(currentSlot) else { return } // more contacts than slots: ignored
        switch code {
        case ABS.MT_TRACKING_ID:
            slots[currentSlot].raw.trackingID = value
            if value < 0 {
                slots[currentSlot].contact = nil // lifted
            } else if slots[currentSlot].contact?.trackingID != value {
                // A new touch (a new id on a slot still down means the old touch ended unseen).
                slots[currentSlot].contact = Tracked(id: allocateID(), trackingID: value)
            }
        case ABS.MT_POSITION_X: slots[currentSlot].raw.x = value
        case ABS.MT_POSITION_Y: slots[currentSlot].raw.y = value
        case ABS.MT_PRESSURE: slots[currentSlot].raw.pressure = value
        case ABS.MT_TOUCH_MAJOR: slots[currentSlot].raw.touchMajor = value
        case ABS.MT_TOOL_TYPE: slots[currentSlot].raw.toolType = value
        default: break
        }
    }

    mutating func absA(_ code: UInt16, _ value: Int32) {
        switch code {
        case ABS.MT_TRACKING_ID: currentA.trackingID = value
        case ABS.MT_POSITION_X: currentA.x = value
        case ABS.MT_POSITION_Y: currentA.y = value
        case ABS.MT_PRESSURE: currentA.pressure = value
        case ABS.MT_TOUCH_MAJOR: currentA.touchMajor = value
        case ABS.MT_TOOL_TYPE: currentA.toolType = value
        default: break
        }
    }

    mutating func absSingle(_ code: UInt16, _ value: Int32) {
        switch code {
        case ABS.X: single.raw.x = value
        case ABS.Y: single.raw.y = value
        case ABS.PRESSURE: single.raw.pressure = value
        default: break
        }
    }

    mutating func allocateID() -> Int {
        defer { nextID = nextID == Int.max ? 0 : nextID + 1 }
        return nextID
    }

    // MARK: - Frames

    mutating func report(time: Double) -> ContactFrame {
        switch kind {
        case .protocolB: break
        case .protocolA: reportProtocolA()
        case .singleTouch: reportSingle()
        }
        buttonReleasedInReport = false
        return makeFrame(time: time)
    }

    mutating func reportSingle() {
        let down: Bool
        if hasButtonTouch {
            down = buttonTouch ?? false
        } else if let p = single.raw.pressure {
            down = p > (pressureAxis?.minimum ?? 0)
        } else {
            down = false
        }
        if down && single.contact == nil {
            single.contact = Tracked(id: allocateID(), trackingID: 0)
        } else if !down {
            single.contact = nil
        }
        single.raw.trackingID = down ? 0 : -1
    }

    mutating func reportProtocolA() {
        if !currentA.isEmpty && reportA.count < 64 { reportA.append(currentA) }
        currentA = AnonymousContact()
        var reported = reportA
        reportA = []
        // An empty report, or BTN_TOUCH going up, lifts every contact.
        if buttonReleasedInReport || (hasButtonTouch && buttonTouch == false) { reported = [] }

        // Missing coordinates: the kernel state of the contact in the same position last frame.
        var incoming: [SlotState] = reported.enumerated().map { i, c in
            let fallback = i < previousA.count ? previousA[i].raw : SlotState()
            return SlotState(trackingID: c.trackingID ?? -1, x: c.x ?? fallback.x, y: c.y ?? fallback.y,
                             pressure: c.pressure ?? fallback.pressure,
                             touchMajor: c.touchMajor ?? fallback.touchMajor,
                             toolType: c.toolType ?? fallback.toolType)
        }
        if incoming.count > 64 { incoming = Array(incoming.prefix(64)) }

        var matched = [Tracked?](repeating: nil, count: incoming.count)
        var previousUsed = [Bool](repeating: false, count: previousA.count)
        if reported.allSatisfy({ $0.trackingID != nil }) && !reported.isEmpty {
            for (i, s) in incoming.enumerated() {
                if let j = previousA.indices.first(where: { !previousUsed[$0] && previousA[$0].contact?.trackingID == s.trackingID }) {
                    previousUsed[j] = true
                    matched[i] = previousA[j].contact
                }
            }
        } else {
            // Anonymous contacts: pair each with the nearest contact of the last frame, closest pairs first.
            var pairs: [(distance: Double, new: Int, old: Int)] = []
            for (i, s) in incoming.enumerated() {
                for (j, old) in previousA.enumerated() {
                    let dx = Double(s.x) - Double(old.raw.x), dy = Double(s.y) - Double(old.raw.y)
                    pairs.append(((dx * dx + dy * dy).squareRoot(), i, j))
                }
            }
            pairs.sort { ($0.distance, $0.new, $0.old) < ($1.distance, $1.new, $1.old) }
            for p in pairs where matched[p.new] == nil && !previousUsed[p.old] {
                previousUsed[p.old] = true
                matched[p.new] = previousA[p.old].contact
            }
        }
        previousA = incoming.enumerated().map { i, s in
            Slot(raw: s, contact: matched[i] ?? Tracked(id: allocateID(), trackingID: s.trackingID))
        }
    }

    /// The slots that make up the current frame, whatever the protocol.
    var activeSlots: [Slot] {
        switch kind {
        case .protocolB: return slots
        case .protocolA: return previousA
        case .singleTouch: return [single]
        }
    }

    func currentContactIDs() -> [Int] {
        activeSlots.compactMap { s in s.contact.flatMap { $0.palm ? nil : $0.id } }
    }

    mutating func makeFrame(time: Double) -> ContactFrame {
        var cancelled = pendingCancelled
        pendingCancelled = []
        // The contacts go into the array of the last frame when its caller has let it go (the
        // kiosk does: one frame at a time), so a frame allocates nothing; a frame still held
        // keeps its contacts and this one gets new storage.
        var contacts = frameContacts
        frameContacts = []
        contacts.removeAll(keepingCapacity: true)
        // The slots are updated in place, taken out of `self` for the loop (a copy would be a
        // new array every frame; the old computed `activeSlots` setter made one per contact).
        switch kind {
        case .protocolB:
            var s = slots
            slots = []
            for i in s.indices { addContact(from: &s[i], to: &contacts, cancelled: &cancelled) }
            slots = s
        case .protocolA:
            var s = previousA
            previousA = []
            for i in s.indices { addContact(from: &s[i], to: &contacts, cancelled: &cancelled) }
            previousA = s
        case .singleTouch:
            var s = single
            addContact(from: &s, to: &contacts, cancelled: &cancelled)
            single = s
        }
        frameContacts = contacts
        if cancelled.count > 1 { cancelled.sort() }
        return ContactFrame(time: time, contacts: contacts, cancelled: cancelled)
    }

    /// The slot's contact, calibrated and filtered, unless there is none or it is a palm (then
    /// cancelled once).
    func addContact(from slot: inout Slot, to contacts: inout [Contact], cancelled: inout [Int]) {
        guard var tracked = slot.contact, !tracked.palm else { return }
        let raw = slot.raw
        if hasToolType && raw.toolType == MT_TOOL.PALM {
            tracked.palm = true
            slot.contact = tracked
            cancelled.append(tracked.id)
            return
        }
        let rawPoint = Point(x: Double(raw.x), y: Double(raw.y))
        var filter = tracked.filter ?? ContactFilter(start: rawPoint)
        let margin = filters.hysteresis ? max(hysteresisMargin, filters.minimumHysteresis) : 0
        let filtered = filter.apply(rawPoint, margin: margin, smoothing: filters.smoothing)
        tracked.filter = filter
        slot.contact = tracked
        contacts.append(Contact(
            id: tracked.id,
            position: mapping.screenPoint(x: filtered.x, y: filtered.y),
            pressure: raw.pressure.flatMap { p in
                pressureAxis.map { a in a.range > 0 ? min(max((Double(p) - Double(a.minimum)) / a.range, 0), 1) : 0 }
            },
            touchMajor: hasTouchMajor ? raw.touchMajor.map { Double($0) * touchMajorScale } : nil,
            toolType: raw.toolType == MT_TOOL.PEN && hasToolType ? .pen : .finger))
    }

    // MARK: - Faults

    /// The device is gone (ENODEV, unplugged): every contact is cancelled at once.
    public mutating func cancelAll(time: Double) -> ContactFrame {
        let ids = currentContactIDs()
        for i in slots.indices { slots[i].contact = nil; slots[i].raw.trackingID = -1 }
        previousA = []
        reportA = []; currentA = AnonymousContact()
        single.contact = nil; single.raw.trackingID = -1
        buttonTouch = false
        dropping = false
        pendingCancelled = []
        return ContactFrame(time: time, contacts: [], cancelled: ids.sorted())
    }

    /// After SYN_DROPPED the reader re-reads the device (libevdev has synced its state) and hands it
    /// here: a contact the device lifted meanwhile is lifted in this frame (the finger left the
    /// glass while its events were lost: its gesture ends as at any lift, from its last known
    /// position, as a replay of the whole stream ends it, rather than being cancelled and lost),
    /// one still down keeps its id at its position now (its gesture goes on from there), one
    /// that began meanwhile starts with a new id.
    public mutating func resync(to state: DeviceState, time: Double) -> ContactFrame {
        dropping = false
        reportA = []; currentA = AnonymousContact(); buttonReleasedInReport = false
        switch kind {
        case .protocolB:
            for i in slots.indices {
                let new = i < state.slots.count ? state.slots[i] : SlotState()
                if let c = slots[i].contact, c.trackingID != new.trackingID {
                    slots[i].contact = nil // lifted (absent from the frame), not cancelled
                }
                if new.trackingID >= 0 && slots[i].contact == nil {
                    slots[i].contact = Tracked(id: allocateID(), trackingID: new.trackingID)
                }
                slots[i].raw = new
            }
            currentSlot = (0..<slots.count).contains(state.currentSlot) ? state.currentSlot : -1
        case .protocolA:
            // Positions come complete with the next report; only a lift may have been lost.
            if hasButtonTouch {
                buttonTouch = state.single.trackingID >= 0
                if buttonTouch == false { previousA = [] } // every contact lifted
            }
        case .singleTouch:
            let down = state.single.trackingID >= 0
            if !down { single.contact = nil } // lifted
            if down && single.contact == nil { single.contact = Tracked(id: allocateID(), trackingID: 0) }
            single.raw = state.single
            buttonTouch = down
        }
        return makeFrame(time: time)
    }
}
