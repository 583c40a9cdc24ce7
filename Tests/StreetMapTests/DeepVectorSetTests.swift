import Foundation
import TouchCore
import MapEngine
import Testing
@testable import Rendering
import TileSources

/// The Liechtenstein tiles reported as starting at zoom 14 (as city extracts often do), counting
/// the tiles asked of them.
final class DeepCountingTiles: TileSource, @unchecked Sendable {
    let inner: any TileSource
    let metadata: TileSetMetadata
    private let lock = NSLock()
    private var count = 0
    var calls: Int { lock.lock(); defer { lock.unlock() }; return count }
    var path: String { inner.path }
    init(_ inner: any TileSource, minZoom: Int) {
        self.inner = inner
        var m = inner.metadata
        m.minZoom = minZoom
        m.bounds = nil
        metadata = m
    }
    func tileData(z: Int, x: Int, y: Int) throws -> Data? {
        lock.lock(); count += 1; lock.unlock()
        return try inner.tileData(z: z, x: x, y: y)
    }
}

@Suite struct DeepVectorSetTests {
    @Test func aStreetMapStartingAtZoomFourteenIsNotQueriedFromZoomThree() throws {
        let counting = DeepCountingTiles(try TileArchive.open(path: mbtilesPath), minZoom: 14)
        let set = VectorTileSet(tiles: counting)
        let renderer = MapRenderer(vector: set)
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        let vaduz = Coordinate(latitude: 47.14, longitude: 9.52)
        for zoom in [3.0, 8, 11] {
            renderer.render(MapScene(camera: CameraPosition(target: vaduz, zoom: zoom)), into: frame.buffer)
            set.waitForPrefetch()
            #expect(counting.calls == 0, "zoom \(zoom): \(counting.calls) tile queries")
        }
        renderer.render(MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5)), into: frame.buffer)
        set.waitForPrefetch()
        #expect(counting.calls > 0 && counting.calls <= 8 * StreetMapPainter.maxTiles, "\(counting.calls)")
    }
}
