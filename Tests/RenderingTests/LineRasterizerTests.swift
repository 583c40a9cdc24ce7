import CCairo
import Foundation
import Testing
@testable import Rendering

/// The thin-line rasterizer that draws rivers and borders: the same lines as cairo's stroke
/// (width, position, ink), any split of rows gives the same bytes, and bad coordinates are
/// skipped.
@Suite struct LineRasterizerTests {
    static let background: UInt32 = 0xff20_4060
    static let color = RGBColor(r: 0.9, g: 0.6, b: 0.3)

    final class Canvas {
        let w: Int, h: Int
        let pixels: UnsafeMutablePointer<UInt32>
        init(_ w: Int, _ h: Int) {
            self.w = w; self.h = h
            pixels = .allocate(capacity: w * h)
            pixels.initialize(repeating: LineRasterizerTests.background, count: w * h)
        }
        deinit { pixels.deallocate() }
        subscript(x: Int, y: Int) -> UInt32 { pixels[y * w + x] & 0xffffff }
        /// How far towards the line colour a pixel is, 0...1 (by its red channel).
        func coverage(_ x: Int, _ y: Int) -> Double {
            let r = Double((self[x, y] >> 16) & 0xff), r0 = Double((background >> 16) & 0xff)
            return (r - r0) / (Double(LineRasterizer.pixel(color).r) - r0)
        }
        var ink: Double { var s = 0.0; for y in 0..<h { for x in 0..<w { s += coverage(x, y) } }; return s }
    }

    static func rasterized(_ seg: [Double], width lw: Double, w: Int = 64, h: Int = 64, rows: [Range<Int>]? = nil,
                           antialias: Bool = true) -> Canvas {
        let c = Canvas(w, h)
        for r in rows ?? [0..<h] {
            LineRasterizer.stroke(seg, lineWidth: lw, color: color, antialias: antialias, pixels: UnsafeMutableRawPointer(c.pixels),
                                  stride: w * 4, width: w, rows: r)
        }
        return c
    }

    static func cairoStroked(_ seg: [Double], width lw: Double, w: Int = 64, h: Int = 64) -> Canvas {
        let c = Canvas(w, h)
        let s = cairo_image_surface_create_for_data(UnsafeMutableRawPointer(c.pixels).assumingMemoryBound(to: UInt8.self),
                                                    CAIRO_FORMAT_RGB24, Int32(w), Int32(h), Int32(w * 4))!
        let cr = cairo_create(s)!
        for k in 0..<seg.count / 4 {
            // A segment that starts where the one before ended continues its line (a joint).
            if k == 0 || seg[4 * k] != seg[4 * k - 2] || seg[4 * k + 1] != seg[4 * k - 1] { cairo_move_to(cr, seg[4 * k], seg[4 * k + 1]) }
            cairo_line_to(cr, seg[4 * k + 2], seg[4 * k + 3])
        }
        cairo_set_source_rgb(cr, color.r, color.g, color.b)
        cairo_set_line_width(cr, lw)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_stroke(cr)
        cairo_destroy(cr)
        cairo_surface_flush(s)
        cairo_surface_destroy(s)
        return c
    }

    @Test func aLineThroughPixelCentresCoversItsRowAndATenthBeside() {
        let c = Self.rasterized([4, 20.5, 60, 20.5], width: 1.2)
        let k = Self.cairoStroked([4, 20.5, 60, 20.5], width: 1.2)
        for x in 10..<50 {
            #expect(c[x, 20] == k[x, 20])
            #expect(abs(c.coverage(x, 19) - 0.1) < 0.01 && abs(c.coverage(x, 21) - 0.1) < 0.01)
            #expect(abs(c.coverage(x, 19) - k.coverage(x, 19)) < 0.05)   // cairo: 2 of 15 sub-rows
            #expect(c[x, 17] == Self.background & 0xffffff && c[x, 23] == Self.background & 0xffffff)
        }
    }

