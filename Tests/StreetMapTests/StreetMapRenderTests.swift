import CSQLite
import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering
@testable import TileSources
@testable import VectorTiles

/// Renders the Liechtenstein tiles and keeps the picture in /tmp/touchbridge-street-tests/NAME.png.
func renderStreet(_ scene: MapScene, path: String = mbtilesPath, width: Int = 800, height: Int = 600,
                  quality: MapRenderer.Quality = .final, name: String? = nil) -> (OwnedFrameBuffer, MapRenderer, Projection) {
    let opened = MapRenderer.openTiles(path: path)
    let renderer = MapRenderer(vector: opened.vector)
    let frame = OwnedFrameBuffer(width: width, height: height)
    renderer.render(scene, into: frame.buffer, quality: quality)
    if let name {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-street-tests")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? frame.buffer.writePNG(to: dir.appendingPathComponent(name + ".png").path)
    }
    return (frame, renderer, Projection(camera: scene.camera, screen: Size(width: Double(width), height: Double(height))))
}

func colour(_ hex: UInt32) -> (Int, Int, Int) { (Int(hex >> 16 & 0xff), Int(hex >> 8 & 0xff), Int(hex & 0xff)) }

/// Whether the 5x5 pixels around a point are mostly (>= 60%) within `tolerance` of a colour.
func mostly(_ f: OwnedFrameBuffer, _ p: Point, _ hex: UInt32, tolerance: Int = 14) -> Bool {
    let (r, g, b) = colour(hex)
    var n = 0
    for dy in -2...2 { for dx in -2...2 {
        let (pr, pg, pb) = colour(f.buffer.pixel(x: Int(p.x) + dx, y: Int(p.y) + dy) & 0xffffff)
        if abs(pr - r) <= tolerance && abs(pg - g) <= tolerance && abs(pb - b) <= tolerance { n += 1 }
    } }
    return n >= 15
}

