import Foundation
import Testing
@testable import VectorTiles
@testable import TileSources
import Rendering

/// The vector tile budget (issue 31): features and vertices per tile are counted from the
/// protobuf's bytes before anything is decoded, a tile over the budget is skipped with a
/// warning naming it while the rest of the map is drawn; PMTiles directories are bounded before
/// they are expanded (a 65 KB gzip root directory expanded to 670 MB).
@Suite struct TileBudgetTests {
    /// A tile of one layer with `features` point features of `pointsEach` points each.
    static func tile(features: Int, pointsEach: Int) throws -> Data {
        var layer = VectorTile_Tile.Layer()
        layer.version = 2
        layer.name = "poi"
        layer.extent = 4096
        var f = VectorTile_Tile.Feature()
        f.type = .point
        // MoveTo with a count of pointsEach, then that many zigzag delta pairs (+1, +1).
        f.geometry = [UInt32(pointsEach << 3 | 1)] + Array(repeating: 2, count: 2 * pointsEach)
        layer.features = Array(repeating: f, count: features)
        var t = VectorTile_Tile()
        t.layers = [layer]
        return try t.serializedData()
    }

    @Test func aTileWithinTheBudgetDecodes() throws {
        let t = try VectorTile(data: Self.tile(features: 1000, pointsEach: 10))
        #expect(t.layers["poi"]?.features.count == 1000)
        let n = try VectorTile.count(Self.tile(features: 1000, pointsEach: 10))
        #expect(n.features == 1000 && (10_000...10_500).contains(n.vertices)) // a command word counts half a vertex
    }

    @Test func tooManyFeaturesIsRefusedBeforeDecoding() throws {
        let data = try Self.tile(features: VectorTile.maxFeatures + 1, pointsEach: 1)
        #expect(throws: VectorTile.DecodeError.overBudget("\(VectorTile.maxFeatures + 1) features, at most \(VectorTile.maxFeatures) are drawn from one tile")) {
            try VectorTile(data: data)
        }
    }

    @Test func tooManyVerticesIsRefusedBeforeDecoding() throws {
        let data = try Self.tile(features: 4, pointsEach: VectorTile.maxVertices / 4 + 1)
        do { _ = try VectorTile(data: data); Issue.record("decoded") } catch let e as VectorTile.DecodeError {
            guard case .overBudget(let why) = e else { Issue.record("\(e)"); return }
            #expect(why.contains("vertices") && why.contains("\(VectorTile.maxVertices)"))
        }
    }

    final class OneBadTile: TileSource, @unchecked Sendable {
        let path = "hostile.mbtiles"
        let metadata = TileSetMetadata(format: "pbf", minZoom: 0, maxZoom: 14, kind: .vector)
        let good: Data, bad: Data
        init(good: Data, bad: Data) { self.good = good; self.bad = bad }
        func tileData(z: Int, x: Int, y: Int) throws -> Data? { x == 8 ? bad : good }
    }

    /// The tile over the budget is skipped with a warning that names it; its neighbours decode.
    @Test func aTileOverTheBudgetIsSkippedAndNamed() throws {
        let set = VectorTileSet(tiles: OneBadTile(good: try Self.tile(features: 10, pointsEach: 2),
                                                  bad: try Self.tile(features: VectorTile.maxFeatures + 5, pointsEach: 1)))
        #expect(set.tile(.init(z: 14, x: 8, y: 5)) == nil)
        #expect(set.tile(.init(z: 14, x: 9, y: 5))?.layers["poi"]?.features.count == 10)
        #expect(set.warnings.count == 1)
        #expect(set.warnings.first?.contains("tile 14/8/5 is skipped: over the tile budget") == true)
    }

    /// A PMTiles file whose header claims a 2 MiB root directory: refused before it is read.
    @Test func aPMTilesRootDirectoryIsBounded() throws {
        let path = NSTemporaryDirectory() + "tb-\(getpid())-bigroot.pmtiles"
        defer { unlink(path) }
        let rootLength = 2 << 20
        var h = [UInt8](repeating: 0, count: 127)
        Array("PMTiles".utf8).enumerated().forEach { h[$0.offset] = $0.element }
        h[7] = 3
        func put(_ o: Int, _ v: UInt64) { for k in 0..<8 { h[o + k] = UInt8(truncatingIfNeeded: v >> (8 * UInt64(k))) } }
        put(8, 127); put(16, UInt64(rootLength))            // root
        put(24, UInt64(127 + rootLength)); put(32, 0)       // metadata
        put(40, UInt64(127 + rootLength)); put(48, 0)       // leaves
        put(56, UInt64(127 + rootLength)); put(64, 0)       // data
        h[97] = 1; h[98] = 1; h[99] = 1; h[100] = 0; h[101] = 14
        #expect(FileManager.default.createFile(atPath: path, contents: Data(h) + Data(count: rootLength)))
        do { _ = try PMTiles(path: path); Issue.record("opened") } catch {
            #expect("\(error)".contains("root directory of \(rootLength) bytes"))
        }
    }

    /// A directory claiming more entries than TileLimits.maxDirectoryEntries is refused before
    /// the entries are allocated.
    @Test func aPMTilesDirectoryHasAtMostSoManyEntries() throws {
        var bytes: [UInt8] = []
        var n = UInt64(TileLimits.maxDirectoryEntries + 1)
        while n >= 0x80 { bytes.append(UInt8(n & 0x7F) | 0x80); n >>= 7 }
        bytes.append(UInt8(n))
        bytes += [UInt8](repeating: 0, count: 4 * (TileLimits.maxDirectoryEntries + 2))
        #expect(throws: TileSourceError.self) { try PMTiles.parseDirectory(Data(bytes), path: "big.pmtiles") }
        do { _ = try PMTiles.parseDirectory(Data(bytes), path: "big.pmtiles") } catch {
            #expect("\(error)".contains("at most \(TileLimits.maxDirectoryEntries)"))
        }
    }
}
