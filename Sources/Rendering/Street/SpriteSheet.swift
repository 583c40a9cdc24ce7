import CCairo
import Foundation
import TileSources
import VectorTiles

/// A sprite that cannot be used: the file and what is wrong with it.
public struct SpriteError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var problem: String
    public var description: String { "sprite \(file): \(problem)" }
}

/// One MapLibre sprite sheet: a PNG atlas and its JSON index (`{"name": {"x", "y", "width",
/// "height", "pixelRatio"}}`), read once, bounded (docs/limits.md), every entry checked to lie
/// inside the atlas. The atlas is decoded by cairo into premultiplied ARGB32.
public final class SpriteSheet: @unchecked Sendable {
    public struct Entry: Equatable, Sendable {
        public let x: Int, y: Int, width: Int, height: Int
        public let pixelRatio: Double
    }

    /// The largest index and atlas read, and the most icons: far beyond OpenMapTiles' styles
    /// (OSM Bright's @2x sprite is 1 MiB of JSON... 100 KB, 1024 px wide, 300 icons).
    public static let maxIndexBytes = 1 << 20
    public static let maxImageBytes = 16 << 20
    public static let maxImageSide = 4096
    public static let maxEntries = 4096
    public static let maxEntrySide = 512

    /// The index file, for messages.
    public let file: String
    public let entries: [String: Entry]
    let atlas: CairoImage

    init(file: String, entries: [String: Entry], atlas: CairoImage) {
        self.file = file; self.entries = entries; self.atlas = atlas
    }

    /// Parses an index; `imageWidth` x `imageHeight` is the atlas every entry must lie inside.
    public static func parseIndex(_ data: Data, file: String, imageWidth: Int, imageHeight: Int) throws -> [String: Entry] {
        func fail(_ p: String) -> SpriteError { SpriteError(file: file, problem: p) }
        guard data.count <= maxIndexBytes else { throw fail("\(data.count) bytes: a sprite index may be at most \(maxIndexBytes >> 20) MiB") }
        let root: JSON
        do { root = try JSONDecoder().decode(JSON.self, from: data) } catch {
            var why = "\(error)"
            if case let DecodingError.dataCorrupted(ctx) = error { why = ctx.underlyingError.map { "\($0)" } ?? ctx.debugDescription }
            throw fail("not valid JSON (\(why)); a sprite index is {\"name\": {\"x\", \"y\", \"width\", \"height\", \"pixelRatio\"}, ...}")
        }
        guard let object = root.object else { throw fail("a sprite index is a JSON object of icons by name") }
        guard object.count <= maxEntries else { throw fail("\(object.count) icons: a sprite may hold at most \(maxEntries)") }
        var out: [String: Entry] = [:]
        for (name, e) in object.sorted(by: { $0.key < $1.key }) {
            guard e.object != nil else { throw fail("\"\(name)\" is not an object with x, y, width, height") }
            func int(_ k: String) throws -> Int {
                guard let n = e[k]?.number, n == n.rounded(), abs(n) <= 1e6 else {
                    throw fail("\"\(name)\".\(k) is missing or not a whole number")
                }
                return Int(n)
            }
            let x = try int("x"), y = try int("y"), w = try int("width"), h = try int("height")
            let ratio = e["pixelRatio"]?.number ?? 1
            guard (1...4).contains(ratio) else { throw fail("\"\(name)\".pixelRatio \(ratio) is outside 1...4") }
            guard w > 0, h > 0, w <= maxEntrySide, h <= maxEntrySide else {
                throw fail("\"\(name)\" is \(w)x\(h) px: an icon is 1 to \(maxEntrySide) px a side")
            }
            guard x >= 0, y >= 0, x + w <= imageWidth, y + h <= imageHeight else {
                throw fail("\"\(name)\" (\(x),\(y) \(w)x\(h)) lies outside the \(imageWidth)x\(imageHeight) px image: the index and the PNG do not belong together")
            }
            out[name] = Entry(x: x, y: y, width: w, height: h, pixelRatio: ratio)
        }
        return out
    }

    /// Decodes the atlas PNG (size checked from its header before any pixel is decoded).
    public static func decodeAtlas(_ data: Data, file: String) throws -> CairoImage {
        func fail(_ p: String) -> SpriteError { SpriteError(file: file, problem: p) }
        guard data.count <= maxImageBytes else { throw fail("\(data.count) bytes: a sprite image may be at most \(maxImageBytes >> 20) MiB") }
        let b = [UInt8](data.prefix(26))
        guard b.count == 26, b[0...7].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), b[12...15].elementsEqual(Array("IHDR".utf8)) else {
            throw fail("not a PNG image (a sprite's image is a PNG atlas)")
        }
        func be(_ o: Int) -> Int { Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3]) }
        let w = be(16), h = be(20)
        guard w > 0, h > 0, w <= maxImageSide, h <= maxImageSide else {
            throw fail("the image is \(w)x\(h) px: a sprite image may be at most \(maxImageSide) px a side")
        }
        guard let img = CairoImage.png(data), img.width == w, img.height == h else { throw fail("a corrupt PNG (cairo could not decode it)") }
        return img
    }

    /// Loads `base.json` and `base.png` (or `base@2x.*`).
    public static func load(base: String, suffix: String = "") throws -> SpriteSheet {
        let json = base + suffix + ".json", png = base + suffix + ".png"
        func read(_ path: String, _ maxBytes: Int, _ what: String) throws -> Data {
            do { return try BoundedFile.read(path, maxBytes: maxBytes, what: what) } catch let e as BoundedFile.ReadError {
                throw SpriteError(file: path, problem: e.message)
            }
        }
        let pngData = try read(png, maxImageBytes, "sprite image")
        let jsonData = try read(json, maxIndexBytes, "sprite index")
        let atlas = try decodeAtlas(pngData, file: png)
        let entries = try parseIndex(jsonData, file: json, imageWidth: atlas.width, imageHeight: atlas.height)
        return SpriteSheet(file: json, entries: entries, atlas: atlas)
    }

    /// The built-in POI sprite's base path (`.../sprite/sprite`): beside an installed binary
    /// (../share/touchbridge/sprite), in the SwiftPM resource folder beside the binary (a build
    /// tree), or /usr/local/share and /usr/share/touchbridge; nil when none exists.
    public static func builtInBase() -> String? {
        let fm = FileManager.default
        return InstalledResource.candidates("sprite/sprite", override: "TOUCHBRIDGE_SPRITE")
            .first { fm.fileExists(atPath: $0 + ".json") && fm.fileExists(atPath: $0 + ".png") }
    }
}
