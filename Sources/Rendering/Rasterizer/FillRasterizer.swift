import CCairo
import Foundation

/// The street map's fills (a style layer's polygons of one paint: one path of many rings, the
/// landuse, the water, the buildings) by exact area coverage, straight into XRGB8888 rows, 32
/// rows at a time: the accumulation of `AreaRasterizer` (font-rs, stb_truetype's v2: each edge
/// adds the signed area it leaves in each pixel of a row to a cell, and the running sum along
/// the row is the winding there), kept sparse. Only the cells an edge touched are read: each
/// row marks its 8-pixel groups with an edge in them, and between two marked groups the
/// winding does not change, so the pixels there take one coverage (nothing outside, the
/// colour inside). A fill of polygons spread over the whole frame costs its edges and the
/// pixels it covers, not its bounding box.
///
/// Why not `cairo_fill`: a band appended the path to its context and cairo built and sorted
/// every edge of it again in each band, then sampled each edge on 15 sub-rows a row. Drawn
/// here, 32 rows at a time, a fill can also go through the rows of a chunk between the other
/// layers (`StreetMapPainter.draw`): the chunk's rows stay in the cache from the background to
/// the last road instead of the whole frame going through memory once a layer.
///
/// A pixel's value depends on the pixel, the fill and what was under it, never on the rows a
/// call covers: bands and chunks give the one-call frame byte for byte.
enum FillRasterizer {
    /// Rows drawn at a time (the line rasterizer's: the street map's chunks take both).
    static let chunkRows = LineRasterizer.chunkRows

    /// The edges of a cairo path's subpaths (device space), each subpath closed as `cairo_fill`
    /// closes it: x0, y0, x1, y1, ...; horizontal edges (they leave no area) and edges with a
    /// point that is not finite are left out.
    static func edges(of path: UnsafeMutablePointer<cairo_path_t>) -> [Double] {
        let p = path.pointee
        var out: [Double] = []
        out.reserveCapacity(Int(p.num_data) * 2)
        guard let data = p.data else { return out }
        var i = 0
        var cx = 0.0, cy = 0.0, sx = 0.0, sy = 0.0, open = false
        @inline(__always) func edge(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double) {
            guard ay != by, ax.isFinite, ay.isFinite, bx.isFinite, by.isFinite else { return }
            out.append(ax); out.append(ay); out.append(bx); out.append(by)
        }
        let n = Int(p.num_data)
        while i < n {
            let h = data[i].header
            let len = max(1, Int(h.length))
            if h.type == CAIRO_PATH_MOVE_TO, i + 1 < n {
                if open { edge(cx, cy, sx, sy) }
                cx = data[i + 1].point.x; cy = data[i + 1].point.y
                sx = cx; sy = cy; open = true
            } else if h.type == CAIRO_PATH_LINE_TO, i + 1 < n {
                let x = data[i + 1].point.x, y = data[i + 1].point.y
                if open { edge(cx, cy, x, y) } else { sx = x; sy = y; open = true }
                cx = x; cy = y
            } else if h.type == CAIRO_PATH_CLOSE_PATH, open {
                edge(cx, cy, sx, sy)
                cx = sx; cy = sy
                open = false
            }
            i += len
        }
        if open { edge(cx, cy, sx, sy) }
        return out
    }

    /// A fill: its edges (`edges(of:)`, in the pixels' space), the rule, the colour and its
    /// opacity.
    struct Fill {
        var edges: [Double]
        var evenOdd: Bool
        var color: RGBColor
        var alpha: Double
    }

    /// A fill's edges by the 32-row chunks of some rows they cross: chunk c's are
    /// `order[first[c]..<first[c + 1]]`.
    struct Chunks {
        let rows: Range<Int>
        let first: [Int32]
        let order: [Int32]

        /// Whether an edge crosses chunk c (else the fill covers none of its pixels: a row
        /// inside the fill has its edges either side, or left of the frame, in the chunk).
        func crosses(_ c: Int) -> Bool { first[c] < first[c + 1] }

