import CCairo
import Foundation
import TileSources

/// Decoded raster tiles (PNG, JPEG, WebP from any `TileSource`: MBTiles or PMTiles) with a bounded least-recently-used cache, parent tiles for missing
/// children and over-zoom beyond the set's max zoom. Palette PNGs (most OSM-style raster
/// tiles) are kept compact (`PalettedTile`: their packed indices, 8 to 64 KiB at 256x256) and
/// never kept as 4-byte pixels: drawing one expands only the part of it the drawing can reach
/// (`surface(for:region:)`) into one scratch surface, so a pan strip expands a strip's worth of
/// pixels, not whole tiles, and no cache of expanded tiles takes 256 KiB a tile.
public final class RasterTileSource: @unchecked Sendable {
    public let tiles: any TileSource
    /// Most decoded tiles kept (palette tiles compact, others 256 KiB at 256x256).
    public var capacity: Int { cache.maxCount }
    /// Errors met while decoding (e.g. JPEG tiles), each reported once.
    public private(set) var warnings: [String] = []

    struct Key: Hashable { let z: Int, x: Int, y: Int }
    private enum Entry { case image(CairoImage), palette(PalettedTile), missing }
    private var cache: LRUCache<Key, Entry>
    /// Bytes held by the decoded tiles (compact palette tiles at their size).
    public var cachedBytes: Int { cache.totalCost }
    /// Where palette tiles are expanded to be drawn: one surface a format (RGB24, ARGB32), the
    /// size of a tile, reused from draw to draw, with the tile and region it holds now.
    private struct Scratch { let image: CairoImage; var tile: PalettedTile?; var region: (x0: Int, y0: Int, x1: Int, y1: Int) }
    private var scratch: [Scratch] = []
    /// Palette tile regions expanded so far, and their pixels, for tests and `bench`.
    public private(set) var expansions = 0
    public private(set) var expandedPixels = 0

    /// Bytes of the scratch surfaces palette tiles are expanded into (256 KiB a format used, at 256x256).
    public var scratchBytes: Int { scratch.reduce(0) { $0 + $1.image.width * $1.image.height * 4 } }

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

    public init(tiles: any TileSource, capacity: Int = 256) {
        self.tiles = tiles
        cache = LRUCache(maxCount: capacity)
    }

    public var cachedTileCount: Int { cache.count }
    /// Palette tiles of `cachedTileCount` kept compact.
    public var compactTileCount: Int {
        var n = 0
        cache.forEach { _, e in if case .palette = e { n += 1 } }
        return n
    }

    /// A decoded tile's pixels: a cairo image, or a palette tile expanded when drawn.
    public enum Pixels {
        case image(CairoImage)
        case palette(PalettedTile)
        public var width: Int { switch self { case let .image(i): i.width; case let .palette(p): p.width } }
        public var height: Int { switch self { case let .image(i): i.height; case let .palette(p): p.height } }
    }

    /// A tile image covering (z, x, y): the tile itself, or the part of its nearest ancestor
    /// that covers it (`source` is the rectangle of `pixels` to draw, in its pixels).
    public struct Found {
        public let pixels: Pixels
        public let sourceX: Double, sourceY: Double, sourceSize: Double
        /// How many levels up the image came from (0: the tile itself).
        public let levelsUp: Int
    }

    public func find(z: Int, x: Int, y: Int) -> Found? {
        let meta = tiles.metadata
        var d = 0
        while z - d >= meta.minZoom && d <= 12 {
            let pz = z - d
            if pz <= meta.maxZoom, let img = pixels(z: pz, x: x >> d, y: y >> d) {
                let tileW = Double(img.width)
                let sub = tileW / Double(1 << d)
                let ox = Double(x & ((1 << d) - 1)) * sub
                let oy = Double(y & ((1 << d) - 1)) * sub
                return Found(pixels: img, sourceX: ox, sourceY: oy, sourceSize: sub, levelsUp: d)
            }
            d += 1
        }
        return nil
    }

    /// The decoded tile (z, x, y) as 4-byte pixels, or nil when absent or undecodable. A palette
    /// tile is expanded into a new image each time (it is kept compact): for tests and callers
    /// that want a whole tile; drawing goes through `find` and `surface(for:region:)`.
    public func image(z: Int, x: Int, y: Int) -> CairoImage? {
        switch pixels(z: z, x: x, y: y) {
        case let .image(img): return img
        case let .palette(p): return p.expanded()
        case nil: return nil
        }
    }

    /// Tiles drawn from the cache, and those decoded first (the kiosk's `stats`; the loop's thread).
    public private(set) var cacheCounts = (hits: 0, misses: 0)

    /// The decoded tile (z, x, y) from the cache, decoded and kept first if it is not there.
    func pixels(z: Int, x: Int, y: Int) -> Pixels? {
        let key = Key(z: z, x: x, y: y)
        let entry: Entry
        if let hit = cache.value(for: key) {
            entry = hit
            cacheCounts.hits += 1
        } else {
            cacheCounts.misses += 1
            entry = decode(key)
            cache.insert(entry, cost: Self.bytes(entry), for: key)
        }
        switch entry {
        case let .image(img): return .image(img)
        case let .palette(p): return .palette(p)
        case .missing: return nil
        }
    }

    /// A cairo image to draw `pixels` from, right at least within `region` (its pixels:
    /// columns x0..<x1, rows y0..<y1, in the tile's own coordinates): the tile's image itself, or
    /// the palette tile's region expanded into the scratch surface of its format. The scratch is
    /// valid until the next call: draw from it at once. Outside the region its pixels are left
    /// from earlier tiles, so the caller's region must hold every pixel the drawing samples.
    public func surface(for pixels: Pixels, region: (x0: Int, y0: Int, x1: Int, y1: Int)) -> CairoImage {
        switch pixels {
        case let .image(img):
            return img
        case let .palette(p):
            let x0 = min(max(region.x0, 0), p.width), x1 = min(max(region.x1, x0), p.width)
            let y0 = min(max(region.y0, 0), p.height), y1 = min(max(region.y1, y0), p.height)
            let i: Int
            if let found = scratch.firstIndex(where: { p.fits($0.image) }) {
                i = found
                let held = scratch[i]
                // The same tile again (the cells of a tilted tile), within what is expanded already.
                if held.tile === p && held.region.x0 <= x0 && held.region.y0 <= y0 && held.region.x1 >= x1 && held.region.y1 >= y1 {
                    return held.image
                }
            } else {
                let image = CairoImage(owning: cairo_image_surface_create(p.format, Int32(p.width), Int32(p.height))!)
                scratch.removeAll { cairo_image_surface_get_format($0.image.surface) == p.format }
                scratch.append(Scratch(image: image, tile: nil, region: (0, 0, 0, 0)))
                i = scratch.count - 1
            }
            p.expand(into: scratch[i].image, x0: x0, y0: y0, x1: x1, y1: y1)
            scratch[i].tile = p
            scratch[i].region = (x0, y0, x1, y1)
            expansions += 1
            expandedPixels += (x1 - x0) * (y1 - y0)
            return scratch[i].image
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
