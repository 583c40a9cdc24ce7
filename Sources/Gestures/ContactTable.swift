import TouchCore

/// The contacts down as the recogniser last saw them, sorted by id. Up to ten live in place
/// (no heap, no hashing: a dictionary here cost a hash per contact per frame, and Swift's
/// per-process hash seed made the figure differ from process to process); an eleventh and
/// more spill into an array, which is allocated only then. A frame's contacts come sorted by
/// id too, so the common frame (the same fingers as before) is one pass over both.
struct ContactTable: Sendable {
    static let inlineCapacity = 10

    struct Entry: Sendable, Equatable {
        var id: Int
        var point: Point
    }

    private var inline = InlineArray<10, Entry>(repeating: Entry(id: 0, point: .zero))
    private var spill: [Entry] = []
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    func id(at i: Int) -> Int { entry(at: i).id }
    func point(at i: Int) -> Point { entry(at: i).point }

    /// Where contact `id` is, or nil when it is not down.
    subscript(id: Int) -> Point? {
        guard let i = index(of: id) else { return nil }
        return entry(at: i).point
    }

    func index(of id: Int) -> Int? {
        var i = 0
        while i < count {
            let e = self.id(at: i)
            if e == id { return i }
            if e > id { return nil }
            i += 1
        }
        return nil
    }

    /// The lowest id down, and the lowest one other than `excluded`.
    var lowestID: Int? { count > 0 ? id(at: 0) : nil }
    func lowestID(excluding excluded: Int) -> Int? {
        var i = 0
        while i < count {
            if id(at: i) != excluded { return id(at: i) }
            i += 1
        }
        return nil
    }

    mutating func setPoint(_ p: Point, at i: Int) {
        if i < Self.inlineCapacity { inline[i].point = p } else { spill[i - Self.inlineCapacity].point = p }
    }

    /// Adds a contact that is not down yet, in id order.
    mutating func insert(id: Int, point: Point) {
        var i = count
        while i > 0 && self.id(at: i - 1) > id { i -= 1 }
        append(Entry(id: id, point: point))
        var j = count - 1
        while j > i {
            setEntry(entry(at: j - 1), at: j)
            j -= 1
        }
        setEntry(Entry(id: id, point: point), at: i)
    }

    mutating func remove(at i: Int) {
        var j = i
        while j + 1 < count {
            setEntry(entry(at: j + 1), at: j)
            j += 1
        }
        count -= 1
        if count >= Self.inlineCapacity { spill.removeLast() }
    }

    mutating func removeAll() {
        count = 0
        spill.removeAll(keepingCapacity: true)
    }

    // MARK: - Storage

    private func entry(at i: Int) -> Entry {
        i < Self.inlineCapacity ? inline[i] : spill[i - Self.inlineCapacity]
    }

    private mutating func setEntry(_ e: Entry, at i: Int) {
        if i < Self.inlineCapacity { inline[i] = e } else { spill[i - Self.inlineCapacity] = e }
    }

    private mutating func append(_ e: Entry) {
        if count < Self.inlineCapacity { inline[count] = e } else { spill.append(e) }
        count += 1
    }
}