        /// Chunk c's rows.
        func rows(of c: Int) -> Range<Int> {
            let y0 = rows.lowerBound + c * FillRasterizer.chunkRows
            return y0..<min(rows.upperBound, y0 + FillRasterizer.chunkRows)
        }
    }

    /// The fill's edges bucketed by the chunks of `rows` (counting sort); nil when none crosses
    /// them (nothing to draw) or the fill is transparent.
    static func chunks(_ fill: Fill, rows: Range<Int>) -> Chunks? {
        guard fill.alpha > 0, !rows.isEmpty else { return nil }
        let n = fill.edges.count / 4
        guard n > 0 else { return nil }
        let chunkCount = (rows.count + chunkRows - 1) / chunkRows
        var first = [Int32](repeating: 0, count: chunkCount + 1)
        var spans = [Int32](repeating: -1, count: 2 * n)
        let top = Double(rows.lowerBound)
        fill.edges.withUnsafeBufferPointer { e in
            for k in 0..<n {
                let a = e[4 * k + 1], b = e[4 * k + 3]
                let lo = (min(a, b) - top) / Double(chunkRows), hi = (max(a, b) - top) / Double(chunkRows)
                // An edge ending on a chunk's first row's top leaves nothing in that chunk.
                guard hi > 0, lo < Double(chunkCount) else { continue }
                let c0 = Int(max(0, lo.rounded(.down))), c1 = Int(min(Double(chunkCount), hi.rounded(.up))) - 1
                guard c0 <= c1 else { continue }
                spans[2 * k] = Int32(c0); spans[2 * k + 1] = Int32(c1)
                for c in c0...c1 { first[c + 1] += 1 }
            }
        }
        for c in 0..<chunkCount { first[c + 1] += first[c] }
        let total = Int(first[chunkCount])
        guard total > 0 else { return nil }
        var order = [Int32](repeating: 0, count: total)
        var fillAt = Array(first[0..<chunkCount])
        for k in 0..<n where spans[2 * k] >= 0 {
            for c in Int(spans[2 * k])...Int(spans[2 * k + 1]) {
                order[Int(fillAt[c])] = Int32(k)
                fillAt[c] += 1
            }
        }
        return Chunks(rows: rows, first: first, order: order)
    }

    /// Fills `fill` into rows `rows` and columns 0..<width of the XRGB8888 memory at `pixels`
    /// (row 0).
    static func fill(_ fill: Fill, pixels: UnsafeMutableRawPointer, stride: Int, width: Int, rows: Range<Int>) {
        guard width > 0, let chunks = chunks(fill, rows: rows) else { return }
        for c in 0..<chunks.first.count - 1 {
            draw(fill, chunks, chunk: c, pixels: pixels, stride: stride, width: width)
        }
    }

