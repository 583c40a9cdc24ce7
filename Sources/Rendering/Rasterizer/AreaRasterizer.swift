import CCairo
import Foundation

/// Fills polygons (rings of screen points, holes included) with a solid colour by exact area
/// coverage, straight into XRGB8888 rows: each edge adds the signed area it leaves in each
/// pixel of the rows it crosses to an accumulation buffer, and a running sum along a row is the
/// winding there (the method of font-rs and stb_truetype's v2 rasterizer). Even-odd: the
/// winding's fractional part folded (|w| mod 2, above 1 taken as 2 - it). One pass over the
/// polygon's box, no tessellation, no allocation beyond the buffer: a small overlay polygon
/// costs a few microseconds where a cairo fill with its setup cost about twenty.
enum AreaRasterizer {
    /// Screen coordinates beyond this (px) are left to cairo.
    static let maxCoordinate = 1_000_000.0

    /// Fills `rings` (screen px, x0, y0, x1, y1, ...; each ring closed implicitly) into the
    /// rows `rows` and columns `columns` of `pixels`, blending `color` at `alpha` times the
    /// coverage.
    /// False (nothing drawn) when a point is not finite or lies beyond `maxCoordinate` px, or
    /// the polygon is wider than 65,536 px: the caller fills such a ring with cairo.
    @discardableResult
    static func fill(_ rings: [[Double]], color: RGBColor, alpha: Double, evenOdd: Bool,
                     pixels: UnsafeMutableRawPointer, stride: Int, columns: Range<Int>, rows: Range<Int>) -> Bool {
        guard let made = Coverage.make(rings, color: color, alpha: alpha, evenOdd: evenOdd, pixels: pixels, stride: stride,
                                       columns: columns, rows: rows) else { return false }
        guard let coverage = made else { return true }
        defer { coverage.free() }
        for y in coverage.rows { coverage.blend(row: y) }
        return true
    }

    /// A polygon's coverage made (its edges' areas accumulated over its box within the clip),
    /// blended into the frame one row at a time: by `fill`, or between other work on the same
    /// rows (a polygon's outline over its fill, row by row: `ShapePainter.fillAndStroke`).
    struct Coverage {
        /// The frame rows it covers (the polygon's within the clip).
        let rows: Range<Int>
        private let acc: UnsafeMutablePointer<Float>
        /// Accumulation columns a row (from `left`, the polygon's left edge).
        private let w: Int
        /// Frame columns blended (x0..<x0 + n); `skip` accumulation columns lie left of x0.
        private let x0: Int, n: Int, skip: Int
        private let evenOdd: Bool
        private let a255: Float
        private let color: SolidBlend
        private let pixels: UnsafeMutableRawPointer
        private let stride: Int
        /// Rows whose frame lines are asked for ahead of their blend.
        private static let ahead = 3

        /// Nil when the rings cannot be drawn here (as `fill` returns false); nil inside when
        /// there is nothing to draw. `offset` is added to every point (cr's whole-pixel
        /// translation: the rings are not copied to move them).
        static func make(_ rings: [[Double]], offset: (x: Double, y: Double) = (0, 0), color: RGBColor, alpha: Double, evenOdd: Bool,
                         pixels: UnsafeMutableRawPointer, stride: Int, columns: Range<Int>, rows: Range<Int>) -> Coverage?? {
            guard alpha > 0, !columns.isEmpty, !rows.isEmpty else { return .some(nil) }
            var minX = Double.infinity, maxX = -Double.infinity, minY = Double.infinity, maxY = -Double.infinity
            for r in rings {
                var i = 0
                while i + 1 < r.count {
                    let x = r[i] + offset.x, y = r[i + 1] + offset.y
                    // Only bounded, finite points reach the Int conversions below (a trap is a restart loop).
                    guard x.isFinite, y.isFinite, abs(x) <= maxCoordinate, abs(y) <= maxCoordinate else { return nil }
                    minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                    i += 2
                }
            }
            guard minX <= maxX else { return .some(nil) }
            // Rows the polygon and the clip share; columns from the polygon's left edge (the winding
            // starts at 0 there) to the clip's right edge.
            let y0 = max(rows.lowerBound, Int(minY.rounded(.down))), y1 = min(rows.upperBound, Int(maxY.rounded(.up)))
            let left = Int(minX.rounded(.down))
            let x0 = max(columns.lowerBound, left), x1 = min(columns.upperBound, Int(maxX.rounded(.up)))
            guard y0 < y1, x0 < x1 else { return .some(nil) }
            let w = Int(maxX.rounded(.up)) - left + 2, h = y1 - y0
            guard w > 0, w <= 1 << 16, h <= 1 << 16 else { return nil }
            let acc = UnsafeMutablePointer<Float>.allocate(capacity: w * h)
            // Zeroed with memset (all bits zero is 0.0): `initialize(repeating:count:)` compiled to
            // a loop storing one Float at a time, a tenth of a small polygon's fill.
            memset(acc, 0, w * h * MemoryLayout<Float>.stride)
            let ox = Double(left), oy = Double(y0), hh = Double(h), dx = offset.x, dy = offset.y
            for r in rings {
                let n = r.count / 2
                guard n >= 3 else { continue }
                for i in 0..<n {
                    let j = (i + 1) % n
                    line(r[2 * i] + dx - ox, r[2 * i + 1] + dy - oy, r[2 * j] + dx - ox, r[2 * j + 1] + dy - oy, acc: acc, w: w, h: hh)
                }
            }
            let s = LineRasterizer.pixel(color)
            return Coverage(rows: y0..<y1, acc: acc, w: w, x0: x0, n: x1 - x0, skip: x0 - left, evenOdd: evenOdd,
                            a255: Float(min(alpha, 1) * 255), color: SolidBlend(r: s.r, g: s.g, b: s.b), pixels: pixels, stride: stride)
        }

