import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

@Suite struct MapRendererPixelTests {
    let style = MapStyle.standard

    func camera(_ lat: Double, _ lon: Double, _ zoom: Double, bearing: Double = 0, tilt: Double = 0) -> CameraPosition {
        CameraPosition(target: Coordinate(latitude: lat, longitude: lon), zoom: zoom, bearing: bearing, tilt: tilt)
    }

    @Test(arguments: [(0.0, 0.0), (45.0, 0.0), (90.0, 0.0), (30.0, 45.0)])
    func landAndSeaWhereTheCameraSays(bearing: Double, tilt: Double) {
        let f = RenderedFrame(MapScene(camera: camera(38, -12, 4, bearing: bearing, tilt: tilt)),
                              name: "land-sea-b\(Int(bearing))-t\(Int(tilt))")
        // Inland Spain (La Mancha, between Madrid and the coast) is land; the open Atlantic west of
        // Portugal is sea. Most of a 7x7 square: a river or border line may cross it.
        let inland = f.screenPoint(39.0, -2.6)
        let atlantic = f.screenPoint(38.0, -16.0)
        #expect(f.count(of: style.land, around: inland) >= 30, "inland Spain at \(inland)")
        #expect(f.count(of: style.sea, around: atlantic) == 49, "mid-Atlantic at \(atlantic)")
        #expect(f.count(of: style.sea, around: inland) == 0)
        #expect(f.count(of: style.land, around: atlantic) == 0)
    }

    @Test func coastlineOfTheBayOfBiscayAtZoom6() {
        let f = RenderedFrame(MapScene(camera: camera(43.6, -3.5, 6)), name: "biscay-z6")
        // Santander's coast runs along 43.45 N: 0.2 degrees south is land, 0.2 north is sea.
        #expect(f.count(of: style.land, around: f.screenPoint(43.2, -3.6)) >= 40)
        #expect(f.count(of: style.sea, around: f.screenPoint(43.7, -3.6)) == 49)
    }

    @Test(arguments: [(0.0, 0.0), (60.0, 50.0)])
    func defaultPinIsDrawnAtItsProjectedPixel(bearing: Double, tilt: Double) {
        let coord = Coordinate(latitude: 36.0, longitude: -20.0)   // open sea: a plain background
        let red = RGBColor(hex: 0xE53935)
        let scene = MapScene(camera: camera(37, -19, 5, bearing: bearing, tilt: tilt),
                             markers: [MarkerSprite(id: "a", coordinate: coord, icon: .defaultPin(red))])
        let f = RenderedFrame(scene, name: "pin-b\(Int(bearing))-t\(Int(tilt))")
        let tip = f.projection.point(for: coord)!
        let head = PinGeometry.headCenter(tip: tip)
        // Head disc outside the white dot, and the cone just above the tip.
        #expect(f.pixel(head + Point(x: 0, y: 8)) == red.pixel & 0xffffff)
        #expect(f.pixel(head + Point(x: -8, y: 0)) == red.pixel & 0xffffff)
        #expect(f.pixel(tip + Point(x: 0, y: -6)) == red.pixel & 0xffffff)
        #expect(f.pixel(head) == 0xffffff, "white dot at the head's centre")
        // Just outside the pin: sea.
        #expect(f.pixel(head + Point(x: PinGeometry.headRadius + 4, y: 0)) == style.sea.pixel & 0xffffff)
        #expect(f.pixel(tip + Point(x: 0, y: 4)) == style.sea.pixel & 0xffffff)
        // Every pixel the pin's hit test contains well inside is drawn in the pin's colours.
        for dy in stride(from: -38.0, through: -4, by: 3) {
            let p = tip + Point(x: 0, y: dy)
            if PinGeometry.contains(p, tip: tip) && p.distance(to: head) > 6 {
                #expect(f.pixel(p) == red.pixel & 0xffffff, "at \(dy)")
            }
        }
    }