    /// Draws chunk c of a fill's chunks: its edges' areas into this thread's cells, then each
    /// row's runs blended (the cells and marks left clear).
    ///
    /// `over background`: the chunk's rows are taken to be that opaque pixel everywhere (an
    /// opaque paint just before the fill, not yet stored): every pixel of the rows is written
    /// once, the background where the fill leaves it and the fill over the background where it
    /// covers it, the bytes of painting the rows and then filling over them. At 4K the world's
    /// sea was stored over every pixel and the land stored again over it. Nothing is drawn
    /// (the rows not painted either) when no edge of the fill crosses the chunk: see
    /// `Chunks.crosses`.
    static func draw(_ fill: Fill, _ chunks: Chunks, chunk c: Int, pixels: UnsafeMutableRawPointer, stride: Int, width: Int,
                     over background: UInt32? = nil) {
        guard chunks.crosses(c), width > 0 else { return }
        let lo = Int(chunks.first[c]), hi = Int(chunks.first[c + 1])
        let rows = chunks.rows(of: c)
        let scratch = LineScratch.current
        // Cells a row: the frame's columns; a cell at or right of the last column only changes
        // pixels right of it, none, and is not written.
        let cellStride = (width + 7) & ~7
        let markWords = (cellStride / 8 + 63) / 64
        scratch.reserve(cells: cellStride * chunkRows, cellMarks: markWords * chunkRows)
        let cells = scratch.cells, marks = scratch.cellMarks
        let y0 = Double(rows.lowerBound), h = Double(rows.count), w = Double(width)
        fill.edges.withUnsafeBufferPointer { e in
            chunks.order.withUnsafeBufferPointer { order in
                for j in lo..<hi {
                    let k = Int(order[j])
                    clipped(e[4 * k], e[4 * k + 1] - y0, e[4 * k + 2], e[4 * k + 3] - y0, width: w, h: h,
                            cells: cells, cellStride: cellStride, marks: marks, markWords: markWords)
                }
            }
        }
        if fill.alpha >= 1 {
            // An opaque colour: the coverage mixes it with the pixel (cairo's lerp of an opaque
            // solid source).
            let s = LineRasterizer.pixel(fill.color)
            walkRows(SolidBlend(r: s.r, g: s.g, b: s.b), rows: rows, cells: cells, cellStride: cellStride, marks: marks, markWords: markWords,
                     width: width, evenOdd: fill.evenOdd, pixels: pixels, stride: stride, over: background)
        } else {
            // A translucent one: premultiplied, through the coverage, over the pixel (pixman's
            // OVER of a solid source through an A8 mask, as cairo fills it).
            walkRows(TranslucentBlend(fill.color, alpha: fill.alpha), rows: rows, cells: cells, cellStride: cellStride, marks: marks,
                     markWords: markWords, width: width, evenOdd: fill.evenOdd, pixels: pixels, stride: stride, over: background)
        }
    }

    /// Each row of `rows` walked (`walk`) with the blend, over `background` when given. (A
    /// static function, specialized for each blend where it is called: a local generic
    /// function for both left the translucent one's copy unspecialized, session 32.)
    @inline(__always)
    private static func walkRows<Blend: FillBlend>(_ blend: Blend, rows: Range<Int>, cells: UnsafeMutablePointer<Float>, cellStride: Int,
                                                   marks: UnsafeMutablePointer<UInt64>, markWords: Int, width: Int, evenOdd: Bool,
                                                   pixels: UnsafeMutableRawPointer, stride: Int, over background: UInt32?) {
        for y in rows {
            let r = y - rows.lowerBound
            let out = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
            // (`painting` a constant in each call, so each inlined walk keeps only its own loops.)
            if let background {
                walk(cells + r * cellStride, marks: marks + r * markWords, words: markWords, width: width, evenOdd: evenOdd,
                     blend: blend, into: out, painting: true, background: background)
            } else {
                walk(cells + r * cellStride, marks: marks + r * markWords, words: markWords, width: width, evenOdd: evenOdd,
                     blend: blend, into: out, painting: false, background: 0)
            }
        }
    }

    /// The coverage byte of a winding sum: |w| up to 1 (non-zero), or |w| folded mod 2 (even-odd).
    @inline(__always)
    private static func coverage(_ sum: Float, evenOdd: Bool) -> UInt32 {
        UInt32(WholeNumbers.byte(AreaRasterizer.coverage(sum, evenOdd: evenOdd) * 255 + 0.5))     // under 256
    }

