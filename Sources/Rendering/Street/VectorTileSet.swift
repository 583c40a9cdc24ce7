import Dispatch
import Platform
import Foundation
import TileSources
import VectorTiles

/// Decoded vector tiles of one tile set, kept in a cache bounded by (approximate) bytes.
/// Tiles are decoded either on the caller's thread (`tile`) or ahead of need on a worker queue
/// (`prefetch`, run by the second core), so a pan into new tiles finds them decoded.
public final class VectorTileSet: @unchecked Sendable {
    public struct Key: Hashable, Sendable {
        public let z: Int, x: Int, y: Int
        public init(z: Int, x: Int, y: Int) { self.z = z; self.x = x; self.y = y }
    }

    public let tiles: any TileSource
    /// Most bytes of decoded tiles kept; the least recently used go first.
    public let maxBytes: Int
    /// Called on the worker queue after prefetched tiles were decoded (e.g. to request a redraw).
    public var onTilesDecoded: (@Sendable () -> Void)?
    /// Called on the worker queue when tiles a frame had to go without (`frameTile`) are decoded:
    /// the picture drawn without them must be drawn again.
    public var onMissingTilesDecoded: (@Sendable () -> Void)?
    /// Frames never decode: `frameTile` returns what is cached and hands the rest to the worker
    /// (the kiosk, so a pan into new tiles never stalls a frame). Off: frames decode what they
    /// need at once (render, tests, benchmarks), so every picture is complete.
    public var decodesOnWorker = false

    private let lock = NSLock()
    /// Decoded tiles (nil: absent or unusable), each costing its approximate bytes.
    private var cache: LRUCache<Key, VectorTile?>
    private var pending = Set<Key>()
    /// Tiles a frame asked for before they were decoded.
    private var missing = Set<Key>()
    private var warningList: [String] = []
    private var decodeTimes: [Double] = []
    private let queue = DispatchQueue(label: "touchbridge.vector-tiles", qos: .userInitiated)

    public init(tiles: any TileSource, maxBytes: Int = 48 << 20) {
        self.tiles = tiles
        self.maxBytes = max(1 << 20, maxBytes)
        cache = LRUCache(maxCost: self.maxBytes)
    }

    public var metadata: TileSetMetadata { tiles.metadata }

    /// Problems met (a corrupt or oversized tile, ...), each once, newest last; at most 50.
    public var warnings: [String] { lock.lock(); defer { lock.unlock() }; return warningList }
    public var cachedBytes: Int { lock.lock(); defer { lock.unlock() }; return cache.totalCost }
    public var cachedTileCount: Int { lock.lock(); defer { lock.unlock() }; return cache.count }
    private var hitCount = 0, missCount = 0
    /// Tiles the renderer asked for that were decoded already, and those it had to decode (the
    /// kiosk's `stats`).
    public var cacheCounts: (hits: Int, misses: Int) { lock.lock(); defer { lock.unlock() }; return (hitCount, missCount) }

    private var decodedFeatures = 0, decodedVertices = 0
    /// Features and vertices decoded so far: the work tiles cost, which the tile budget bounds
    /// (a tile over it is skipped before any is decoded; tests).
    public var decodedCounts: (features: Int, vertices: Int) { lock.lock(); defer { lock.unlock() }; return (decodedFeatures, decodedVertices) }

    /// Seconds each decode took (read + decompress + protobuf + geometry), for benchmarks.
    public var decodeDurations: [Double] { lock.lock(); defer { lock.unlock() }; return decodeTimes }

    /// The decoded tile, decoding it here if it is not cached; nil if absent or unusable.
    public func tile(_ key: Key) -> VectorTile? {
        lock.lock()
        if let hit = cache.value(for: key) { hitCount += 1; lock.unlock(); return hit }
        missCount += 1
        lock.unlock()
        let t = decode(key)
        lock.lock()
        store(key, t)
        lock.unlock()
        return t
    }