        func free() { acc.deallocate() }

        /// Asks for the frame's lines under row `y` (a small polygon's rows each start on a line
        /// not in the core's cache).
        @inline(__always) private func prefetch(row y: Int) {
            let out = (pixels + y * stride).assumingMemoryBound(to: UInt32.self) + x0
            var i = 0
            while i < n { tb_prefetch_write(out + i); i += 16 }
            tb_prefetch_write(out + n - 1)
        }

        /// Blends frame row y (one of `rows`), asking for the lines of the rows a few ahead
        /// (and, at the first row, of the first few).
        @inline(__always)
        func blend(row y: Int) {
            let row = y - rows.lowerBound, h = rows.count
            if row == 0 { for r in 0..<min(Self.ahead, h) { prefetch(row: rows.lowerBound + r) } }
            if row + Self.ahead < h { prefetch(row: y + Self.ahead) }
            let evenOdd = self.evenOdd, a255 = self.a255
            // A pixel's coverage is a function of the running sum alone, and the sum changes only
            // where an edge left area: across the polygon's inside and the rows' empty ends the
            // coverage of the pixel before holds (the same bytes as working it out every pixel).
            @inline(__always) func alphaOf(_ sum: Float) -> UInt32 {
                UInt32(WholeNumbers.byte(Double(AreaRasterizer.coverage(sum, evenOdd: evenOdd) * a255 + 0.5)))   // under 256
            }
            let line = acc + row * w
            let out = (pixels + y * stride).assumingMemoryBound(to: UInt32.self) + x0
            let blend = color, solid = color.solid
            var sum: Float = 0
            // The winding left of the clip still counts.
            for x in 0..<skip { sum += line[x] }
            var al = sum == 0 ? 0 : alphaOf(sum)
            let cells = line + skip
            // The last blend's pixel, coverage and result: inside a polygon over the sea or the
            // land the next pixel is mostly the same colour at the same coverage.
            var lastD: UInt32 = 0, lastAl: UInt32 = 0, lastOut: UInt32 = 0
            // The colour's share at coverage `al`, worked out when the coverage changes.
            var at = blend.at(al)
            for i in 0..<n {
                let v = cells[i]
                // (The bits, not the value: -0.0 leaves the sum and the coverage as they are, and
                // a float comparison also tests for NaN, a second branch.)
                if v.bitPattern != 0 {
                    sum += v
                    al = alphaOf(sum)
                    at = blend.at(al)
                }
                if al == 0 { continue }
                if al >= 255 { out[i] = solid; continue }
                let d = out[i]
                if d == lastD && al == lastAl { out[i] = lastOut; continue }
                lastD = d; lastAl = al
                lastOut = at.over(d)
                out[i] = lastOut
            }
        }
    }

    /// The coverage (0 to 1) of a pixel whose running sum of edge areas is `sum`: |sum| up to 1
    /// (non-zero), or |sum| folded mod 2 (even-odd). `FillRasterizer` takes the same.
    @inline(__always)
    static func coverage(_ sum: Float, evenOdd: Bool) -> Float {
        var c = sum < 0 ? -sum : sum
        if c > 1 {
            if evenOdd {
                c -= Float(2 * Int(c * 0.5))      // |w| mod 2 (c >= 0: truncation is floor)
                if c > 1 { c = 2 - c }
            } else {
                c = 1
            }
        }
        return c
    }

    /// One edge's signed area into the accumulation buffer (w columns a row, h rows; x >= 0).
    @inline(__always)
    private static func line(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, acc: UnsafeMutablePointer<Float>, w: Int, h: Double) {
        accumulate(ax, ay, bx, by, h: h, maxX: Double(w - 1), cells: w) { y, i, v in acc[y * w + i] += v }
    }