    @Test func customIconIsDrawnAtItsAnchor() {
        // A 10x10 opaque green square anchored at its bottom centre.
        let green: UInt32 = 0xff00_c000
        let coord = Coordinate(latitude: 36.0, longitude: -20.0)
        let scene = MapScene(camera: camera(37, -19, 5), markers: [
            MarkerSprite(id: "g", coordinate: coord, icon: .argb(pixels: Array(repeating: green, count: 100), width: 10, height: 10,
                                                                 anchor: Point(x: 0.5, y: 1)))])
        let f = RenderedFrame(scene)
        let p = f.projection.point(for: coord)!
        #expect(f.pixel(p + Point(x: 0, y: -5)) == 0x00c000)
        #expect(f.pixel(p + Point(x: -4, y: -9)) == 0x00c000)
        #expect(f.pixel(p + Point(x: 0, y: 3)) == style.sea.pixel & 0xffffff)
        #expect(f.pixel(p + Point(x: 8, y: -5)) == style.sea.pixel & 0xffffff)
    }

    /// The white box of the info window around an anchor: its bounding rectangle.
    func whiteBox(_ f: RenderedFrame, above anchor: Point) -> (minX: Int, minY: Int, maxX: Int, maxY: Int) {
        var minX = Int.max, minY = Int.max, maxX = Int.min, maxY = Int.min
        let ax = Int(anchor.x), ay = Int(anchor.y)
        for y in max(0, ay - 200)..<ay { for x in max(0, ax - 200)..<min(f.buffer.width, ax + 200) where f.pixel(x, y) == 0xffffff {
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        } }
        return (minX, minY, maxX, maxY)
    }

    @Test func infoWindowIsUprightCentredAboveItsMarkerAtBearing90() throws {
        let coord = Coordinate(latitude: 30.0, longitude: -30.0)
        func scene(bearing: Double) -> MapScene {
            MapScene(camera: camera(30, -30, 5, bearing: bearing),
                     markers: [MarkerSprite(id: "m", coordinate: coord)],
                     infoWindow: InfoWindowScene(title: "Azores High", snippet: "Subtropical ridge over the North Atlantic", coordinate: coord))
        }
        let north = RenderedFrame(scene(bearing: 0), name: "info-b0")
        let east = RenderedFrame(scene(bearing: 90), name: "info-b90")
        let tip = east.projection.point(for: coord)!
        let anchor = tip + Point(x: 0, y: -PinGeometry.size.height)
        let box = whiteBox(east, above: anchor)
        // Axis-aligned, horizontally centred on the marker, bottom edge just above the pointer.
        #expect(abs(Double(box.minX + box.maxX) / 2 - anchor.x) <= 1.5)
        #expect(Int(anchor.y) - box.maxY <= 11 && Int(anchor.y) - box.maxY >= 0, "pointer tip at the anchor")
        #expect(box.maxX - box.minX > box.maxY - box.minY, "wider than tall")
        let midY = (box.minY + box.maxY) / 2
        #expect((box.minX + 2...box.maxX - 2).allSatisfy { east.pixel($0, box.minY + 8) != style.sea.pixel & 0xffffff })
        #expect(east.pixel(box.minX + 2, midY) == 0xffffff && east.pixel(box.maxX - 2, midY) == 0xffffff)
        // Dark text inside, in horizontal lines: text occupies more columns than rows.
        var textXs = Set<Int>(), textYs = Set<Int>()
        for y in box.minY...box.maxY { for x in box.minX...box.maxX {
            let c = rgb(east.pixel(x, y)); if c.r < 110 && c.g < 110 && c.b < 110 { textXs.insert(x); textYs.insert(y) }
        } }
        #expect(textXs.count > 2 * textYs.count, "text runs left to right: \(textXs.count) columns, \(textYs.count) rows")
        // Exactly the same pixels as with the map north-up: the window does not turn with the map.
        for y in box.minY + 2...Int(anchor.y) - Int(OverlayPainter.infoPointer) - 2 { for x in box.minX + 2...box.maxX - 2 {
            if east.pixel(x, y) != north.pixel(x, y) { Issue.record("pixel \(x),\(y) differs between bearing 0 and 90"); return }
        } }
    }

    @Test func longInfoWindowTextIsWrappedAndCutWithAnEllipsis() {
        let coord = Coordinate(latitude: 30.0, longitude: -30.0)
        let long = String(repeating: "A very long snippet that goes on and on. ", count: 20)
        let f = RenderedFrame(MapScene(camera: camera(30, -30, 5), markers: [MarkerSprite(id: "m", coordinate: coord)],
                                       infoWindow: InfoWindowScene(title: "Title", snippet: long, coordinate: coord)),
                              name: "info-long")
        let anchor = f.projection.point(for: coord)! + Point(x: 0, y: -PinGeometry.size.height)
        let box = whiteBox(f, above: anchor)
        let width = box.maxX - box.minX + 1, height = box.maxY - box.minY + 1
        #expect(width <= Int(OverlayPainter.infoMaxTextWidth + 2 * OverlayPainter.infoPadding) + 1)
        #expect(height < 140, "four snippet lines at most, not 20 sentences: \(height) px")
        #expect(height > 60, "wrapped onto several lines: \(height) px")
    }

