import CCairo
import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering
import VectorTiles

/// The street map's lines drawn by `LineRasterizer` (dashes cut, butt ends trimmed, opacity as
/// coverage), and the street map drawn in bands on both cores.
@Suite struct StreetLinesTests {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)

    static func frame(_ scene: MapScene, bands: Int = 1, cairoLines: Bool = false, cache: Bool = false,
                      quality: MapRenderer.Quality = .final, width: Int = 640, height: Int = 480) -> (OwnedFrameBuffer, MapRenderer) {
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let r = MapRenderer(vector: opened.vector)
        r.bands = bands
        r.rasterizesStreetLines = !cairoLines
        r.usesBaseMapCache = cache
        let f = OwnedFrameBuffer(width: width, height: height)
        r.render(scene, into: f.buffer, quality: quality)
        return (f, r)
    }

    /// Pixels whose largest channel difference exceeds `levels`.
    static func differing(_ a: FrameBuffer, _ b: FrameBuffer, by levels: Int = 0) -> Int {
        var n = 0
        for y in 0..<a.height { for x in 0..<a.width {
            let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
            var d = 0
            for s in [0, 8, 16] { d = max(d, abs(Int((p >> UInt32(s)) & 0xff) - Int((q >> UInt32(s)) & 0xff))) }
            if d > levels { n += 1 }
        } }
        return n
    }

    // MARK: dashes

    @Test func aDashPatternCutsALineIntoItsDashes() {
        // A 20 px line, dashes 4 on 2 off: on at 0-4, 6-10, 12-16, 18-20.
        let d = LineRasterizer.dashed([0, 0, 20, 0], pattern: [4, 2], trim: 0)
        #expect(d == [0, 0, 4, 0, 6, 0, 10, 0, 12, 0, 16, 0, 18, 0, 20, 0])
    }

    @Test func thePatternRunsOnRoundACornerAndStartsAfreshOnANewLine() {
        // A line of two segments (10 px right, then 10 px down) and a separate 5 px line.
        let seg: [Double] = [0, 0, 10, 0, 10, 0, 10, 10, 50, 0, 55, 0]
        let d = LineRasterizer.dashed(seg, pattern: [6, 2], trim: 0)
        // Dash 0-6, gap 6-8, dash 8-14 round the corner (joined pieces 8..10 and 10..14), gap,
        // dash 16-20 to the end; the new line starts with a dash: 0-5.
        #expect(d == [0, 0, 6, 0,
                      8, 0, 10, 0, 10, 0, 10, 4,
                      10, 6, 10, 10,
                      50, 0, 55, 0])
    }

    @Test func buttEndsTrimHalfTheWidthAndATinyDashBecomesADot() {
        #expect(LineRasterizer.dashed([0, 0, 20, 0], pattern: [], trim: 1) == [1, 0, 19, 0])
        // Dashes of 1 px with a 2 px wide line: each becomes a dot at its middle.
        #expect(LineRasterizer.dashed([0, 0, 4, 0], pattern: [1, 1], trim: 1) == [0.5, 0, 0.5, 0, 2.5, 0, 2.5, 0])
        // No dashes and no trim: the segments as they are.
        #expect(LineRasterizer.dashed([0, 0, 3, 4], pattern: [], trim: 0) == [0, 0, 3, 4])
    }

    @Test func aClosedPathEndsWithTheSegmentBackToItsStart() throws {
        // A building's outline comes from its fill path, whose rings are closed.
        let surface = try #require(cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1))
        let cr = try #require(cairo_create(surface))
        defer { cairo_destroy(cr); cairo_surface_destroy(surface) }
        cairo_move_to(cr, 0, 0); cairo_line_to(cr, 10, 0); cairo_line_to(cr, 10, 10); cairo_close_path(cr)
        cairo_move_to(cr, 20, 20); cairo_line_to(cr, 30, 20)
        let path = try #require(cairo_copy_path(cr))
        defer { cairo_path_destroy(path) }
        #expect(LineRasterizer.segments(of: path) == [0, 0, 10, 0, 10, 0, 10, 10, 10, 10, 0, 0, 20, 20, 30, 20])
    }

    @Test func opacityScalesTheCoverage() {
        let f = OwnedFrameBuffer(width: 20, height: 10)
        LineRasterizer.stroke([0, 5, 20, 5], lineWidth: 4, color: RGBColor(r: 1, g: 1, b: 1), alpha: 0.5, antialias: true,
                              pixels: f.buffer.pixels, stride: f.buffer.stride, width: 20, rows: 0..<10)
        // The line's middle row, white at half opacity over black: 128 (cairo rounds alike).
        let mid = f.buffer.pixel(x: 10, y: 5) & 0xff
        #expect(mid >= 126 && mid <= 129, "\(mid)")
        #expect(f.buffer.pixel(x: 10, y: 0) & 0xffffff == 0)
    }

    // MARK: the street map

    /// The rasterized lines against cairo's strokes over Vaduz, flat and tilted: the same map
    /// (a road or a dashed path left out, or drawn in the wrong place, makes thousands of
    /// pixels differ by far more), with the edges of lines a few levels apart.
    @Test(arguments: [(15.5, 0.0, 0.0), (16.5, 30.0, 0.0), (15.5, 30.0, 50.0), (13.5, 0.0, 0.0)])
    func rasterizedLinesMatchCairosStrokes(zoom: Double, bearing: Double, tilt: Double) {
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: zoom, bearing: bearing, tilt: tilt))
        let (ours, _) = Self.frame(scene)
        let (cairo, _) = Self.frame(scene, cairoLines: true)
        let total = 640 * 480
        let anyDiff = Self.differing(ours.buffer, cairo.buffer)
        let far = Self.differing(ours.buffer, cairo.buffer, by: 64)
        #expect(anyDiff > 0, "the two ways of drawing lines are not the same code")
        #expect(Double(far) / Double(total) < 0.001, "\(far) pixels differ by more than 64 levels")
        #expect(Double(Self.differing(ours.buffer, cairo.buffer, by: 24)) / Double(total) < 0.01)
    }

    @Test func aLineLeftOutIsSeen() {
        // The comparison above can fail: the map without its line layers differs widely.
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 15.5))
        let (ours, _) = Self.frame(scene)
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        var style = MapRenderer(vector: opened.vector).streetStyle
        style.layers.removeAll { $0.id == "road-minor" }
        let r = MapRenderer(vector: opened.vector, streetStyle: style)
        r.bands = 1
        r.usesBaseMapCache = false
        let f = OwnedFrameBuffer(width: 640, height: 480)
        r.render(scene, into: f.buffer)
        #expect(Double(Self.differing(ours.buffer, f.buffer, by: 64)) / Double(640 * 480) > 0.005)
    }

    /// Bands on several threads draw the single-threaded street frame, byte for byte.
    @Test(arguments: [(15.5, 0.0, 0.0), (15.5, 30.0, 0.0), (15.5, 30.0, 55.0), (12.0, 0.0, 0.0)])
    func bandsDrawTheSingleThreadedStreetFrame(zoom: Double, bearing: Double, tilt: Double) {
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: zoom, bearing: bearing, tilt: tilt))
        let (one, r1) = Self.frame(scene, bands: 1)
        #expect(!r1.paintsBaseInParallel)
        for n in [2, 3, 4] {
            let (banded, r) = Self.frame(scene, bands: n)
            #expect(r.paintsBaseInParallel)
            #expect(Self.differing(one.buffer, banded.buffer) == 0, "\(n) bands")
        }
        // Interactive frames (no antialiasing) too.
        let (a, _) = Self.frame(scene, bands: 1, quality: .interactive)
        let (b, _) = Self.frame(scene, bands: 4, quality: .interactive)
        #expect(Self.differing(a.buffer, b.buffer) == 0)
    }

    /// Bands split the rows by estimated work: lines crowded into the top of the view move the
    /// cut up; without lines the rows are shared equally.
    @Test func bandsShareTheWorkNotTheRows() {
        let empty = StreetMapPainter.Layers(antialias: true)
        #expect(empty.bandWork(width: 1000, height: 1000).cuts(bands: 2) == [0, 500, 1000])
        #expect(empty.bandWork(width: 1000, height: 1000).cuts(bands: 4) == [0, 250, 500, 750, 1000])
        let crowded = StreetMapPainter.Layers(antialias: true)
        var seg: [Double] = []
        for y in stride(from: 10.0, to: 200, by: 4) { seg += [0, y, 1000, y] }   // 48 lines across the top fifth
        crowded.ops.append(.lines(seg, pieces: LinePieces(segments: seg), width: 3, color: StyleColor(r: 1, g: 1, b: 1), cap: nil, join: nil, dash: []))
        let cuts = crowded.bandWork(width: 1000, height: 1000).cuts(bands: 2)
        #expect(cuts.count == 3 && cuts[0] == 0 && cuts[2] == 1000)
        #expect(cuts[1] > 10 && cuts[1] < 300, "\(cuts)")
        let many = crowded.bandWork(width: 1000, height: 5).cuts(bands: 7)
        #expect(many.count == 8 && many.first == 0 && many.last == 5 && zip(many, many.dropFirst()).allSatisfy { $0 <= $1 })
    }

    /// Layers built on both cores, the longest of the last frame first (the second build
    /// knows each layer's time), are the layers built one after the other in the style's order;
    /// their line work, summed from each layer's, is the work of all their lines at once.
    @Test func layersBuiltLongestFirstAreTheLayersInOrder() {
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let r = MapRenderer(vector: opened.vector)
        let camera = CameraPosition(target: Self.vaduz, zoom: 15.5, bearing: 30, tilt: 50)
        let view = GroundView(projection: Projection(camera: camera, screen: Size(width: 960, height: 540)))
        func built(parallel: Bool) -> StreetMapPainter.Layers {
            r.streetPainter(opened.vector!, view: view, zoom: camera.zoom, antialias: true).layers(view: view, zoom: camera.zoom, parallel: parallel)
        }
        func lines(_ l: StreetMapPainter.Layers) -> [[Double]] {
            l.ops.compactMap { if case let .lines(_, pieces?, w, _, _, _, _) = $0 { return [w] + pieces.segments } else { return nil } }
        }
        let serial = built(parallel: false)
        #expect(serial.lineWork == nil)
        _ = built(parallel: true)
        let ordered = built(parallel: true)
        #expect(serial.ops.count == ordered.ops.count)
        #expect(lines(serial) == lines(ordered))
        #expect(lines(serial).count > 5)
        let summed = ordered.bandWork(width: 960, height: 540).rowCosts(), whole = StreetMapPainter.Layers.lineWork(ordered.ops, width: 960, height: 540).rowCosts()
        #expect(ordered.lineWork != nil && summed.count == 540)
        #expect(zip(summed, whole).allSatisfy { abs($0 - $1) <= 1e-9 * max(1, abs($1)) })
        #expect(summed.max()! > 2 * summed.min()!, "the lines' work is not even over the rows")
    }

    @Test func theCachedStreetMapIsBuiltInBandsToo() {
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 15.5))
        let (one, r1) = Self.frame(scene, bands: 1, cache: true)
        let (two, r2) = Self.frame(scene, bands: 2, cache: true)
        #expect(r1.lastFrameKind == .cacheRebuilt && r2.lastFrameKind == .cacheRebuilt)
        #expect(Self.differing(one.buffer, two.buffer) == 0)
    }

    /// The styled features kept per tile and zoom (`StreetLayerCache`): frames drawn by a
    /// renderer that drew other views at the same zoom before (a pan, a tilt, a turn: the
    /// features come from its cache) are the frames a fresh renderer draws, byte for byte;
    /// after a zoom change too (the cache starts afresh).
    @Test func framesFromTheStyledFeatureCacheMatchFreshFrames() {
        let start = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 15.5))
        let east = WebMercator.coordinate(world: WebMercator.worldPoint(Self.vaduz, zoom: 15.5) + Point(x: 300, y: 120), zoom: 15.5)
        let later = [
            MapScene(camera: CameraPosition(target: east, zoom: 15.5)),
            MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 15.5, bearing: 30, tilt: 50)),
            MapScene(camera: CameraPosition(target: east, zoom: 15.5, bearing: 135)),
            MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 16.5)),
            MapScene(camera: CameraPosition(target: east, zoom: 15.5, bearing: 10, tilt: 40)),
        ]
        let (_, warm) = Self.frame(start, bands: 2)
        let f = OwnedFrameBuffer(width: 640, height: 480)
        for scene in later {
            warm.render(scene, into: f.buffer)
            let (fresh, _) = Self.frame(scene, bands: 2)
            #expect(Self.differing(f.buffer, fresh.buffer) == 0, "\(scene.camera)")
        }
        #expect(warm.streetLayerCache.keptTiles > 0, "the cache was used")
    }

    /// Inside the extract the street map's opaque background hides the built-in world, which
    /// is then not drawn; a view reaching past the extract's bounds draws it.
    @Test func theWorldIsDrawnOnlyWhereTheStreetMapLeavesItVisible() {
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let r = MapRenderer(vector: opened.vector)
        func view(_ zoom: Double, tilt: Double = 0) -> GroundView {
            GroundView(projection: Projection(camera: CameraPosition(target: Self.vaduz, zoom: zoom, tilt: tilt), screen: Size(width: 1920, height: 1080)))
        }
        #expect(r.streetMapCovers(view: view(15.5), zoom: 15.5))
        #expect(r.streetMapCovers(view: view(15.5, tilt: 50), zoom: 15.5))
        #expect(!r.streetMapCovers(view: view(10), zoom: 10), "the view reaches Switzerland and Austria")
        #expect(!MapRenderer().streetMapCovers(view: view(15.5), zoom: 15.5), "no street map")
        // A translucent background shows the world through it.
        var style = r.streetStyle
        for i in style.layers.indices where style.layers[i].type == .background {
            style.layers[i].properties["background-opacity"] = .literal(.number(0.5))
        }
        #expect(!MapRenderer(vector: opened.vector, streetStyle: style).streetMapCovers(view: view(15.5), zoom: 15.5))
    }

    // MARK: street labels

    /// Street labels come from haloed sprites as place names do: the frame is the one the
    /// nine pango runs draw, up to 8-bit rounding, and a second frame makes no new sprite.
    @Test func streetLabelsComeFromSpritesMadeOnce() {
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 15.5))
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let runs = MapRenderer(vector: opened.vector)
        runs.textRenderer.usesLabelSprites = false
        runs.usesBaseMapCache = false
        let a = OwnedFrameBuffer(width: 640, height: 480)
        runs.render(scene, into: a.buffer)
        #expect(runs.textRenderer.sprites.made == 0)
        let (b, r) = Self.frame(scene)
        #expect(!r.streetLabels.isEmpty)
        let made = r.textRenderer.sprites.made
        // Names along roads come from glyph sprites (LineLabelTests); the others from label sprites.
        let pointLabels = r.streetLabels.filter { $0.glyphs.isEmpty }.count
        #expect(made >= pointLabels / 2, "\(made) sprites for \(pointLabels) labels")
        #expect(Self.differing(a.buffer, b.buffer, by: 4) == 0, "sprites and runs differ by more than 4 levels")
        #expect(Self.differing(a.buffer, b.buffer) > 0, "the two ways of drawing are not the same code")
        r.render(scene, into: b.buffer)
        #expect(r.textRenderer.sprites.made == made, "the second frame makes no sprite")
    }
}
