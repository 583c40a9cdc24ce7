import CCairo
import Foundation

/// Antialiased thin lines (the built-in world's rivers and borders, 1 to 1.5 px wide) drawn
/// straight into XRGB8888 memory.
///
/// Why not `cairo_stroke`: at 1080p zoom 5 cairo 1.16 spent 7 ms stroking the rivers and 10 to
/// 12 ms the borders, two thirds of a full redraw (its stroker builds a polygon of every segment
/// and join, then its scan converter walks each polygon edge over 15 sub-rows a pixel; thinning
/// the vertices, other joins and CAIRO_ANTIALIAS_FAST changed nothing). A line of a pixel or so
/// only needs, for each pixel near it, the distance from the pixel's centre to the nearest
/// segment: coverage = clamp(w/2 + 0.5 - distance, 0, 1), a box filter across the line, which is
/// what cairo gives a straight line too (a 1.2 px line through pixel centres: 1.0 and 0.1 beside
/// it; on a pixel edge: 0.6 and 0.6). Each segment is a capsule, so joins come out round as the
/// borders' CAIRO_LINE_JOIN_ROUND did; line ends are round instead of butt (0.6 to 0.75 px).
/// A layer's coverage is the maximum over its segments (overlapping segments at a joint are not
/// blended twice, as cairo's union of the stroke polygon does not), gathered in a mask of 32 rows
/// that stays in cache, then blended with the colour.
///
/// A pixel's value depends only on the pixel and the segments, never on which rows a call
/// covers, so bands on several threads give the single-threaded frame byte for byte.
enum LineRasterizer {
    /// Rows of the mask filled before it is blended into the frame (at most 32: a chunk's
    /// written rows are the bits of a `UInt32`).
    static let chunkRows = 32

    /// The line segments of a cairo path (move-to / line-to / close-path, device space):
    /// x0, y0, x1, y1, ... A closed subpath ends with the segment back to its start.
    static func segments(of path: UnsafeMutablePointer<cairo_path_t>) -> [Double] {
        let p = path.pointee
        var out: [Double] = []
        out.reserveCapacity(Int(p.num_data) * 2)
        guard let data = p.data else { return out }
        var i = 0
        var cx = 0.0, cy = 0.0, have = false
        var sx = 0.0, sy = 0.0
        let n = Int(p.num_data)
        while i < n {
            let h = data[i].header
            let len = max(1, Int(h.length))
            if h.type == CAIRO_PATH_MOVE_TO, i + 1 < n {
                cx = data[i + 1].point.x; cy = data[i + 1].point.y; have = true
                sx = cx; sy = cy
            } else if h.type == CAIRO_PATH_LINE_TO, i + 1 < n {
                let x = data[i + 1].point.x, y = data[i + 1].point.y
                if have { out.append(cx); out.append(cy); out.append(x); out.append(y) }
                cx = x; cy = y; have = true
            } else if h.type == CAIRO_PATH_CLOSE_PATH, have {
                if cx != sx || cy != sy { out.append(cx); out.append(cy); out.append(sx); out.append(sy) }
                cx = sx; cy = sy
            }
            i += len
        }
        return out
    }

    /// Draws the segments as lines `lineWidth` px wide in `color` into rows `rows` (and columns
    /// 0..<width) of the XRGB8888 memory at `pixels` (row 0). Without antialiasing a pixel is the
    /// colour when its centre is within half the width of a segment. `alpha` scales the
    /// coverage (a style's opacity), as a translucent solid source does in cairo.
    ///
    /// `endWidths`, when given, holds each segment's width at its start and at its end (two
    /// per segment; a tilted view's lines thin out with distance): the width changes linearly
    /// along the segment and each end is a round cap of that end's width; `lineWidth` is not
    /// used. A line thinner than a pixel covers a pixel by at most its width, as a box filter
    /// gives (it fades out rather than staying a pixel wide).
    static func stroke(_ segments: [Double], endWidths: [Double]? = nil, lineWidth: Double, color: RGBColor, alpha: Double = 1, antialias: Bool,
                       pixels: UnsafeMutableRawPointer, stride: Int, width: Int, rows: Range<Int>) {
        stroke(layers: [Layer(segments: segments, endWidths: endWidths, lineWidth: lineWidth, color: color, alpha: alpha)],
               antialias: antialias, pixels: pixels, stride: stride, width: width, rows: rows)
    }

    /// One layer of lines for `stroke(layers:...)`: what `stroke(_:endWidths:lineWidth:...)`
    /// takes for one colour.
    struct Layer {
        var segments: [Double]
        var endWidths: [Double]? = nil
        var lineWidth: Double
        var color: RGBColor
        var alpha: Double = 1
        /// The segments bucketed by a whole frame's chunks, when made beforehand (`buckets`).
        var buckets: Buckets? = nil
        /// A pattern drawn along the segments (`along`), antialiased only; nil: solid.
        var dashes: Dashes? = nil
    }

    /// A layer's segments bucketed by the 32-row chunks of a frame `width` x `height` (chunk c:
    /// rows 32c..<32c + 32), made once where the layer is built, on the thread that builds it:
    /// a piece of the frame whose rows start on a chunk takes its chunks' share
    /// (`chunked`) instead of going through every segment again (a street frame cut in four
    /// pieces went through each layer's segments four times: 5 % of its samples).
    struct Buckets: @unchecked Sendable {
        let width: Int, height: Int, antialias: Bool
        /// `order[first[c]..<first[c + 1]]`: the segments reaching chunk c.
        let first: [Int32]
        let order: [Int32]
    }

    /// The layer's segments bucketed by the chunks of a whole `width` x `height` frame; nil
    /// when nothing of it is drawn there.
    static func buckets(_ layer: Layer, antialias: Bool, width: Int, height: Int) -> Buckets? {
        guard width > 0, height > 0 else { return nil }
        let chunks = (height + chunkRows - 1) / chunkRows
        let count = layer.segments.count / 4
        let spans = UnsafeMutablePointer<Int32>.allocate(capacity: max(1, 2 * count))
        defer { spans.deallocate() }
        var first = [Int32](repeating: 0, count: chunks + 1)
        let total = first.withUnsafeMutableBufferPointer { f in
            countSpans(layer, antialias: antialias, width: width, rows: 0..<height, chunks: chunks, first: f.baseAddress!, spans: spans)
        }
        guard total > 0 else { return nil }
        var fill = Array(first.prefix(chunks))
        let order = [Int32](unsafeUninitializedCapacity: total) { o, n in
            fill.withUnsafeMutableBufferPointer { f in
                sortSpans(count: count, spans: spans, into: o.baseAddress!, fill: f.baseAddress!)
            }
            n = total
        }
        return Buckets(width: width, height: height, antialias: antialias, first: first, order: order)
    }