    @Test(arguments: [(0.0, Point(x: 0, y: -12)), (90.0, Point(x: -12, y: 0)), (180.0, Point(x: 0, y: 12)), (270.0, Point(x: 12, y: 0))])
    func compassNeedleTurnsWithTheBearing(bearing: Double, northOffset: Point) {
        let f = RenderedFrame(MapScene(camera: camera(0, -30, 3, bearing: bearing)), name: "compass-\(Int(bearing))")
        let frame = OverlayPainter.compassFrame(screen: Size(width: 800, height: 600))
        let centre = Point(x: frame.x + frame.w / 2, y: frame.y + frame.h / 2)
        #expect(isReddish(f.pixel(centre + northOffset)), "red north half towards \(northOffset)")
        #expect(!isReddish(f.pixel(centre - northOffset)), "grey south half opposite")
    }

    @Test func tiltedFrameShowsSkyAtTheTopAndGroundBelow() throws {
        let f = RenderedFrame(MapScene(camera: camera(40, -10, 4, bearing: 20, tilt: 75)), name: "tilt-75")
        let horizon = try #require(f.projection.horizonY)
        #expect(horizon > 10 && horizon < 300)
        let sky = style.sky.pixel & 0xffffff
        #expect((0..<Int(horizon)).allSatisfy { f.pixel(200, $0) == sky })
        #expect(f.pixel(400, 550) != sky)
        let flat = RenderedFrame(MapScene(camera: camera(40, -10, 4)))
        #expect(flat.pixel(200, 2) != sky)
    }

    @Test func recenterButtonIsDrawnOnlyWhenAsked() {
        let frame = OverlayPainter.recenterFrame(screen: Size(width: 800, height: 600))
        #expect(frame.x == 800 - 16 - 120 && frame.y == 600 - 20 - 16 - 44)
        let inside = Point(x: frame.x + 6, y: frame.y + frame.h / 2)
        let with = RenderedFrame(MapScene(camera: camera(30, -40, 5), showsRecenterButton: true))
        let without = RenderedFrame(MapScene(camera: camera(30, -40, 5)))
        #expect(with.pixel(inside) == 0xffffff)
        #expect(without.pixel(inside) == style.sea.pixel & 0xffffff)
    }

    @Test func panFrameFromTheCacheMatchesAFullRedraw() {
        let renderer = MapRenderer()
        // Whole world pixels at the centre, so the cached copy and the full redraw align exactly.
        var a = camera(45, 5, 5)
        a.target = WebMercator.coordinate(world: Point(x: 4200, y: 2900), zoom: 5)
        let buffer = OwnedFrameBuffer(width: 640, height: 480)
        renderer.render(MapScene(camera: a), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .cacheRebuilt)
        // Pan by whole world pixels.
        let p = Projection(camera: a, screen: Size(width: 640, height: 480))
        var b = a
        b.target = p.coordinate(at: Point(x: 320 + 37, y: 240 - 21))!
        renderer.render(MapScene(camera: b), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .cached)
        let full = MapRenderer()
        full.usesBaseMapCache = false
        let reference = OwnedFrameBuffer(width: 640, height: 480)
        full.render(MapScene(camera: b), into: reference.buffer)
        #expect(full.lastFrameKind == .full)
        var same = 0
        for y in 0..<480 { for x in 0..<640 where buffer.buffer.pixel(x: x, y: y) == reference.buffer.pixel(x: x, y: y) { same += 1 } }
        // Labels near the cache's edge may be placed differently; the map itself is the same.
        #expect(Double(same) / Double(640 * 480) > 0.97, "\(same) of \(640 * 480) pixels equal")
        // A rotated frame is drawn in full.
        renderer.render(MapScene(camera: camera(45, 5, 5, bearing: 10)), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .full)
    }

