import CCairo
import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// A polygon's fill and outline drawn in one pass (`ShapePainter.fillAndStroke`: each row of
/// the fill blended just before the outline's blend in that row) give the bytes of the fill
/// drawn whole and then the outline (`AreaRasterizer.fill(cr:)`, `ShapePainter.rasterize`).
@Suite struct FusedOutlineTests {
    /// A fixed sequence in 0..<1 (xorshift).
    struct Numbers {
        var x: UInt64
        mutating func next() -> Double { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return Double(x % 1_000_000) / 1_000_000 }
    }

    /// An n-gon about (cx, cy), its radius varying by vertex; with a hole of half its size
    /// when asked.
    static func polygon(_ r: inout Numbers, cx: Double, cy: Double, radius: Double, hole: Bool) -> [[Double]] {
        let n = 3 + Int(r.next() * 10)
        let outer = (0..<n).flatMap { k -> [Double] in
            let a = Double(k) / Double(n) * 2 * .pi, s = radius * (0.6 + 0.4 * r.next())
            return [cx + s * cos(a), cy + s * sin(a)]
        }
        guard hole else { return [outer] }
        return [outer, (0..<6).flatMap { k -> [Double] in
            let a = Double(k) / 6 * 2 * .pi
            return [cx + radius * 0.3 * cos(a), cy + radius * 0.3 * sin(a)]
        }]
    }

    /// The outline segments of rings (each closed), as `lineLayers` gives a polygon's.
    static func outline(_ rings: [[Double]]) -> [Double] {
        var seg: [Double] = []
        for ring in rings {
            let n = ring.count / 2
            for i in 0..<n {
                let j = (i + 1) % n
                seg += [ring[2 * i], ring[2 * i + 1], ring[2 * j], ring[2 * j + 1]]
            }
        }
        return seg
    }

    /// Draws on a 200 x 160 canvas moved by (tx, ty) whole pixels and clipped to `clip`.
    static func canvas(tx: Double, ty: Double, clip: (Double, Double, Double, Double), _ draw: (OpaquePointer) -> Void) -> [UInt32] {
        AreaRasterizerTests.canvas(200, 160) { cr in
            cairo_rectangle(cr, clip.0, clip.1, clip.2, clip.3)
            cairo_clip(cr)
            cairo_translate(cr, tx, ty)
            draw(cr)
        }
    }

    @Test func oneSmallPolygonPassGivesTheTwoPassBytes() {
        var r = Numbers(x: 0x9E37_79B9_7F4A_7C15)
        var fused = 0
        for i in 0..<300 {
            // Centres on and off the canvas, radii from 2 to 60 px, holes, clips cutting through.
            let rings = Self.polygon(&r, cx: -20 + 240 * r.next(), cy: -20 + 200 * r.next(), radius: 2 + 58 * r.next(), hole: i % 5 == 0)
            let width = [0.5, 1, 1.5, 3, 6.5][i % 5]
            let layer = LineRasterizer.Layer(segments: Self.outline(rings), lineWidth: width, color: RGBColor(hex: 0xE53935),
                                             alpha: i % 3 == 0 ? 1 : 0.6)
            let fill = RGBColor(hex: [0x1E88E5, 0x43A047, 0xFB8C00][i % 3]), fillAlpha = [0.35, 1, 0.8][i % 3]
            let tx = Double(Int(r.next() * 20) - 10), ty = Double(Int(r.next() * 20) - 10)
            let top = Double(Int(r.next() * 100))
            let clip = (Double(Int(r.next() * 40)), top, 200.0, Double(20 + Int(r.next() * 100)))
            var drawn = false
            let one = Self.canvas(tx: tx, ty: ty, clip: clip) { cr in
                drawn = ShapePainter.fillAndStroke(rings, fill: fill, fillAlpha: fillAlpha, outline: layer, cr: cr)
            }
            let two = Self.canvas(tx: tx, ty: ty, clip: clip) { cr in
                #expect(AreaRasterizer.fill(rings, cr: cr, color: fill, alpha: fillAlpha, evenOdd: true))
                #expect(ShapePainter.rasterize(layers: [layer], cr: cr))
            }
            if drawn {
                fused += 1
                let same = one == two
                #expect(same, "polygon \(i): \(AreaRasterizerTests.compare(one, two, levels: 0))")
            } else {
                let blank = one == AreaRasterizerTests.canvas(200, 160) { _ in }
                #expect(blank, "polygon \(i) declined but drew")
            }
        }
        // Only outlines of many segments over many rows are declined.
        #expect(fused >= 280, "\(fused) of 300 drawn in one pass")
    }