@Suite struct StreetMapRenderTests {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)
    /// Interiors of features in the 2013 extract: the Rhine (water polygon), a building and a
    /// residential area south of Vaduz; name, latitude, longitude, the style's colour, zoom.
    static let knownPlaces: [(String, Double, Double, UInt32, Double)] = [
        ("rhine", 47.084267, 9.511242, 0x9fcbe6, 16),
        // 25 px north-west of the river's centre line, where its name now runs along it.
        ("rhine-north", 47.085699, 9.512916, 0x9fcbe6, 16),
        ("building", 47.077487, 9.510555, 0xddd5ca, 17),
        // The middle of the longest straight of Landstrasse (primary) south of Vaduz, tile 14/8625/5754.
        ("road-primary", 47.127838, 9.523301, 0xfcd1a0, 17),
        // Inside the Spirkenwälder Saminatal nature reserve (park layer, 14/8629/5751).
        ("park", 47.166854, 9.610661, 0xc8e4b4, 15),
        // Forest on the slope east of Vaduz (landcover wood, 14/8625/5754).
        ("wood", 47.124326, 9.530645, 0xcfe3bd, 16),
    ]

    @Test func openedByContentAsVector() {
        let opened = MapRenderer.openTiles(path: pmtilesPath)
        #expect(opened.vector != nil && opened.raster == nil && opened.warnings.isEmpty)
    }

    @Test func attributionComesWithTheMap() {
        let (_, renderer, _) = renderStreet(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 15)))
        #expect(renderer.attribution().contains("© OpenStreetMap contributors"))
    }

    @Test func waterRoadsBuildingsAndParksAtTheirTrueCoordinates() throws {
        // Known places, looked up in the 2013 OpenStreetMap extract (interiors of features).
        for (name, lat, lon, hex, zoom) in StreetMapRenderTests.knownPlaces {
            let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: lat, longitude: lon), zoom: zoom),
                                 showsCompass: false, showsScaleBar: false)
            let (f, _, p) = renderStreet(scene, name: "known-\(name)")
            let at = try #require(p.point(for: Coordinate(latitude: lat, longitude: lon)))
            #expect(mostly(f, at, hex), "\(name) at \(lat), \(lon) shows \(String(f.buffer.pixel(x: Int(at.x), y: Int(at.y)) & 0xffffff, radix: 16))")
            // Around it the picture is not all this colour: the feature is drawn where it is, not everywhere.
            let around = (0..<16).map { k -> Point in
                let a = Double(k) * .pi / 8
                return Point(x: 400 + 280 * cos(a), y: 300 + 250 * sin(a))
            }
            #expect(around.contains { !mostly(f, $0, hex) }, "\(name): the whole view is that colour")
        }
    }

    @Test func pmtilesAndMBTilesGiveTheSamePicture() {
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 14.5, bearing: 20, tilt: 30))
        let (a, _, _) = renderStreet(scene, path: mbtilesPath)
        let (b, _, _) = renderStreet(scene, path: pmtilesPath)
        var differ = 0, nonBackground = 0
        for y in 0..<600 { for x in 0..<800 {
            let pa = a.buffer.pixel(x: x, y: y) & 0xffffff
            if pa != b.buffer.pixel(x: x, y: y) & 0xffffff { differ += 1 }
            if pa != 0xf3efe7 { nonBackground += 1 }
        } }
        #expect(differ == 0)
        #expect(nonBackground > 100_000, "the picture has content")
    }

    @Test func labelsUprightAndApartAtBearing45Tilt50() {
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 17, bearing: 45, tilt: 50))
        let (_, renderer, _) = renderStreet(scene, width: 1024, height: 768, name: "labels-b45-t50")
        let labels = renderer.streetLabels
        #expect(labels.count >= 4, "\(labels.map(\.text))")
        for (i, a) in labels.enumerated() {
            // Upright: boxes are screen-aligned (names along roads: one box per glyph).
            #expect(a.frame.width > 0 && a.frame.height > 0)
            #expect(a.frame.x >= 0 && a.frame.y >= 0 && a.frame.x + a.frame.width <= 1024 && a.frame.y + a.frame.height <= 768)
            for b in labels[(i + 1)...] {
                #expect(!a.overlaps(b), "\(a.text) overlaps \(b.text)")
            }
        }
    }

    @Test func labelsKeepClearOfMarkersInfoWindowAndControls() {
        var scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 15.5), showsRecenterButton: true)
        scene.markers = [MarkerSprite(id: "m", coordinate: Self.vaduz)]
        scene.infoWindow = InfoWindowScene(title: "Vaduz", snippet: "Städtle", coordinate: Self.vaduz)
        let (_, renderer, _) = renderStreet(scene, width: 1024, height: 768, name: "labels-obstacles")
        let screen = Size(width: 1024, height: 768)
        let controls = MapControls(screen: screen, compassVisible: true, recenterVisible: true)
        let obstacles = renderer.obstacles(scene: scene, view: GroundView(projection: Projection(camera: scene.camera, screen: screen)))
        #expect(obstacles.contains { $0.intersects(LabelFrame(controls.compassFrame)) })
        #expect(!renderer.streetLabels.isEmpty)
        for l in renderer.streetLabels { for o in obstacles { #expect(!l.boxes.contains { $0.intersects(o) }, "\(l.text)") } }
    }

    @Test func labelsStayDuringAGestureAndArePlacedWhenItEnds() {
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let renderer = MapRenderer(vector: opened.vector)
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        var cam = CameraPosition(target: Self.vaduz, zoom: 15.5)
        renderer.render(MapScene(camera: cam), into: frame.buffer, quality: .final)
        let settled = renderer.streetLabels.map(\.text)
        #expect(!settled.isEmpty)
        // A rotation in progress: the same labels, moved, in every frame.
        for step in 1...5 {
            cam.bearing = Double(step) * 9
            renderer.render(MapScene(camera: cam), into: frame.buffer, quality: .interactive)
            #expect(Set(renderer.streetLabels.map(\.text)).isSubset(of: Set(settled)))
            #expect(renderer.streetLabels.count >= settled.count - 3,
                    "bearing \(cam.bearing): \(Set(settled).subtracting(renderer.streetLabels.map(\.text))) left")
        }
        renderer.render(MapScene(camera: cam), into: frame.buffer, quality: .final)
        for (i, a) in renderer.streetLabels.enumerated() { for b in renderer.streetLabels[(i + 1)...] { #expect(!a.overlaps(b)) } }
    }

    @Test func overzoomTo18ScalesGeometry() throws {
        // Zoom 18 is four levels past the data's 14: buildings still sharp-edged (geometry, not pixels).
        let (f, _, _) = renderStreet(MapScene(camera: CameraPosition(target: Coordinate(latitude: 47.077487, longitude: 9.510555), zoom: 18), showsCompass: false, showsScaleBar: false),
                                     name: "overzoom-18")
        var colours = Set<UInt32>()
        for y in stride(from: 0, to: 560, by: 3) { for x in stride(from: 0, to: 800, by: 3) { colours.insert(f.buffer.pixel(x: x, y: y) & 0xffffff) } }
        #expect(colours.count > 5, "more than the background: \(colours.count) colours")
        // A sharp edge: somewhere two horizontally adjacent pixels jump from building to something else
        // with at most 2 px of blend (a scaled raster would blur over 16 px).
        var sharp = 0
        for y in stride(from: 10, to: 560, by: 10) {
            for x in 1..<799 {
                let a = f.buffer.pixel(x: x - 1, y: y) & 0xffffff, b = f.buffer.pixel(x: x + 1, y: y) & 0xffffff
                if mostlyEqual(a, 0xddd5ca) && !mostlyEqual(b, 0xddd5ca) && !mostlyEqual(b, 0xc4b9ab) { sharp += 1 }
            }
        }
        #expect(sharp > 5)
    }

    @Test func corruptAndOversizedTilesGiveAMessageAndTheRestIsDrawn() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-damaged-\(getpid()).mbtiles").path
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: mbtilesPath, toPath: path)
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Vaduz's tile 14/8625/5753 (TMS row 10630) gets garbage; 14/8624/5753 a 5 MiB blob.
        try sqlite(path, "UPDATE tiles SET tile_data = x'1f8b0800000000000003ffffffff' WHERE zoom_level = 14 AND tile_column = 8625 AND tile_row = 10630")
        try sqlite(path, "UPDATE tiles SET tile_data = zeroblob(5242880) WHERE zoom_level = 14 AND tile_column = 8624 AND tile_row = 10630")
        let opened = MapRenderer.openTiles(path: path)
        let vector = try #require(opened.vector)
        let renderer = MapRenderer(vector: vector)
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        renderer.render(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 15)), into: frame.buffer)
        let w = vector.warnings
        #expect(w.contains { $0.contains(path) && $0.contains("14/8625/5753") && $0.contains("cannot be decompressed") }, "\(w)")
        #expect(w.contains { $0.contains(path) && $0.contains("14/8624/5753") && $0.contains("5242880 bytes") }, "\(w)")
        // The neighbours are drawn: buildings and roads below the damaged tiles' row.
        var content = 0
        for y in stride(from: 0, to: 600, by: 4) { for x in stride(from: 0, to: 800, by: 4) where frame.buffer.pixel(x: x, y: y) & 0xffffff != 0xf3efe7 { content += 1 } }
        #expect(content > 3000)
    }
}

