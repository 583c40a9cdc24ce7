import Foundation
import MapEngine

/// The built-in world map (Natural Earth, converted by tools/convert_naturalearth.py into
/// Resources/world.bin): land polygons, borders and rivers as pre-projected Web Mercator
/// rings quantised to 16 bits, three levels of detail per layer, plus place names.
public final class BuiltInWorld: Sendable {
    /// One ring or line in unit-square Web Mercator, quantised: x, y in 0...65535.
    public struct Part: Sendable {
        public let minX: UInt16, minY: UInt16, maxX: UInt16, maxY: UInt16
        public let points: [UInt16]      // x0, y0, x1, y1, ...
    }
    public enum Kind: UInt8, Sendable { case polygons = 0, lines = 1 }
    public struct Level: Sendable {
        public let name: String
        public let kind: Kind
        /// Used from this zoom up to the next level's minZoom.
        public let minZoom: Double
        public let parts: [Part]
    }
    public struct Place: Sendable {
        public enum Kind: UInt8, Sendable { case city = 0, country = 1 }
        public let kind: Kind
        public let name: String
        public let coordinate: Coordinate
        public let minZoom: Double
    }

    public static let quantisation = 65535.0

    public let levels: [Level]
    public let places: [Place]

    /// Why the built-in world map could not be loaded, naming the file and what to do.
    public enum LoadError: Error, Sendable, CustomStringConvertible {
        case missing
        case damaged(path: String, reason: String)
        public var description: String {
            switch self {
            case .missing: return "the built-in world map (world.bin) was not found: " + BuiltInWorld.missingResourceAdvice
            case .damaged(let path, let reason):
                return "the built-in world map \(path) is damaged (\(reason)): reinstall it (make install) or rebuild the package"
            }
        }
    }

    /// The world map from the resource file (`resourceURL`), read once; later calls return the
    /// same instance or throw the same error.
    public static func load() throws(LoadError) -> BuiltInWorld { try loaded.get() }

    private static let loaded: Result<BuiltInWorld, LoadError> = {
        guard let url = resourceURL() else { return .failure(.missing) }
        do {
            return .success(try BuiltInWorld(data: try Data(contentsOf: url)))
        } catch {
            return .failure(.damaged(path: url.path, reason: "\(error)"))
        }
    }()

    /// A world with nothing in it: what a renderer draws when the map data cannot be loaded
    /// (entry points call `load()` first and report its error instead).
    public static let empty = BuiltInWorld(levels: [], places: [])

    init(levels: [Level], places: [Place]) {
        self.levels = levels
        self.places = places
    }

    public static let missingResourceAdvice =
        "install it with `make install` (to PREFIX/share/touchbridge/world.bin), keep the build's " +
        "TouchBridge_Rendering.resources folder beside the binary, or set TOUCHBRIDGE_WORLD to its path"

    /// Where world.bin is: $TOUCHBRIDGE_WORLD; beside an installed binary (../share/touchbridge);
    /// the SwiftPM resource folder beside the binary (a build tree); /usr/local/share or
    /// /usr/share/touchbridge. Nil when none exists (checked before touching Bundle.module,
    /// which stops the process when its folder is gone).
    public static func resourceURL() -> URL? {
        InstalledResource.candidates("world.bin", override: "TOUCHBRIDGE_WORLD")
            .first { FileManager.default.fileExists(atPath: $0) }.map { URL(fileURLWithPath: $0) }
    }

    /// Cities drawn on the map, in label priority order: name, coordinate and the zoom from
    /// which they are drawn (and tappable).
    public static var cities: [(name: String, coordinate: Coordinate, minZoom: Double)] {
        ((try? load())?.places ?? []).filter { $0.kind == .city }.map { ($0.name, $0.coordinate, $0.minZoom) }
    }

    public struct FormatError: Error, CustomStringConvertible {
        public let description: String
    }

    public init(data: Data) throws {
        var r = ByteReader(bytes: [UInt8](data))
        guard try r.bytes(4) == Array("TBWM".utf8) else { throw FormatError(description: "world.bin: bad magic") }
        guard try r.u32() == 1 else { throw FormatError(description: "world.bin: unknown version") }
        let layerCount = Int(try r.u32())
        var levels: [Level] = []
        for _ in 0..<layerCount {
            let name = try r.string(Int(try r.u8()))
            guard let kind = Kind(rawValue: try r.u8()) else { throw FormatError(description: "world.bin: bad layer kind") }
            let minZoom = Double(try r.f32())
            let partCount = Int(try r.u32())
            var parts: [Part] = []
            parts.reserveCapacity(partCount)
            for _ in 0..<partCount {
                let minX = try r.u16(), minY = try r.u16(), maxX = try r.u16(), maxY = try r.u16()
                let n = Int(try r.u32())
                let pts = try r.u16Array(2 * n)
                parts.append(Part(minX: minX, minY: minY, maxX: maxX, maxY: maxY, points: pts))
            }
            levels.append(Level(name: name, kind: kind, minZoom: minZoom, parts: parts))
        }
        let placeCount = Int(try r.u32())
        var places: [Place] = []
        for _ in 0..<placeCount {
            guard let kind = Place.Kind(rawValue: try r.u8()) else { throw FormatError(description: "world.bin: bad place kind") }
            let name = try r.string(Int(try r.u8()))
            let lat = Double(try r.f32()), lon = Double(try r.f32()), mz = Double(try r.f32())
            places.append(Place(kind: kind, name: name, coordinate: Coordinate(latitude: lat, longitude: lon), minZoom: mz))
        }
        self.levels = levels
        self.places = places
    }

    /// The level of detail of a layer ("land", "borders", "rivers") to draw at a zoom.
    public func level(_ name: String, zoom: Double) -> Level? {
        levels.filter { $0.name == name && $0.minZoom <= max(zoom, 0) }.max { $0.minZoom < $1.minZoom }
    }
}

/// Little-endian reader over the resource bytes.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0
    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func bytes(_ n: Int) throws -> [UInt8] {
        guard offset + n <= bytes.count else { throw BuiltInWorld.FormatError(description: "world.bin: truncated") }
        defer { offset += n }
        return Array(bytes[offset..<offset + n])
    }
    mutating func u8() throws -> UInt8 { try bytes(1)[0] }
    mutating func u16() throws -> UInt16 {
        let b = try bytes(2); return UInt16(b[0]) | UInt16(b[1]) << 8
    }
    mutating func u32() throws -> UInt32 {
        let b = try bytes(4)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }
    mutating func f32() throws -> Float { Float(bitPattern: try u32()) }
    mutating func string(_ n: Int) throws -> String { String(decoding: try bytes(n), as: UTF8.self) }
    mutating func u16Array(_ n: Int) throws -> [UInt16] {
        guard offset + 2 * n <= bytes.count else { throw BuiltInWorld.FormatError(description: "world.bin: truncated") }
        var out = [UInt16](repeating: 0, count: n)
        bytes.withUnsafeBufferPointer { src in
            for i in 0..<n {
                let o = offset + 2 * i
                out[i] = UInt16(src[o]) | UInt16(src[o + 1]) << 8
            }
        }
        offset += 2 * n
        return out
    }
}
