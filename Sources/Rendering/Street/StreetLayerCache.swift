import Foundation
import VectorTiles

/// What each style layer keeps of the tiles it drew at one zoom: the features its filter
/// passes and the paint each gets (`StreetMapPainter.Paint`, numbered). A filter and a paint
/// depend on the zoom and the feature only, never on the view, so a frame at the zoom of the
/// last one (a settled pan, a tilt, a turn) only culls the kept features to its view instead
/// of evaluating the style's expressions (dictionary lookups of feature properties) for every
/// feature of every layer again. Features come out in the same order with the same paints, so
/// the frame is the same, byte for byte.
///
/// One per renderer (its style and tile set do not change). A layer's slot is locked while a
/// frame builds that layer: the layers of one frame are built on several threads, each its own.
final class StreetLayerCache: @unchecked Sendable {
    /// Tiles kept per layer before its slot starts afresh (a long pan at one zoom).
    static let maxTiles = 256

    final class Slot: @unchecked Sendable {
        let lock = NSLock()
        private(set) var zoom = Double.nan
        /// Distinct paints, by number.
        private(set) var paints: [StreetMapPainter.Paint] = []
        private var numbers: [StreetMapPainter.Paint: Int32] = [:]
        /// Per tile: feature index, paint number, ... for the features the layer draws.
        private var tiles: [VectorTileSet.Key: [Int32]] = [:]
        /// The CPU seconds the layer's last build took (a frame builds its longest layers first).
        private var lastBuild = 0.0

        var buildSeconds: Double {
            lock.lock()
            defer { lock.unlock() }
            return lastBuild
        }

        func took(seconds: Double) {
            lock.lock()
            lastBuild = seconds
            lock.unlock()
        }

        /// Starts afresh at a new zoom (or when the slot holds too many tiles).
        func use(zoom z: Double) {
            guard z != zoom || tiles.count > StreetLayerCache.maxTiles else { return }
            zoom = z
            paints.removeAll()
            numbers.removeAll()
            tiles.removeAll()
        }

        var tileCount: Int { tiles.count }

        /// The number of a paint, added when new.
        func number(_ p: StreetMapPainter.Paint) -> Int32 {
            if let n = numbers[p] { return n }
            let n = Int32(paints.count)
            paints.append(p)
            numbers[p] = n
            return n
        }

        /// A tile's styled features, made by `make` the first time at this zoom.
        func styled(_ key: VectorTileSet.Key, make: () -> [Int32]) -> [Int32] {
            if let hit = tiles[key] { return hit }
            let made = make()
            tiles[key] = made
            return made
        }
    }

    private let lock = NSLock()
    private var slots: [Slot] = []

    /// Tiles kept over every layer (for tests and figures).
    var keptTiles: Int {
        lock.lock()
        defer { lock.unlock() }
        return slots.reduce(0) { n, s in s.lock.lock(); defer { s.lock.unlock() }; return n + s.tileCount }
    }

    /// The slot of style layer `index` (of `layerCount`).
    func slot(_ index: Int, layerCount: Int) -> Slot {
        lock.lock()
        defer { lock.unlock() }
        if slots.count != layerCount { slots = (0..<layerCount).map { _ in Slot() } }
        return slots[index]
    }
}
