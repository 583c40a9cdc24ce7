import CCairo
import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// Overlay shapes, the route, the puck and cluster bubbles, pixel by pixel at explicit cameras
/// (flat, turned, tilted, across the antimeridian). Frames are kept in /tmp/render-shapes.
@Suite struct ShapeRenderingTests {
    static let w = 800, h = 600
    static let magenta = RGBColor(hex: 0xFF00FF)

    static func render(_ scene: MapScene, name: String? = nil, renderer: MapRenderer = MapRenderer()) -> RenderedFrame {
        let f = RenderedFrame(scene, width: w, height: h, renderer: renderer)
        if let name {
            try? FileManager.default.createDirectory(atPath: "/tmp/render-shapes", withIntermediateDirectories: true)
            try? f.buffer.writePNG(to: "/tmp/render-shapes/\(name).png")
        }
        return f
    }

    static func scene(_ camera: CameraPosition, _ shapes: [OverlayShape]) -> MapScene {
        var s = MapScene(camera: camera, showsCompass: false, showsScaleBar: false)
        s.overlays = [Overlay(id: "o", shapes: shapes)]
        return s
    }

    static func close(_ a: UInt32, _ b: RGBColor, tolerance: Int = 8) -> Bool {
        let c = rgb(a), p = rgb(b.pixel)
        return abs(c.r - p.r) <= tolerance && abs(c.g - p.g) <= tolerance && abs(c.b - p.b) <= tolerance
    }

    static func inside(_ f: RenderedFrame, _ p: Point) -> Bool {
        p.x >= 2 && p.y >= 2 && p.x < Double(w - 2) && p.y < Double(h - 2)
    }

    /// Checks a magenta line through the coordinates: magenta at points along each segment on
    /// screen, none 14 px to either side of it.
    static func expectLine(_ f: RenderedFrame, _ pts: [Coordinate], _ label: String, minimum: Int = 10) {
        var along = 0, beside = 0, checked = 0
        for i in 0..<(pts.count - 1) {
            guard let a = f.projection.point(for: pts[i]), let b = f.projection.point(for: pts[i + 1]) else { continue }
            let d = b - a, len = (d.x * d.x + d.y * d.y).squareRoot()
            guard len > 1 else { continue }
            let n = Point(x: -d.y / len, y: d.x / len)
            for t in stride(from: 0.1, through: 0.9, by: 0.1) {
                let p = a + d * t
                guard inside(f, p), inside(f, p + n * 14), inside(f, p - n * 14) else { continue }
                checked += 1
                if f.count(of: magenta, around: p, radius: 1) >= 3 { along += 1 }
                if f.count(of: magenta, around: p + n * 14, radius: 1) > 0 || f.count(of: magenta, around: p - n * 14, radius: 1) > 0 { beside += 1 }
            }
        }
        #expect(checked >= minimum, "\(label): points on screen")
        #expect(along == checked, "\(label): magenta along the path at \(along) of \(checked)")
        #expect(beside == 0, "\(label): magenta beside the path at \(beside)")
    }

    /// Over the Atlantic: no place name over it.
    static let zigzag = [Coordinate(latitude: 44, longitude: -34), Coordinate(latitude: 46.5, longitude: -31),
                         Coordinate(latitude: 44.5, longitude: -28), Coordinate(latitude: 47, longitude: -26)]
    static let atlantic = Coordinate(latitude: 45.5, longitude: -30)
    static let europeZigzag = [Coordinate(latitude: 46, longitude: 5), Coordinate(latitude: 48.5, longitude: 8),
                               Coordinate(latitude: 46.5, longitude: 11), Coordinate(latitude: 49, longitude: 13)]

