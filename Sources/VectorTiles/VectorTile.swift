import Foundation
import SwiftProtobuf

/// One decoded Mapbox Vector Tile (spec 2.1): its layers by name, each feature's properties
/// and geometry in tile coordinates (0...extent, y down). Geometry commands are checked as
/// they are decoded; a malformed tile is an error naming what is wrong, never a crash.
public struct VectorTile: Sendable {
    public enum GeometryType: Sendable, Equatable { case unknown, point, lineString, polygon }

    /// A feature property value.
    public enum Value: Sendable, Equatable, Hashable {
        case string(String), number(Double), bool(Bool)
    }

    public struct Feature: Sendable {
        public var id: UInt64?
        public var type: GeometryType
        public var properties: [String: Value]
        /// Flat x, y pairs of every part, in tile coordinates.
        public private(set) var points: [Int32]
        /// Where each part (point run, line, ring) starts, in points (pairs); the last part ends at the end.
        public private(set) var parts: [Int]
        /// The bounding box of every point, tile units: painters skip a feature whose box is out
        /// of view before evaluating its style (a strip of a scrolled base map meets few features).
        public private(set) var minX: Int32 = 0, minY: Int32 = 0, maxX: Int32 = 0, maxY: Int32 = 0

        public init(id: UInt64?, type: GeometryType, properties: [String: Value], points: [Int32], parts: [Int]) {
            self.id = id
            self.type = type
            self.properties = properties
            self.points = points
            self.parts = parts
            if points.count >= 2 {
                var x0 = Int32.max, y0 = Int32.max, x1 = Int32.min, y1 = Int32.min
                for i in stride(from: 0, to: points.count - 1, by: 2) {
                    x0 = min(x0, points[i]); x1 = max(x1, points[i])
                    y0 = min(y0, points[i + 1]); y1 = max(y1, points[i + 1])
                }
                (minX, minY, maxX, maxY) = (x0, y0, x1, y1)
            }
        }

        /// The points of part `i` as an index range into `points` (pairs).
        public func partRange(_ i: Int) -> Range<Int> {
            let end = i + 1 < parts.count ? parts[i + 1] : points.count / 2
            return parts[i]..<end
        }
    }

    public struct Layer: Sendable {
        public var name: String
        public var extent: Int
        public var features: [Feature]
    }

    public enum DecodeError: Error, CustomStringConvertible, Equatable {
        case protobuf(String)
        case geometry(layer: String, reason: String)
        /// More features or vertices than `VectorTile.maxFeatures` / `maxVertices`: counted from
        /// the protobuf's bytes before anything is decoded.
        case overBudget(String)
        public var description: String {
            switch self {
            case let .overBudget(why): return "over the tile budget: \(why) (docs/limits.md)"
            case let .protobuf(why): return "not a vector tile (protobuf: \(why))"
            case let .geometry(layer, why): return "bad geometry in layer \(layer): \(why)"
            }
        }
    }

    public var layers: [String: Layer]

    /// Bytes of the decoded tile's geometry and properties, roughly (for cache accounting).
    public var approximateBytes: Int

    /// The most features one tile may hold (docs/limits.md). A dense street-level tile of the
    /// OpenMapTiles schema holds some 10,000 to 30,000; each costs about a kilobyte decoded and
    /// drawn (a 31 KB gzip tile of 1.45 million point features took 1.8 GB, issue 31).
    public static let maxFeatures = 100_000
    /// The most vertices (MoveTo and LineTo points) one tile may hold (docs/limits.md); a dense
    /// street-level tile holds a few hundred thousand.
    public static let maxVertices = 1_000_000

    public init(data: Data) throws {
        let counts = try VectorTile.count(data)
        guard counts.features <= VectorTile.maxFeatures else {
            throw DecodeError.overBudget("\(counts.features) features, at most \(VectorTile.maxFeatures) are drawn from one tile")
        }
        guard counts.vertices <= VectorTile.maxVertices else {
            throw DecodeError.overBudget("about \(counts.vertices) vertices, at most \(VectorTile.maxVertices) are drawn from one tile")
        }
        let tile: VectorTile_Tile
        do {
            var options = BinaryDecodingOptions()
            options.messageDepthLimit = 16
            tile = try VectorTile_Tile(serializedBytes: data, options: options)
        } catch {
            throw DecodeError.protobuf("\(error)")
        }
        var layers: [String: Layer] = [:]
        var bytes = 0
        for l in tile.layers {
            let extent = Int(l.extent)
            guard extent > 0 else { throw DecodeError.geometry(layer: l.name, reason: "extent is 0") }
            let values: [Value?] = l.values.map(VectorTile.value)
            var features: [Feature] = []
            features.reserveCapacity(l.features.count)
            for f in l.features {
                var props: [String: Value] = [:]
                let tags = f.tags
                var i = 0
                while i + 1 < tags.count {
                    let k = Int(tags[i]), v = Int(tags[i + 1])
                    if k < l.keys.count, v < values.count, let value = values[v] { props[l.keys[k]] = value }
                    i += 2
                }
                let type: GeometryType = switch f.type {
                case .point: .point; case .linestring: .lineString; case .polygon: .polygon; default: .unknown
                }
                guard type != .unknown else { continue }
                let (points, parts) = try VectorTile.geometry(f.geometry, type: type, layer: l.name)
                guard !points.isEmpty else { continue }
                bytes += points.count * 4 + props.count * 48 + 64
                features.append(Feature(id: f.hasID ? f.id : nil, type: type, properties: props, points: points, parts: parts))
            }
            // Two layers of one name: the spec forbids it; keep the first.
            if layers[l.name] == nil { layers[l.name] = Layer(name: l.name, extent: extent, features: features) }
        }
        self.layers = layers
        approximateBytes = bytes
    }