    /// Counts, for each of the `chunks` chunks of `rows`, the layer's segments that reach it
    /// into `first[c + 1]` (all zero on entry), then sums them up so that `first[c]` is where
    /// chunk c's segments start; each segment's chunk range goes into `spans` (-1: none).
    /// Returns how many (segment, chunk) pairs there are.
    private static func countSpans(_ layer: Layer, antialias: Bool, width: Int, rows: Range<Int>, chunks: Int,
                                   first: UnsafeMutablePointer<Int32>, spans: UnsafeMutablePointer<Int32>) -> Int {
        let count = layer.segments.count / 4
        guard count > 0, layer.alpha > 0 else { return 0 }
        if let endWidths = layer.endWidths { guard endWidths.count >= 2 * count else { return 0 } } else { guard layer.lineWidth > 0 else { return 0 } }
        spans.initialize(repeating: -1, count: 2 * count)
        layer.segments.withUnsafeBufferPointer { s in
            for k in 0..<count {
                let y0 = s[4 * k + 1], y1 = s[4 * k + 3]
                let x0 = s[4 * k], x1 = s[4 * k + 2]
                let (ha, hb) = halves(layer, k, antialias: antialias)
                let reach = max(ha, hb) + 0.5
                guard y0.isFinite, y1.isFinite, x0.isFinite, x1.isFinite, max(ha, hb) > 0 else { continue }
                if max(x0, x1) + reach < 0 || min(x0, x1) - reach > Double(width) { continue }
                let top = (min(y0, y1) - reach - Double(rows.lowerBound)) / Double(chunkRows)
                let bottom = (max(y0, y1) + reach - Double(rows.lowerBound)) / Double(chunkRows)
                guard bottom >= 0, top < Double(chunks) else { continue }
                let c0 = Int(max(0, top.rounded(.down))), c1 = Int(min(Double(chunks - 1), bottom.rounded(.down)))
                guard c0 <= c1 else { continue }
                spans[2 * k] = Int32(c0); spans[2 * k + 1] = Int32(c1)
                for c in c0...c1 { first[c + 1] += 1 }
            }
        }
        for c in 0..<chunks { first[c + 1] += first[c] }
        return Int(first[chunks])
    }

    /// Writes each segment's number into `order` at its chunks' places (`fill`: a copy of
    /// `first`, each chunk's next place, moved on as it goes).
    private static func sortSpans(count: Int, spans: UnsafePointer<Int32>, into order: UnsafeMutablePointer<Int32>,
                                  fill: UnsafeMutablePointer<Int32>) {
        for k in 0..<count where spans[2 * k] >= 0 {
            for c in Int(spans[2 * k])...Int(spans[2 * k + 1]) {
                order[Int(fill[c])] = Int32(k)
                fill[c] += 1
            }
        }
    }

    /// Draws layers of lines in order, as that many `stroke` calls give, byte for byte (each
    /// layer's coverage is its own, blended over what the layers before left), but 32 rows at a
    /// time through all the layers: a route's casing and its line, or a road's casing and fill,
    /// blend into rows still in the cache.
    static func stroke(layers: [Layer], antialias: Bool, pixels: UnsafeMutableRawPointer, stride: Int, width: Int, rows: Range<Int>) {
        guard let plan = chunked(layers: layers, antialias: antialias, width: width, rows: rows) else { return }
        for c in 0..<plan.chunks { draw(plan, layers: 0..<layers.count, chunk: c, pixels: pixels, stride: stride) }
    }

    /// Layers of lines bucketed by the 32-row chunks of some rows (`chunked`), to draw chunk by
    /// chunk (`draw(_:layers:chunk:...)`), between other work on the same rows. The buckets
    /// live in this thread's scratch: drawn on this thread, before it buckets again.
    struct Chunked {
        let layers: [Layer]
        let antialias: Bool
        let rows: Range<Int>
        let width: Int
        /// How many chunks the rows make.
        let chunks: Int
        /// Each layer's bucket in the scratch's table: `first[c]..<first[c + 1]` index `order`,
        /// segment numbers (`first` and `order` offsets in the table); nil: nothing to draw.
        let buckets: [(first: Int, order: Int)?]
    }

    /// The layers' segments bucketed by the chunks of `rows` they reach (counting sort, no
    /// hashing), in this thread's scratch; nil when there is nothing to draw.
    static func chunked(layers: [Layer], antialias: Bool, width: Int, rows: Range<Int>) -> Chunked? {
        guard width > 0, !rows.isEmpty else { return nil }
        let chunks = (rows.count + chunkRows - 1) / chunkRows
        let scratch = LineScratch.current
        var buckets = [(first: Int, order: Int)?](repeating: nil, count: layers.count)
        var any = false
        var used = 0
        for (li, layer) in layers.enumerated() {
            if let b = layer.buckets, b.width == width, b.antialias == antialias, rows.lowerBound % chunkRows == 0,
               rows.lowerBound / chunkRows + chunks < b.first.count {
                // This piece's chunks' share of the frame's buckets (rebased).
                let c0 = rows.lowerBound / chunkRows
                let start = b.first[c0], total = Int(b.first[c0 + chunks] - start)
                guard total > 0 else { continue }
                scratch.reserve(table: used + chunks + 1 + total, keeping: used)
                let f = scratch.table + used, order = f + chunks + 1
                for c in 0...chunks { f[c] = b.first[c0 + c] - start }
                b.order.withUnsafeBufferPointer { o in order.initialize(from: o.baseAddress! + Int(start), count: total) }
                buckets[li] = (used, used + chunks + 1)
                any = true
                used += chunks + 1 + total
                continue
            }
            let count = layer.segments.count / 4
            scratch.reserve(table: used + chunks + 1, keeping: used)
            scratch.reserve(spans: 2 * count)
            let first = scratch.table + used
            first.initialize(repeating: 0, count: chunks + 1)
            let total = countSpans(layer, antialias: antialias, width: width, rows: rows, chunks: chunks, first: first, spans: scratch.spans)
            guard total > 0 else { continue }
            // The order after `first`, and a running copy of `first` (where each chunk's next
            // segment goes) after the order.
            // (The table may move here; the spans do not.)
            scratch.reserve(table: used + chunks + 1 + total + chunks, keeping: used + chunks + 1)
            let f = scratch.table + used, order = f + chunks + 1, fill = order + total
            fill.initialize(from: f, count: chunks)
            sortSpans(count: count, spans: scratch.spans, into: order, fill: fill)
            buckets[li] = (used, used + chunks + 1)
            any = true
            used += chunks + 1 + total
        }
        guard any else { return nil }
        return Chunked(layers: layers, antialias: antialias, rows: rows, width: width, chunks: chunks, buckets: buckets)
    }

    /// Whether chunk c of the bucketed layers in `range` has a segment to draw (as `draw` finds
    /// them: this thread's table).
    static func reaches(_ plan: Chunked, layers range: Range<Int>, chunk c: Int) -> Bool {
        let table = LineScratch.current.table
        for li in range {
            guard let b = plan.buckets[li] else { continue }
            if table[b.first + c] < table[b.first + c + 1] { return true }
        }
        return false
    }

