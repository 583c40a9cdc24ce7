import CSQLite
import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering
import TileSources

@Suite struct MBTilesTests {
    @Test func readsMetadataAndSniffsTheFormatWhenMissing() throws {
        let geo = try MBTiles(path: fixture("mbtileserver_geography-class-png.mbtiles"))
        #expect(geo.metadata.name == "Geography Class")
        #expect(geo.metadata.minZoom == 0 && geo.metadata.maxZoom == 1)
        #expect(geo.metadata.attribution == nil, "empty attribution is none")
        let b = try #require(geo.metadata.bounds)
        #expect(b.west == -180 && b.north == 85.0511)
        let plain = try MBTiles(path: fixture("node-mbtiles_plain_1.mbtiles"))
        #expect(plain.metadata.minZoom == 0 && plain.metadata.maxZoom == 4, "from the tiles table")
        #expect(plain.metadata.format == "png", "sniffed from a tile")
    }

    @Test func rowsAreFlippedFromTMS() throws {
        let plain = try MBTiles(path: fixture("node-mbtiles_plain_1.mbtiles"))
        // At zoom 3 the set holds TMS rows 1...7 only: XYZ row 0 (TMS 7) exists, XYZ row 7 (TMS 0) does not.
        #expect(try plain.tileData(z: 3, x: 0, y: 0) != nil)
        #expect(try plain.tileData(z: 3, x: 0, y: 7) == nil)
        #expect(try plain.tileData(z: 3, x: 8, y: 0) == nil, "outside the grid")
    }

    @Test func corruptAndInvalidFilesAreErrorsNamingTheFile() {
        for name in ["node-mbtiles_corrupt.mbtiles", "mbtileserver_invalid.mbtiles", "does-not-exist.mbtiles"] {
            let path = name == "does-not-exist.mbtiles" ? "/nonexistent/does-not-exist.mbtiles" : fixture(name)
            do {
                _ = try MBTiles(path: path)
                Issue.record("\(name) opened")
            } catch let e as MBTilesError {
                #expect(e.description.contains(path), "\(e)")
            } catch { Issue.record("\(error)") }
            let opened = MapRenderer.openRaster(path: path)
            #expect(opened.source == nil)
            #expect(opened.warning?.contains(path) == true && opened.warning?.contains("built-in world") == true)
        }
        #expect(throws: MBTilesError.self) { try MBTiles(path: fixture("node-mbtiles_corrupt.mbtiles")) }
    }