    /// The signed area an edge leaves in each cell of the rows it crosses (0 <= y < h), its x
    /// held within [0, maxX] (font-rs, stb_truetype's v2: along a row, the running sum of the
    /// cells is the winding there): `add(y, i, v)` for each cell i < `cells`. This rasterizer's
    /// dense buffer and `FillRasterizer`'s sparse cells both take it.
    @inline(__always)
    static func accumulate(_ ax: Double, _ ay: Double, _ bx: Double, _ by: Double, h: Double, maxX: Double, cells: Int,
                           add: (_ y: Int, _ i: Int, _ v: Float) -> Void) {
        guard ay != by else { return }
        let (p0x, p0y, p1x, p1y, dir): (Double, Double, Double, Double, Double) = ay < by ? (ax, ay, bx, by, 1) : (bx, by, ax, ay, -1)
        let dxdy = (p1x - p0x) / (p1y - p0y)
        // (An edge so nearly level that its slope overflows leaves no area worth a cell.)
        guard dxdy.isFinite else { return }
        var yStart = p0y, x = p0x
        if yStart < 0 { x -= yStart * dxdy; yStart = 0 }
        let yEnd = min(p1y, h)
        guard yStart < yEnd else { return }
        var y = WholeNumbers.floor(yStart)
        while Double(y) < yEnd {
            let top = max(Double(y), yStart), bottom = min(Double(y + 1), yEnd)
            let dy = bottom - top
            let xNext = x + dxdy * dy
            let d = Float(dy * dir)
            @inline(__always) func cell(_ i: Int, _ v: Float) { if i < cells { add(y, i, v) } }
            let lx = min(max(min(x, xNext), 0), maxX), rx = min(max(max(x, xNext), 0), maxX)
            // (0 <= lx, rx <= maxX: `WholeNumbers`, no libm call.)
            let li = WholeNumbers.floor(lx), lf = Double(li)
            let ri = -WholeNumbers.floor(-rx), rc = Double(ri)
            if ri <= li + 1 {
                let xm = Float(0.5 * (lx + rx) - lf)
                cell(li, d - d * xm)
                cell(li + 1, d * xm)
            } else {
                let s = 1 / (rx - lx)
                let x0f = lx - lf
                let a0 = 0.5 * s * (1 - x0f) * (1 - x0f)
                let x1f = rx - rc + 1
                let am = 0.5 * s * x1f * x1f
                cell(li, d * Float(a0))
                if ri == li + 2 {
                    cell(li + 1, d * Float(1 - a0 - am))
                } else {
                    let a1 = s * (1.5 - x0f)
                    cell(li + 1, d * Float(a1 - a0))
                    if li + 2 < ri - 1 { for xi in (li + 2)..<(ri - 1) { cell(xi, d * Float(s)) } }
                    let a2 = a1 + Double(ri - li - 3) * s
                    cell(ri - 1, d * Float(1 - a2 - am))
                }
                cell(ri, d * Float(am))
            }
            x = xNext
            y += 1
        }
    }

    /// Fills rings into cr's target when it is an XRGB8888 image drawn at a whole-pixel offset
    /// (within cr's clip); false otherwise (the caller fills with cairo).
    static func fill(_ rings: [[Double]], cr: OpaquePointer, color: RGBColor, alpha: Double, evenOdd: Bool) -> Bool {
        guard let made = coverage(rings, cr: cr, color: color, alpha: alpha, evenOdd: evenOdd) else { return false }
        guard let coverage = made, let target = cairo_get_target(cr) else { return true }
        defer { coverage.free() }
        cairo_surface_flush(target)
        for y in coverage.rows { coverage.blend(row: y) }
        cairo_surface_mark_dirty(target)
        return true
    }

    /// The rings' coverage (user space) in cr's target, within cr's clip, to blend row by row:
    /// nil when cr's target is not an XRGB8888 image drawn at a whole-pixel offset or a point
    /// is out of range (the caller fills with cairo), nil inside when nothing is to be drawn.
    /// The caller flushes the target before it blends, and marks it dirty after.
    static func coverage(_ rings: [[Double]], cr: OpaquePointer, color: RGBColor, alpha: Double, evenOdd: Bool) -> Coverage?? {
        guard let target = cairo_get_target(cr), cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
              cairo_image_surface_get_format(target) == CAIRO_FORMAT_RGB24, isWholePixelTranslation(cr),
              let data = cairo_image_surface_get_data(target) else { return nil }
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        guard m.x0.isFinite, m.y0.isFinite, abs(m.x0) < maxCoordinate, abs(m.y0) < maxCoordinate else { return nil }
        let sw = Int(cairo_image_surface_get_width(target)), sh = Int(cairo_image_surface_get_height(target))
        // Clamped before the Int conversions (the clip is the surface at most; never a trap).
        func px(_ v: Double) -> Int { v.isFinite ? Int(min(max(v, -maxCoordinate), maxCoordinate)) : 0 }
        let c0 = max(0, px((x0 + m.x0).rounded(.down))), c1 = min(sw, px((x1 + m.x0).rounded(.up)))
        let r0 = max(0, px((y0 + m.y0).rounded(.down))), r1 = min(sh, px((y1 + m.y0).rounded(.up)))
        guard c0 < c1, r0 < r1 else { return .some(nil) }
        return Coverage.make(rings, offset: (m.x0, m.y0), color: color, alpha: alpha, evenOdd: evenOdd, pixels: UnsafeMutableRawPointer(data),
                             stride: Int(cairo_image_surface_get_stride(target)), columns: c0..<c1, rows: r0..<r1)
    }
}
