import Foundation
import TileSources

/// Decoded raster tiles (PNG, JPEG, WebP from any `TileSource`: MBTiles or PMTiles) with a bounded least-recently-used cache, parent tiles for missing
/// children and over-zoom beyond the set's max zoom.
public final class RasterTileSource: @unchecked Sendable {
    public let tiles: any TileSource
    /// Most decoded tiles kept (each 256 KiB at 256x256).
    public let capacity: Int
    /// Errors met while decoding (e.g. JPEG tiles), each reported once.
    public private(set) var warnings: [String] = []

    struct Key: Hashable { let z: Int, x: Int, y: Int }
    private enum Entry { case image(CairoImage), missing }
    private var cache: [Key: (entry: Entry, lastUse: UInt64)] = [:]
    private var clock: UInt64 = 0

    /// Decoded tiles to keep for a screen: the tiles under the screen turned to any angle (a
    /// square as wide as its diagonal) at 256 px a tile, plus one (a span of L px at any offset
    /// touches at most ceil(L / 256) + 1 tiles): a rotated or tilted frame at a whole zoom then
    /// draws from decoded tiles, not from the tile set (a 256 px PNG tile takes about 0.45 ms
    /// to decode here). Pan frames need none (the base map comes from its cache, which draws a
    /// tile once per build or strip). 1920x1080: 100 tiles (25 MiB); 800x480: 25 (6.25 MiB).
    public static func capacity(screenWidth w: Int, screenHeight h: Int) -> Int {
        let diagonal = Int(Double(w * w + h * h).squareRoot().rounded(.up))
        let side = (diagonal + 255) / 256 + 1
        return max(16, side * side)
    }

    /// How `capacity(screenWidth:screenHeight:)` came to its figure, for `bench` and the log.
    public static func capacityRule(screenWidth w: Int, screenHeight h: Int) -> String {
        let diagonal = Int(Double(w * w + h * h).squareRoot().rounded(.up))
        let side = (diagonal + 255) / 256 + 1
        return "the screen's \(diagonal) px diagonal turned any way: \(side)x\(side) tiles of 256 px"
    }

    public init(tiles: any TileSource, capacity: Int = 256) {
        self.tiles = tiles
        self.capacity = max(1, capacity)
    }

    public var cachedTileCount: Int { cache.count }

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

    /// The decoded tile (z, x, y) or nil when absent or undecodable.
    public func image(z: Int, x: Int, y: Int) -> CairoImage? {
        let key = Key(z: z, x: x, y: y)
        clock += 1
        if let hit = cache[key] {
            cache[key] = (hit.entry, clock)
            if case let .image(img) = hit.entry { return img }
            return nil
        }
        var entry = Entry.missing
        do {
            if let data = try tiles.tileData(z: z, x: x, y: y) {
                do { entry = .image(try TileImageDecoder.decode(data)) } catch {
                    warn("\(tiles.path): tile \(z)/\(x)/\(y) is skipped: \(error)")
                }
            }
        } catch {
            warn("\(error)")
        }
        insert(key, entry)
        if case let .image(img) = entry { return img }
        return nil
    }

    private func insert(_ key: Key, _ entry: Entry) {
        if cache.count >= capacity, let oldest = cache.min(by: { $0.value.lastUse < $1.value.lastUse })?.key {
            cache.removeValue(forKey: oldest)
        }
        cache[key] = (entry, clock)
    }

    private func warn(_ s: String) {
        if !warnings.contains(s) { warnings.append(s) }
    }
}
