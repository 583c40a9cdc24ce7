import Foundation
import TileSources

/// Decoded raster tiles (PNG, JPEG, WebP from any `TileSource`: MBTiles or PMTiles) with a bounded least-recently-used cache, parent tiles for missing
/// children and over-zoom beyond the set's max zoom. Palette PNGs (most OSM-style raster
/// tiles) are kept compact (`PalettedTile`: their packed indices, 8 to 64 KiB at 256x256) and
/// expanded into 4-byte pixels when drawn, through a second, smaller cache of expanded tiles.
public final class RasterTileSource: @unchecked Sendable {
    public let tiles: any TileSource
    /// Most decoded tiles kept (palette tiles compact, others 256 KiB at 256x256).
    public let capacity: Int
    /// Most palette tiles kept expanded (256 KiB each at 256x256); lowering it drops the least
    /// recently drawn at once.
    public var expandedCapacity: Int {
        didSet { expandedCapacity = max(1, expandedCapacity); while expanded.count > expandedCapacity { dropOldestExpanded() } }
    }
    /// Errors met while decoding (e.g. JPEG tiles), each reported once.
    public private(set) var warnings: [String] = []

    struct Key: Hashable { let z: Int, x: Int, y: Int }
    private enum Entry { case image(CairoImage), palette(PalettedTile), missing }
    private var cache: [Key: (entry: Entry, lastUse: UInt64)] = [:]
    private var expanded: [Key: (image: CairoImage, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0
    /// Bytes held by the decoded tiles (compact palette tiles at their size).
    public private(set) var cachedBytes = 0
    /// The clock when the current drawing pass began (`beginPass`; 0: none yet).
    private var passStart: UInt64 = 0
    /// Where a tile is expanded when the expanded cache holds only tiles of the current pass.
    private var scratch: CairoImage?
    /// Palette tiles expanded so far (each a 256x256 tile's table look-ups), for tests and `bench`.
    public private(set) var expansions = 0

    /// Decoded tiles to keep for a screen: the tiles under the screen turned to any angle (a
    /// square as wide as its diagonal) at 256 px a tile, plus one (a span of L px at any offset
    /// touches at most ceil(L / 256) + 1 tiles): a rotated or tilted frame at a whole zoom then
    /// draws from decoded tiles, not from the tile set (a 256 px PNG tile takes about 0.45 ms
    /// to decode here). Pan frames need none (the base map comes from its cache, which draws a
    /// tile once per build or strip). 1920x1080: 100 tiles (25 MiB as 4-byte pixels; palette tiles a quarter of that or less); 800x480: 25.
    public static func capacity(screenWidth w: Int, screenHeight h: Int) -> Int {
        let side = turnedScreen(w, h).side
        return max(16, side * side)
    }

    /// The screen's diagonal (px) and the tiles of 256 px along it, at any offset. In floating
    /// point and bounded (a screen is at most 65,536 px a side), so no size traps.
    private static func turnedScreen(_ w: Int, _ h: Int) -> (diagonal: Int, side: Int) {
        let cw = Double(min(max(w, 0), 65_536)), ch = Double(min(max(h, 0), 65_536))
        let diagonal = Int((cw * cw + ch * ch).squareRoot().rounded(.up))
        return (diagonal, (diagonal + 255) / 256 + 1)
    }

    /// How `capacity(screenWidth:screenHeight:)` came to its figure, for `bench` and the log.
    public static func capacityRule(screenWidth w: Int, screenHeight h: Int) -> String {
        let (diagonal, side) = turnedScreen(w, h)
        return "the screen's \(diagonal) px diagonal turned any way: \(side)x\(side) tiles of 256 px"
    }

    /// Expanded palette tiles to keep for a screen: the tiles one scroll strip of the base-map
    /// cache touches (the cache's longer side in tiles of 256 px, plus one, by two rows: a
    /// strip of `MapRenderer.scrollStep` px crosses at most two), so the next strips of a pan
    /// find them. Frames that draw tiles directly (turned, tilted) expand what does not fit,
    /// into one scratch surface (`beginPass`): 20 us a tile here, against 256 KiB a tile kept.
    /// 1920x1080: 20 tiles (5.0 MiB); 800x480: 12 (3.0 MiB).
    public static func expandedCapacity(screenWidth w: Int, screenHeight h: Int) -> Int {
        stripTiles(w, h) * 2
    }

    private static func stripTiles(_ w: Int, _ h: Int) -> Int {
        let m = MapRenderer.cacheMargin(width: w, height: h)
        return (max(w, h) + 2 * m + 255) / 256 + 1
    }

    /// How `expandedCapacity(screenWidth:screenHeight:)` came to its figure.
    public static func expandedCapacityRule(screenWidth w: Int, screenHeight h: Int) -> String {
        let m = MapRenderer.cacheMargin(width: w, height: h)
        return "one scroll strip of the \(max(w, h) + 2 * m) px base map: \(stripTiles(w, h))x2 tiles of 256 px"
    }

    public init(tiles: any TileSource, capacity: Int = 256, expandedCapacity: Int = 64) {
        self.tiles = tiles
        self.capacity = max(1, capacity)
        self.expandedCapacity = max(1, expandedCapacity)
    }

    public var cachedTileCount: Int { cache.count }
    /// Palette tiles of `cachedTileCount` kept compact.
    public var compactTileCount: Int { cache.values.reduce(0) { if case .palette = $1.entry { return $0 + 1 }; return $0 } }
    public var expandedTileCount: Int { expanded.count }
    public var expandedBytes: Int { expanded.values.reduce(0) { $0 + $1.image.width * $1.image.height * 4 } }

    /// A tile image covering (z, x, y): the tile itself, or the part of its nearest ancestor
    /// that covers it (`source` is the rectangle of `image` to draw, in its pixels).
    public struct Found {
        public let image: CairoImage
        public let sourceX: Double, sourceY: Double, sourceSize: Double
        /// How many levels up the image came from (0: the tile itself).
        public let levelsUp: Int
    }

    public func find(z: Int, x: Int, y: Int) -> Found? {
        let meta = tiles.metadata
        var d = 0
        while z - d >= meta.minZoom && d <= 12 {
            let pz = z - d
            if pz <= meta.maxZoom, let img = image(z: pz, x: x >> d, y: y >> d) {
                let tileW = Double(img.width)
                let sub = tileW / Double(1 << d)
                let ox = Double(x & ((1 << d) - 1)) * sub
                let oy = Double(y & ((1 << d) - 1)) * sub
                return Found(image: img, sourceX: ox, sourceY: oy, sourceSize: sub, levelsUp: d)
            }
            d += 1
        }
        return nil
    }

    /// The decoded tile (z, x, y) as 4-byte pixels, or nil when absent or undecodable. A palette
    /// tile comes from the expanded cache, expanded first if it is not there.
    public func image(z: Int, x: Int, y: Int) -> CairoImage? {
        let key = Key(z: z, x: x, y: y)
        clock += 1
        let entry: Entry
        if let hit = cache[key] {
            cache[key] = (hit.entry, clock)
            entry = hit.entry
        } else {
            entry = decode(key)
            insert(key, entry)
        }
        switch entry {
        case let .image(img): return img
        case let .palette(p): return expandedImage(key, p)
        case .missing: return nil
        }
    }

    private func decode(_ key: Key) -> Entry {
        do {
            if let data = try tiles.tileData(z: key.z, x: key.x, y: key.y) {
                do {
                    switch try TileImageDecoder.decodeCompact(data) {
                    case let .image(img): return .image(img)
                    case let .palette(p): return .palette(p)
                    }
                } catch {
                    warn("\(tiles.path): tile \(key.z)/\(key.x)/\(key.y) is skipped: \(error)")
                }
            }
        } catch {
            warn("\(error)")
        }
        return .missing
    }

    /// A frame (or a base-map build or strip) begins drawing: the expanded tiles it draws are
    /// not evicted for other tiles of the same pass. A turned frame touching more tiles than the
    /// expanded cache holds then finds the cache's tiles again in its next frame and expands only
    /// the rest (into one scratch surface), where least-recently-used eviction would evict each
    /// tile just before it is needed again and expand every tile of every frame.
    public func beginPass() {
        clock += 1
        passStart = clock
    }

    /// The palette tile's pixels from the expanded cache. When full, the least recently drawn
    /// expanded tile goes, and its surface takes the new pixels if nobody else holds it (no
    /// allocation, so the heap does not fragment as tiles come and go).
    private func expandedImage(_ key: Key, _ tile: PalettedTile) -> CairoImage {
        if let hit = expanded[key] {
            expanded[key] = (hit.image, clock)
            return hit.image
        }
        var candidate: CairoImage?
        if expanded.count >= expandedCapacity, let oldest = expanded.min(by: { $0.value.lastUse < $1.value.lastUse }) {
            if passStart > 0 && oldest.value.lastUse > passStart {
                // Every expanded tile was drawn in this pass: expand this one aside, uncached.
                expansions += 1
                if isKnownUniquelyReferenced(&scratch), let s = scratch, tile.fits(s) {
                    tile.expand(into: s)
                    return s
                }
                let fresh = tile.expanded()
                scratch = fresh
                return fresh
            }
            candidate = expanded.removeValue(forKey: oldest.key)?.image
        }
        let image: CairoImage
        if isKnownUniquelyReferenced(&candidate), let surface = candidate, tile.fits(surface) {
            tile.expand(into: surface)
            image = surface
        } else {
            image = tile.expanded()
        }
        expansions += 1
        expanded[key] = (image, clock)
        return image
    }

    private func dropOldestExpanded() {
        if let oldest = expanded.min(by: { $0.value.lastUse < $1.value.lastUse })?.key { expanded.removeValue(forKey: oldest) }
    }

    private func insert(_ key: Key, _ entry: Entry) {
        if cache.count >= capacity, let oldest = cache.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            if let gone = cache.removeValue(forKey: oldest) { cachedBytes -= Self.bytes(gone.entry) }
            expanded.removeValue(forKey: oldest)
        }
        cache[key] = (entry, clock)
        cachedBytes += Self.bytes(entry)
    }

    private static func bytes(_ e: Entry) -> Int {
        switch e {
        case let .image(img): return img.width * img.height * 4
        case let .palette(p): return p.bytes
        case .missing: return 0
        }
    }

    private func warn(_ s: String) {
        if !warnings.contains(s) { warnings.append(s) }
    }
}
