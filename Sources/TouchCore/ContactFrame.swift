/// What touches the surface: a finger, a pen, or a palm (which cancels its contact).
public enum ToolType: String, Sendable, Hashable, Codable {
    case finger, pen, palm
}

/// One contact that is down in a frame, in calibrated screen pixels.
public struct Contact: Sendable, Hashable, Codable {
    /// Stable for the life of the contact (from touch-down to lift), unique among the contacts down.
    public var id: Int
    /// Screen position in pixels (calibrated, clamped to the screen).
    public var position: Point
    /// Normalised 0...1 over the device's pressure range, when the device reports pressure.
    public var pressure: Double?
    /// Major axis of the touch ellipse in millimetres (or device units when no resolution), when reported.
    public var touchMajor: Double?
    public var toolType: ToolType

    public init(id: Int, position: Point, pressure: Double? = nil, touchMajor: Double? = nil,
                toolType: ToolType = .finger) {
        self.id = id
        self.position = position
        self.pressure = pressure
        self.touchMajor = touchMajor
        self.toolType = toolType
    }
}

/// The state of the surface at one SYN_REPORT: every contact down, plus the contacts that
/// ended by cancellation (palm, device gone, resync) rather than by a lift.
public struct ContactFrame: Sendable, Hashable, Codable {
    /// Kernel timestamp of the SYN_REPORT, seconds on CLOCK_MONOTONIC.
    public var time: Double
    /// Every contact down after this report, sorted by id.
    public var contacts: [Contact]
    /// Ids that were down in the previous frame and ended by cancellation, not by a lift:
    /// a recogniser must cancel (not complete) what those contacts were doing.
    public var cancelled: [Int]

    public init(time: Double, contacts: [Contact], cancelled: [Int] = []) {
        self.time = time
        // Assembled frames come sorted already; sorting a copy would allocate every frame.
        var sorted = contacts
        if zip(contacts, contacts.dropFirst()).contains(where: { $0.id > $1.id }) { sorted.sort { $0.id < $1.id } }
        self.contacts = sorted
        self.cancelled = cancelled
    }

    public func contact(id: Int) -> Contact? { contacts.first { $0.id == id } }
}