    /// Draws chunk c of the bucketed layers in `range` (in order, each blended before the next)
    /// into the XRGB8888 memory at `pixels` (row 0, column 0 the rows' first).
    static func draw(_ plan: Chunked, layers range: Range<Int>, chunk c: Int, pixels: UnsafeMutableRawPointer, stride: Int) {
        let width = plan.width, antialias = plan.antialias
        // Rows padded to whole 8-byte words: the blend skips empty words of the mask.
        let maskStride = (width + 7) & ~7
        // Each mask row's 8-pixel words a segment may have written, a bit each: the blend and
        // the prefetch visit those words only, not every word between a row's first and last
        // (a row crossed by roads here and there across the frame is mostly empty words).
        let markWords = (maskStride / 8 + 63) / 64
        // The mask, the marks and each mask row's touched columns (unchecked: a row index is
        // within the chunk), this thread's, clear as the last call's blend left them.
        let scratch = LineScratch.current
        scratch.reserve(maskBytes: maskStride * chunkRows, markCount: markWords * chunkRows)
        // (Read once: the table no longer moves.)
        let mask = scratch.mask, marks = scratch.marks, table = scratch.table
        let y0 = plan.rows.lowerBound + c * chunkRows, y1 = min(plan.rows.upperBound, y0 + chunkRows)
        for li in range {
            guard let b = plan.buckets[li] else { continue }
            let first = table + b.first, order = table + b.order
            let lo = Int(first[c]), hi = Int(first[c + 1])
            guard lo < hi else { continue }
            let layer = plan.layers[li]
            let full = min(layer.alpha, 1) * 255            // a fully covered pixel's mask value
            // (A pattern only antialiased, four numbers a segment: else drawn solid.)
            let dashes = antialias && layer.dashes.map { $0.pieces.count >= layer.segments.count } == true ? layer.dashes : nil
            let pattern = dashes?.step ?? .zero
            let count = layer.segments.count / 4
            // One width for every segment, solid: the joints need no widths compared.
            let constant = layer.endWidths == nil && dashes == nil
            // The chunk's rows a segment wrote (bit r: row y0 + r).
            var touched: UInt32 = 0
            layer.segments.withUnsafeBufferPointer { s in
                (dashes?.pieces ?? []).withUnsafeBufferPointer { d in
                    for j in lo..<hi {
                        let k = Int(order[j])
                        let (h0, h1, even) = drawnHalves(layer, k, antialias: antialias)
                        let (flatStart, flatEnd) = dashes != nil ? (false, false)
                            : flatEnds(layer, s, k, count: count, h0: h0, even: even, constant: constant, antialias: antialias)
                        cover(s[4 * k], s[4 * k + 1], s[4 * k + 2], s[4 * k + 3], h0: h0, h1: h1, taper: !even, full: full, antialias: antialias,
                              mask: mask, maskStride: maskStride, width: width, y0: y0, y1: y1, touched: &touched,
                              marks: marks, markWords: markWords, flatStart: flatStart, flatEnd: flatEnd,
                              dash: dashes == nil ? nil : d.baseAddress.map { $0 + 4 * k }, pattern: pattern)
                    }
                }
            }
            let source = pixel(layer.color)
            // Every line of the frame the blend will read, asked for at once: the loads
            // overlap instead of stalling row after row.
            /// Runs `body` for each written row r of the chunk.
            @inline(__always) func eachRow(_ body: (Int) -> Void) {
                var rows = touched
                while rows != 0 {
                    body(rows.trailingZeroBitCount)
                    rows &= rows &- 1
                }
            }
            eachRow { r in
                prefetch(mask + r * maskStride, marks: marks + r * markWords, words: markWords,
                         into: (pixels + (y0 + r) * stride).assumingMemoryBound(to: UInt32.self))
            }
            eachRow { r in
                blend(mask + r * maskStride, marks: marks + r * markWords, words: markWords,
                      into: (pixels + (y0 + r) * stride).assumingMemoryBound(to: UInt32.self), width: width, source: source)
            }
        }
    }

    /// One layer of lines of one width (no `endWidths`), antialiased, over a few rows:
    /// `stroke(layers: [layer], antialias: true, ...)` byte for byte, with `under(y)` run for
    /// every row y of `rows` just before the layer blends into it (a polygon's fill, row by
    /// row, under its outline: `ShapePainter.fillAndStroke`). Each 32 rows take every segment
    /// (no buckets, no prefetch): for a small outline's few segments and rows, the buckets
    /// cost more than they save. False, drawing nothing and running no `under`, for a layer
    /// this does not draw (tapered, zero width, transparent).
    static func stroke(_ layer: Layer, pixels: UnsafeMutableRawPointer, stride: Int, width: Int, rows: Range<Int>,
                       under: (Int) -> Void) -> Bool {
        guard layer.endWidths == nil, layer.dashes == nil, layer.lineWidth > 0, layer.alpha > 0, width > 0 else { return false }
        let count = layer.segments.count / 4
        let maskStride = (width + 7) & ~7
        let markWords = (maskStride / 8 + 63) / 64
        let scratch = LineScratch.current
        scratch.reserve(maskBytes: maskStride * chunkRows, markCount: markWords * chunkRows)
        let mask = scratch.mask, marks = scratch.marks
        let h = layer.lineWidth / 2
        let full = min(layer.alpha, 1) * 255
        let source = pixel(layer.color)
        layer.segments.withUnsafeBufferPointer { s in
            var y0 = rows.lowerBound
            while y0 < rows.upperBound {
                let y1 = min(rows.upperBound, y0 + chunkRows)
                var touched: UInt32 = 0
                for k in 0..<count {
                    let ax = s[4 * k], ay = s[4 * k + 1], bx = s[4 * k + 2], by = s[4 * k + 3]
                    guard ax.isFinite, ay.isFinite, bx.isFinite, by.isFinite else { continue }
                    // Each joint's round join drawn once, as `draw` draws it.
                    let (flatStart, flatEnd) = flatEnds(layer, s, k, count: count, h0: h, even: true, constant: true, antialias: true)
                    cover(ax, ay, bx, by, h0: h, h1: h, taper: false, full: full, antialias: true,
                          mask: mask, maskStride: maskStride, width: width, y0: y0, y1: y1, touched: &touched,
                          marks: marks, markWords: markWords, flatStart: flatStart, flatEnd: flatEnd)
                }
                for y in y0..<y1 {
                    under(y)
                    let r = y - y0
                    guard touched & 1 << UInt32(r) != 0 else { continue }
                    blend(mask + r * maskStride, marks: marks + r * markWords, words: markWords,
                          into: (pixels + y * stride).assumingMemoryBound(to: UInt32.self), width: width, source: source)
                }
                y0 = y1
            }
        }
        return true
    }