    @Test func aLongPanScrollsTheCacheAndStillMatchesAFullRedraw() {
        let renderer = MapRenderer()
        let full = MapRenderer()
        full.usesBaseMapCache = false
        let buffer = OwnedFrameBuffer(width: 640, height: 480)
        let reference = OwnedFrameBuffer(width: 640, height: 480)
        var world = Point(x: 4200, y: 2900)
        var kinds: [MapRenderer.FrameKind] = []
        // 30 steps of (47, -29) world px: far past the cache's margin, diagonally.
        for step in 0..<31 {
            let cam = CameraPosition(target: WebMercator.coordinate(world: world, zoom: 5), zoom: 5)
            // The frame before the gesture is final (it builds the cache); the pan's are interactive.
            renderer.render(MapScene(camera: cam), into: buffer.buffer, quality: step == 0 ? .final : .interactive)
            kinds.append(renderer.lastFrameKind)
            if step % 10 == 0 || step == 30 {
                full.render(MapScene(camera: cam), into: reference.buffer)
                var same = 0
                for y in 0..<480 { for x in 0..<640 where buffer.buffer.pixel(x: x, y: y) == reference.buffer.pixel(x: x, y: y) { same += 1 } }
                #expect(Double(same) / Double(640 * 480) > 0.97, "step \(step): \(same) of \(640 * 480) pixels equal")
            }
            world += Point(x: 47, y: -29)
        }
        if let dir = ProcessInfo.processInfo.environment["TB_TEST_OUT"] { try? buffer.buffer.writePNG(to: dir + "/scrolled-pan.png") }
        #expect(kinds.first == .cacheRebuilt)
        #expect(kinds.contains(.scrolled))
        #expect(!kinds.dropFirst().contains(.cacheRebuilt), "the cache follows the pan without being rebuilt: \(kinds)")
    }

