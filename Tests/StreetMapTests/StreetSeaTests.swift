import CCairo
import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering
@testable import TileSources
@testable import VectorTiles

/// A hand-made vector tile set for a harbour town on a coast, as tilemaker makes one from an
/// extract without a coastline shapefile: roads and a place name, and no `water` layer, so
/// nothing in the tiles says where the sea is. One z12 tile round Ostend (made-up features,
/// no OpenStreetMap data).
final class CoastalTiles: TileSource, @unchecked Sendable {
    static let ostend = Coordinate(latitude: 51.2200, longitude: 2.9300)
    /// Well out in the North Sea, and well inland (Natural Earth's coast runs between them).
    static let sea = Coordinate(latitude: 51.2430, longitude: 2.8850)
    static let land = Coordinate(latitude: 51.2050, longitude: 2.9650)
    let path = "coastal-test-tiles"
    let metadata = TileSetMetadata(name: "coastal", format: "pbf", minZoom: 12, maxZoom: 12, kind: .vector,
                                   vectorLayers: ["place", "transportation"])
    let tile: (x: Int, y: Int, data: Data)

    init() {
        let w = WebMercator.worldPoint(Self.ostend, zoom: 12)
        let tx = Int(w.x / 256), ty = Int(w.y / 256)
        func local(_ c: Coordinate) -> (Int, Int) {
            let p = WebMercator.worldPoint(c, zoom: 12)
            return (Int(((p.x / 256) - Double(tx)) * 4096), Int(((p.y / 256) - Double(ty)) * 4096))
        }
        var mvt = MVT()
        mvt.layer("place", features: [(.point, [local(Self.ostend)], ["class": "town", "rank": "1", "name": "Ostend", "name:latin": "Ostend"])])
        mvt.layer("transportation", features: [
            (.line, [local(Coordinate(latitude: 51.2150, longitude: 2.9000)), local(Coordinate(latitude: 51.1900, longitude: 2.9900))], ["class": "primary"]),
        ])
        tile = (tx, ty, mvt.data)
    }

    func tileData(z: Int, x: Int, y: Int) throws -> Data? {
        z == 12 && x == tile.x && y == tile.y ? tile.data : nil
    }
}

@Suite struct StreetSeaTests {
    static let water: UInt32 = 0x9fcbe6, background: UInt32 = 0xf3efe7

    func render(_ tiles: VectorTileSet?, camera: CameraPosition, sea: Bool = true, name: String) -> (OwnedFrameBuffer, MapRenderer, Projection) {
        let renderer = MapRenderer(vector: tiles)
        renderer.drawsStreetSea = sea
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        renderer.render(MapScene(camera: camera, showsCompass: false, showsScaleBar: false), into: frame.buffer)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-street-tests")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? frame.buffer.writePNG(to: dir.appendingPathComponent(name + ".png").path)
        return (frame, renderer, Projection(camera: camera, screen: Size(width: 800, height: 600)))
    }