    @Test func aLineOnAPixelEdgeSplitsBetweenTheTwoRows() {
        let c = Self.rasterized([20, 4, 20, 60], width: 1.2)
        for y in 10..<50 {
            #expect(abs(c.coverage(19, y) - 0.6) < 0.01 && abs(c.coverage(20, y) - 0.6) < 0.01)
            #expect(c.coverage(18, y) == 0 && c.coverage(21, y) == 0)
        }
    }

    /// Diagonal and crooked lines carry the ink cairo's stroke gives them (within 6 %), in the
    /// same places (no pixel more than 0.3 of full coverage apart: a box filter across the line against cairo's area coverage; away from the line's
    /// two ends, which are round here and butt in cairo).
    @Test(arguments: [1.0, 1.2, 1.5])
    func inkAndPlaceMatchCairosStroke(width lw: Double) {
        let lines: [[Double]] = [
            [3.3, 5.1, 58.7, 49.9],
            [10, 60, 30.25, 8.5, 30.25, 8.5, 55.5, 40.1],                 // a joint
            [5, 30, 20, 31.3, 20, 31.3, 35, 29.8, 35, 29.8, 50, 33],      // a gently crooked line
        ]
        for seg in lines {
            let c = Self.rasterized(seg, width: lw), k = Self.cairoStroked(seg, width: lw)
            #expect(abs(c.ink - k.ink) / k.ink < 0.06, "ink \(c.ink) against cairo's \(k.ink)")
            let ends = [(seg[0], seg[1]), (seg[seg.count - 2], seg[seg.count - 1])]
            var worst = 0.0
            for y in 0..<64 { for x in 0..<64 {
                let nearEnd = ends.contains { hypot(Double(x) + 0.5 - $0.0, Double(y) + 0.5 - $0.1) < 1.6 }
                if !nearEnd { worst = max(worst, abs(c.coverage(x, y) - k.coverage(x, y))) }
            } }
            #expect(worst < 0.3, "largest coverage difference \(worst)")
        }
    }

    /// Bands: rows drawn in any split give the frame drawn at once, byte for byte.
    @Test func anySplitOfRowsGivesTheSameBytes() {
        var seg: [Double] = []
        var g = SystemRandomNumberGenerator()
        for _ in 0..<300 {
            seg += [Double.random(in: -20...150, using: &g), Double.random(in: -20...140, using: &g),
                    Double.random(in: -20...150, using: &g), Double.random(in: -20...140, using: &g)]
        }
        let whole = Self.rasterized(seg, width: 1.5, w: 128, h: 120)
        for split in [[0..<1, 1..<33, 33..<64, 64..<120], [0..<60, 60..<120], [0..<31, 31..<97, 97..<120]] {
            let banded = Self.rasterized(seg, width: 1.5, w: 128, h: 120, rows: split)
            let same = withExtendedLifetime((whole, banded)) { memcmp(whole.pixels, banded.pixels, 128 * 120 * 4) == 0 }
            #expect(same)
        }
    }

    /// The brute-force reference of both pixel tests: the distance from (px, py) to the segment
    /// a-b and half the line's width at the pixel's foot on it (h0 at a, h1 at b, linear between;
    /// an end's past that end; ends under 1/16 px apart taken at their mean, as documented).
    static func footDistance(_ px: Double, _ py: Double, a: (Double, Double), b: (Double, Double), h0: Double, h1: Double) -> (d: Double, h: Double) {
        let (h0, h1) = abs(h0 - h1) < 1.0 / 16 ? ((h0 + h1) / 2, (h0 + h1) / 2) : (h0, h1)
        let dx = b.0 - a.0, dy = b.1 - a.1, len2 = dx * dx + dy * dy
        let t = len2 > 0 ? ((px - a.0) * dx + (py - a.1) * dy) / len2 : -1
        if t >= 0 && t <= 1 {
            return (abs((px - a.0) * dy - (py - a.1) * dx) / len2.squareRoot(), h0 + t * (h1 - h0))
        }
        let e = t < 0 ? a : b
        return (((px - e.0) * (px - e.0) + (py - e.1) * (py - e.1)).squareRoot(), t < 0 ? h0 : h1)
    }