    /// `max` and `min` of two doubles as the standard library's (the same value for every
    /// pair, NaN included: `y >= x ? y : x`, `y < x ? y : x`), as plain selects: in the pixel
    /// loops LLVM vectorizes these where it left the generic calls' loops one pixel at a time.
    enum Pick {
        @inline(__always) static func max(_ x: Double, _ y: Double) -> Double { y >= x ? y : x }
        @inline(__always) static func min(_ x: Double, _ y: Double) -> Double { y < x ? y : x }
        @inline(__always) static func max(_ x: Float, _ y: Float) -> Float { y >= x ? y : x }
        @inline(__always) static func min(_ x: Float, _ y: Float) -> Float { y < x ? y : x }
    }

    /// Half the width of a layer's segment k at its start and end. Without antialiasing a line
    /// is at least a pixel wide: a thinner one would keep only the pixels whose centres it
    /// passes near, a dotted trail.
    @inline(__always)
    private static func halves(_ layer: Layer, _ k: Int, antialias: Bool) -> (Double, Double) {
        guard let w = layer.endWidths else {
            let h = antialias ? layer.lineWidth / 2 : max(layer.lineWidth / 2, 0.5)
            return (h, h)
        }
        let a = w[2 * k] / 2, b = w[2 * k + 1] / 2
        guard a.isFinite, b.isFinite, a >= 0, b >= 0 else { return (0, 0) }
        return antialias ? (a, b) : (max(a, 0.5), max(b, 0.5))
    }

    /// The half widths segment k is drawn at (`h0` at its start, `h1` at its end) and whether
    /// they are one (`even`): a width that does not change by 1/16 px or more is drawn at the
    /// mean.
    @inline(__always)
    private static func drawnHalves(_ layer: Layer, _ k: Int, antialias: Bool) -> (h0: Double, h1: Double, even: Bool) {
        let (ha, hb) = halves(layer, k, antialias: antialias)
        let even = abs(ha - hb) < 1.0 / 16
        let h0 = even ? (ha == hb ? ha : (ha + hb) / 2) : ha
        return (h0, even ? h0 : hb, even)
    }

    /// Which of segment k's ends are flat (`cover`): a joint's round join is drawn once, by the
    /// segment of the two drawn at the greater (constant) width, or by the first at equal
    /// widths; the other leaves out its round end there. For solid lines only (a pattern's gap
    /// may lie over the joint). `constant`: one width for every segment (the first always draws
    /// the join: no widths compared); else a segment and its neighbour must each be `even`.
    @inline(__always)
    private static func flatEnds(_ layer: Layer, _ s: UnsafeBufferPointer<Double>, _ k: Int, count: Int, h0: Double, even: Bool,
                                 constant: Bool, antialias: Bool) -> (start: Bool, end: Bool) {
        if constant { return (k > 0 && joins(s, k - 1), false) }
        guard even else { return (false, false) }
        var start = false, end = false
        if k > 0, joins(s, k - 1), case let (p, _, pe) = drawnHalves(layer, k - 1, antialias: antialias), pe, p >= h0 { start = true }
        if k + 1 < count, joins(s, k), case let (n, _, ne) = drawnHalves(layer, k + 1, antialias: antialias), ne, n > h0 { end = true }
        return (start, end)
    }

    /// Whether segment k + 1 starts where segment k (finite) ends: a joint of one line. (Its
    /// end equal to a number is finite or infinite; an infinite one is no joint either.)
    @inline(__always)
    private static func joins(_ s: UnsafeBufferPointer<Double>, _ k: Int) -> Bool {
        s[4 * k + 2] == s[4 * k + 4] && s[4 * k + 3] == s[4 * k + 5]
            && (s[4 * k] + s[4 * k + 1] + s[4 * k + 2] + s[4 * k + 3]).isFinite
    }

    /// The colour as cairo makes a solid source of it (components to 16 bits, then the top 8).
    static func pixel(_ c: RGBColor) -> (r: UInt32, g: UInt32, b: UInt32) {
        func eight(_ v: Double) -> UInt32 { UInt32(UInt16(min(max(v, 0), 1) * 65535 + 0.5) >> 8) }
        return (eight(c.r), eight(c.g), eight(c.b))
    }

