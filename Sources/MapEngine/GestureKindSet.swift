import Gestures

/// The gestures running now, as bits: what `Set<GestureKind>` did here (insert, remove,
/// contains, isEmpty; never iterated) without hashing on every gesture event, whose cost
/// depended on the process's hash seed.
struct GestureKindSet: Sendable, Equatable {
    private var bits: UInt16 = 0

    private static func bit(_ k: GestureKind) -> UInt16 {
        switch k {
        case .tap: return 1 << 0
        case .doubleTap: return 1 << 1
        case .twoFingerTap: return 1 << 2
        case .longPress: return 1 << 3
        case .pan: return 1 << 4
        case .pinch: return 1 << 5
        case .rotate: return 1 << 6
        case .tilt: return 1 << 7
        case .twoFingerPan: return 1 << 8
        case .quickZoom: return 1 << 9
        }
    }

    var isEmpty: Bool { bits == 0 }
    func contains(_ k: GestureKind) -> Bool { bits & Self.bit(k) != 0 }
    mutating func insert(_ k: GestureKind) { bits |= Self.bit(k) }
    mutating func remove(_ k: GestureKind) { bits &= ~Self.bit(k) }
}

/// The smallest of some times, as `[Double].min()` gives it (the first of equal ones; a NaN
/// first stays), without the array.
struct EarliestTime {
    private(set) var min: Double?
    mutating func append(_ t: Double) {
        if let m = min { if t < m { min = t } } else { min = t }
    }
}