func mostlyEqual(_ a: UInt32, _ b: UInt32) -> Bool {
    let x = colour(a), y = colour(b)
    return abs(x.0 - y.0) <= 6 && abs(x.1 - y.1) <= 6 && abs(x.2 - y.2) <= 6
}

func sqlite(_ path: String, _ sql: String) throws {
    var db: OpaquePointer?
    #expect(sqlite3_open(path, &db) == SQLITE_OK)
    defer { sqlite3_close(db) }
    #expect(sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK, "\(sql)")
}

/// Tiles decoded on the worker (the kiosk) give the same pictures as tiles decoded on the
/// frame's path (render, tests), and a frame never waits for a decode.
@Suite struct WorkerDecodeTests {
    func pixelsDiffering(_ a: OwnedFrameBuffer, _ b: OwnedFrameBuffer) -> Int {
        var n = 0
        for y in 0..<a.buffer.height { for x in 0..<a.buffer.width where a.buffer.pixel(x: x, y: y) & 0xffffff != b.buffer.pixel(x: x, y: y) & 0xffffff { n += 1 } }
        return n
    }

    @Test func prefetchedTilesGiveTheSamePictureAsSynchronousDecode() throws {
        let first = CameraPosition(target: StreetMapRenderTests.vaduz, zoom: 15.5)
        // A pan of 400 px east, into the next tiles (a z14 tile is 724 px wide at 15.5).
        var second = first
        second.target = try #require(Projection(camera: first, screen: Size(width: 800, height: 600)).coordinate(at: Point(x: 800, y: 300)))
        let syncRenderer = MapRenderer(vector: MapRenderer.openTiles(path: mbtilesPath).vector)
        let sync1 = OwnedFrameBuffer(width: 800, height: 600), sync2 = OwnedFrameBuffer(width: 800, height: 600)
        syncRenderer.render(MapScene(camera: first), into: sync1.buffer)
        syncRenderer.render(MapScene(camera: second), into: sync2.buffer)

        let vector = try #require(MapRenderer.openTiles(path: mbtilesPath).vector)
        vector.decodesOnWorker = true
        let renderer = MapRenderer(vector: vector)
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        renderer.render(MapScene(camera: first), into: frame.buffer)
        // The first frame did not wait: its tiles were not there yet.
        #expect(pixelsDiffering(frame, sync1) > 10_000)
        vector.waitForPrefetch()
        #expect(vector.decodeDurations.count > 9, "the view's tiles and the ring around them")
        renderer.invalidateCache()
        renderer.render(MapScene(camera: first), into: frame.buffer)
        #expect(pixelsDiffering(frame, sync1) == 0)
        // The pan finds the ring decoded: the same picture at once, with no tile missing.
        renderer.render(MapScene(camera: second), into: frame.buffer)
        #expect(pixelsDiffering(frame, sync2) == 0)
    }
}