    /// Raises the mask to one segment's coverage in rows y0..<y1. Antialiased, a pixel whose
    /// centre is d from the segment gets min(1, 2h, h + 0.5 - d) (times `full`), h being half
    /// the width there: h0 throughout, or (`taper`) h0 + t (h1 - h0) where the pixel's foot on
    /// the segment lies (t from 0 at a to 1 at b), an end's past that end. Without
    /// antialiasing a pixel is `full` when d < h, else untouched.
    ///
    /// Each row visits one run of pixels that holds the capsule of radius max(h0, h1) (+ 0.5
    /// antialiased) about the segment there: the strip within that radius of the segment's
    /// line, cut to the capsule's x extent (a few pixels by the round ends get nothing). Each
    /// pixel works out its distance in the same few steps without a branch (antialiased): the
    /// distance along the segment past an end (zero between them) and across it, then one
    /// square root; antialiased, in single precision from the run's first pixel (session 27).
    /// A pixel's value depends on the pixel and the segment alone (the run's first pixel is
    /// the segment's and the row's), never on the rows a call draws.
    @inline(__always)
    private static func cover(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, h0: Double, h1: Double, taper: Bool, full: Double,
                              antialias: Bool, mask: UnsafeMutablePointer<UInt8>, maskStride: Int, width: Int, y0: Int, y1: Int,
                              touched: inout UInt32,
                              marks: UnsafeMutablePointer<UInt64>, markWords: Int, flatStart: Bool = false, flatEnd: Bool = false,
                              dash: UnsafePointer<Float>? = nil, pattern: SIMD4<Float> = .zero) {
        let reach = (taper ? max(h0, h1) : h0) + (antialias ? 0.5 : 0)
        let reach2 = reach * reach
        let on = WholeNumbers.byte(full + 0.5)          // a pixel's value without antialiasing
        let cap = min(1, 2 * h0), dh = h1 - h0
        let dx = bx - ax, dy = by - ay
        let len2 = dx * dx + dy * dy
        let len = len2.squareRoot()
        let line = len > 0
        // Along the segment (0 at a, 1 at b) and across it (px), per px of x.
        let tx = line ? dx / len2 : 0, ty = line ? dy / len2 : 0
        let sx = line ? -dy / len : 0, sy = line ? dx / len : 0
        let isx = sx != 0 ? 1 / sx : 0
        // How far the capsule reaches past each end, across x and y: `reach` about a round end;
        // a flat end (`flatStart`, `flatEnd`: a joint whose round join the neighbouring
        // segment draws) only its edge's, reach x |dy| / len and reach x |dx| / len. Pixels
        // of the capsule past a flat end may still be visited; they get the round end's value,
        // which the neighbour's round end, as wide or wider and no further, gives them as well.
        let flatX = line ? reach * abs(dy) / len : reach, flatY = line ? reach * abs(dx) / len : reach
        let raX = flatStart ? flatX : reach, raY = flatStart ? flatY : reach
        let rbX = flatEnd ? flatX : reach, rbY = flatEnd ? flatY : reach
        let top = max(Double(y0), min(ay - raY, by - rbY) - 0.5)
        let bottom = min(Double(y1 - 1), max(ay + raY, by + rbY) - 0.5)
        guard top <= bottom else { return }
        let rowLo = -WholeNumbers.floor(-top), rowHi = WholeNumbers.floor(bottom)
        guard rowLo <= rowHi else { return }
        let maxX = Double(width - 1)
        // The capsule's x extent (its flat ends' edges).
        let boxL = min(ax - raX, bx - rbX), boxR = max(ax + raX, bx + rbX)
        for py in rowLo...rowHi {
            let cy = Double(py) + 0.5
            let da = cy - ay
            let s0 = da * sy
            // A run that holds the capsule on this row's centre line: the strip |s| < reach
            // within the capsule's x extent (the caps' corners come in too; they get nothing).
            var xl = boxL, xr = boxR
            if !line {
                guard da * da < reach2 else { continue }
                let w = (reach2 - da * da).squareRoot()
                xl = ax - w; xr = ax + w
            } else if sx != 0 {
                let p = ax + (-reach - s0) * isx, q = ax + (reach - s0) * isx
                xl = max(xl, min(p, q)); xr = min(xr, max(p, q))
            } else if abs(s0) >= reach {
                continue
            }
            // Pixels whose centres (x + 0.5) lie in [xl, xr].
            let left = max(0, xl - 0.5), right = min(maxX, xr - 0.5)
            guard left <= right else { continue }
            let l = -WholeNumbers.floor(-left), r = WholeNumbers.floor(right)
            guard l <= r else { continue }
            let row = mask + (py - y0) * maskStride
            if !line {
                // A dot (of half width h0): the distance to its point.
                var cx = Double(l) + 0.5
                for px in l...r {
                    let ex = cx - ax
                    let d = (ex * ex + da * da).squareRoot()
                    let m = antialias ? WholeNumbers.byte(max(min(cap, h0 + 0.5 - d), 0) * full + 0.5) : d < h0 ? on : 0
                    row[px] = max(row[px], m)
                    cx += 1
                }
            } else {
                // Each pixel's place along (t) and across (s) the segment: antialiased, from the
                // run's first pixel in single precision; without antialiasing, from its own
                // centre in double. Three copies of the pixel loop, so that none tests the kind
                // of line per pixel (one copy testing both made the overlay frame 7 % slower).
                // Each is a `while` loop of plain selects (`Pick`: `max` and `min`, the same
                // values): written so, LLVM vectorizes it (four pixels at a time in single
                // precision, two in double) where it took a `for px in l...r` loop of `max` and
                // `min` one at a time. Session 25's figures, in double: the same bytes; replayed line
                // calls, minimum of 10 runs: the route 12 % faster, the tilted street's lines
                // 4 %, the flat street's 3 to 7 %; thin outlines' short runs pay the vector
                // set-up, 2 to 4 % slower.
                let t0 = da * ty
                var px = l
                if antialias {
                    // Single precision from the run's first pixel (its t and s worked out in
                    // double): four pixels a vector where doubles went two at a time, and
                    // within 1/1000 px of the double's distance on a 4K frame (2,000 random
                    // segments and runs, pixels within 20 px of the line: at most 2.4e-4 px).
                    // A pixel's run starts where the segment and its row put it, never where
                    // a band does: the bands still give the serial frame byte for byte.
                    let ex = (Double(l) + 0.5) - ax
                    let tl = Float(ex * tx + t0), sl = Float(ex * sx + s0)
                    let ftx = Float(tx), fsx = Float(sx), flen = Float(len), ffull = Float(full)
                    let out = row + l
                    // The run taken on to a whole number of vectors where the row has the
                    // pixels: a pixel past r is outside the capsule's strip (or its x extent),
                    // at least `reach` from the segment, so it gets 0 and keeps its old value;
                    // the pixel loops then run four at a time to the end of nearly every run
                    // (a street frame's runs average 4 px: the one-at-a-time remainder took a
                    // quarter of the line drawing's samples).
                    let n = Int32(truncatingIfNeeded: min((r - l + 4) & ~3, width - l))
                    var i: Int32 = 0
                    if let dash {
                        // Drawn along a pattern (`Dashes`): the distance past the segment's ends
                        // or to the nearest dash's core, whichever is more, with the distance
                        // across. In periods from the nearest dash's middle, u - rounded(u):
                        // rounded by adding and taking away 1.5 x 2^23, where a float's step
                        // is 1 (|u| < 2^22: a piece is never millions of dashes long). The
                        // scale from pattern to screen px linear along the piece (past its ends,
                        // where the distance past the end is the larger, it does not matter).
                        let period = pattern[0], inverse = pattern[1], core = pattern[3] * inverse
                        let ul = (dash[0] - pattern[2] + tl * dash[1]) * inverse, ux = ftx * dash[1] * inverse
                        let kl = (dash[2] + tl * (dash[3] - dash[2])) * period, kx = ftx * (dash[3] - dash[2]) * period
                        let magic: Float = 12_582_912
                        @inline(__always) func pixels(_ tapered: Bool) {
                            let fh0 = Float(h0), fh1 = Float(h1), fdh = Float(dh), fcap = Float(cap), fh = Float(h0 + 0.5)
                            while i < n {
                                let fi = Float(i)
                                let t = fi * ftx + tl, s = fi * fsx + sl
                                let past = Pick.max(Pick.max(-t, t - 1), 0) * flen
                                let u = fi * ux + ul
                                let off = Pick.max(abs(u - ((u + magic) - magic)) - core, 0) * (fi * kx + kl)
                                let over = Pick.max(past, off)
                                let d = (s * s + over * over).squareRoot()
                                let m: UInt8
                                if tapered {
                                    let h = t > 1 ? fh1 : fh0 + Pick.max(t, 0) * fdh
                                    m = WholeNumbers.byte(Pick.max(Pick.min(Pick.min(1, 2 * h), h + 0.5 - d), 0) * ffull + 0.5)
                                } else {
                                    m = WholeNumbers.byte(Pick.max(Pick.min(fcap, fh - d), 0) * ffull + 0.5)
                                }
                                let old = out[Int(i)]
                                out[Int(i)] = m >= old ? m : old
                                i &+= 1
                            }
                        }
                        if taper { pixels(true) } else { pixels(false) }
                    } else if !taper {
                        let fcap = Float(cap), fh = Float(h0 + 0.5)
                        while i < n {
                            let (_, d) = foot(i, tl: tl, tx: ftx, sl: sl, sx: fsx, len: flen)
                            let m = WholeNumbers.byte(Pick.max(Pick.min(fcap, fh - d), 0) * ffull + 0.5)
                            let old = out[Int(i)]
                            out[Int(i)] = m >= old ? m : old
                            i &+= 1
                        }
                    } else {
                        let fh0 = Float(h0), fh1 = Float(h1), fdh = Float(dh)
                        while i < n {
                            let (t, d) = foot(i, tl: tl, tx: ftx, sl: sl, sx: fsx, len: flen)
                            let h = t > 1 ? fh1 : fh0 + Pick.max(t, 0) * fdh
                            let m = WholeNumbers.byte(Pick.max(Pick.min(Pick.min(1, 2 * h), h + 0.5 - d), 0) * ffull + 0.5)
                            let old = out[Int(i)]
                            out[Int(i)] = m >= old ? m : old
                            i &+= 1
                        }
                    }
                } else {
                    while px <= r {
                        let (t, d) = foot(px, ax: ax, tx: tx, t0: t0, sx: sx, s0: s0, len: len)
                        let h = taper ? (t > 1 ? h1 : h0 + Pick.max(t, 0) * dh) : h0
                        let old = row[px]
                        row[px] = d < h ? on : old
                        px &+= 1
                    }
                }
            }
            let i = py - y0
            touched |= 1 &<< UInt32(i)
            // The run's 8-pixel words, wl...wr: one mark word's bits at once when they share it
            // (a run under 512 px that does not cross a 512-px boundary: nearly every run).
            let mk = marks + i * markWords
            let wl = l >> 3, wr = r >> 3
            if wl >> 6 == wr >> 6 {
                mk[wl >> 6] |= ((~0 as UInt64) &>> UInt64(63 - (wr - wl))) &<< UInt64(wl & 63)
            } else {
                for w in wl...wr { mk[w >> 6] |= 1 << UInt64(w & 63) }
            }
        }
    }