    /// Every pixel is the coverage of its distance to the segment, worked out directly for
    /// each pixel of the canvas (a brute-force reference): min(1, 2h, h + 0.5 - d), h half the
    /// width where the pixel's foot on the segment lies (an end's past that end; ends under
    /// 1/16 px apart in width drawn at their mean), within a
    /// level of rounding; and nothing outside the line's reach is touched. Segments of every
    /// kind: slanted, level, upright, a point, tapered, reaching past the canvas's edges.
    /// Also at a width that is no whole number of 4- or 8-pixel words: a run's pixel loop goes
    /// four at a time past the run's end but never past the row's last pixel (a line crossing
    /// the right edge would otherwise leak into the next row's first pixels).
    @Test(arguments: [48, 45])
    func everyPixelIsItsDistancesCoverage(w: Int) {
        var g = SystemRandomNumberGenerator()
        let h = 40
        var cases: [(a: (Double, Double), b: (Double, Double), h0: Double, h1: Double)] = [
            ((10, 20.5), (38, 20.5), 0.6, 0.6), ((20.5, 4), (20.5, 33), 1.1, 1.1), ((24.3, 19.7), (24.3, 19.7), 2, 2),
            ((-5, 3), (53, 37), 0.75, 0.75), ((4, 30), (44, 9), 0.4, 3.5), ((30, -6), (12, 46), 4, 0.5), ((8, 8), (8.2, 30), 0.2, 0.2),
        ]
        for _ in 0..<150 {
            let h0 = Double.random(in: 0.1...5, using: &g)
            let h1 = Bool.random(using: &g) ? h0 : Double.random(in: 0.1...5, using: &g)
            cases.append(((Double.random(in: -8...56, using: &g), Double.random(in: -8...48, using: &g)),
                          (Double.random(in: -8...56, using: &g), Double.random(in: -8...48, using: &g)), h0, h1))
        }
        var near = 0, off = 0, far = 0
        for c in cases {
            let canvas = Canvas(w, h)
            canvas.pixels.initialize(repeating: 0xff00_0000, count: w * h)
            let seg = [c.a.0, c.a.1, c.b.0, c.b.1]
            LineRasterizer.stroke(seg, endWidths: c.h0 == c.h1 ? nil : [2 * c.h0, 2 * c.h1], lineWidth: 2 * c.h0, color: RGBColor(r: 1, g: 1, b: 1),
                                  antialias: true, pixels: UnsafeMutableRawPointer(canvas.pixels), stride: w * 4, width: w, rows: 0..<h)
            for y in 0..<h {
                for x in 0..<w {
                    let (d, hw) = Self.footDistance(Double(x) + 0.5, Double(y) + 0.5, a: c.a, b: c.b, h0: c.h0, h1: c.h1)
                    let expected = d < hw + 0.5 ? Int(min(min(1, 2 * hw), hw + 0.5 - d) * 255 + 0.5) : 0
                    // White over black at coverage m/255 gives m in each channel.
                    let got = Int(canvas[x, y] & 0xff)
                    if got != expected { if abs(got - expected) == 1 { near += 1 } else { off += 1 } }
                    if d >= max(c.h0, c.h1) + 0.5 && got != 0 { far += 1 }
                }
            }
        }
        #expect(off == 0, "\(off) pixels more than a level from their coverage")
        #expect(near < cases.count * w * h / 1000, "\(near) pixels a level off")
        #expect(far == 0, "\(far) pixels touched beyond the line's reach")
    }