    @Test(arguments: [(0.0, 0.0), (120.0, 0.0), (0.0, 45.0)])
    func aCoastShowsTheSeaInTheStyleWaterColour(bearing: Double, tilt: Double) throws {
        let camera = CameraPosition(target: CoastalTiles.ostend, zoom: 12.6, bearing: bearing, tilt: tilt)
        let (f, renderer, p) = render(VectorTileSet(tiles: CoastalTiles()), camera: camera, name: "sea-coast-\(Int(bearing))-\(Int(tilt))")
        let sea = try #require(p.point(for: CoastalTiles.sea)), land = try #require(p.point(for: CoastalTiles.land))
        for q in [sea, land] { try #require(q.x > 10 && q.x < 790 && q.y > 10 && q.y < 570, "\(q) on screen") }
        #expect(mostly(f, sea, Self.water, tolerance: 2), "sea shows \(String(f.buffer.pixel(x: Int(sea.x), y: Int(sea.y)) & 0xffffff, radix: 16))")
        #expect(mostly(f, land, Self.background, tolerance: 2), "land shows \(String(f.buffer.pixel(x: Int(land.x), y: Int(land.y)) & 0xffffff, radix: 16))")
        #expect(renderer.streetSeaCache.cellCount > 0)
        // Without the Natural Earth ocean the tiles' background (land colour) covers the sea too.
        let (bare, _, _) = render(VectorTileSet(tiles: CoastalTiles()), camera: camera, sea: false, name: "sea-coast-bare-\(Int(bearing))-\(Int(tilt))")
        #expect(mostly(bare, sea, Self.background, tolerance: 2))
        // The tiles' features are drawn over the sea: the place name is still placed.
        #expect(renderer.streetLabels.contains { $0.text == "Ostend" })
    }

    @Test func aStyleWithoutWaterTakesTheWorldSeaColour() {
        let style = StreetStyle(name: nil, layers: StreetStyle.standard().layers.filter { $0.sourceLayer != "water" }, attribution: nil, file: "")
        #expect(StreetSea.waterColor(style: style, styleZoom: 12) == nil)
        #expect(StreetSea.waterColor(style: .standard(), styleZoom: 12) == StyleColor(r: 0x9f / 255.0, g: 0xcb / 255.0, b: 0xe6 / 255.0))
    }

    /// Inland (Liechtenstein has no coast) the street map is the picture it was, byte for byte,
    /// flat, turned and tilted, and no sea path is built.
    @Test(arguments: [(15.0, 0.0, 0.0), (16.0, 135.0, 0.0), (15.5, 30.0, 55.0), (12.0, 0.0, 0.0)])
    func inlandFramesAreUnchanged(zoom: Double, bearing: Double, tilt: Double) {
        let camera = CameraPosition(target: StreetMapRenderTests.vaduz, zoom: zoom, bearing: bearing, tilt: tilt)
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let (with, renderer, _) = render(opened.vector, camera: camera, name: "sea-inland-\(Int(zoom))-\(Int(bearing))-\(Int(tilt))")
        let (without, _, _) = render(MapRenderer.openTiles(path: mbtilesPath).vector, camera: camera, sea: false, name: "sea-inland-bare")
        #expect(with.buffer.seaTestBytes == without.buffer.seaTestBytes)
        let view = GroundView(projection: Projection(camera: camera, screen: Size(width: 800, height: 600)))
        let scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1)!, cr = cairo_create(scratch)!
        defer { cairo_destroy(cr); cairo_surface_destroy(scratch) }
        #expect(!StreetSea.addPath(world: renderer.world, cache: renderer.streetSeaCache, view: view, zoom: zoom, area: nil, cr: cr))
        // Also on the hand-made tiles, which have no bounds (the whole world).
        let (a, _, _) = render(VectorTileSet(tiles: MultilingualTiles()), camera: camera, name: "sea-inland-multilingual")
        let (b, _, _) = render(VectorTileSet(tiles: MultilingualTiles()), camera: camera, sea: false, name: "sea-inland-multilingual-bare")
        #expect(a.buffer.seaTestBytes == b.buffer.seaTestBytes)
    }

    /// A land cell is its rectangle (and any lakes in it), a sea cell has no rings, a coastal cell the land's rings
    /// clipped to it; a view on the sea alone is its whole rectangle.
    @Test func cellsHoldTheLandClippedToThem() throws {
        let world = try BuiltInWorld.load()
        let level = try #require(world.level("land", zoom: 14))
        func cell(_ c: Coordinate, z: Int) -> (Int, Int) {
            let w = WebMercator.worldPoint(c, zoom: Double(z))
            return (Int(w.x / 256), Int(w.y / 256))
        }
        let (lx, ly) = cell(StreetMapRenderTests.vaduz, z: 8)
        let inland = StreetSeaCache.clip(level, z: 8, x: lx, y: ly)
        let size = BuiltInWorld.quantisation / 256
        // Vaduz's cell is all land but for Natural Earth's lakes (holes in the land: even-odd).
        let areas = inland.map { abs(StreetSea.signedArea($0)) / (size * size) }.sorted(by: >)
        #expect(!areas.isEmpty && abs(areas[0] - 1) < 1e-6 && areas.dropFirst().allSatisfy { $0 < 0.1 }, "\(areas)")
        let (sx, sy) = cell(Coordinate(latitude: 40, longitude: -40), z: 8)    // mid-Atlantic
        #expect(StreetSeaCache.clip(level, z: 8, x: sx, y: sy).isEmpty)
        let (cx, cy) = cell(CoastalTiles.ostend, z: 8)
        let coast = StreetSeaCache.clip(level, z: 8, x: cx, y: cy)
        let landArea = coast.map { abs(StreetSea.signedArea($0)) }.reduce(0, +)
        #expect(landArea > 0.1 * size * size && landArea < 0.9 * size * size, "\(landArea / (size * size))")
    }
}

extension FrameBuffer {
    /// The frame's rows (without stride padding), to compare two frames byte for byte.
    var seaTestBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4 * width * height)
        for y in 0..<height {
            out.append(contentsOf: UnsafeRawBufferPointer(start: pixels + y * stride, count: 4 * width))
        }
        return out
    }
}
