import Testing
import TouchCore
@testable import Rendering

/// The one least-recently-used cache behind the renderer's caches: what goes first past a
/// budget of cost or count, what a hit, a peek and a replacement do to the order, and a long
/// random run against a plain model of the same rules.
@Suite struct LRUCacheTests {
    @Test func theLeastRecentlyUsedGoesFirstPastTheCount() {
        var c = LRUCache<String, Int>(maxCount: 3)
        var gone: [String] = []
        for (i, k) in ["a", "b", "c"].enumerated() { c.insert(i, cost: 0, for: k) { k, _ in gone.append(k) } }
        #expect(c.value(for: "a") == 0)                  // a is now the most recently used
        c.insert(3, cost: 0, for: "d") { k, _ in gone.append(k) }
        #expect(gone == ["b"] && c.count == 3)
        #expect(!c.contains("b") && c.contains("a") && c.contains("c") && c.contains("d"))
        // A peek leaves the order as it was: c is still the oldest.
        #expect(c.peek("c") == 2)
        c.insert(4, cost: 0, for: "e") { k, _ in gone.append(k) }
        #expect(gone == ["b", "c"])
    }

    /// A budget lowered later lets the least recently used go at once, down to within it.
    @Test func aLoweredBudgetLetsTheOldestGo() {
        var c = LRUCache<Int, String>(maxCost: 100)
        for k in 1...4 { c.insert("v", cost: 25, for: k) }
        #expect(c.value(for: 1) == "v")                  // 2 is now the oldest
        c.setMaxCost(60)
        #expect(c.totalCost == 50 && !c.contains(2) && !c.contains(3) && c.contains(4) && c.contains(1))
        c.setMaxCost(200)
        c.insert("w", cost: 120, for: 5)
        #expect(c.totalCost == 170 && c.count == 3)
    }

    @Test func costsAreKeptWithinTheBudgetButTheNewestStays() {
        var c = LRUCache<Int, String>(maxCost: 100)
        var gone: [Int] = []
        c.insert("x", cost: 40, for: 1)
        c.insert("y", cost: 40, for: 2)
        #expect(c.totalCost == 80)
        c.insert("z", cost: 50, for: 3) { k, _ in gone.append(k) }
        #expect(gone == [1] && c.totalCost == 90)
        // One entry over the whole budget stays (a frame draws what it just asked for), alone.
        c.insert("big", cost: 500, for: 4) { k, _ in gone.append(k) }
        #expect(gone == [1, 2, 3] && c.count == 1 && c.totalCost == 500 && c.value(for: 4) == "big")
        // Replacing an entry counts its new cost only, and makes it the newest.
        c.insert("small", cost: 10, for: 4)
        #expect(c.totalCost == 10 && c.count == 1)
    }

    @Test func replacingAnEntryMovesItToTheNewestEnd() {
        var c = LRUCache<Int, Int>(maxCost: 30)
        for k in 1...3 { c.insert(k, cost: 10, for: k) }
        c.insert(11, cost: 10, for: 1)                     // 1 replaced: 2 is now the oldest
        var gone: [Int] = []
        c.insert(4, cost: 10, for: 4) { k, _ in gone.append(k) }
        #expect(gone == [2] && c.peek(1) == 11)
        var order: [Int] = []
        c.forEach { k, _ in order.append(k) }
        #expect(order == [3, 1, 4])
    }

    @Test func removalsFreeTheirCostAndSlots() {
        var c = LRUCache<Int, Int>(maxCost: 1_000)
        for k in 0..<10 { c.insert(k, cost: k, for: k) }
        #expect(c.removeValue(forKey: 5) == 5 && c.removeValue(forKey: 5) == nil)
        c.removeAll { k, _ in k % 2 == 0 }
        var order: [Int] = []
        c.forEach { k, _ in order.append(k) }
        #expect(order == [1, 3, 7, 9] && c.totalCost == 20)
        c.removeAll()
        #expect(c.isEmpty && c.totalCost == 0)
        c.insert(1, cost: 1, for: 1)
        #expect(c.value(for: 1) == 1 && c.count == 1)
    }

    /// 20,000 random lookups, peeks, inserts (new keys and replacements) and removals against a
    /// list kept in order of use: the same entries in the same order, the same evictions, the
    /// same total cost after every step (the slots are reused many times over).
    @Test func aLongRandomRunAgreesWithAPlainModel() {
        var rng = SplitMix64(seed: 27)
        var c = LRUCache<Int, Int>(maxCost: 200, maxCount: 12)
        var model: [(key: Int, value: Int, cost: Int)] = []      // oldest first
        for step in 0..<20_000 {
            let key = Int(rng.next() % 40)
            switch rng.next() % 10 {
            case 0..<4:
                let got = c.value(for: key)
                if let i = model.firstIndex(where: { $0.key == key }) {
                    #expect(got == model[i].value, "step \(step)")
                    model.append(model.remove(at: i))
                } else {
                    #expect(got == nil, "step \(step)")
                }
            case 4:
                #expect(c.peek(key) == model.first(where: { $0.key == key })?.value)
            case 5:
                _ = c.removeValue(forKey: key)
                model.removeAll { $0.key == key }
            default:
                let value = step, cost = Int(rng.next() % 60)
                var gone: [Int] = []
                c.insert(value, cost: cost, for: key) { k, _ in gone.append(k) }
                model.removeAll { $0.key == key }
                model.append((key, value, cost))
                var expected: [Int] = []
                while model.count > 1 && (model.reduce(0) { $0 + $1.cost } > 200 || model.count > 12) {
                    expected.append(model.removeFirst().key)
                }
                #expect(gone == expected, "step \(step)")
            }
            var order: [Int] = []
            c.forEach { k, v in order.append(k); _ = v }
            #expect(order == model.map(\.key), "step \(step)")
            #expect(c.totalCost == model.reduce(0) { $0 + $1.cost } && c.count == model.count)
            if order != model.map(\.key) { break }
        }
    }
}