    /// Without antialiasing a pixel is the line's colour when its centre lies within half the
    /// width (at least half a pixel) of the segment, else untouched: the same segments against
    /// that rule worked out directly (a pixel within 1e-9 px of the edge may go either way).
    @Test func withoutAntialiasingEveryPixelIsInsideOrOut() {
        var g = SystemRandomNumberGenerator()
        let w = 48, h = 40
        var wrong = 0, inked = 0
        for n in 0..<150 {
            let h0 = n < 10 ? 0.2 : Double.random(in: 0.1...5, using: &g)
            let h1 = Bool.random(using: &g) ? h0 : Double.random(in: 0.1...5, using: &g)
            let a = (Double.random(in: -8...56, using: &g), Double.random(in: -8...48, using: &g))
            let b = n % 7 == 0 ? a : (Double.random(in: -8...56, using: &g), Double.random(in: -8...48, using: &g))
            let canvas = Canvas(w, h)
            canvas.pixels.initialize(repeating: 0xff00_0000, count: w * h)
            LineRasterizer.stroke([a.0, a.1, b.0, b.1], endWidths: h0 == h1 ? nil : [2 * h0, 2 * h1], lineWidth: 2 * h0, color: RGBColor(r: 1, g: 1, b: 1),
                                  antialias: false, pixels: UnsafeMutableRawPointer(canvas.pixels), stride: w * 4, width: w, rows: 0..<h)
            let (e0, e1) = (max(h0, 0.5), max(h1, 0.5))
            for y in 0..<h {
                for x in 0..<w {
                    let (d, hw) = Self.footDistance(Double(x) + 0.5, Double(y) + 0.5, a: a, b: b, h0: e0, h1: e1)
                    let got = canvas[x, y]
                    if got != 0 { inked += 1 }
                    guard abs(d - hw) > 1e-9 else { continue }
                    if got != (d < hw ? 0xffffff : 0) { wrong += 1 }
                }
            }
        }
        #expect(wrong == 0, "\(wrong) pixels on the wrong side of the edge")
        #expect(inked > 5_000)
    }

    /// A line of n joined segments from a random start in x, y, each step within ±step.
    static func walk<G: RandomNumberGenerator>(_ n: Int, x xs: ClosedRange<Double>, y ys: ClosedRange<Double>, step: (Double, Double),
                                               using g: inout G) -> [Double] {
        var seg: [Double] = []
        var x = Double.random(in: xs, using: &g), y = Double.random(in: ys, using: &g)
        for _ in 0..<n {
            let nx = x + Double.random(in: -step.0...step.0, using: &g), ny = y + Double.random(in: -step.1...step.1, using: &g)
            seg += [x, y, nx, ny]
            x = nx; y = ny
        }
        return seg
    }

    /// Layers drawn in one pass (a route's casings and lines, 32 rows at a time through them
    /// all) give the bytes of one `stroke` call per layer in the same order, tapered or not.
    @Test func layersInOnePassGiveOneCallPerLayer() {
        var g = SystemRandomNumberGenerator()
        func line(_ n: Int) -> [Double] { Self.walk(n, x: 0...150, y: 0...140, step: (30, 30), using: &g) }
        let a = line(40), b = line(40)
        let taper = (0..<80).map { _ in Double.random(in: 1...9, using: &g) }
        let layers = [
            LineRasterizer.Layer(segments: a, lineWidth: 8, color: RGBColor(r: 0.1, g: 0.2, b: 0.6)),
            LineRasterizer.Layer(segments: b, endWidths: taper.map { $0 + 3 }, lineWidth: 0, color: RGBColor(r: 0.3, g: 0.3, b: 0.3), alpha: 0.8),
            LineRasterizer.Layer(segments: a, lineWidth: 5, color: RGBColor(r: 0.2, g: 0.5, b: 1)),
            LineRasterizer.Layer(segments: b, endWidths: taper, lineWidth: 0, color: RGBColor(r: 0.6, g: 0.6, b: 0.6), alpha: 0.5),
        ]
        let w = 160, h = 150
        let one = Canvas(w, h), each = Canvas(w, h)
        LineRasterizer.stroke(layers: layers, antialias: true, pixels: UnsafeMutableRawPointer(one.pixels), stride: w * 4, width: w, rows: 0..<h)
        for l in layers {
            LineRasterizer.stroke(l.segments, endWidths: l.endWidths, lineWidth: l.lineWidth, color: l.color, alpha: l.alpha, antialias: true,
                                  pixels: UnsafeMutableRawPointer(each.pixels), stride: w * 4, width: w, rows: 0..<h)
        }
        let same = withExtendedLifetime((one, each)) { memcmp(one.pixels, each.pixels, w * h * 4) == 0 }
        #expect(same)
        // The layers overlap, so their order shows: reversed, the bytes differ.
        let reversed = Canvas(w, h)
        LineRasterizer.stroke(layers: layers.reversed(), antialias: true, pixels: UnsafeMutableRawPointer(reversed.pixels), stride: w * 4,
                              width: w, rows: 0..<h)
        let differs = withExtendedLifetime((one, reversed)) { memcmp(one.pixels, reversed.pixels, w * h * 4) != 0 }
        #expect(differs)
    }