    @Test func interactiveRotationTurnsTheCachedBaseMapAndKeepsGeographyInPlace() {
        let renderer = MapRenderer()
        let buffer = OwnedFrameBuffer(width: 800, height: 600)
        renderer.render(MapScene(camera: camera(38, -12, 4)), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .cacheRebuilt)
        // 35 degrees: the 800x600 screen turned fits in the cache's 192 px margin up to about 41
        // degrees (it was 45 with the old 256 px floor; docs/benchmarks.md, Memory, session 5).
        let turned = MapScene(camera: camera(38, -12, 4, bearing: 35))
        renderer.render(turned, into: buffer.buffer, quality: .interactive)
        #expect(renderer.lastFrameKind == .resampled)
        // Turned further than the cache covers, the frame is drawn directly.
        renderer.render(MapScene(camera: camera(38, -12, 4, bearing: 60)), into: buffer.buffer, quality: .interactive)
        #expect(renderer.lastFrameKind == .full)
        renderer.render(turned, into: buffer.buffer, quality: .interactive)
        #expect(renderer.lastFrameKind == .resampled)
        let p = Projection(camera: turned.camera, screen: Size(width: 800, height: 600))
        let f = buffer.buffer
        func count(_ color: RGBColor, _ c: Point) -> Int {
            var n = 0
            for dy in -3...3 { for dx in -3...3 where f.pixel(x: Int(c.x) + dx, y: Int(c.y) + dy) == color.pixel & 0xffffff { n += 1 } }
            return n
        }
        let inland = p.point(for: Coordinate(latitude: 39.0, longitude: -2.6))!
        let atlantic = p.point(for: Coordinate(latitude: 38.0, longitude: -16.0))!
        #expect(count(style.land, inland) >= 30 && count(style.sea, atlantic) == 49)
        // The corners are covered at any angle.
        for (x, y) in [(0, 0), (799, 0), (0, 599), (799, 599)] { #expect(f.pixel(x: x, y: y) != 0, "corner \(x),\(y)") }
        renderer.render(turned, into: buffer.buffer)
        #expect(renderer.lastFrameKind == .full, "the final frame after the gesture is drawn exactly")
    }

    @Test func interactivePinchFramesScaleTheCacheWithinOneZoomLevel() {
        let renderer = MapRenderer()
        let buffer = OwnedFrameBuffer(width: 800, height: 600)
        renderer.render(MapScene(camera: camera(38, -12, 4)), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .cacheRebuilt)
        let pinched = MapScene(camera: camera(38, -12, 4.6, bearing: 10))
        renderer.render(pinched, into: buffer.buffer, quality: .interactive)
        #expect(renderer.lastFrameKind == .resampled)
        let p = Projection(camera: pinched.camera, screen: Size(width: 800, height: 600))
        let inland = p.point(for: Coordinate(latitude: 39.0, longitude: -2.6))!
        let atlantic = p.point(for: Coordinate(latitude: 38.0, longitude: -16.0))!
        #expect(buffer.buffer.pixel(x: Int(inland.x), y: Int(inland.y)) == style.land.pixel & 0xffffff)
        #expect(buffer.buffer.pixel(x: Int(atlantic.x), y: Int(atlantic.y)) == style.sea.pixel & 0xffffff)
        // Zoomed out a whole level the cache no longer covers the screen: drawn directly, and
        // an interactive frame at a new zoom does not pay for a new cache.
        renderer.render(MapScene(camera: camera(38, -12, 3)), into: buffer.buffer, quality: .interactive)
        #expect(renderer.lastFrameKind == .full)
        // The final frame at the new zoom builds the cache for the pans that follow.
        renderer.render(MapScene(camera: camera(38, -12, 3)), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .cacheRebuilt)
    }

    @Test func framesWhoseZoomKeepsChangingAreDrawnWithoutBuildingTheCache() {
        let renderer = MapRenderer()
        let buffer = OwnedFrameBuffer(width: 400, height: 300)
        renderer.render(MapScene(camera: camera(38, -12, 4)), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .cacheRebuilt, "the first frame: an idle start")
        for z in [4.1, 4.2, 4.3] {
            renderer.render(MapScene(camera: camera(38, -12, z)), into: buffer.buffer)
            #expect(renderer.lastFrameKind == .full, "zoom \(z): a zoom animation frame")
        }
        renderer.render(MapScene(camera: camera(38, -12, 4.3)), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .cacheRebuilt, "the zoom settled")
        renderer.render(MapScene(camera: camera(38.1, -12, 4.3)), into: buffer.buffer)
        #expect(renderer.lastFrameKind == .cached)
    }

    @Test func drawnPlacesAreTheLabelsOnScreenAtTheirProjectedPoints() throws {
        let renderer = MapRenderer()
        let f = RenderedFrame(MapScene(camera: camera(46, 5, 4)), renderer: renderer)
        let madrid = try #require(renderer.drawnPlaces.first { $0.name == "Madrid" })
        let p = f.screenPoint(madrid.coordinate.latitude, madrid.coordinate.longitude)
        // Names come with the overlay layer, copied at the base map's whole-pixel offset: the
        // reported point is where the dot is drawn, within half a pixel on each axis of the exact one.
        #expect(madrid.point.distance(to: p) <= 0.71)
        #expect(rgb(f.pixel(p)).r < 90, "the city dot")
        #expect(madrid.frame.x < p.x && madrid.frame.x + madrid.frame.width > p.x + 20)
        // Labels that would overlap are left out, and are not reported.
        let eligible = BuiltInWorld.cities.filter { $0.minZoom <= 4 && f.projection.point(for: $0.coordinate).map {
            $0.x >= 0 && $0.x <= 800 && $0.y >= 0 && $0.y <= 600 } == true }
        let drawnCities = renderer.drawnPlaces.filter { $0.kind == .city }
        #expect(drawnCities.count < eligible.count && drawnCities.count > 10)
        for a in renderer.drawnPlaces { for b in renderer.drawnPlaces where a.name != b.name {
            let overlap = a.frame.x < b.frame.x + b.frame.width && b.frame.x < a.frame.x + a.frame.width
                && a.frame.y < b.frame.y + b.frame.height && b.frame.y < a.frame.y + a.frame.height
            #expect(!overlap, "\(a.name) / \(b.name)")
        } }
    }

    @Test func pngFileHoldsTheFramePixels() throws {
        let f = RenderedFrame(MapScene(camera: camera(38, -12, 4)), width: 320, height: 240)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-render-\(getpid()).png").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try f.buffer.writePNG(to: path)
        let img = try #require(CairoImage.pngFile(path))
        #expect(img.width == 320 && img.height == 240)
        for (x, y) in [(10, 10), (160, 120), (300, 200)] {
            #expect(img.pixel(x: x, y: y) & 0xffffff == f.pixel(x, y))
        }
        #expect(throws: PNGWriteError.self) { try f.buffer.writePNG(to: "/nonexistent-dir/x.png") }
    }
}
