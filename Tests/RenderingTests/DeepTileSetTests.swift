import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering
import TileSources

/// A tile source that counts the tiles asked of it (and can change the metadata it reports).
final class CountingTiles: TileSource, @unchecked Sendable {
    let inner: any TileSource
    let metadata: TileSetMetadata
    private(set) var calls = 0
    var path: String { inner.path }
    init(_ inner: any TileSource, metadata: TileSetMetadata? = nil) {
        self.inner = inner
        self.metadata = metadata ?? inner.metadata
    }
    func tileData(z: Int, x: Int, y: Int) throws -> Data? {
        calls += 1
        return try inner.tileData(z: z, x: x, y: y)
    }
}

/// Issue 19's freeze: a tile set whose min zoom lies above the camera's (city extracts start at
/// zoom 10 to 14) made every frame ask for every tile of that level across the view. A frame
/// now touches at most the tiles inside the set's bounds, and none when even those are too many.
@Suite struct DeepTileSetTests {
    /// A city extract: zoom 14 only, four red tiles around Vaduz, bounds in the metadata or not.
    static func cityExtract(bounds: Bool) throws -> (path: String, tiles: [(x: Int, y: Int)]) {
        let west = 9.50, east = 9.53, south = 47.12, north = 47.15
        let nw = WebMercator.worldPoint(Coordinate(latitude: north, longitude: west), zoom: 14)
        let se = WebMercator.worldPoint(Coordinate(latitude: south, longitude: east), zoom: 14)
        var tiles: [(x: Int, y: Int)] = []
        for x in Int(nw.x / 256)...Int(se.x / 256) { for y in Int(nw.y / 256)...Int(se.y / 256) { tiles.append((x, y)) } }
        let red = HostileTileFileTests.png(0xE00000)
        let meta = ["INSERT INTO metadata VALUES ('format', 'png'), ('minzoom', '14'), ('maxzoom', '14')"]
            + (bounds ? ["INSERT INTO metadata VALUES ('bounds', '\(west),\(south),\(east),\(north)')"] : [])
        let path = try HostileTileFileTests.mbtiles(HostileTileFileTests.plainSchema + meta,
                                                    tiles: tiles.map { (14, $0.x, (1 << 14) - 1 - $0.y, red) })
        return (path, tiles)
    }

    static let vaduz = Coordinate(latitude: 47.135, longitude: 9.515)

    @Test func aCityExtractSeenFromZoomThreeTouchesOnlyItsOwnTiles() throws {
        let (path, tiles) = try Self.cityExtract(bounds: true)
        defer { unlink(path) }
        let counting = CountingTiles(try MBTiles(path: path))
        let renderer = MapRenderer(raster: RasterTileSource(tiles: counting))
        let far = RenderedFrame(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 3)), renderer: renderer, name: "deep-set-zoom3")
        #expect(tiles.count >= 4 && tiles.count <= 9)
        #expect(counting.calls <= tiles.count, "\(counting.calls) tile queries for a frame at zoom 3")
        #expect(far.count(of: MapStyle.standard.sea, around: far.screenPoint(40, -20)) == 49, "the base map is drawn")
        // Near, the extract's tiles are drawn (and only a screenful is asked for).
        let before = counting.calls
        let near = RenderedFrame(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 14.5)), renderer: renderer, name: "deep-set-zoom14")
        #expect(counting.calls - before <= tiles.count)
        #expect(near.pixel(near.screenPoint(Self.vaduz.latitude, Self.vaduz.longitude)) == 0xE00000)
    }

    @Test func withoutBoundsTheBaseMapShowsUntilTheSetsZoomIsNear() throws {
        let (path, _) = try Self.cityExtract(bounds: false)
        defer { unlink(path) }
        let counting = CountingTiles(try MBTiles(path: path))
        let renderer = MapRenderer(raster: RasterTileSource(tiles: counting))
        for zoom in [0.0, 3, 7.5, 10] {
            let f = RenderedFrame(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: zoom)), renderer: renderer)
            #expect(counting.calls == 0, "zoom \(zoom): \(counting.calls) queries")
            #expect(f.count(of: MapStyle.standard.land, around: f.screenPoint(Self.vaduz.latitude, Self.vaduz.longitude)) > 0,
                    "zoom \(zoom): the built-in land is drawn")
        }
        let f = RenderedFrame(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 14.2)), renderer: renderer)
        #expect(counting.calls > 0 && counting.calls <= 2 * RasterMapPainter.maxTiles)
        #expect(f.pixel(f.screenPoint(Self.vaduz.latitude, Self.vaduz.longitude)) == 0xE00000)
    }

    @Test func tileGridsAreCutToTheBoundsOnEveryCopyOfTheWorld() {
        // Zoom 1 over a 2048 px wide screen: the view shows the world twice over.
        let view = GroundView(projection: Projection(camera: CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 1),
                                                     screen: Size(width: 2048, height: 512)))
        let all = TileGrid(view: view, z: 3, bounds: nil, limit: 1000)
        #expect(all?.rows == 0...7 && all?.count == 8 * (all?.columns.first?.count ?? 0))
        let east = TileGrid(view: view, z: 3, bounds: (west: 100, south: -10, east: 170, north: 10), limit: 1000)
        #expect(east?.rows == 3...4)
        // The full grid's columns run from x0 to x1 (past both edges of the world); the cut keeps
        // columns 6 and 7 of every copy of the world among them.
        let x0 = all?.columns.first?.lowerBound ?? 0, x1 = all?.columns.first?.upperBound ?? 0
        let expected = stride(from: (x0 / 8 - 1) * 8, through: x1, by: 8).compactMap { k -> ClosedRange<Int>? in
            let lo = max(k + 6, x0), hi = min(k + 7, x1)
            return lo <= hi ? lo...hi : nil
        }
        #expect(x1 - x0 > 16, "the view shows the world more than twice")
        #expect(east?.columns == expected, "\(String(describing: east?.columns)) for \(x0)...\(x1)")
        #expect(TileGrid(view: view, z: 20, bounds: nil, limit: 1000) == nil, "too many tiles: none")
    }
}