    /// Pixel px's place along a segment (t: 0 at its start a, 1 at its end) and its centre's
    /// distance from the segment (past an end, from that end), worked out from the pixel's own
    /// centre: the three pixel loops of `cover` share it (inlined, each still vectorized).
    @inline(__always)
    private static func foot(_ px: Int, ax: Double, tx: Double, t0: Double, sx: Double, s0: Double, len: Double) -> (t: Double, d: Double) {
        let ex = (Double(px) + 0.5) - ax
        let t = ex * tx + t0, s = ex * sx + s0
        let over = Pick.max(Pick.max(-t, t - 1), 0) * len
        return (t, (s * s + over * over).squareRoot())
    }

    /// The run's pixel i's place along a segment and its distance from it, as `foot(px:...)`,
    /// in single precision from the run's first pixel (t = tl, s = sl there).
    @inline(__always)
    private static func foot(_ i: Int32, tl: Float, tx: Float, sl: Float, sx: Float, len: Float) -> (t: Float, d: Float) {
        let fi = Float(i)
        let t = fi * tx + tl, s = fi * sx + sl
        let over = Pick.max(Pick.max(-t, t - 1), 0) * len
        return (t, (s * s + over * over).squareRoot())
    }

    /// Asks for the cache lines of a row under the mask's set 8-pixel words (one per 16 pixels),
    /// among the words `marks` holds.
    @inline(__always)
    private static func prefetch(_ m: UnsafeMutablePointer<UInt8>, marks: UnsafeMutablePointer<UInt64>, words: Int,
                                 into row: UnsafeMutablePointer<UInt32>) {
        let base = UnsafeMutableRawPointer(m).assumingMemoryBound(to: UInt64.self)
        var last = -1
        for k in 0..<words {
            var bits = marks[k]
            while bits != 0 {
                let w = k << 6 | bits.trailingZeroBitCount
                bits &= bits &- 1
                guard base[w] != 0 else { continue }
                let line = w >> 1
                if line != last { tb_prefetch_write(row + 8 * w); last = line }
            }
        }
    }

    /// Blends the colour into a row where the mask is set (coverage m/255 over the pixel, as a
    /// solid source through an A8 mask), in the 8-pixel words `marks` holds, clearing the mask
    /// and the marks as it goes.
    @inline(__always)
    private static func blend(_ m: UnsafeMutablePointer<UInt8>, marks: UnsafeMutablePointer<UInt64>, words: Int,
                              into row: UnsafeMutablePointer<UInt32>, width: Int, source: (r: UInt32, g: UInt32, b: UInt32)) {
        let blend = SolidBlend(r: source.r, g: source.g, b: source.b)
        let solid = blend.solid
        let base = UnsafeMutableRawPointer(m).assumingMemoryBound(to: UInt64.self)
        for k in 0..<words {
            var set = marks[k]
            guard set != 0 else { continue }
            marks[k] = 0
            while set != 0 {
                let w = k << 6 | set.trailingZeroBitCount
                set &= set &- 1
                let word = base + w
                let bits = word.pointee
                let x = 8 * w
                if bits == ~0 {
                    // Eight fully covered pixels (a wide opaque line's inside).
                    for i in x..<x + 8 { row[i] = solid }
                    word.pointee = 0
                } else if bits != 0 && x + 8 <= width {
                    // (Eight pixels at once within the row; the word past its end, pixel by pixel.)
                    blend.overEight(row + x, bits)
                    word.pointee = 0
                } else if bits != 0 {
                    // Bit 8j set when byte j (pixel x + j) is covered: only those are visited.
                    var nz = bits | bits >> 4
                    nz |= nz >> 2
                    nz |= nz >> 1
                    nz &= 0x0101_0101_0101_0101
                    repeat {
                        let j = nz.trailingZeroBitCount
                        nz &= nz &- 1
                        let a = UInt32(truncatingIfNeeded: bits >> UInt64(j)) & 0xff
                        let i = x + j >> 3
                        row[i] = a == 255 ? solid : blend.over(row[i], a)
                    } while nz != 0
                    word.pointee = 0
                }
            }
        }
    }
}

extension LineRasterizer {
    /// Whether `stroke(_:cr:...)` can draw into cr: an XRGB8888 image moved by whole pixels at most.
    private static func canDraw(into cr: OpaquePointer) -> Bool {
        guard let target = cairo_get_target(cr) else { return false }
        return cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE && cairo_image_surface_get_format(target) == CAIRO_FORMAT_RGB24
            && isWholePixelTranslation(cr)
    }

    /// Draws segments given in cr's user space straight into cr's target image, within its
    /// clip. Returns false, drawing nothing, when the target is not an XRGB8888 image or cr's
    /// matrix is more than a whole-pixel translation (the caller strokes with cairo then).
    @discardableResult
    static func stroke(_ seg: [Double], endWidths: [Double]? = nil, cr: OpaquePointer, lineWidth: Double, color: RGBColor, alpha: Double = 1,
                       antialias: Bool) -> Bool {
        stroke(layers: [Layer(segments: seg, endWidths: endWidths, lineWidth: lineWidth, color: color, alpha: alpha)], cr: cr, antialias: antialias)
    }