    @Test(arguments: [(0.0, 0.0, "flat"), (30.0, 0.0, "turned"), (20.0, 50.0, "tilted")])
    func polylineLiesOnItsPath(bearing: Double, tilt: Double, name: String) {
        let camera = CameraPosition(target: Self.atlantic, zoom: 6, bearing: bearing, tilt: tilt)
        let style = ShapeStyle(stroke: 0xFF00FF, strokeWidth: 6, fill: nil)
        let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .polyline(Self.zigzag), style: style)]), name: "polyline-\(name)")
        Self.expectLine(f, Self.zigzag, name)
        // The vertices themselves (round joins) are where the Projection puts them.
        for c in Self.zigzag.dropFirst().dropLast() {
            let p = f.projection.point(for: c)!
            #expect(f.count(of: Self.magenta, around: p, radius: 1) == 9, "\(name): vertex \(c) at \(p)")
        }
        // Without the overlay those pixels are not magenta (the test can fail).
        let bare = Self.render(Self.scene(camera, []))
        let p = bare.projection.point(for: Self.zigzag[1])!
        #expect(bare.count(of: Self.magenta, around: p, radius: 3) == 0)
    }

    @Test func longLinesAreSimplifiedWithinAFractionOfAPixel() {
        // 10,000 points on a wave: at zoom 5 its segments are under a pixel long.
        let pts = (0..<10_000).map { i -> Coordinate in
            let t = Double(i) / 9_999
            return Coordinate(latitude: 48 + 8 * sin(t * 9 * .pi), longitude: -18 + 54 * t)
        }
        let shape = PreparedShape.make(OverlayShape(geometry: .polyline(pts)))!
        let w = WebMercator.worldSize(zoom: 5)
        let simple = shape.rings(worldSize: w)[0]
        #expect(simple.count < 1_000 && simple.count > 20, "\(simple.count) points")
        #expect(shape.rings(worldSize: WebMercator.worldSize(zoom: 12))[0].count > 2 * simple.count, "more kept when zoomed in")
        // Every original point within the tolerance of the simplified line (world px).
        let full = shape.rings[0].points, q = simple.points
        var worst = 0.0, j = 0
        for i in 0..<(full.count / 2) {
            let px = full[2 * i] * w, py = full[2 * i + 1] * w
            while j + 2 < q.count / 2 && q[2 * j + 2] * w < px { j += 1 }
            var best = Double.infinity
            for s in max(0, j - 1)...min(q.count / 2 - 2, j + 1) {
                let ax = q[2 * s] * w, ay = q[2 * s + 1] * w, dx = q[2 * s + 2] * w - ax, dy = q[2 * s + 3] * w - ay
                let t = min(max(((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy), 0), 1)
                best = min(best, hypot(px - ax - t * dx, py - ay - t * dy))
            }
            worst = max(worst, best)
        }
        #expect(worst <= PreparedShape.simplifyTolerance + 1e-6, "worst \(worst) px")
    }

    @Test func casingAtTheEdgeStrokeAtTheCentre() {
        let camera = CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 5)
        let line = [Coordinate(latitude: 0, longitude: -30), Coordinate(latitude: 0, longitude: 30)]
        let style = ShapeStyle(stroke: 0x00FF00, strokeWidth: 8, fill: nil, casing: 0x000080, casingWidth: 4)
        let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .polyline(line), style: style)]), name: "casing")
        let y = f.screenPoint(0, 0).y   // the line's centre row (300.0: between rows 299 and 300)
        for x in stride(from: 100, through: 700, by: 100) {
            #expect(Self.close(f.pixel(x, Int(y)), RGBColor(hex: 0x00FF00), tolerance: 0), "stroke at \(x)")
            #expect(Self.close(f.pixel(x, Int(y) - 1), RGBColor(hex: 0x00FF00), tolerance: 0))
            // Stroke to 4 px from the centre, casing from 4 to 8 px.
            #expect(Self.close(f.pixel(x, Int(y) + 5), RGBColor(hex: 0x000080), tolerance: 0), "casing below at \(x)")
            #expect(Self.close(f.pixel(x, Int(y) - 6), RGBColor(hex: 0x000080), tolerance: 0), "casing above at \(x)")
            #expect(Self.close(f.pixel(x, Int(y) + 2), RGBColor(hex: 0x00FF00), tolerance: 0), "stroke to 4 px at \(x)")
            #expect(!Self.close(f.pixel(x, Int(y) + 10), RGBColor(hex: 0x000080), tolerance: 40), "nothing beyond at \(x)")
        }
    }

    @Test func dashesLeaveGaps() {
        let camera = CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 5)
        let line = [Coordinate(latitude: 0, longitude: -10), Coordinate(latitude: 0, longitude: 10)]
        let style = ShapeStyle(stroke: 0xFF00FF, strokeWidth: 4, fill: nil, dash: [20, 20])
        let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .polyline(line), style: style)]), name: "dashes")
        let y = Int(f.screenPoint(0, 0).y)
        let x0 = f.screenPoint(0, -10).x
        // Along the row: magenta in [x0 + 40k, x0 + 40k + 20), the map in the gaps between.
        var dashes = 0, gaps = 0
        for k in 0..<12 {
            let dash = Int(x0) + 40 * k + 10, gap = Int(x0) + 40 * k + 30
            guard gap < Self.w else { break }
            if Self.close(f.pixel(dash, y), Self.magenta, tolerance: 0) { dashes += 1 }
            if !Self.close(f.pixel(gap, y), Self.magenta, tolerance: 60) { gaps += 1 }
        }
        #expect(dashes >= 8 && gaps == dashes, "dashes \(dashes), gaps \(gaps)")
        // A dash is 20 px long (its round ends within it): the run of magenta at the dash's middle row.
        var run = 0
        for x in (Int(x0) + 40 * 2)..<(Int(x0) + 40 * 2 + 30) where Self.close(f.pixel(x, y), Self.magenta, tolerance: 30) { run += 1 }
        #expect(abs(run - 20) <= 1, "dash length \(run)")
    }

    @Test func polygonIsFilledWithItsHoleEmpty() {
        let camera = CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 5)
        func square(_ r: Double, _ reversed: Bool = false) -> [Coordinate] {
            let s = [Coordinate(latitude: -r, longitude: -r), Coordinate(latitude: -r, longitude: r),
                     Coordinate(latitude: r, longitude: r), Coordinate(latitude: r, longitude: -r)]
            return reversed ? s.reversed() : s
        }
        let style = ShapeStyle(stroke: 0x000000, strokeWidth: 2, fill: 0xFF00FF, fillOpacity: 1)
        for reversed in [false, true] {
            let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .polygon([square(8), square(3, reversed)]), style: style)]),
                                name: reversed ? nil : "polygon-hole")
            let c = f.screenPoint(0, 0)
            #expect(f.count(of: Self.magenta, around: c, radius: 10) == 0, "the hole is empty")
            #expect(f.count(of: Self.magenta, around: f.screenPoint(5.5, 0), radius: 5) == 121, "filled between the rings")
            #expect(f.count(of: Self.magenta, around: f.screenPoint(-5.5, -5.5), radius: 5) == 121)
            #expect(f.count(of: Self.magenta, around: f.screenPoint(10, 0), radius: 5) == 0, "nothing outside")
            // The outline: black on the outer ring's edge and the hole's.
            #expect(f.count(of: RGBColor(hex: 0), around: f.screenPoint(0, 8), radius: 1) >= 3)
            #expect(f.count(of: RGBColor(hex: 0), around: f.screenPoint(3, 0), radius: 1) >= 3)
        }
    }

    /// Ground metres per screen pixel at a latitude and zoom (flat view).
    static func metresPerPixel(latitude: Double, zoom: Double) -> Double {
        2 * .pi * Geodesy.earthRadius * cos(latitude * .pi / 180) / WebMercator.worldSize(zoom: zoom)
    }

    @Test(arguments: [60.0, 0.0])
    func circleRadiusIsTrueToTheGround(latitude: Double) {
        let zoom = 7.0
        let centre = Coordinate(latitude: latitude, longitude: 20)
        let camera = CameraPosition(target: centre, zoom: zoom)
        let radius = 150_000.0
        let style = ShapeStyle(stroke: nil, fill: 0xFF00FF, fillOpacity: 1)
        let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .circle(center: centre, radius: radius), style: style)]),
                            name: "circle-\(Int(latitude))")
        let want = radius / Self.metresPerPixel(latitude: latitude, zoom: zoom)
        let c = f.screenPoint(latitude, 20)
        func extent(_ dx: Int, _ dy: Int) -> Double {
            var n = 0
            while n < 400, Self.close(f.pixel(Int(c.x) + dx * n, Int(c.y) + dy * n), Self.magenta, tolerance: 0) { n += 1 }
            return Double(n)
        }
        // East-west along the centre's parallel: the radius; north-south the Mercator stretch
        // grows poleward, so the mean of both ways is the radius there.
        let ew = (extent(1, 0) + extent(-1, 0)) / 2, ns = (extent(0, 1) + extent(0, -1)) / 2
        #expect(abs(ew - want) <= 2, "east-west \(ew) px, want \(want)")
        #expect(abs(ns - want) <= 2 + want * 0.01, "north-south \(ns) px, want \(want)")
        #expect(want > 50 && want < 290)
    }

    @Test func lineAcrossTheAntimeridianIsContinuous() {
        let line = [Coordinate(latitude: 10, longitude: 170), Coordinate(latitude: -10, longitude: -170)]
        let style = ShapeStyle(stroke: 0xFF00FF, strokeWidth: 5, fill: nil)
        for (lon, name) in [(180.0, "antimeridian"), (-175.0, nil), (172.0, nil)] {
            let camera = CameraPosition(target: Coordinate(latitude: 0, longitude: lon), zoom: 4)
            let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .polyline(line), style: style)]), name: name)
            let a = f.screenPoint(10, 170), b = f.screenPoint(-10, -170)
            // Drawn the short way: from a to b as they project near the camera.
            #expect(abs(a.x - b.x) < 300, "\(lon): the ends \(a) \(b)")
            Self.expectLine(f, line, "antimeridian at \(lon)", minimum: 6)
            // Not across the screen: no magenta on the line's rows far from it.
            let row = Int((a.y + b.y) / 2)
            let far = [20, Self.w - 20].filter { abs(Double($0) - (a.x + b.x) / 2) > 200 }
            for x in far { #expect(f.count(of: Self.magenta, around: Point(x: Double(x), y: Double(row)), radius: 15) == 0, "\(lon): at \(x)") }
        }
    }

    @Test func lineAtEveryWorldCopyAtZoomZero() {
        // At zoom 0 the 800 px screen shows more than three world widths (256 px each).
        let camera = CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 0)
        let line = [Coordinate(latitude: 0, longitude: -20), Coordinate(latitude: 0, longitude: 20)]
        let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .polyline(line), style: ShapeStyle(stroke: 0xFF00FF, strokeWidth: 4, fill: nil))]))
        let y = f.screenPoint(0, 0).y
        for k in -1...1 {
            #expect(f.count(of: Self.magenta, around: Point(x: 400 + Double(k) * 256, y: y), radius: 1) >= 3, "copy \(k)")
        }
    }

    /// A PNG of one colour, written once.
    static let imagePath: String = {
        let path = "/tmp/render-shapes-ground-\(getpid()).png"
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 64, 32)!
        let cr = cairo_create(s)!
        cairo_set_source_rgb(cr, 1, 0, 1)
        cairo_paint(cr)
        cairo_destroy(cr)
        cairo_surface_write_to_png(s, path)
        cairo_surface_destroy(s)
        return path
    }()

    @Test(arguments: [(0.0, 0.0, "image-flat"), (0.0, 45.0, "image-tilted"), (25.0, 55.0, "image-turned-tilted")])
    func groundImageCornersLieOnItsBounds(bearing: Double, tilt: Double, name: String) {
        let bounds = CoordinateBounds(west: 6, south: 45, east: 12, north: 49)
        let camera = CameraPosition(target: Coordinate(latitude: 47.5, longitude: 9), zoom: 6, bearing: bearing, tilt: tilt)
        let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .groundImage(path: Self.imagePath, bounds: bounds, bearing: 0, opacity: 1))]),
                            name: name)
        let corners = [(49.0, 6.0), (49.0, 12.0), (45.0, 12.0), (45.0, 6.0)].map { f.screenPoint($0.0, $0.1) }
        let centre = corners.reduce(Point(x: 0, y: 0)) { $0 + $1 } / 4
        for p in corners {
            let d = centre - p, len = (d.x * d.x + d.y * d.y).squareRoot()
            let inward = p + d * (3 / len), outward = p - d * (3 / len)
            #expect(Self.close(f.pixel(inward), Self.magenta, tolerance: 4), "\(name): inside the corner \(p)")
            #expect(!Self.close(f.pixel(outward), Self.magenta, tolerance: 60), "\(name): outside the corner \(p)")
        }
        // Along each edge, magenta just inside, the map just outside.
        for i in 0..<4 {
            let a = corners[i], b = corners[(i + 1) % 4]
            let m = (a + b) / 2, d = centre - m, len = (d.x * d.x + d.y * d.y).squareRoot()
            #expect(Self.close(f.pixel(m + d * (2.5 / len)), Self.magenta, tolerance: 4), "\(name): edge \(i) inside")
            #expect(!Self.close(f.pixel(m - d * (2.5 / len)), Self.magenta, tolerance: 60), "\(name): edge \(i) outside")
        }
    }

    @Test(arguments: [0.0, 50.0])
    func groundImageAtADeepZoom(tilt: Double) {
        // A 12 x 4 degree image seen at zoom 19: millions of px across; the frame shows a corner.
        let bounds = CoordinateBounds(west: 3, south: 45, east: 15, north: 49)
        let camera = CameraPosition(target: Coordinate(latitude: 48.99999, longitude: 3.00001), zoom: 19, bearing: 10, tilt: tilt)
        let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .groundImage(path: Self.imagePath, bounds: bounds, bearing: 0, opacity: 1))]),
                            name: tilt == 0 ? "image-deep-zoom" : nil)
        let corner = f.screenPoint(49, 3)
        let inside = f.screenPoint(48.99998, 3.00003), outside = f.screenPoint(49.00001, 2.99998)
        #expect(Self.close(f.pixel(inside), Self.magenta, tolerance: 4), "inside near \(corner)")
        #expect(!Self.close(f.pixel(outside), Self.magenta, tolerance: 60), "outside near \(corner)")
    }

    @Test func shapesOutOfViewLeaveTheFrameAsBefore() {
        // Shapes over Australia, a camera over Europe: not a pixel changes, on either path.
        let camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 9), zoom: 5)
        let far = [OverlayShape(geometry: .polyline([Coordinate(latitude: -30, longitude: 120), Coordinate(latitude: -20, longitude: 140)])),
                   OverlayShape(geometry: .polygon([[Coordinate(latitude: -30, longitude: 120), Coordinate(latitude: -20, longitude: 140),
                                                     Coordinate(latitude: -25, longitude: 130)]])),
                   OverlayShape(geometry: .circle(center: Coordinate(latitude: -25, longitude: 130), radius: 500_000))]
        for layer in [true, false] {
            let a = MapRenderer(), b = MapRenderer()
            a.usesOverlayLayer = layer; b.usesOverlayLayer = layer
            let with = Self.render(Self.scene(camera, far), renderer: a), without = Self.render(Self.scene(camera, []), renderer: b)
            #expect(OverlayLayerTests.differingPixels(with.buffer, without.buffer) == 0)
        }
    }

    @Test func groundImageTurnedAndTranslucent() {
        let bounds = CoordinateBounds(west: 3, south: 45, east: 15, north: 49)
        let camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 9), zoom: 6)
        let f = Self.render(Self.scene(camera, [OverlayShape(geometry: .groundImage(path: Self.imagePath, bounds: bounds, bearing: 90, opacity: 0.5))]),
                            name: "image-turned-90")
        let bare = Self.render(Self.scene(camera, []))
        // Turned a quarter about its centre: the box's wide top-left corner is now outside; the
        // centre's column above the box's top edge is inside.
        let nw = f.screenPoint(49, 3), c = (nw + f.screenPoint(45, 15)) / 2
        let halfW = c.x - nw.x, halfH = c.y - nw.y
        #expect(halfW > halfH + 20)
        let above = Point(x: c.x, y: c.y - (halfW + halfH) / 2)
        let off = Point(x: nw.x + 4, y: nw.y + 4)
        func blended(_ p: Point) -> Bool {
            let a = rgb(f.pixel(p)), b = rgb(bare.pixel(p))
            return abs(a.r - (b.r + 255) / 2) <= 3 && abs(a.g - b.g / 2) <= 3 && abs(a.b - (b.b + 255) / 2) <= 3
        }
        #expect(blended(above), "half magenta over the map above the box's centre")
        #expect(blended(c))
        #expect(f.pixel(off) == bare.pixel(off), "the turned image left the box's corner")
    }

    @Test func routeTravelledGreyAheadBlue() {
        let camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 9), zoom: 7)
        let pts = [Coordinate(latitude: 47, longitude: 6), Coordinate(latitude: 47, longitude: 9), Coordinate(latitude: 47.5, longitude: 12)]
        var scene = Self.scene(camera, [])
        let progress = RouteProgress.of(Coordinate(latitude: 47.05, longitude: 7.5), on: pts)!
        scene.route = RouteDrawing(points: pts, progress: progress)
        let f = Self.render(scene, name: "route")
        let grey = RGBColor(hex: ShapeStyle.routeTravelled.stroke!), blue = RGBColor(hex: ShapeStyle.route.stroke!)
        let before = f.screenPoint(47, 6.8), after = f.screenPoint(47, 8.3), later = f.screenPoint(47.25, 10.5)
        #expect(f.count(of: grey, around: before, radius: 2) == 25, "travelled part grey")
        #expect(f.count(of: blue, around: after, radius: 2) == 25, "the part ahead blue")
        #expect(f.count(of: blue, around: later, radius: 2) == 25)
        #expect(f.count(of: grey, around: after, radius: 2) == 0)
        // The casing under the edges: dark blue 5 px off the centre line ahead.
        // (the line's half width is 3.5 px, the casing's 5.5: a pixel whose centre is 4 to 5 px off)
        func casing(_ p: Point, _ color: UInt32) -> Bool {
            (Int(p.y) + 3...Int(p.y) + 6).contains { Double($0) + 0.5 - p.y >= 4 && Double($0) + 0.5 - p.y <= 5 && Self.close(f.pixel(Int(p.x), $0), RGBColor(hex: color), tolerance: 0) }
        }
        #expect(casing(after, 0x0B4DA2))
        #expect(casing(before, 0x5F6368))
        // The split point: grey just before, blue just after.
        let split = f.projection.point(for: progress.point)!
        #expect(f.count(of: grey, around: split + Point(x: -6, y: 0), radius: 1) == 9)
        #expect(f.count(of: blue, around: split + Point(x: 6, y: 0), radius: 1) == 9)
    }

    @Test func puckDotRingAccuracyAndCone() {
        let here = Coordinate(latitude: 47, longitude: 9)
        let camera = CameraPosition(target: here, zoom: 9, bearing: 40)
        var scene = Self.scene(camera, [])
        scene.puck = PuckDrawing(coordinate: here, heading: 40, accuracy: 10_000)
        let f = Self.render(scene, name: "puck")
        let bare = Self.render(Self.scene(camera, []))
        let c = f.screenPoint(47, 9)
        let blue = RGBColor(hex: 0x1A73E8)
        #expect(f.count(of: blue, around: c, radius: 5) == 121, "the blue dot")
        // The white ring from 9 to 12 px.
        for (dx, dy) in [(10.5, 0.0), (-11, 0), (0, 10.5), (0, -11)] {
            #expect(Self.close(f.pixel(c + Point(x: dx, y: dy)), RGBColor(r: 1, g: 1, b: 1), tolerance: 2), "ring at \(dx), \(dy)")
        }
        // Heading 40 on a map turned 40: the cone points straight up the screen.
        let up = c + Point(x: 0, y: -25), down = c + Point(x: 0, y: 25)
        #expect(rgb(f.pixel(up)).r < rgb(f.pixel(down)).r - 20, "the cone ahead")
        // The accuracy circle: 10 km on the ground, tinted blue inside, untouched outside.
        let rpx = 10_000 / Self.metresPerPixel(latitude: 47, zoom: 9)
        let inside = c + Point(x: -rpx * 0.7, y: rpx * 0.3), outside = c + Point(x: -rpx * 1.1, y: 0)
        #expect(rgb(f.pixel(inside)).r < rgb(bare.pixel(inside)).r - 20, "tinted inside")
        #expect(f.pixel(outside) == bare.pixel(outside), "untouched outside")
        // Its outline at the radius.
        let edge = c + Point(x: rpx, y: 0)
        var outline = false
        for dx in -2...2 where rgb(f.pixel(edge + Point(x: Double(dx), y: 0))).r < rgb(bare.pixel(edge + Point(x: Double(dx), y: 0))).r - 80 { outline = true }
        #expect(outline, "the accuracy outline")
    }

    @Test func clusterBubble() {
        let camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 9), zoom: 6)
        var scene = Self.scene(camera, [])
        scene.markers = [MarkerSprite(id: "c", coordinate: Coordinate(latitude: 47, longitude: 9), icon: .cluster(count: 42)),
                         MarkerSprite(id: "d", coordinate: Coordinate(latitude: 46, longitude: 12), icon: .cluster(count: 3))]
        let f = Self.render(scene, name: "cluster")
        let r = ClusterBubble.radius(count: 42)
        #expect(abs(r - (18 + 4 * log10(42))) < 1e-9)
        let c = f.screenPoint(47, 9)
        let amber = ClusterBubble.color(count: 42)
        // Fill near the edge (blended at 0.92 over the map), the white border at the radius,
        // white text at the centre.
        let fillAt = c + Point(x: 0, y: r - 6)
        #expect(Self.close(f.pixel(fillAt), amber, tolerance: 24), "fill \(String(f.pixel(fillAt), radix: 16))")
        #expect(Self.close(f.pixel(c + Point(x: r, y: 0)), RGBColor(r: 1, g: 1, b: 1), tolerance: 30), "border")
        var white = 0
        for dy in -6...6 { for dx in -10...10 where Self.close(f.pixel(c + Point(x: Double(dx), y: Double(dy))), RGBColor(r: 1, g: 1, b: 1), tolerance: 20) { white += 1 } }
        #expect(white >= 15, "the count's text")
        #expect(!Self.close(f.pixel(c + Point(x: r + 4, y: 0)), amber, tolerance: 24), "nothing beyond")
        let d = f.screenPoint(46, 12)
        #expect(Self.close(f.pixel(d + Point(x: 0, y: ClusterBubble.radius(count: 3) - 6)), ClusterBubble.color(count: 3), tolerance: 24))
    }

    /// A scene with every kind of shape, the route, the puck and markers over Europe.
    static func everything(_ camera: CameraPosition) -> MapScene {
        var scene = MapScene(camera: camera, markers: [MarkerSprite(id: "m", coordinate: Coordinate(latitude: 48, longitude: 10)),
                                                       MarkerSprite(id: "c", coordinate: Coordinate(latitude: 46, longitude: 7), icon: .cluster(count: 250))])
        scene.overlays = [
            Overlay(id: "a", shapes: [
                OverlayShape(geometry: .polygon([[Coordinate(latitude: 45, longitude: 4), Coordinate(latitude: 45, longitude: 9),
                                                  Coordinate(latitude: 49, longitude: 9), Coordinate(latitude: 49, longitude: 4)]]),
                             style: ShapeStyle(stroke: 0x3366CC, strokeWidth: 3, fill: 0x3366CC, fillOpacity: 0.3)),
                OverlayShape(geometry: .circle(center: Coordinate(latitude: 49, longitude: 13), radius: 120_000),
                             style: ShapeStyle(stroke: 0xAA0000, strokeWidth: 2, fill: 0xFF0000, fillOpacity: 0.25)),
            ]),
            Overlay(id: "b", shapes: [
                OverlayShape(geometry: .polyline(europeZigzag), style: ShapeStyle(stroke: 0xFF00FF, strokeWidth: 5, strokeOpacity: 0.7, fill: nil,
                                                                            dash: [16, 8], casing: 0x440044, casingWidth: 1.5)),
                OverlayShape(geometry: .groundImage(path: imagePath, bounds: CoordinateBounds(west: 10, south: 44, east: 13, north: 45.5),
                                                    bearing: 15, opacity: 0.6)),
            ]),
        ]
        let route = [Coordinate(latitude: 44, longitude: 2), Coordinate(latitude: 46, longitude: 6), Coordinate(latitude: 47.5, longitude: 9),
                     Coordinate(latitude: 50, longitude: 14)]
        scene.route = RouteDrawing(points: route, progress: RouteProgress.of(Coordinate(latitude: 46.5, longitude: 7), on: route))
        scene.puck = PuckDrawing(coordinate: Coordinate(latitude: 47.2, longitude: 9.4), heading: 60, accuracy: 40_000)
        return scene
    }

    @Test func panFramesThroughTheOverlayLayerShowWhatTheDirectPathDraws() {
        // A camera on whole world pixels, so the layer's whole-pixel copy and the direct frame
        // put everything at the same place.
        let zoom = 6.0
        let centre = WebMercator.worldPoint(Coordinate(latitude: 47.5, longitude: 9), zoom: zoom)
        func camera(_ dx: Double, _ dy: Double) -> CameraPosition {
            CameraPosition(target: WebMercator.coordinate(world: Point(x: centre.x.rounded() + dx, y: centre.y.rounded() + dy), zoom: zoom), zoom: zoom)
        }
        let layered = MapRenderer()
        let start = Self.everything(camera(60, -40))
        let frame = OwnedFrameBuffer(width: Self.w, height: Self.h)
        layered.render(start, into: frame.buffer)
        #expect(layered.lastFrameKind == .cacheRebuilt && layered.overlayBuilds == 1)
        var scene = start
        for i in 1...20 {
            scene.camera = camera(60 - Double(i * 3), -40 + Double(i * 2))
            layered.render(scene, into: frame.buffer, quality: .interactive)
        }
        #expect(layered.overlayBuilds == 1, "pan frames copy the layer")
        #expect(layered.shapePreparations == 1, "and make no shapes again")
        let builds = layered.overlayBuilds
        let direct = MapRenderer()
        direct.usesOverlayLayer = false
        let d = Self.render(scene, name: "layer-direct", renderer: direct)
        try? FileManager.default.createDirectory(atPath: "/tmp/render-shapes", withIntermediateDirectories: true)
        try? frame.buffer.writePNG(to: "/tmp/render-shapes/layer-pan.png")
        #expect(layered.overlayBuilds == builds)
        var differ = 0, worst = 0
        for y in 0..<Self.h { for x in 0..<Self.w {
            let a = rgb(frame.buffer.pixel(x: x, y: y)), b = rgb(d.buffer.pixel(x: x, y: y))
            let e = max(abs(a.r - b.r), abs(a.g - b.g), abs(a.b - b.b))
            if e > 0 { differ += 1; worst = max(worst, e) }
        } }
        // The chunks' clipping changes no drawn pixel: the same bytes.
        #expect(differ == 0, "\(differ) pixels differ, by up to \(worst)")
        // The shapes are there at all (the comparison can fail).
        let bare = Self.render(MapScene(camera: scene.camera), renderer: direct)
        var changed = 0
        for y in stride(from: 0, to: Self.h, by: 4) { for x in stride(from: 0, to: Self.w, by: 4) where bare.pixel(x, y) != d.pixel(x, y) { changed += 1 } }
        #expect(changed > 2000)
        // A changed overlay draws the layer again.
        scene.overlays.removeLast()
        layered.render(scene, into: frame.buffer, quality: .interactive)
        #expect(layered.overlayBuilds == builds + 1)
    }

    @Test(arguments: [(0.0, 0.0, "everything-flat"), (30.0, 0.0, "everything-turned"), (20.0, 55.0, "everything-tilted")])
    func everythingDrawsAtAnyCamera(bearing: Double, tilt: Double, name: String) {
        let camera = CameraPosition(target: Coordinate(latitude: 47.5, longitude: 9), zoom: 5.5, bearing: bearing, tilt: tilt)
        let f = Self.render(Self.everything(camera), name: name)
        // The puck's dot where the Projection puts it.
        let p = f.screenPoint(47.2, 9.4)
        #expect(f.count(of: RGBColor(hex: 0x1A73E8), around: p, radius: 4) == 81)
    }
}