    @Test func knownTileIsDrawnAtItsPlace() throws {
        let path = fixture("mbtileserver_geography-class-png.mbtiles")
        let source = try RasterTileSource(tiles: MBTiles(path: path))
        let renderer = MapRenderer(raster: source)
        // Zoom 1 centred on (0, 0) over 512x512: the screen is exactly the 2x2 tiles of zoom 1.
        let f = RenderedFrame(MapScene(camera: CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 1)),
                              width: 512, height: 512, renderer: renderer, name: "mbtiles-z1")
        let nw = try #require(source.image(z: 1, x: 0, y: 0))
        let sw = try #require(source.image(z: 1, x: 0, y: 1))
        var differ = 0
        for (x, y) in stride(from: 5, to: 250, by: 17).flatMap({ x in stride(from: 5, to: 250, by: 23).map { (x, $0) } }) {
            #expect(f.pixel(x, y) == nw.pixel(x: x, y: y) & 0xffffff, "north-west tile at \(x),\(y)")
            if nw.pixel(x: x, y: y) != sw.pixel(x: x, y: y) { differ += 1 }
        }
        #expect(differ > 50, "north and south tiles differ, so the row flip matters")
        // The south-east tile (1, 1, 1) fills the bottom-right quarter (above the attribution strip).
        let se = try #require(source.image(z: 1, x: 1, y: 1))
        #expect(f.pixel(256 + 40, 256 + 100) == se.pixel(x: 40, y: 100) & 0xffffff)
        #expect(renderer.attribution().contains("Geography Class"))
    }

    /// Turned flat (bearing 30 and 150 used to squeeze each tile onto the screen's ground range,
    /// leaving wedges of the built-in world between tiles) and turned and tilted.
    @Test(arguments: [(25.0, 45.0), (30, 0), (150, 0)])
    func turnedAndTiltedTilesFollowTheProjection(bearing: Double, tilt: Double) throws {
        let source = try RasterTileSource(tiles: MBTiles(path: fixture("mbtileserver_geography-class-png.mbtiles")))
        let cam = CameraPosition(target: Coordinate(latitude: 20, longitude: 10), zoom: 1.6, bearing: bearing, tilt: tilt)
        let renderer = MapRenderer(raster: source)
        let f = RenderedFrame(MapScene(camera: cam, showsCompass: false, showsScaleBar: false), width: 640, height: 480,
                              renderer: renderer, name: "mbtiles-b\(Int(bearing))-t\(Int(tilt))")
        func underLabel(_ x: Int, _ y: Int) -> Bool {
            renderer.drawnPlaces.contains { p in
                Double(x) >= p.frame.x - 3 && Double(x) <= p.frame.x + p.frame.width + 3
                    && Double(y) >= p.frame.y - 3 && Double(y) <= p.frame.y + p.frame.height + 3
            }
        }
        let tiles = [[source.image(z: 1, x: 0, y: 0)!, source.image(z: 1, x: 1, y: 0)!],
                     [source.image(z: 1, x: 0, y: 1)!, source.image(z: 1, x: 1, y: 1)!]]
        func tilePixel(_ wx: Int, _ wy: Int) -> UInt32? {   // world pixel at zoom 1
            guard wx >= 0, wy >= 0, wx < 512, wy < 512 else { return nil }
            return tiles[wy / 256][wx / 256].pixel(x: wx % 256, y: wy % 256) & 0xffffff
        }
        var checked = 0, matched = 0
        // Sample the screen away from labels and the attribution: each pixel must show the tile pixel found
        // under it by the inverse projection (within 2 px: bilinear sampling, cell approximation).
        for sy in stride(from: 60, to: 440, by: 37) { for sx in stride(from: 20, to: 620, by: 41) {
            // World pixels at zoom 1, not clamped to the world's edge (a coordinate would be).
            guard !underLabel(sx, sy), let cw = f.projection.worldPoint(screen: Point(x: Double(sx), y: Double(sy))) else { continue }
            var w = cw / pow(2, cam.zoom - 1)
            w.x = w.x.truncatingRemainder(dividingBy: 512); if w.x < 0 { w.x += 512 }
            guard tilePixel(Int(w.x), Int(w.y)) != nil else { continue }   // beyond the world's edge: no tile
            let shown = f.pixel(sx, sy)
            checked += 1
            // Bilinear sampling blends a 2x2 block: the colour lies within some nearby block's range.
            var ok = false
            for dy in -2...2 { for dx in -2...2 where !ok {
                let block = [(0, 0), (1, 0), (0, 1), (1, 1)].compactMap { tilePixel(Int(w.x) + dx + $0.0, Int(w.y) + dy + $0.1) }.map(rgb)
                guard block.count == 4 else { continue }
                let c = rgb(shown)
                ok = c.r >= block.map(\.r).min()! - 6 && c.r <= block.map(\.r).max()! + 6
                    && c.g >= block.map(\.g).min()! - 6 && c.g <= block.map(\.g).max()! + 6
                    && c.b >= block.map(\.b).min()! - 6 && c.b <= block.map(\.b).max()! + 6
            } }
            if ok { matched += 1 }
        } }
        #expect(checked > 100)
        #expect(Double(matched) / Double(checked) > 0.97, "\(matched) of \(checked)")
    }

    @Test func overZoomAndMissingTilesUseTheNearestAncestor() throws {
        let source = try RasterTileSource(tiles: MBTiles(path: fixture("mbtileserver_geography-class-png.mbtiles")))
        let deep = try #require(source.find(z: 3, x: 5, y: 2))
        #expect(deep.levelsUp == 2)
        #expect(deep.sourceSize == 64 && deep.sourceX == 64 && deep.sourceY == 128)
        let plain = try RasterTileSource(tiles: MBTiles(path: fixture("node-mbtiles_plain_1.mbtiles")))
        let missing = try #require(plain.find(z: 3, x: 0, y: 7), "child missing: its parent stands in")
        #expect(missing.levelsUp == 1)
    }

    @Test func decodedTilesAreKeptInABoundedCache() throws {
        let counting = CountingTiles(try MBTiles(path: fixture("node-mbtiles_plain_1.mbtiles")))
        let source = RasterTileSource(tiles: counting, capacity: 3)
        for x in 0..<4 { _ = source.image(z: 2, x: x, y: 1) }
        #expect(source.cachedTileCount == 3 && counting.calls == 4)
        let a = source.image(z: 2, x: 3, y: 1)
        #expect(a != nil && counting.calls == 4, "a kept tile is not read again")
        _ = source.image(z: 2, x: 0, y: 1)
        #expect(counting.calls == 5, "the least recently used tile was dropped, and is read again")
        #expect(source.cachedTileCount == 3)
    }

    /// A tile set written here: metadata format jpg, one JPEG-looking tile at 0/0/0.
    func makeJPEGTileSet() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-jpeg-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).mbtiles").path
        var db: OpaquePointer?
        #expect(sqlite3_open(path, &db) == SQLITE_OK)
        defer { sqlite3_close(db) }
        for sql in ["CREATE TABLE metadata (name text, value text)",
                    "CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)",
                    "INSERT INTO metadata VALUES ('format', 'jpg'), ('minzoom', '0'), ('maxzoom', '0')",
                    "INSERT INTO tiles VALUES (0, 0, 0, x'FFD8FFE000104A46494600')"] {
            #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK, "\(sql)")
        }
        return path
    }

    @Test func aBrokenJPEGTileIsSkippedWithAMessageNamingTheFile() throws {
        let path = try makeJPEGTileSet()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let opened = MapRenderer.openRaster(path: path)
        let source = try #require(opened.source, "the set opens; only its tiles cannot be decoded")
        #expect(opened.warning == nil, "JPEG tile sets are supported")
        #expect(source.image(z: 0, x: 0, y: 0) == nil)
        #expect(source.warnings.count == 1)
        #expect(source.warnings[0].contains(path) && source.warnings[0].contains("0/0/0") && source.warnings[0].contains("not a decodable JPEG"))
        // The frame still draws: the built-in world shows where the tile would be.
        let f = RenderedFrame(MapScene(camera: CameraPosition(target: Coordinate(latitude: 38, longitude: -12), zoom: 4)),
                              renderer: MapRenderer(raster: source))
        #expect(f.count(of: MapStyle.standard.sea, around: f.screenPoint(38.0, -16.0)) == 49)
    }
}