    /// `stroke(layers:antialias:pixels:...)` straight into cr's target image within its clip,
    /// segments in cr's user space; false, drawing nothing, as `stroke(_:cr:...)`.
    @discardableResult
    static func stroke(layers: [Layer], cr: OpaquePointer, antialias: Bool) -> Bool {
        guard canDraw(into: cr), let target = cairo_get_target(cr), let data = cairo_image_surface_get_data(target) else { return false }
        guard layers.contains(where: { !$0.segments.isEmpty }) else { return true }
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        let sw = Double(cairo_image_surface_get_width(target)), sh = Double(cairo_image_surface_get_height(target))
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        let c0 = min(max(0, (x0 + m.x0).rounded(.down)), sw), c1 = min(max(0, (x1 + m.x0).rounded(.up)), sw)
        let r0 = min(max(0, (y0 + m.y0).rounded(.down)), sh), r1 = min(max(0, (y1 + m.y0).rounded(.up)), sh)
        guard c0 < c1, r0 < r1 else { return true }
        let shiftX = m.x0 - c0, shiftY = m.y0
        var shifted = layers
        if shiftX != 0 || shiftY != 0 {
            for i in shifted.indices {
                shifted[i].segments.withUnsafeMutableBufferPointer { seg in
                    for k in 0..<seg.count / 2 { seg[2 * k] += shiftX; seg[2 * k + 1] += shiftY }
                }
            }
        }
        cairo_surface_flush(target)
        stroke(layers: shifted, antialias: antialias,
               pixels: UnsafeMutableRawPointer(data) + Int(c0) * 4, stride: Int(cairo_image_surface_get_stride(target)),
               width: Int(c1 - c0), rows: Int(r0)..<Int(r1))
        cairo_surface_mark_dirty(target)
        return true
    }

    /// The pieces of lines a dash pattern leaves (segments x0, y0, x1, y1, ... as `segments(of:)`
    /// gives them: a segment that starts where the one before ends continues its line, and the
    /// pattern runs on along it; a new line starts the pattern afresh, as cairo's dashes do).
    /// `pattern` alternates on and off lengths in pixels (empty: one dash the whole line long).
    /// Each dash is shortened by `trim` at both ends: the rasterizer's ends are round, half the
    /// width long, so trimming by half the width gives the length of a butt-capped dash (a dash
    /// shorter than that becomes a dot as wide as the line). Pieces of one dash stay joined.
    ///
    /// `scale`, when given, is how much larger than at the camera target the ground shows at a
    /// screen y (a tilted view, `GroundView.perspectiveScale`): each dash, gap and trim is its
    /// length times the scale where the dash starts (a line's end is trimmed by the scale there),
    /// so dashes shorten with distance as the ground does. Taken as at least 0.05.
    ///
    /// Dashes come out once: a piece equal to one before it (the same four numbers) is left
    /// out. OpenStreetMap boundaries share their ways (two municipalities' boundaries from the
    /// point where they meet), so their lines in a tile run over the same vertices from the same
    /// start and cut the same dashes: in the street bench's view 43 % of the region boundary's
    /// pieces were repeats. A layer's coverage is the maximum over its pieces, so a repeat adds
    /// nothing to the picture, only its rows' work.
    ///
    /// `runs`: where each line starts (its first segment) and, for its dashes, how far along the
    /// whole line it starts (`Run.along`: a line cut by the view's edge starts part way, and its
    /// dashes fall where they would on the whole line, so a view, a scrolled cache's strip and
    /// the next full frame cut the same dashes); a line's end at the view's edge is not trimmed
    /// (the line goes on past it). Without runs, a line is a chain of segments each starting where
    /// the last ended, dashed from its start and trimmed at both ends.
    static func dashed(_ seg: [Double], pattern: [Double], trim: Double, scale: PerspectiveScale? = nil, runs: [Run]? = nil) -> [Double] {
        let n = seg.count / 4
        guard n > 0 else { return [] }
        let period = pattern.reduce(0, +)
        let dashing = !pattern.isEmpty && period > 0 && pattern.allSatisfy { $0 >= 0 && $0.isFinite }
        if !dashing && trim <= 0 { return seg }
        let scale = scale?.atLeast(0.05)
        let minScale = scale?.minimum ?? 1
        @inline(__always) func scaleAt(_ y: Double) -> Double {
            guard let scale else { return 1 }
            let v = scale(y)
            return v.isFinite ? v : 1
        }
        // The pieces go through a pointer (an array's append checks its buffer every time: most
        // of this function's instructions went there), each segment's length into a scratch.
        var out = PieceBuffer(capacity: seg.count + 64)
        defer { out.free() }
        eachLine(seg, runs: runs) { k, line, s, lengths in
            let e = line.end, run = line.run, total = line.total
            // Walks the line once: `j` is the segment holding arc length `at`, `start` its start's.
            var j = k, start = 0.0
            func point(_ at: Double) -> (Double, Double) {
                while j < e - 1 && start + lengths[j] < at { start += lengths[j]; j += 1 }
                let l = lengths[j]
                let t = l > 0 ? min(max((at - start) / l, 0), 1) : 0
                return (s[4 * j] + t * (s[4 * j + 2] - s[4 * j]), s[4 * j + 1] + t * (s[4 * j + 3] - s[4 * j + 1]))
            }
            func emit(_ a: Double, _ b: Double, trimStart: Double, trimEnd: Double) {
                var a = a + trimStart, b = b - trimEnd
                if a >= b { a = (a + b) / 2; b = a }
                var p = point(a)
                // The vertices between a and b, then b.
                while j < e - 1 && start + lengths[j] < b {
                    start += lengths[j]; j += 1
                    let q = (s[4 * j], s[4 * j + 1])
                    out.append(p.0, p.1, q.0, q.1)
                    p = q
                }
                let q = point(b)
                out.append(p.0, p.1, q.0, q.1)
            }
            // An end is trimmed (a butt end) where the line ends: not where the view cut it,
            // nor where the next line goes on from it (a road's ways, one after the other).
            let openStart = line.openStart, openEnd = line.openEnd
            if !dashing {
                emit(0, total, trimStart: openStart ? 0 : trim * scaleAt(s[4 * k + 1]), trimEnd: openEnd ? 0 : trim * scaleAt(s[4 * e - 1]))
            } else if total / (period * minScale) < 1_000_000 {
                // The pattern from the whole line's start: the part before this run skipped
                // (tilted: `along` is ground px, the pattern's px at the scale of 1; on screen
                // at the scale where the run starts).
                var at = -run.along.truncatingRemainder(dividingBy: period) * scaleAt(s[4 * k + 1]), i = 0, on = true
                if !at.isFinite { at = 0 }
                while at < total {
                    let sc = scale == nil ? 1 : scaleAt(point(max(at, 0)).1)
                    let len = pattern[i] * sc
                    if on && len > 0 && at + len > 0 {
                        emit(max(at, 0), min(at + len, total), trimStart: at <= 0 && openStart ? 0 : trim * sc,
                             trimEnd: at + len >= total && openEnd ? 0 : trim * sc)
                    }
                    at += len
                    i = (i + 1) % pattern.count
                    on.toggle()
                }
            }
        }
        return dashing ? out.distinctPieces() : out.array()
    }
}

