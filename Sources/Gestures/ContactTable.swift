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

    /// The lowest id down, and the lowest one other than `excluded`.
    var lowestID: Int? { entries.first?.id }
    func lowestID(excluding excluded: Int) -> Int? {
        entries.first { $0.id != excluded }?.id
    }

    mutating func setPoint(_ p: Point, at i: Int) { entries[i].point = p }

    /// Adds a contact that is not down yet, in id order.
    mutating func insert(id: Int, point: Point) {
        let i = entries.firstIndex { $0.id > id } ?? entries.count
        entries.insert(Entry(id: id, point: point), at: i)
    }

    mutating func remove(at i: Int) { entries.remove(at: i) }

    mutating func removeAll() { entries.removeAll(keepingCapacity: true) }
}
