/// Values kept by key, the least recently used going first once a budget is passed: the
/// renderer's caches (glyph images and their turned copies, text layouts, label sprites, line
/// texts, decoded raster and vector tiles) are all this one cache.
///
/// A dictionary leads from a key to its entry's slot; the slots form a doubly linked list from
/// the least recently used entry to the most. A hit, an insert and each eviction are one hash
/// and a few index moves: no scan for the oldest, no sort (each cache did one or the other on
/// its own before, some of them on every insert past the budget).
///
/// Budgets: the sum of the entries' costs (bytes, as the caller counts them) and the number of
/// entries. The entry just inserted or looked up is never evicted, even alone over the budget
/// (a frame draws what it has just asked for). Not thread-safe: an owner that shares it locks.
struct LRUCache<Key: Hashable, Value> {
    private struct Slot {
        var key: Key?
        var value: Value?
        var cost: Int
        /// Neighbours in order of use (-1: none): older towards the head, newer towards the tail.
        var older: Int, newer: Int
    }

    /// Most total cost kept, and most entries.
    private(set) var maxCost: Int
    let maxCount: Int
    private(set) var totalCost = 0
    private var index: [Key: Int] = [:]
    private var slots: [Slot] = []
    private var freeSlots: [Int] = []
    /// The least and the most recently used entries' slots (-1: empty).
    private var oldest = -1, newest = -1

    init(maxCost: Int = .max, maxCount: Int = .max) {
        self.maxCost = maxCost
        self.maxCount = max(1, maxCount)
    }

    var count: Int { index.count }
    var isEmpty: Bool { index.isEmpty }

    func contains(_ key: Key) -> Bool { index[key] != nil }

    /// The value kept for `key`, now the most recently used (nil: none kept).
    mutating func value(for key: Key) -> Value? {
        guard let i = index[key] else { return nil }
        touch(i)
        return slots[i].value
    }

    /// The value kept for `key`, its place in the order of use unchanged.
    func peek(_ key: Key) -> Value? {
        guard let i = index[key] else { return nil }
        return slots[i].value
    }

    /// Keeps `value` for `key` (in place of one kept already) as the most recently used entry,
    /// then lets the least recently used others go, each handed to `evicted`, until the cost
    /// and the count are within their budgets.
    mutating func insert(_ value: Value, cost: Int, for key: Key, evicted: (Key, Value) -> Void = { _, _ in }) {
        if let i = index[key] {
            totalCost += cost - slots[i].cost
            slots[i].value = value
            slots[i].cost = cost
            touch(i)
        } else {
            let slot = Slot(key: key, value: value, cost: cost, older: newest, newer: -1)
            let i: Int
            if let f = freeSlots.popLast() { slots[f] = slot; i = f } else { slots.append(slot); i = slots.count - 1 }
            if newest >= 0 { slots[newest].newer = i } else { oldest = i }
            newest = i
            index[key] = i
            totalCost += cost
        }
        while (totalCost > maxCost || index.count > maxCount) && oldest != newest {
            let i = oldest
            let k = slots[i].key!, v = slots[i].value!
            remove(slot: i)
            evicted(k, v)
        }
    }

    /// A new cost budget; the least recently used entries past it go at once.
    mutating func setMaxCost(_ cost: Int) {
        maxCost = cost
        while totalCost > maxCost && oldest >= 0 { remove(slot: oldest) }
    }

    /// Forgets the entry for `key`, returning its value.
    @discardableResult
    mutating func removeValue(forKey key: Key) -> Value? {
        guard let i = index[key] else { return nil }
        let v = slots[i].value
        remove(slot: i)
        return v
    }

    /// Forgets every entry for which `drop` is true.
    mutating func removeAll(where drop: (Key, Value) -> Bool) {
        var i = oldest
        while i >= 0 {
            let next = slots[i].newer
            if drop(slots[i].key!, slots[i].value!) { remove(slot: i) }
            i = next
        }
    }

    mutating func removeAll() {
        index.removeAll()
        slots.removeAll()
        freeSlots.removeAll()
        oldest = -1; newest = -1
        totalCost = 0
    }

    /// Every entry, the least recently used first.
    func forEach(_ body: (Key, Value) -> Void) {
        var i = oldest
        while i >= 0 { body(slots[i].key!, slots[i].value!); i = slots[i].newer }
    }

    /// Moves slot i to the newest end.
    private mutating func touch(_ i: Int) {
        guard i != newest else { return }
        let o = slots[i].older, n = slots[i].newer
        // Not the newest, so it has a newer neighbour.
        slots[n].older = o
        if o >= 0 { slots[o].newer = n } else { oldest = n }
        slots[i].older = newest
        slots[i].newer = -1
        slots[newest].newer = i
        newest = i
    }

    private mutating func remove(slot i: Int) {
        let o = slots[i].older, n = slots[i].newer
        if o >= 0 { slots[o].newer = n } else { oldest = n }
        if n >= 0 { slots[n].older = o } else { newest = o }
        index.removeValue(forKey: slots[i].key!)
        totalCost -= slots[i].cost
        slots[i] = Slot(key: nil, value: nil, cost: 0, older: -1, newer: -1)
        freeSlots.append(i)
    }
}