    /// One row: the marked groups' cells summed pixel by pixel (and cleared), the runs between
    /// them at the winding the last group left. `painting` (a constant at each call, so each
    /// inlined copy has only its own loops): the row is taken to be `background` throughout
    /// and every pixel is written, the uncovered ones with the background.
    @inline(__always)
    private static func walk<Blend: FillBlend>(_ cells: UnsafeMutablePointer<Float>, marks: UnsafeMutablePointer<UInt64>, words: Int,
                                               width: Int, evenOdd: Bool, blend: Blend, into out: UnsafeMutablePointer<UInt32>,
                                               painting: Bool, background: UInt32) {
        let solid = blend.solid, opaque = blend.opaque
        var sum: Float = 0
        var al: UInt32 = 0
        var at = blend.at(0)
        var x = 0                                           // the first pixel not yet drawn
        @inline(__always) func run(_ end: Int) {
            guard x < end else { return }
            if painting {
                // One value over the whole run: the background, the colour, or the colour
                // over the background at the run's coverage.
                let v = al == 0 ? background : al >= 255 && opaque ? solid : at.over(background)
                if end - x >= 64 {
                    tb_fill_streaming(out + x, v, UInt(end - x))
                } else {
                    for i in x..<end { out[i] = v }
                }
                return
            }
            guard al != 0 else { return }
            if al >= 255 && opaque {
                for i in x..<end { out[i] = solid }
            } else {
                // Over the same pixel (a polygon over the background), the same result.
                var lastD = out[x], lastOut = at.over(lastD)
                for i in x..<end {
                    let d = out[i]
                    if d != lastD { lastD = d; lastOut = at.over(d) }
                    out[i] = lastOut
                }
            }
        }
        for k in 0..<words {
            var bits = marks[k]
            guard bits != 0 else { continue }
            marks[k] = 0
            while bits != 0 {
                let g = k << 6 | bits.trailingZeroBitCount
                bits &= bits &- 1
                let gx = g << 3
                run(gx)
                let end = min(gx + 8, width)
                for i in gx..<end {
                    let v = cells[i]
                    cells[i] = 0
                    // (The bits: -0.0 changes nothing, and no second branch for NaN.)
                    if v.bitPattern != 0 {
                        sum += v
                        al = coverage(sum, evenOdd: evenOdd)
                        at = blend.at(al)
                    }
                    if painting {
                        out[i] = al == 0 ? background : al >= 255 && opaque ? solid : at.over(background)
                        continue
                    }
                    if al == 0 { continue }
                    out[i] = al >= 255 && opaque ? solid : at.over(out[i])
                }
                x = end
            }
        }
        run(width)
    }

    /// An edge (chunk rows: y from 0 at the chunk's top to h) into the cells, cut at the frame's
    /// left and right sides: left of the frame it becomes vertical at x = 0 (its winding still
    /// counts for every pixel right of it), right of the frame it leaves out (it changes no pixel).
    @inline(__always)
    private static func clipped(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, width w: Double, h: Double,
                                cells: UnsafeMutablePointer<Float>, cellStride: Int, marks: UnsafeMutablePointer<UInt64>, markWords: Int) {
        if max(ay, by) <= 0 || min(ay, by) >= h { return }
        if min(ax, bx) >= w { return }
        if ax >= 0, bx >= 0, ax <= w, bx <= w {
            line(ax, ay, bx, by, cells: cells, cellStride: cellStride, marks: marks, markWords: markWords, h: h, w: w)
            return
        }
        // Cut where it crosses x = 0 and x = w (t along the edge, in order): at most three pieces.
        let dx = bx - ax, dy = by - ay
        var t1 = dx != 0 ? -ax / dx : 2, t2 = dx != 0 ? (w - ax) / dx : 2
        if !(t1 > 0 && t1 < 1) { t1 = 2 }
        if !(t2 > 0 && t2 < 1) { t2 = 2 }
        if t1 > t2 { swap(&t1, &t2) }
        var t0 = 0.0, px = ax, py = ay
        @inline(__always) func piece(to t: Double) {
            guard t <= 1 && t > t0 else { return }
            let qx = t == 1 ? bx : ax + t * dx, qy = t == 1 ? by : ay + t * dy
            let mid = ax + (t0 + t) / 2 * dx
            if mid < w {
                // Left of the frame: vertical at x = 0.
                let x0 = mid <= 0 ? 0 : min(max(px, 0), w), x1 = mid <= 0 ? 0 : min(max(qx, 0), w)
                line(x0, py, x1, qy, cells: cells, cellStride: cellStride, marks: marks, markWords: markWords, h: h, w: w)
            }
            t0 = t; px = qx; py = qy
        }
        piece(to: t1); piece(to: t2); piece(to: 1)
    }

