import Foundation
import MapEngine
import Testing
@testable import Rendering
@testable import TileSources
@testable import VectorTiles

/// The tile budget against the issue's tile (issue 31: "a 31 KB gzip tile with 1.45 million
/// points costs 1.8 GB in `render`; the kiosk reaches 3 GB and stops answering"): made here as
/// raw protobuf bytes, gzip'd into an MBTiles file beside a good tile, and drawn. The bomb is
/// skipped with a warning naming it before a single feature of it is decoded; the work and the
/// memory it costs are counted (features and vertices decoded, bytes kept), not timed.
@Suite struct PointBombTileTests {
    static let points = 1_450_000

    static func varint(_ v: Int) -> [UInt8] {
        var v = UInt64(v), out: [UInt8] = []
        while v >= 0x80 { out.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        return out + [UInt8(v)]
    }

    /// One layer "poi" (version 2, extent 4096) holding `features` (each a Feature message's
    /// bytes), as a Tile message.
    static func tile(_ features: [[UInt8]]) -> Data {
        var layer: [UInt8] = [0x78, 2, 0x0A, 3] + Array("poi".utf8) + [0x28] + varint(4096)
        for f in features { layer += [0x12] + varint(f.count) + f }
        return Data([0x1A] + varint(layer.count) + layer)
    }

    /// A point feature: type POINT, geometry MoveTo(count) and `count` (+1, +1) steps.
    static func pointFeature(count: Int) -> [UInt8] {
        let geometry = varint(count << 3 | 1) + [UInt8](repeating: 2, count: 2 * count)
        return [0x18, 1, 0x22] + varint(geometry.count) + geometry
    }

    enum Shape: String, CaseIterable { case manyFeatures = "1.45 million point features", oneFeature = "one feature of 1.45 million points" }

    static func bomb(_ shape: Shape) -> Data {
        switch shape {
        case .manyFeatures: return tile(Array(repeating: pointFeature(count: 1), count: points))
        case .oneFeature: return tile([pointFeature(count: points)])
        }
    }

    @Test(arguments: Shape.allCases)
    func theIssuesTileIsSkippedBeforeAnyOfItIsDecoded(_ shape: Shape) throws {
        let raw = Self.bomb(shape)
        let gz = try #require(HostilePMTilesTests().gzip(raw))
        // The issue's size class: tens of kilobytes stored, megabytes expanded (within the
        // 16 MiB a tile may expand to, so the feature budget is what stops it).
        #expect(gz.count < 64 << 10, "\(gz.count) bytes gzip'd")
        #expect(raw.count > 2 << 20 && raw.count < TileLimits.maxTileBytes)
        let good = Self.tile(Array(repeating: Self.pointFeature(count: 1), count: 10))
        // Tiles 1/0/0 (good) and 1/1/0 (the bomb); MBTiles rows count from the south.
        let path = try HostileTileFileTests.mbtiles(HostileTileFileTests.plainSchema
            + ["INSERT INTO metadata VALUES ('format', 'pbf'), ('minzoom', '1'), ('maxzoom', '1'), ('name', 'bomb')"],
            tiles: [(1, 0, 1, try #require(HostilePMTilesTests().gzip(good))), (1, 1, 1, gz)])
        defer { unlink(path) }
        let set = VectorTileSet(tiles: try MBTiles(path: path))
        let counted = try VectorTile.count(Gzip.decompress(gz, limit: TileLimits.maxTileBytes))
        #expect(counted.features > VectorTile.maxFeatures || counted.vertices > VectorTile.maxVertices, "\(counted)")

        // Drawn by the renderer, as `render` and the kiosk draw it: a whole frame at zoom 1.
        let renderer = MapRenderer(vector: set)
        let frame = RenderedFrame(MapScene(camera: CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 1)),
                                  width: 512, height: 512, renderer: renderer, name: "point-bomb-\(shape == .manyFeatures ? "features" : "points")")
        #expect(frame.buffer.width == 512)
        #expect(set.warnings.contains { $0.contains("tile 1/1/0 is skipped: over the tile budget") }, "\(set.warnings)")
        // The good tile's ten points were decoded, nothing of the bomb's 1.45 million.
        let decoded = set.decodedCounts
        #expect(decoded.features == 10 && decoded.vertices == 10, "\(decoded)")
        #expect(set.tile(.init(z: 1, x: 1, y: 0)) == nil)
        #expect(set.tile(.init(z: 1, x: 0, y: 0))?.layers["poi"]?.features.count == 10)
        // What the tile cache holds for it: a marker of its absence, not its points.
        #expect(set.cachedBytes < 64 << 10, "\(set.cachedBytes) bytes cached")
    }
}