extension LineRasterizer {
    /// A line among segments to dash (`dashed(_:pattern:trim:scale:runs:)`): its first segment,
    /// how far along the whole line it starts (px), and whether its start and end are where the
    /// view cut it.
    struct Run {
        var first: Int
        var along: Double
        var startCut: Bool
        var endCut = false
    }
}

/// Segments (four numbers each) written through a pointer, the storage doubled when full: what
/// `LineRasterizer.dashed` makes, copied into an array once at the end.
private struct PieceBuffer {
    private var base: UnsafeMutablePointer<Double>
    private var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = UnsafeMutablePointer<Double>.allocate(capacity: self.capacity)
    }

    @inline(__always)
    mutating func append(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
        if count + 4 > capacity { grow() }
        base[count] = x0; base[count + 1] = y0; base[count + 2] = x1; base[count + 3] = y1
        count += 4
    }

    private mutating func grow() {
        let bigger = UnsafeMutablePointer<Double>.allocate(capacity: 2 * capacity)
        bigger.initialize(from: base, count: count)
        base.deallocate()
        base = bigger
        capacity *= 2
    }

    func array() -> [Double] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The pieces in order without those equal, bit for bit, to one before, through an
    /// open-addressing table of piece numbers.
    func distinctPieces() -> [Double] {
        let n = count / 4
        guard n > 1 else { return array() }
        var bits = 4
        while 1 << bits < 2 * n { bits += 1 }
        let mask = (1 << bits) - 1
        let table = UnsafeMutablePointer<Int32>.allocate(capacity: mask + 1)
        table.initialize(repeating: -1, count: mask + 1)
        defer { table.deallocate() }
        let b = UnsafeRawPointer(base).assumingMemoryBound(to: UInt64.self)
        return [Double](unsafeUninitializedCapacity: count) { out, written in
            var w = 0
            for k in 0..<n {
                let p = b + 4 * k
                var h = (p[0] ^ (p[1] << 17 | p[1] >> 47)) &* 0x9E37_79B9_7F4A_7C15
                h = (h ^ p[2] ^ (p[3] << 29 | p[3] >> 35)) &* 0xC2B2_AE3D_27D4_EB4F
                var slot = Int(truncatingIfNeeded: h >> UInt64(64 - bits))
                var repeated = false
                while table[slot] >= 0 {
                    let q = b + 4 * Int(table[slot])
                    if q[0] == p[0] && q[1] == p[1] && q[2] == p[2] && q[3] == p[3] { repeated = true; break }   // bit patterns
                    slot = (slot + 1) & mask
                }
                guard !repeated else { continue }
                table[slot] = Int32(k)
                for i in 0..<4 { out[w + i] = base[4 * k + i] }
                w += 4
            }
            written = w
        }
    }

    func free() { base.deallocate() }
}

/// The memory `LineRasterizer.stroke(layers:...)` draws through, one per thread, kept between
/// calls: a frame's 566 outline calls made, cleared and freed about 5,000 buffers and arrays.
/// Between calls the mask and the marks are all zero: every row a call writes is blended, and
/// the blend clears what it visits.
final class LineScratch {
    private(set) var mask: UnsafeMutablePointer<UInt8>
    private(set) var marks: UnsafeMutablePointer<UInt64>
    /// The layers' bucket tables, and each segment's chunk range while a layer is bucketed.
    private(set) var table: UnsafeMutablePointer<Int32>
    private(set) var spans: UnsafeMutablePointer<Int32>
    /// `FillRasterizer`'s cells and their groups' marks (clear between fills: each row's walk
    /// clears what the edges set).
    private(set) var cells: UnsafeMutablePointer<Float>
    private(set) var cellMarks: UnsafeMutablePointer<UInt64>
    private var maskBytes = 0, markCount = 0, tableCount = 0, spanCount = 0, cellCount = 0, cellMarkCount = 0

    private init() {
        mask = .allocate(capacity: 0)
        marks = .allocate(capacity: 0)
        table = .allocate(capacity: 0)
        spans = .allocate(capacity: 0)
        cells = .allocate(capacity: 0)
        cellMarks = .allocate(capacity: 0)
    }

    deinit {
        mask.deallocate(); marks.deallocate(); table.deallocate(); spans.deallocate()
        cells.deallocate(); cellMarks.deallocate()
    }

    /// Room for at least `need` (doubling `count`, what `p` had room for) in place of `p`,
    /// which is freed: its first `keeping` elements copied over and, when `zero` is given, the
    /// rest set to it. (Returned, not `inout`: an `inout` of a property into a call kept every
    /// read of this class's properties checked at run time.)
    private static func grown<T>(_ p: UnsafeMutablePointer<T>, _ count: Int, to need: Int, keeping: Int = 0, zero: T? = nil)
        -> (UnsafeMutablePointer<T>, Int) {
        let n = max(need, 2 * count)
        let bigger = UnsafeMutablePointer<T>.allocate(capacity: n)
        bigger.initialize(from: p, count: keeping)
        if let zero { (bigger + keeping).initialize(repeating: zero, count: n - keeping) }
        p.deallocate()
        return (bigger, n)
    }

    /// At least this much mask and marks (grown cleared; what is kept is already clear).
    @inline(__always)
    func reserve(maskBytes need: Int, markCount needMarks: Int) {
        if need > maskBytes { (mask, maskBytes) = Self.grown(mask, maskBytes, to: need, zero: 0) }
        if needMarks > markCount { (marks, markCount) = Self.grown(marks, markCount, to: needMarks, zero: 0) }
    }

    /// At least this many fill cells and marks (grown cleared; what is kept is already clear).
    @inline(__always)
    func reserve(cells need: Int, cellMarks needMarks: Int) {
        if need > cellCount { (cells, cellCount) = Self.grown(cells, cellCount, to: need, zero: 0) }
        if needMarks > cellMarkCount { (cellMarks, cellMarkCount) = Self.grown(cellMarks, cellMarkCount, to: needMarks, zero: 0) }
    }

    /// A table of at least `need` entries whose first `keeping` are kept.
    @inline(__always)
    func reserve(table need: Int, keeping: Int) {
        if need > tableCount { (table, tableCount) = Self.grown(table, tableCount, to: need, keeping: keeping) }
    }

    /// Room for `need` spans (what they held is not kept).
    @inline(__always)
    func reserve(spans need: Int) {
        if need > spanCount { (spans, spanCount) = Self.grown(spans, spanCount, to: need) }
    }

    /// This thread's scratch (made on its first stroke, released when the thread ends).
    static var current: LineScratch {
        if let p = pthread_getspecific(key) { return Unmanaged<LineScratch>.fromOpaque(p).takeUnretainedValue() }
        let s = LineScratch()
        pthread_setspecific(key, Unmanaged.passRetained(s).toOpaque())
        return s
    }

    private static let key: pthread_key_t = {
        var k = pthread_key_t()
        pthread_key_create(&k) { p in
            if let p { Unmanaged<LineScratch>.fromOpaque(p).release() }
        }
        return k
    }()
}