    /// Features and vertices of a tile, counted from its protobuf wire format without decoding
    /// it (no allocation): Tile.layers (3) -> Layer.features (2) -> Feature.geometry (4, packed
    /// varints; a vertex is two of them). Bytes that are not a tile are left to the decoder.
    static func count(_ data: Data) throws -> (features: Int, vertices: Int) {
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) -> (features: Int, vertices: Int) in
            let b = raw.bindMemory(to: UInt8.self)
            var features = 0, varints = 0
            // Each field of the message in b[from..<to]: (field number, wire type, payload range).
            func fields(_ from: Int, _ to: Int, _ body: (Int, Int, Int, Int) -> Void) {
                var i = from
                func varint() -> UInt64? {
                    var v: UInt64 = 0, shift: UInt64 = 0
                    while i < to, shift < 64 {
                        let c = b[i]; i += 1
                        v |= UInt64(c & 0x7F) << shift
                        if c & 0x80 == 0 { return v }
                        shift += 7
                    }
                    return nil
                }
                while i < to {
                    guard let key = varint() else { return }
                    let field = Int(truncatingIfNeeded: key >> 3), wire = Int(key & 7)
                    switch wire {
                    case 0: guard varint() != nil else { return }
                    case 1: i += 8
                    case 5: i += 4
                    case 2:
                        guard let n = varint(), n <= UInt64(to - i) else { return }
                        body(field, wire, i, i + Int(n))
                        i += Int(n)
                    default: return
                    }
                }
            }
            fields(0, b.count) { f, w, s, e in
                guard f == 3, w == 2 else { return }
                fields(s, e) { f, w, s, e in
                    guard f == 2, w == 2 else { return }
                    features += 1
                    fields(s, e) { f, w, s, e in
                        guard f == 4, w == 2 else { return }
                        // Packed varints: one ends at each byte without the high bit.
                        for k in s..<e where b[k] & 0x80 == 0 { varints += 1 }
                    }
                }
            }
            return (features, varints / 2)
        }
    }

    static func value(_ v: VectorTile_Tile.Value) -> Value? {
        if v.hasStringValue { return .string(v.stringValue) }
        if v.hasDoubleValue { return .number(v.doubleValue) }
        if v.hasFloatValue { return .number(Double(v.floatValue)) }
        if v.hasIntValue { return .number(Double(v.intValue)) }
        if v.hasUintValue { return .number(Double(v.uintValue)) }
        if v.hasSintValue { return .number(Double(v.sintValue)) }
        if v.hasBoolValue { return .bool(v.boolValue) }
        return nil
    }

    /// Decodes the command stream (MoveTo 1, LineTo 2, ClosePath 7; zigzag deltas).
    static func geometry(_ g: [UInt32], type: GeometryType, layer: String) throws -> ([Int32], [Int]) {
        var points: [Int32] = []
        points.reserveCapacity(g.count)
        var parts: [Int] = []
        var x: Int32 = 0, y: Int32 = 0
        var i = 0
        func fail(_ why: String) -> DecodeError { .geometry(layer: layer, reason: why) }
        while i < g.count {
            let command = g[i] & 0x7, count = Int(g[i] >> 3)
            i += 1
            switch command {
            case 1, 2:
                guard count > 0, i + 2 * count <= g.count else { throw fail("a command runs past the end") }
                if command == 2 && parts.isEmpty { throw fail("LineTo before MoveTo") }
                for k in 0..<count {
                    let dx = Int32(bitPattern: (g[i] >> 1) ^ (0 &- (g[i] & 1)))
                    let dy = Int32(bitPattern: (g[i + 1] >> 1) ^ (0 &- (g[i + 1] & 1)))
                    i += 2
                    x = x &+ dx; y = y &+ dy
                    // Points: one part for the whole run; lines and rings: a MoveTo starts a part.
                    if command == 1 && (type != .point || (k == 0 && parts.isEmpty)) { parts.append(points.count / 2) }
                    points.append(x); points.append(y)
                }
            case 7:
                guard type == .polygon else { throw fail("ClosePath in a \(type) feature") }
            default:
                throw fail("unknown command \(command)")
            }
        }
        return (points, parts)
    }
}
