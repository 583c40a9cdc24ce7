import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// The overlay layer kept as sparse tiles (only those with names, pins or the info window on
/// them hold pixels, over the base-map cache's copy): its frames are the frames drawn directly,
/// and its memory is its held tiles.
@Suite struct SparseOverlayLayerTests {
    static let size = (w: 800, h: 600)

    /// A camera whose screen's top left is the whole world pixel (x, y): names and pins drawn
    /// over the frame then land on the same pixels as in the layer (drawn at whole pixels).
    static func camera(x: Int, y: Int, zoom: Double) -> CameraPosition {
        let centre = Point(x: Double(x) + Double(size.w) / 2, y: Double(y) + Double(size.h) / 2)
        return CameraPosition(target: WebMercator.coordinate(world: centre, zoom: zoom), zoom: zoom)
    }

    static func topLeft(_ c: Coordinate, zoom: Double) -> (Int, Int) {
        let p = WebMercator.worldPoint(c, zoom: zoom)
        return (Int(p.x.rounded()) - size.w / 2, Int(p.y.rounded()) - size.h / 2)
    }

    static func differing(_ a: FrameBuffer, _ b: FrameBuffer) -> Int { OverlayLayerTests.differingPixels(a, b) }

    /// A pan of whole pixels (steps under and over the layer's scroll step, every direction, a
    /// jump) drawn by a renderer with the layer and one that draws the names, pins and info
    /// window over every frame (layer off), fed the same cameras so their base-map caches are
    /// the same: every frame is the same, byte for byte. Over Europe (names only; then with
    /// pins and an info window) and over Fiji, where the pan crosses the antimeridian.
    @Test(arguments: [(47.0, 8.0, false), (47.0, 8.0, true), (-17.5, 179.5, true)])
    func framesFromTheLayerEqualFramesDrawnDirectly(lat: Double, lon: Double, withMarkers: Bool) {
        let zoom = 5.0
        let layered = MapRenderer(), direct = MapRenderer()
        direct.usesOverlayLayer = false
        let a = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let b = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let (x0, y0) = Self.topLeft(Coordinate(latitude: lat, longitude: lon), zoom: zoom)
        var scene = MapScene(camera: Self.camera(x: x0, y: y0, zoom: zoom))
        if withMarkers {
            // Pins at whole world pixels, so the frame drawn directly puts them where the layer does.
            scene.markers = (0..<60).map { i in
                let wx = Double(x0 - 200 + (i * 97) % 1200), wy = Double(y0 - 150 + (i * 53) % 900)
                return MarkerSprite(id: "p\(i)", coordinate: WebMercator.coordinate(world: Point(x: wx, y: wy), zoom: zoom))
            }
            scene.infoWindow = InfoWindowScene(title: "Here", snippet: "An info window over the pan",
                                                           coordinate: WebMercator.coordinate(world: Point(x: Double(x0 + 380), y: Double(y0 + 320)), zoom: zoom))
        }
        layered.render(scene, into: a.buffer)
        direct.render(scene, into: b.buffer)
        var crossed = false
        let steps = [(0, 0), (5, 3), (17, -11), (31, 0), (40, 25), (-3, 70), (-90, -12), (120, 40), (-250, 0), (7, -7), (0, 33), (300, -20)]
        var x = x0, y = y0
        for (i, s) in steps.enumerated() {
            x += s.0; y += s.1
            scene.camera = Self.camera(x: x, y: y, zoom: zoom)
            if scene.camera.target.longitude < 0 { crossed = true }
            let quality: MapRenderer.Quality = i == steps.count - 1 ? .final : .interactive
            layered.render(scene, into: a.buffer, quality: quality)
            direct.render(scene, into: b.buffer, quality: quality)
            #expect([.cached, .scrolled, .cacheRebuilt].contains(layered.lastFrameKind), "step \(i): \(layered.lastFrameKind)")
            #expect(layered.lastFrameKind == direct.lastFrameKind)
            let n = Self.differing(a.buffer, b.buffer)
            if n > 0 { OverlayLayerTests.save(a.buffer, "sparse-layer-\(i)"); OverlayLayerTests.save(b.buffer, "sparse-direct-\(i)") }
            #expect(n == 0, "step \(i): \(n) pixels differ")
            #expect(layered.drawnPlaces.map(\.name) == direct.drawnPlaces.map(\.name), "step \(i)")
        }
        #expect(layered.overlayStrips > (lon > 170 ? 1 : 3), "the layer scrolled in strips (drawn whole where the view jumps a world)")
        #expect(direct.overlayBuilds == 0)
        if lon > 170 { #expect(crossed, "the pan crosses the antimeridian") }
    }

    /// The layer's memory is its held tiles: none over open sea with nothing on it, a few for
    /// one pin, and at 1080p with the world's names a minority of the grid; each held tile is one
    /// the overlay changes (a frame drawn with the layer and one of the base map with no names
    /// or pins differ in it), and the layer reports what it holds.
    @Test func theLayerHoldsOnlyTheTilesWithSomethingOnThem() throws {
        let renderer = MapRenderer()
        let frame = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        // The South Atlantic at zoom 6: no names reach this screen.
        var scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: -40, longitude: -20), zoom: 6))
        renderer.render(scene, into: frame.buffer)
        let layer = try #require(renderer.overlayLayerForTesting)
        let t = OverlayLayer.tileSize
        #expect(renderer.drawnPlaces.isEmpty)
        #expect(layer.heldTiles == 0)
        let plan = MapRenderer.overlayLayerPlan(width: Self.size.w, height: Self.size.h)
        #expect(layer.tileCount == plan.tiles && layer.width == plan.width && layer.height == plan.height)
        #expect(layer.bytes == plan.scratchBytes, "nothing but the scratch rows")
        // One pin: its ink (under 64 px square) touches at most 2x2 tiles.
        scene.markers = [MarkerSprite(id: "one", coordinate: scene.camera.target)]
        renderer.render(scene, into: frame.buffer)
        #expect((1...4).contains(layer.heldTiles), "\(layer.heldTiles) tiles for one pin")
        #expect(layer.bytes == plan.scratchBytes + layer.heldTiles * t * t * 4)
        // Taking the pin away gives the tiles back to the spare list (kept, not freed).
        scene.markers = []
        renderer.render(scene, into: frame.buffer)
        #expect(layer.heldTiles == 0)
        #expect(renderer.cacheSizes.contains { $0.name.hasPrefix("overlay layer (0 of \(plan.tiles) tiles of \(t) px held)") })
    }

    /// At 1080p over Europe at zoom 4 (the world's names, a hundred pins): every held tile's
    /// pixels differ from the base map's there (none is held for nothing; that none is missing
    /// is the frame test above), and the layer is a small part of what the whole layer held
    /// (2280x1440, 12.5 MiB before): its held tiles and the scratch rows, exactly.
    @Test func atTenEightyPTheLayerIsItsNamedTiles() throws {
        let renderer = MapRenderer()
        let w = 1920, h = 1080
        let frame = OwnedFrameBuffer(width: w, height: h)
        let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 50, longitude: 10), zoom: 4),
                             markers: OverlayLayerTests.markers(100, lat: 40...57, lon: -5...23))
        renderer.render(scene, into: frame.buffer)
        let layer = try #require(renderer.overlayLayerForTesting)
        let held = layer.heldTileIndices
        #expect(held.count == layer.heldTiles && held.count > 10)
        #expect(layer.heldTiles * 3 < layer.tileCount, "\(layer.heldTiles) of \(layer.tileCount) tiles held")
        for i in held { #expect(renderer.overlayTileDiffersFromBase(i), "tile \(i) is held but shows only the base map") }
        let plan = MapRenderer.overlayLayerPlan(width: w, height: h)
        #expect(layer.bytes == plan.scratchBytes + layer.heldTiles * plan.tileSize * plan.tileSize * 4)
        #expect(layer.bytes < 12_000_000 / 2, "\(layer.bytes) bytes")
    }
}
