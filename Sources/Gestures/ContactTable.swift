import TouchCore

/// The contacts down as the recogniser last saw them, sorted by id, in an array searched in
/// order (a dictionary here cost a hash per contact per frame, and Swift's per-process hash
/// seed made the figure differ from process to process). Its storage is made for ten contacts
/// when the recogniser is made and only ever grows (past ten fingers), so no frame allocates.
/// A frame's contacts come sorted by id too, so the common frame (the same fingers as before)
/// is one pass over both. (An `InlineArray` of ten was tried: reading it copied all 240 bytes
/// at each lookup, 10 % of a one-finger frame's instructions.)
struct ContactTable: Sendable {
    struct Entry: Sendable, Equatable {
        var id: Int
        var point: Point
    }

    private var entries: [Entry]

    init() {
        entries = []
        entries.reserveCapacity(10)
    }

    var count: Int { entries.count }
    var isEmpty: Bool { entries.isEmpty }

    func id(at i: Int) -> Int { entries[i].id }
    func point(at i: Int) -> Point { entries[i].point }

    /// Where contact `id` is, or nil when it is not down.
    subscript(id: Int) -> Point? {
        guard let i = index(of: id) else { return nil }
        return entries[i].point
    }

    func index(of id: Int) -> Int? {
        for (i, e) in entries.enumerated() {
            if e.id == id { return i }
            if e.id > id { return nil }
        }
        return nil
    }

    /// The pair's geometry now, nil when either finger is not down. (On the table, not the
    /// recogniser: a non-mutating recogniser method called from a mutating one copied all
    /// 800 bytes of the recogniser first, every frame.)
    func geometry(of ids: (Int, Int)) -> TwoFingerGeometry? {
        guard let a = self[ids.0], let b = self[ids.1] else { return nil }
        return TwoFingerGeometry(a: a, b: b)
    }

    /// The lowest id down, and the lowest one other than `excluded`.
    var lowestID: Int? { entries.first?.id }
    func lowestID(excluding excluded: Int) -> Int? {
        entries.first { $0.id != excluded }?.id
    }

    mutating func setPoint(_ p: Point, at i: Int) { entries[i].point = p }

    /// The common frame: `incoming` (sorted by id) holds exactly the ids down, so each takes
    /// its new position and the answer is true; otherwise nothing changes. One pass over both
    /// buffers (per-contact subscripts each checked the storage's uniqueness and bounds).
    mutating func takePositions(ifSameIDs incoming: [Contact]) -> Bool {
        let n = entries.count
        guard incoming.count == n else { return false }
        return incoming.withUnsafeBufferPointer { new in
            entries.withUnsafeMutableBufferPointer { old in
                for i in 0..<n where old[i].id != new[i].id { return false }
                for i in 0..<n { old[i].point = new[i].position }
                return true
            }
        }
    }

    /// Adds a contact that is not down yet, in id order.
    mutating func insert(id: Int, point: Point) {
        let i = entries.firstIndex { $0.id > id } ?? entries.count
        entries.insert(Entry(id: id, point: point), at: i)
    }

    mutating func remove(at i: Int) { entries.remove(at: i) }

    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }
}