    /// What it does not draw it leaves to the two passes, drawing nothing: a tapered outline,
    /// a long one over many rows, a target cairo must draw.
    @Test func itDeclinesWithoutDrawing() {
        let rings = [[20.0, 20, 120, 25, 90, 130]]
        let blank = AreaRasterizerTests.canvas(200, 160) { _ in }
        /// Whether fillAndStroke drew (its answer), and whether the canvas changed.
        func attempt(_ rings: [[Double]], _ layer: LineRasterizer.Layer, scale: Double = 1) -> (Bool, Bool) {
            var answer = false
            let px = AreaRasterizerTests.canvas(200, 160) { cr in
                cairo_scale(cr, scale, scale)
                answer = ShapePainter.fillAndStroke(rings, fill: RGBColor(hex: 0x1E88E5), fillAlpha: 0.35, outline: layer, cr: cr)
            }
            return (answer, px != blank)
        }
        let tapered = LineRasterizer.Layer(segments: Self.outline(rings), endWidths: [1, 3, 1, 3, 1, 3], lineWidth: 2, color: RGBColor(hex: 0xE53935))
        #expect(attempt(rings, tapered) == (false, false))
        // A 400-gon 150 rows tall: 400 segments x 5 chunks of rows.
        let round = [(0..<400).flatMap { k -> [Double] in let a = Double(k) / 400 * 2 * .pi; return [100 + 90 * cos(a), 80 + 75 * sin(a)] }]
        let long = LineRasterizer.Layer(segments: Self.outline(round), lineWidth: 1.5, color: RGBColor(hex: 0xE53935))
        #expect(400 * 5 > ShapePainter.fusedWork)
        #expect(attempt(round, long) == (false, false))
        // Scaled: not a whole-pixel translation (cairo draws it).
        let thin = LineRasterizer.Layer(segments: Self.outline(rings), lineWidth: 1.5, color: RGBColor(hex: 0xE53935))
        #expect(attempt(rings, thin, scale: 1.5) == (false, false))
        // And the same outline unscaled is drawn.
        #expect(attempt(rings, thin) == (true, true))
    }

    /// Rings no fill here can take (not finite, beyond `AreaRasterizer.maxCoordinate`, wider
    /// than 65,536 px: a polygon projected near a tilted view's horizon) are declined before any
    /// Int conversion, with nothing drawn: the caller gives them to cairo. Never a trap.
    @Test func hostileRingsAreDeclinedWithoutATrap() {
        let blank = AreaRasterizerTests.canvas(200, 160) { _ in }
        for ring in [[-1e300, 10, 1e300, 10, 50, 90], [10, 10, .infinity, 10, 50, 90], [10, 10, .nan, 10, 50, 90],
                     [10, -2e6, 90, 10, 50, 9e18], [-999_999, 10, 999_999, 20, 0, 150]] {
            let layer = LineRasterizer.Layer(segments: Self.outline([ring]), lineWidth: 1.5, color: RGBColor(hex: 0xE53935))
            var answer = true
            let px = AreaRasterizerTests.canvas(200, 160) { cr in
                answer = ShapePainter.fillAndStroke([ring], fill: RGBColor(hex: 0x1E88E5), fillAlpha: 0.35, outline: layer, cr: cr)
            }
            #expect(!answer, "\(ring)")
            let untouched = px == blank
            #expect(untouched, "\(ring) drew")
        }
    }

    /// A frame of translucent polygons with outlines (and a circle, a line, pins), flat and
    /// turned, in one band and in several: the same bytes drawn with and without the one-pass
    /// fill and outline.
    @Test(arguments: [0.0, 25.0])
    func aFrameIsTheSameWithAndWithoutTheOnePass(bearing: Double) {
        var scene = ShapeBandCutsTests.scene()
        scene.camera.bearing = bearing
        scene.overlays[0].shapes.append(OverlayShape(geometry: .circle(center: Coordinate(latitude: 49, longitude: 12), radius: 60_000),
                                                     style: ShapeStyle(stroke: 0x6A1B9A, strokeWidth: 2, fill: 0xAB47BC, fillOpacity: 0.4)))
        func frame(bands: Int, fuses: Bool) -> OwnedFrameBuffer {
            let r = MapRenderer()
            r.bands = bands
            r.usesBaseMapCache = false
            r.fusesOutlines = fuses
            let f = OwnedFrameBuffer(width: 640, height: 480)
            r.render(scene, into: f.buffer)
            return f
        }
        for bands in [1, 2] {
            let one = frame(bands: bands, fuses: true), two = frame(bands: bands, fuses: false)
            #expect(ParallelBandsTests.differing(one.buffer, two.buffer) == 0, "bearing \(bearing), \(bands) bands")
        }
    }
}