    /// Layers bucketed once for the whole frame (`LineRasterizer.buckets`, as the street map's
    /// layers are where they are built) and drawn in pieces cut on chunk boundaries, each piece
    /// taking its chunks' share, give the bytes of the same layers bucketed by each piece; a
    /// piece not on a chunk boundary, or a frame of another width, buckets for itself and gives
    /// them too.
    /// xorshift64: the same lines every run.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 { state ^= state << 13; state ^= state >> 7; state ^= state << 17; return state }
    }

    @Test func layersBucketedForTheFrameGiveTheBytesOfEachPiecesBuckets() {
        var g = Seeded(state: 0x2545_F491_4F6C_DD1D)
        let w = 200, h = 230
        func line(_ n: Int) -> [Double] { Self.walk(n, x: -10...210, y: -10...240, step: (40, 60), using: &g) }
        let a = line(120), b = line(80)
        let taper = (0..<160).map { _ in Double.random(in: 0.5...7, using: &g) }
        let plain = [
            LineRasterizer.Layer(segments: a, lineWidth: 6, color: RGBColor(r: 0.1, g: 0.2, b: 0.6)),
            LineRasterizer.Layer(segments: b, endWidths: taper, lineWidth: 0, color: RGBColor(r: 0.3, g: 0.3, b: 0.3), alpha: 0.7),
            LineRasterizer.Layer(segments: a, lineWidth: 1.2, color: RGBColor(r: 0.9, g: 0.8, b: 0.1)),
        ]
        var bucketed = plain
        for i in bucketed.indices {
            bucketed[i].buckets = LineRasterizer.buckets(bucketed[i], antialias: true, width: w, height: h)
            #expect(bucketed[i].buckets != nil)
        }
        func drawn(_ layers: [LineRasterizer.Layer], cuts: [Int], width: Int = w) -> Canvas {
            let c = Canvas(width, h)
            for i in 0..<(cuts.count - 1) where cuts[i] < cuts[i + 1] {
                var steps = BandSteps()
                steps.lines(layers)
                steps.draw(pixels: UnsafeMutableRawPointer(c.pixels), stride: width * 4, width: width, rows: cuts[i]..<cuts[i + 1])
            }
            return c
        }
        let whole = drawn(plain, cuts: [0, h])
        for cuts in [[0, h], [0, 64, 96, 192, h], [0, 32, 64, 96, 128, 160, 192, 224, h], [0, 50, 64, 130, h]] {
            let pieces = drawn(bucketed, cuts: cuts)
            withExtendedLifetime((whole, pieces)) { #expect(memcmp(whole.pixels, pieces.pixels, w * h * 4) == 0, "cuts \(cuts)") }
        }
        // Wider than the buckets were made for: each piece buckets its own rows.
        let wider = drawn(bucketed, cuts: [0, 96, h], width: w + 40), widerPlain = drawn(plain, cuts: [0, h], width: w + 40)
        withExtendedLifetime((wider, widerPlain)) { #expect(memcmp(wider.pixels, widerPlain.pixels, (w + 40) * h * 4) == 0) }
        #expect((0..<(w * h)).filter { whole.pixels[$0] != LineRasterizerTests.background }.count > 3_000)
    }

    /// Band cuts on whole chunks (`BandWork.cuts(step:)`): every cut a multiple of the step or
    /// the last row, in order, near where the work splits evenly.
    @Test func cutsOnWholeChunks() {
        var costs = [Double](repeating: 1, count: 1080)
        for y in 300..<500 { costs[y] = 12 }
        let plain = BandWork.cuts(rowCosts: costs, bands: 4), stepped = BandWork.cuts(rowCosts: costs, bands: 4, step: 32)
        #expect(stepped.count == plain.count && stepped.first == 0 && stepped.last == 1080)
        for (p, s) in zip(plain, stepped) {
            #expect(s % 32 == 0 || s == 1080)
            #expect(abs(p - s) <= 16)
        }
        #expect(zip(stepped, stepped.dropFirst()).allSatisfy { $0 <= $1 })
    }

    /// Runs `body` on a new thread (a new `LineScratch`, made on the thread's first stroke)
    /// and waits for it.
    static func onNewThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let t = Thread { body(); done.signal() }
        t.start()
        done.wait()
    }

    /// The per-thread scratch (mask, marks, row bounds, bucket tables) leaves nothing behind:
    /// on a fresh thread, layers drawn after a wide, tall stroke of other lines (the scratch
    /// grown, then reused) give the bytes they give drawn first, and the one-pass layers (their
    /// bucket tables grown layer by layer on a fresh thread) give one call per layer's bytes.
    @Test func aThreadsScratchLeavesNothingBehind() {
        let w = 90, h = 150
        let layers = [
            LineRasterizer.Layer(segments: [3, 4, 80, 140, 80, 140, 10, 120], lineWidth: 6, color: RGBColor(r: 0.1, g: 0.2, b: 0.6)),
            LineRasterizer.Layer(segments: [5, 140, 85, 10, 40, 2, 41, 148], endWidths: [1, 9, 4, 2], lineWidth: 0,
                                 color: RGBColor(r: 0.6, g: 0.6, b: 0.6), alpha: 0.5),
            LineRasterizer.Layer(segments: [3, 4, 80, 140, 80, 140, 10, 120], lineWidth: 2.5, color: RGBColor(r: 0.9, g: 0.8, b: 0.1)),
        ]
        let first = Canvas(w, h), after = Canvas(w, h), each = Canvas(w, h), wide = Canvas(1500, 200)
        let canvases = UncheckedSendable((first, after, each, wide))
        LineRasterizerTests.onNewThread {
            let (first, _, _, _) = canvases.value
            LineRasterizer.stroke(layers: layers, antialias: true, pixels: UnsafeMutableRawPointer(first.pixels), stride: w * 4, width: w, rows: 0..<h)
        }
        LineRasterizerTests.onNewThread {
            let (_, after, each, wide) = canvases.value
            var seg: [Double] = []
            for i in 0..<60 { seg += [Double(i * 25), 3, Double(i * 25 + 9), 197] }
            LineRasterizer.stroke(layers: [LineRasterizer.Layer(segments: seg, lineWidth: 7, color: RGBColor(r: 1, g: 0, b: 0)),
                                           LineRasterizer.Layer(segments: seg, lineWidth: 1.5, color: RGBColor(r: 0, g: 1, b: 0))],
                                  antialias: true, pixels: UnsafeMutableRawPointer(wide.pixels), stride: 1500 * 4, width: 1500, rows: 0..<200)
            LineRasterizer.stroke(layers: layers, antialias: true, pixels: UnsafeMutableRawPointer(after.pixels), stride: w * 4, width: w, rows: 0..<h)
            for l in layers {
                LineRasterizer.stroke(l.segments, endWidths: l.endWidths, lineWidth: l.lineWidth, color: l.color, alpha: l.alpha, antialias: true,
                                      pixels: UnsafeMutableRawPointer(each.pixels), stride: w * 4, width: w, rows: 0..<h)
            }
        }
        withExtendedLifetime(canvases) {
            #expect(memcmp(first.pixels, after.pixels, w * h * 4) == 0)
            #expect(memcmp(first.pixels, each.pixels, w * h * 4) == 0)
            // (Something was drawn: pixels the layers changed.)
            #expect((0..<(w * h)).filter { first.pixels[$0] != LineRasterizerTests.background }.count > 1_000)
        }
    }

    /// Lines far apart in the same rows of a wide frame (their 8-pixel words in different
    /// 64-bit words of the marks the blend visits) are each drawn whole, as the same line alone
    /// on a small canvas, and the mask is left clear for the next layer.
    @Test func linesFarApartInOneRowAreEachDrawnWhole() {
        let segs: [[Double]] = [[2, 10, 6, 30], [700.3, 5, 703.7, 35], [1190, 20, 1198, 22]]
        let w = 1200, h = 40
        let wide = Canvas(w, h)
        let second = RGBColor(r: 0.2, g: 0.8, b: 0.4)
        let layers = [LineRasterizer.Layer(segments: segs.flatMap { $0 }, lineWidth: 3, color: Self.color),
                      LineRasterizer.Layer(segments: segs[1], lineWidth: 1.5, color: second)]
        LineRasterizer.stroke(layers: layers, antialias: true, pixels: UnsafeMutableRawPointer(wide.pixels), stride: w * 4, width: w, rows: 0..<h)
        for (k, seg) in segs.enumerated() {
            // The same segment alone, moved by a whole number of pixels onto a 64 px canvas.
            let shift = Double(min(max(0, Int(seg[0]) - 16), w - 64))
            let moved = [seg[0] - shift, seg[1], seg[2] - shift, seg[3]]
            let small = Canvas(64, h)
            LineRasterizer.stroke(layers: [LineRasterizer.Layer(segments: moved, lineWidth: 3, color: Self.color)]
                                  + (k == 1 ? [LineRasterizer.Layer(segments: moved, lineWidth: 1.5, color: second)] : []),
                                  antialias: true, pixels: UnsafeMutableRawPointer(small.pixels), stride: 64 * 4, width: 64, rows: 0..<h)
            var differ = 0, inked = 0
            for y in 0..<h {
                for x in 0..<64 {
                    if small[x, y] != wide[x + Int(shift), y] { differ += 1 }
                    if small[x, y] != Self.background & 0xffffff { inked += 1 }
                }
            }
            #expect(inked > 20 && differ == 0, "line \(k): \(differ) pixels differ, \(inked) inked")
        }
    }

    @Test func withoutAntialiasingEveryPixelIsLineOrBackground() {
        let c = Self.rasterized([3.3, 5.1, 58.7, 49.9, 10, 60, 55, 12], width: 1.2, antialias: false)
        let q = LineRasterizer.pixel(Self.color)
        let solid = q.r << 16 | q.g << 8 | q.b
        var line = 0
        for y in 0..<64 { for x in 0..<64 {
            let p = c[x, y]
            #expect(p == Self.background & 0xffffff || p == solid)
            if p == solid { line += 1 }
        } }
        #expect(line > 60)
    }

    @Test func nonFiniteAndFarAwayCoordinatesAreSkipped() {
        let c = Self.rasterized([.nan, 3, 10, 10, 1e300, -1e300, 5, 5, -.infinity, 0, .infinity, 0, 1e12, 1e12, 2e12, 2e12,
                                 10, 10.5, 50, 10.5], width: 1.2)
        #expect(c.coverage(30, 10) == 1)
        #expect(c.coverage(30, 40) == 0)
    }

    @Test func pathSegmentsComeFromMoveAndLineTo() {
        let s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1)!
        let cr = cairo_create(s)!
        cairo_move_to(cr, 1, 2); cairo_line_to(cr, 3, 4); cairo_line_to(cr, 5, 7)
        cairo_move_to(cr, 7, 8); cairo_line_to(cr, 9.5, 10.25)
        let p = cairo_copy_path(cr)!
        #expect(LineRasterizer.segments(of: p) == [1, 2, 3, 4, 3, 4, 5, 7, 7, 8, 9.5, 10.25])
        cairo_path_destroy(p); cairo_destroy(cr); cairo_surface_destroy(s)
    }
}