/// A tilted view's tiles: coarser towards the horizon, none outside the visible trapezoid,
/// and every visible point of ground inside one of them.
@Suite struct PerspectiveCoverTests {
    @Test func tiltedCoverIsCoarserFarAwayAndCoversEveryVisiblePoint() throws {
        let camera = CameraPosition(target: StreetMapRenderTests.vaduz, zoom: 16.5, bearing: 30, tilt: 60)
        let screen = Size(width: 1920, height: 1080)
        let view = GroundView(projection: Projection(camera: camera, screen: screen))
        let tiles = StreetMapPainter.cover(view: view, zoom: camera.zoom, minZoom: 0, maxZoom: 14)
        let zooms = Set(tiles.map(\.key.z))
        #expect(zooms.contains(14) && zooms.count >= 2, "\(zooms)")
        // The flat cover of the same ground rectangle (its bounding box) takes many more z14 tiles.
        let span14 = view.worldSize / 16384
        let boxTiles = (Int(view.worldMaxX / span14) - Int(view.worldMinX / span14) + 1) * (Int(view.worldMaxY / span14) - Int(view.worldMinY / span14) + 1)
        #expect(tiles.count < boxTiles, "\(tiles.count) of \(boxTiles)")
        // Covered tiles do not overlap (a quadtree's leaves).
        for (i, a) in tiles.enumerated() { for b in tiles[(i + 1)...] {
            let e = 1e-6 * a.scale   // rounding: tile origins are products of a non-power-of-two span
            let overlapX = a.originX + e < b.originX + b.scale && b.originX + e < a.originX + a.scale
            let overlapY = a.originY + e < b.originY + b.scale && b.originY + e < a.originY + a.scale
            #expect(!(overlapX && overlapY), "\(a.key) and \(b.key) overlap")
        } }
        // Every screen point below the far line shows ground inside a covered tile.
        let far = try #require(view.farLineY)
        for sy in stride(from: max(far + 1, 0), to: 1080, by: 40) { for sx in stride(from: 0.0, to: 1920, by: 40) {
            guard let c = view.projection.coordinate(at: Point(x: sx, y: sy)) else { continue }
            let w = WebMercator.worldPoint(c, zoom: camera.zoom)
            #expect(tiles.contains { t in
                w.x >= t.originX && w.x < t.originX + t.scale && w.y >= t.originY && w.y < t.originY + t.scale
            }, "screen \(sx), \(sy) not covered")
        } }
    }
}

/// `[map] text_scale` scales the street map's labels too: the same label's box grows with it.
@Suite struct StreetTextScaleTests {
    func labels(scale: Double) -> [PlacedStreetLabel] {
        let renderer = MapRenderer(vector: MapRenderer.openTiles(path: mbtilesPath).vector)
        renderer.textScale = scale
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        renderer.render(MapScene(camera: CameraPosition(target: StreetMapRenderTests.vaduz, zoom: 15)), into: frame.buffer)
        return renderer.streetLabels
    }

    @Test func streetLabelBoxesGrowWithTheTextScale() throws {
        let normal = labels(scale: 1), big = labels(scale: 1.5)
        let pairs = normal.compactMap { n in big.first { $0.text == n.text && $0.layerID == n.layerID }.map { (n, $0) } }
        #expect(!pairs.isEmpty, "some labels are placed at both scales")
        for (n, b) in pairs where n.layerID.contains("place") || n.layerID.contains("poi") {
            #expect(b.frame.height > 1.3 * n.frame.height, "\(n.text): \(n.frame) -> \(b.frame)")
        }
        let heights = pairs.map { $0.1.frame.height / $0.0.frame.height }.sorted()
        #expect(heights[heights.count / 2] > 1.3 && heights[heights.count / 2] < 1.7, "median growth \(heights)")
    }
}

extension PlacedStreetLabel {
    /// Whether two labels collide: a name along a road takes a box per glyph, not its bounding box.
    func overlaps(_ o: PlacedStreetLabel) -> Bool {
        boxes.contains { a in o.boxes.contains { a.intersects($0) } }
    }
}