    /// The tile if it is decoded already (found false: not yet decoded).
    public func cachedTile(_ key: Key) -> (found: Bool, tile: VectorTile?) {
        lock.lock(); defer { lock.unlock() }
        if let hit = cache.value(for: key) { return (true, hit) }
        return (false, nil)
    }

    /// The tile for drawing a frame: decoded here unless `decodesOnWorker`, when a tile not yet
    /// decoded is nil for this frame and queued for the worker (`onMissingTilesDecoded` follows).
    public func frameTile(_ key: Key) -> VectorTile? {
        guard decodesOnWorker else { return tile(key) }
        lock.lock()
        if let hit = cache.value(for: key) { lock.unlock(); return hit }
        missing.insert(key)
        lock.unlock()
        prefetch([key])
        return nil
    }

    /// Decodes the tiles not yet cached on the worker queue.
    public func prefetch(_ keys: [Key]) {
        lock.lock()
        let todo = keys.filter { !cache.contains($0) && !pending.contains($0) }
        pending.formUnion(todo)
        lock.unlock()
        guard !todo.isEmpty else { return }
        queue.async { [self] in
            var missed = false
            for key in todo {
                lock.lock()
                let done = cache.contains(key)
                lock.unlock()
                let t = done ? nil : decode(key)
                lock.lock()
                if !done { store(key, t) }
                pending.remove(key)
                if missing.remove(key) != nil { missed = true }
                lock.unlock()
            }
            onTilesDecoded?()
            if missed { onMissingTilesDecoded?() }
        }
    }

    /// Bytes of decoded tiles worth keeping for a screen: every tile of the cached base map
    /// (screen plus `margin` px each side) at the two tile zooms a view may use, their ring of
    /// prefetched neighbours, and parents, at `tileBytes` each (a dense street-level tile of the
    /// OpenMapTiles schema decodes to about 1 MiB). Between 24 and 256 MiB.
    public static func cacheBytes(screenWidth w: Int, screenHeight h: Int, margin: Int, tileBytes: Int = 1 << 20) -> Int {
        // A tile covers 256..512 screen px per side (the zoom floors to the tile zoom).
        let across = (w + 2 * margin) / 256 + 3, down = (h + 2 * margin) / 256 + 3
        return min(max(across * down * 2 * tileBytes, 24 << 20), 256 << 20)
    }

    /// Waits until the worker has finished what it was given (tests, benchmarks).
    public func waitForPrefetch() { queue.sync {} }

    /// Keeps a decoded tile (the newest, never evicted by its own store), the least recently
    /// used going past `maxBytes`.
    private func store(_ key: Key, _ t: VectorTile?) {
        cache.insert(t, cost: (t?.approximateBytes ?? 0) + 256, for: key)
    }

    private func decode(_ key: Key) -> VectorTile? {
        let start = MonotonicClock.now()
        do {
            guard let data = try tiles.tileData(z: key.z, x: key.x, y: key.y) else { return nil }
            let tile = try VectorTile(data: data)
            // Timed only for tiles that exist: an absent tile costs one index lookup.
            let s = MonotonicClock.now() - start
            var f = 0, v = 0
            for l in tile.layers.values { f += l.features.count; for x in l.features { v += x.points.count / 2 } }
            lock.lock(); decodedFeatures += f; decodedVertices += v; decodeTimes.append(s); if decodeTimes.count > 4096 { decodeTimes.removeFirst(2048) }; lock.unlock()
            return tile
        } catch let e as TileSourceError {
            warn(e.description)
            return nil
        } catch {
            warn("\(tiles.path): tile \(key.z)/\(key.x)/\(key.y) is skipped: \(error)")
            return nil
        }
    }

    private func warn(_ s: String) {
        lock.lock(); defer { lock.unlock() }
        if !warningList.contains(s) && warningList.count < 50 { warningList.append(s) }
    }
}
