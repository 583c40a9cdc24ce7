import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering
import TileSources

/// The decoded-tile cache is sized from the screen (RasterTileSource.capacity): the tiles under
/// the screen turned to any angle, so a rotated frame at a whole zoom is drawn again without
/// decoding a tile, and no more than that.
@Suite struct TileCacheSizingTests {
    /// Counts the tiles read from the tile set (each read is a decode in RasterTileSource).
    final class CountingTiles: TileSource, @unchecked Sendable {
        let inner: any TileSource
        var reads = 0
        init(_ inner: any TileSource) { self.inner = inner }
        var path: String { inner.path }
        var metadata: TileSetMetadata { inner.metadata }
        func tileData(z: Int, x: Int, y: Int) throws -> Data? { reads += 1; return try inner.tileData(z: z, x: x, y: y) }
    }

    @Test func theRuleGivesTheTurnedScreensTiles() {
        // 1920x1080: diagonal 2203 px, 9 tiles of 256 px + 1 = 10 a side.
        #expect(RasterTileSource.capacity(screenWidth: 1920, screenHeight: 1080) == 100)
        // 800x480: diagonal 933 px, 4 + 1 = 5 a side.
        #expect(RasterTileSource.capacity(screenWidth: 800, screenHeight: 480) == 25)
        #expect(RasterTileSource.capacityRule(screenWidth: 800, screenHeight: 480).contains("933 px"))
        // A tiny screen keeps a floor of 16.
        #expect(RasterTileSource.capacity(screenWidth: 100, screenHeight: 100) == 16)
    }

    /// Draws a final frame turned by `bearing` at zoom 4 twice with a cache of `capacity`;
    /// returns the tiles read the second time.
    func rereads(width: Int, height: Int, bearing: Double, capacity: Int) throws -> Int {
        let counting = CountingTiles(try MBTiles(path: fixture("node-mbtiles_plain_1.mbtiles")))
        let renderer = MapRenderer(raster: RasterTileSource(tiles: counting, capacity: capacity))
        let frame = OwnedFrameBuffer(width: width, height: height)
        // Rows 0...12 of zoom 4 are all in the set here: no parent stands in for a missing tile.
        let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 20, longitude: 0), zoom: 4, bearing: bearing))
        renderer.render(scene, into: frame.buffer)
        #expect(renderer.lastFrameKind == .full)
        let first = counting.reads
        #expect(first > 0)
        renderer.render(scene, into: frame.buffer)
        return counting.reads - first
    }

    @Test(arguments: [(1920, 1080), (800, 480)])
    func aTurnedFrameIsDrawnAgainWithoutDecoding(size: (Int, Int)) throws {
        let capacity = RasterTileSource.capacity(screenWidth: size.0, screenHeight: size.1)
        for bearing in [30.0, 45, 60] {
            #expect(try rereads(width: size.0, height: size.1, bearing: bearing, capacity: capacity) == 0, "bearing \(bearing)")
        }
        // A cache sized for the unturned screen only decodes the turned frame's tiles again.
        let unturned = (size.0 / 256 + 2) * (size.1 / 256 + 2)
        #expect(try rereads(width: size.0, height: size.1, bearing: 45, capacity: unturned) > 0)
    }
}