    /// One edge within the frame's columns (0 <= x <= w) into the cells of the rows it crosses
    /// (0 <= y < h), marking the groups it touches (`AreaRasterizer.accumulate`; a cell at or
    /// right of the last column is not written: it would change no pixel).
    @inline(__always)
    private static func line(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, cells: UnsafeMutablePointer<Float>, cellStride: Int,
                             marks: UnsafeMutablePointer<UInt64>, markWords: Int, h: Double, w: Double) {
        AreaRasterizer.accumulate(ax, ay, bx, by, h: h, maxX: w, cells: Int(w)) { y, i, v in
            cells[y * cellStride + i] += v
            marks[y * markWords + (i >> 9)] |= 1 << UInt64((i >> 3) & 63)
        }
    }
}

/// How a fill's colour goes over a pixel at a coverage: `at(a)` once per coverage, then
/// `over(d)` per pixel.
protocol FillBlend {
    associatedtype At: FillBlendAt
    /// Whether a full coverage gives `solid` whatever the pixel.
    var opaque: Bool { get }
    var solid: UInt32 { get }
    func at(_ a: UInt32) -> At
}

protocol FillBlendAt {
    func over(_ d: UInt32) -> UInt32
}

extension SolidBlend: FillBlend {
    var opaque: Bool { true }
}

extension SolidBlend.At: FillBlendAt {}

/// A translucent solid colour over XRGB8888 pixels through a coverage a/255, as pixman's OVER
/// of a solid source through an A8 mask: the colour premultiplied by its opacity as cairo makes
/// it (each channel times the alpha to 16 bits, then the top 8), s' = s a / 255 for each
/// channel and the alpha (rounded as pixman's MUL_UN8: t = x y + 128, (t + t >> 8) >> 8), then
/// d' = s' + d (255 - s'a) / 255 (rounded the same way). Three channels at once in 16-bit lanes
/// as `SolidBlend`: every lane stays under 65,536 and a sum of a premultiplied channel and
/// the pixel's rest under 256.
struct TranslucentBlend: FillBlend {
    let lanes: UInt64
    let alpha: UInt64
    var opaque: Bool { false }
    var solid: UInt32 { 0 }

    init(_ c: RGBColor, alpha a: Double) {
        func eight(_ v: Double) -> UInt32 { UInt32(UInt16(min(max(v, 0), 1) * 65535 + 0.5) >> 8) }
        let a = min(max(a, 0), 1)
        let p = eight(c.r * a) << 16 | eight(c.g * a) << 8 | eight(c.b * a)
        lanes = SolidBlend.lanes(p)
        alpha = UInt64(eight(a))
    }

    @inline(__always)
    static func mul(_ x: UInt64, _ m: UInt64) -> UInt64 {
        let mask: UInt64 = 0x00ff_00ff_00ff
        let t = x &* m &+ 0x0080_0080_0080
        return ((t &+ ((t >> 8) & mask)) >> 8) & mask
    }

    struct At: FillBlendAt {
        let share: UInt64, rest: UInt64
        @inline(__always)
        func over(_ d: UInt32) -> UInt32 {
            let t = share &+ TranslucentBlend.mul(SolidBlend.lanes(d), rest)
            return 0xff00_0000 | UInt32(truncatingIfNeeded: t & 0x00ff_00ff) | UInt32(truncatingIfNeeded: t >> 24) & 0xff00
        }
    }

    @inline(__always)
    func at(_ a: UInt32) -> At {
        let m = UInt64(a)
        // The alpha through the coverage, in the low lane alone.
        let sa = TranslucentBlend.mul(alpha, m) & 0xff
        return At(share: TranslucentBlend.mul(lanes, m), rest: 255 &- sa)
    }
}
