import CCairo
import Foundation
import MapEngine
import VectorTiles

/// One glyph of a label placed along a line: its centre on the line (screen px), the angle of
/// its baseline (radians, clockwise from the screen's x axis, as cairo rotates), and its ground
/// point (so a gesture frame moves it with the map).
public struct LineGlyph: Sendable, Equatable {
    public var x: Double, y: Double
    public var angle: Double
    public let coordinate: Coordinate
}

/// A polyline on screen with its length up to each vertex, for walking along it.
struct ScreenPolyline {
    var xs: [Double] = [], ys: [Double] = []
    /// Distance along the line from its first vertex to each vertex.
    var lengths: [Double] = []

    init() {}
    /// Room for `capacity` vertices.
    init(capacity: Int) {
        xs.reserveCapacity(capacity); ys.reserveCapacity(capacity); lengths.reserveCapacity(capacity)
    }
    init(points: [(Double, Double)]) {
        for p in points { append(p.0, p.1) }
    }
    /// A line whose points and lengths along it are already known (as `append` makes them).
    init(xs: ArraySlice<Double>, ys: ArraySlice<Double>, lengths: ArraySlice<Double>) {
        self.xs = Array(xs); self.ys = Array(ys); self.lengths = Array(lengths)
    }

    /// How far a point (x, y) is from the line's last point (lx, ly); nil when it is too near to
    /// count (within 1e-9 px: left out, as `append` leaves it out).
    @inline(__always)
    static func step(from lx: Double, _ ly: Double, to x: Double, _ y: Double) -> Double? {
        let d = hypot(x - lx, y - ly)
        return d > 1e-9 ? d : nil
    }

    mutating func append(_ x: Double, _ y: Double) {
        if let lx = xs.last, let ly = ys.last {
            guard let d = Self.step(from: lx, ly, to: x, y) else { return }
            lengths.append(lengths.last! + d)
        } else {
            lengths.append(0)
        }
        xs.append(x); ys.append(y)
    }

    var count: Int { xs.count }
    var length: Double { lengths.last ?? 0 }

    func reversed() -> ScreenPolyline {
        var r = ScreenPolyline(capacity: count)
        for i in stride(from: count - 1, through: 0, by: -1) { r.append(xs[i], ys[i]) }
        return r
    }

    /// The segment containing distance s (clamped to the line).
    private func segment(at s: Double) -> Int {
        var lo = 0, hi = count - 1
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if lengths[mid] <= s { lo = mid } else { hi = mid }
        }
        return lo
    }

    /// The point at distance s along the line (s outside the line: extended along its end segments).
    func point(at s: Double) -> (Double, Double) {
        let i = segment(at: s)
        let seg = lengths[i + 1] - lengths[i]
        let t = (s - lengths[i]) / seg
        return (xs[i] + t * (xs[i + 1] - xs[i]), ys[i] + t * (ys[i + 1] - ys[i]))
    }

    /// The direction (radians) of the segment at distance s.
    func tangent(at s: Double) -> Double {
        let i = segment(at: s)
        return atan2(ys[i + 1] - ys[i], xs[i + 1] - xs[i])
    }

    /// Distance from a point to the nearest point of the line.
    func distance(to p: (Double, Double)) -> Double {
        var best = Double.infinity
        for i in 0..<(count - 1) {
            let ax = xs[i], ay = ys[i], bx = xs[i + 1], by = ys[i + 1]
            let dx = bx - ax, dy = by - ay
            let t = max(0, min(1, ((p.0 - ax) * dx + (p.1 - ay) * dy) / (dx * dx + dy * dy)))
            best = min(best, hypot(p.0 - ax - t * dx, p.1 - ay - t * dy))
        }
        return best
    }
}

/// Where the glyphs of a text go along a line (MapLibre's `symbol-placement: line`): each
/// glyph's centre on the line, turned to the line's direction across its own width.
enum LinePlacement {
    /// Angle difference wrapped to (-pi, pi].
    static func turn(_ a: Double, _ b: Double) -> Double {
        var d = b - a
        while d > .pi { d -= 2 * .pi }
        while d <= -.pi { d += 2 * .pi }
        return d
    }

    /// The glyphs of a text centred at distance `center` along `line`, or nil when the text does
    /// not fit on the line there, bends more than `maxAngle` (radians) between neighbouring
    /// glyphs, or would read upside down (the caller then tries the reversed line).
    /// `glyphs` are each glyph's centre from the text's left edge and its advance, px.
    static func place(_ glyphs: [(center: Double, advance: Double)], width: Double, along line: ScreenPolyline,
                      center: Double, maxAngle: Double) -> [(x: Double, y: Double, angle: Double)]? {
        let start = center - width / 2
        guard start >= 0, start + width <= line.length, line.count >= 2 else { return nil }
        // Upright: the text runs left to right on screen (a vertical stretch reads bottom to top
        // or top to bottom, both readable), and no glyph leans past 100 degrees. The run's
        // direction first: half the tries (the line one way, then the other) end here, before
        // any glyph is placed.
        let ex = line.point(at: start + width).0 - line.point(at: start).0
        if ex < -1e-6 { return nil }
        var out: [(x: Double, y: Double, angle: Double)] = []
        out.reserveCapacity(glyphs.count)
        for g in glyphs {
            let s = start + g.center
            let p = line.point(at: s)
            let angle: Double
            if g.advance > 0.5 {
                let a = line.point(at: max(0, s - g.advance / 2)), b = line.point(at: min(line.length, s + g.advance / 2))
                angle = hypot(b.0 - a.0, b.1 - a.1) > 1e-6 ? atan2(b.1 - a.1, b.0 - a.0) : line.tangent(at: s)
            } else {
                angle = line.tangent(at: s)
            }
            if let last = out.last, abs(turn(last.angle, angle)) > maxAngle { return nil }
            out.append((p.0, p.1, angle))
        }
        guard let first = out.first, let last = out.last else { return nil }
        if out.count > 1 && last.x - first.x < -1e-6 { return nil }
        if out.contains(where: { cos($0.angle) < -0.17 }) { return nil }
        return out
    }

    /// A segment cut to the square 0...size (Liang-Barsky); nil when it lies outside.
    static func clip(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, to size: Double) -> ((Double, Double), (Double, Double))? {
        var t0 = 0.0, t1 = 1.0
        let dx = x1 - x0, dy = y1 - y0
        for (p, q) in [(-dx, x0), (dx, size - x0), (-dy, y0), (dy, size - y0)] {
            if p == 0 { if q < 0 { return nil }; continue }
            let t = q / p
            if p < 0 { if t > t1 { return nil }; t0 = max(t0, t) } else { if t < t0 { return nil }; t1 = min(t1, t) }
        }
        guard t1 > t0 else { return nil }
        return ((x0 + t0 * dx, y0 + t0 * dy), (x0 + t1 * dx, y0 + t1 * dy))
    }

    /// Anchor distances along a line of `length` for a text of `width`: one in the middle of a
    /// short line, one per `spacing` along a long one.
    static func anchors(length: Double, width: Double, spacing: Double) -> [Double] {
        guard length >= width else { return [] }
        let n = max(1, Int((length / max(spacing, width)).rounded(.down)))
        return (0..<n).map { (Double($0) + 0.5) * length / Double(n) }
    }

    /// Glyph placement for a text on a line near `anchor`: centred at the anchor or, when the
    /// line bends too much there, shifted along it to a straight enough stretch; reading
    /// left to right (the line reversed if it runs right to left). `reversed` is the line
    /// reversed, made here when first needed (nil) and kept for the line's next anchor.
    static func best(_ glyphs: [(center: Double, advance: Double)], width: Double, along line: ScreenPolyline,
                     reversed: inout ScreenPolyline?, anchor: Double, maxAngle: Double, shiftLimit: Double) -> [(x: Double, y: Double, angle: Double)]? {
        let step = max(width / 4, 4)
        var shifts: [Double] = [0]
        var k = step
        while k <= shiftLimit { shifts.append(k); shifts.append(-k); k += step }
        for d in shifts {
            let c = anchor + d
            if let p = place(glyphs, width: width, along: line, center: c, maxAngle: maxAngle) { return p }
            if reversed == nil { reversed = line.reversed() }
            if let back = reversed, let p = place(glyphs, width: width, along: back, center: line.length - c, maxAngle: maxAngle) { return p }
        }
        return nil
    }
}

/// A text laid out once for drawing along lines: each glyph's position on the baseline and its
/// image (the glyph with its halo, as plain pixels, rasterised once and shared by every name
/// with that glyph of the same font and colours; see GlyphBitmaps). Each frame copies every
/// glyph straight onto the frame, turned to its line: glyphs are rasterised once, never per frame.
final class LineText {
    struct Glyph {
        /// The glyph's pen position from the text's left edge and its advance, px.
        let penX: Double, advance: Double
        /// Its image and the image's top left relative to the pen position on the baseline.
        let image: GlyphBitmap?
        let dx: Double, dy: Double
        var center: Double { penX + advance / 2 }
    }
    let glyphs: [Glyph]
    let width: Double, height: Double
    /// The baseline's distance from the text's top.
    let baseline: Double
    let bytes: Int

    init(glyphs: [Glyph], width: Double, height: Double, baseline: Double) {
        self.glyphs = glyphs
        placement = glyphs.map { ($0.center, $0.advance) }
        self.width = width; self.height = height; self.baseline = baseline
        bytes = glyphs.reduce(64) { $0 + ($1.image?.bytes ?? 0) + 48 }
    }

    /// Each glyph's centre from the text's left edge and its advance (`LinePlacement`'s input).
    let placement: [(center: Double, advance: Double)]

    /// Lays out a pango layout's glyphs (one line) and takes their images from `bitmaps` (made
    /// there on first use; without it, rasterised for this text alone: the same pixels).
    static func make(_ layout: OpaquePointer, color: StyleColor, halo: StyleColor?, radius: Double, bitmaps: GlyphBitmaps? = nil) -> LineText {
        let bitmaps = bitmaps ?? GlyphBitmaps()
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        let scale = Double(PANGO_SCALE)
        var glyphs: [Glyph] = []
        var baseline = 0.0
        let iter = pango_layout_get_iter(layout)!
        defer { pango_layout_iter_free(iter) }
        baseline = Double(pango_layout_iter_get_baseline(iter)) / scale - Double(logical.y)
        let gs1 = pango_glyph_string_new()!
        defer { pango_glyph_string_free(gs1) }
        pango_glyph_string_set_size(gs1, 1)
        repeat {
            guard let run = pango_layout_iter_get_run_readonly(iter) else { continue }
            var rInk = PangoRectangle(), rLogical = PangoRectangle()
            pango_layout_iter_get_run_extents(iter, &rInk, &rLogical)
            guard let gs = run.pointee.glyphs, let font = run.pointee.item.pointee.analysis.font else { continue }
            // The font by its description (family, weight, style, size in px): a key that holds
            // no font object.
            let desc = pango_font_describe_with_absolute_size(font)
            let fontName: String
            if let desc, let cs = pango_font_description_to_string(desc) {
                fontName = String(cString: cs)
                g_free(cs)
            } else {
                fontName = ""
            }
            if let desc { pango_font_description_free(desc) }
            var pen = Double(rLogical.x) / scale - Double(logical.x)
            for i in 0..<Int(gs.pointee.num_glyphs) {
                let info = gs.pointee.glyphs[i]
                let advance = Double(info.geometry.width) / scale
                var gInk = PangoRectangle(), gLogical = PangoRectangle()
                pango_font_get_glyph_extents(font, info.glyph, &gInk, &gLogical)
                var image: GlyphBitmap?
                let empty = gInk.width <= 0 || gInk.height <= 0
                if !empty {
                    let pad = Int(radius.rounded(.up)) + 1
                    let ox = Double(info.geometry.x_offset) / scale, oy = Double(info.geometry.y_offset) / scale
                    let x0 = Int((Double(gInk.x) / scale + ox).rounded(.down)) - pad
                    let y0 = Int((Double(gInk.y) / scale + oy).rounded(.down)) - pad
                    let x1 = Int((Double(gInk.x + gInk.width) / scale + ox).rounded(.up)) + pad
                    let y1 = Int((Double(gInk.y + gInk.height) / scale + oy).rounded(.up)) + pad
                    let key = GlyphBitmaps.Key(font: fontName, glyph: info.glyph, xOffset: info.geometry.x_offset, yOffset: info.geometry.y_offset,
                                               color: color, halo: radius > 0 ? halo : nil, radius: halo == nil ? 0 : radius)
                    image = bitmaps.glyph(key) { serial in
                        GlyphBitmap.rasterize(width: x1 - x0, height: y1 - y0, dx: x0, dy: y0, serial: serial) { cr, bx, by in
                            var one = info
                            one.geometry.width = 0
                            gs1.pointee.glyphs[0] = one
                            if let halo, radius > 0 {
                                cairo_set_source_rgba(cr, halo.r, halo.g, halo.b, halo.a)
                                for (hx, hy) in [(-1.0, -1.0), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
                                    cairo_move_to(cr, bx + hx * radius, by + hy * radius)
                                    pango_cairo_show_glyph_string(cr, font, gs1)
                                }
                            }
                            cairo_set_source_rgba(cr, color.r, color.g, color.b, color.a)
                            cairo_move_to(cr, bx, by)
                            pango_cairo_show_glyph_string(cr, font, gs1)
                        }
                    }
                }
                glyphs.append(Glyph(penX: pen, advance: advance, image: image, dx: Double(image?.dx ?? 0), dy: Double(image?.dy ?? 0)))
                pen += advance
            }
        } while pango_layout_iter_next_run(iter) != 0
        return LineText(glyphs: glyphs, width: Double(logical.width), height: Double(logical.height), baseline: baseline)
    }

    /// Draws the glyphs at their placed points, the text's vertical middle on the line, each
    /// glyph copied straight onto cr's target: a glyph turned less than about 2 degrees as its
    /// image at a whole pixel, a turned one as its image turned (to a degree, its centre to half
    /// a pixel; `bitmaps` keeps those, without it they are made for this call: the same pixels).
    /// A target that is not an image moved by whole pixels is painted through cairo instead.
    func draw(_ placed: [LineGlyph], cr: OpaquePointer, bitmaps: GlyphBitmaps? = nil) {
        guard GlyphTarget(cr) != nil else { paintThroughCairo(placed, cr: cr); return }
        var out: [LabelCopy] = []
        copies(placed, bitmaps: bitmaps ?? GlyphBitmaps(), into: &out)
        LabelCopy.copy(out, cr: cr)
    }

    /// What `draw` copies onto the frame, in order: each glyph's image, upright or turned (made
    /// in `bitmaps` here), and where it goes.
    func copies(_ placed: [LineGlyph], bitmaps: GlyphBitmaps, angleSteps: Int = GlyphBitmaps.angleSteps, into out: inout [LabelCopy]) {
        let up = baseline - height / 2
        for (g, p) in zip(glyphs, placed) {
            guard let image = g.image else { continue }
            let sx = -g.advance / 2 + g.dx, sy = up + g.dy
            let c = cos(p.angle), s = sin(p.angle)
            if abs(s) < 0.035 && c > 0 {
                let x = (p.x + sx).rounded(), y = (p.y + sy).rounded()
                guard abs(x) < 1e9, abs(y) < 1e9 else { continue }
                out.append(.glyph(image, x: Int(x), y: Int(y)))
                continue
            }
            guard let (t, ix, iy) = bitmaps.turned(image, ox: sx, oy: sy, angle: p.angle, cx: p.x, cy: p.y, steps: angleSteps) else { continue }
            out.append(.glyph(t.image, x: ix + t.x0, y: iy + t.y0))
        }
    }

    /// The glyphs painted through cairo's transform (bilinear), for a target `draw` cannot write.
    private func paintThroughCairo(_ placed: [LineGlyph], cr: OpaquePointer) {
        let up = baseline - height / 2
        var base = cairo_matrix_t()
        cairo_get_matrix(cr, &base)
        for (g, p) in zip(glyphs, placed) {
            guard let bitmap = g.image, let image = CairoImage.argb(bitmap.pixels, width: bitmap.width, height: bitmap.height) else { continue }
            let sx = -g.advance / 2 + g.dx, sy = up + g.dy
            var local = cairo_matrix_t(xx: cos(p.angle), yx: sin(p.angle), xy: -sin(p.angle), yy: cos(p.angle), x0: p.x, y0: p.y)
            var m = cairo_matrix_t()
            cairo_matrix_multiply(&m, &local, &base)
            cairo_set_matrix(cr, &m)
            cairo_set_source_surface(cr, image.surface, sx, sy)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_BILINEAR)
            cairo_paint(cr)
            cairo_set_matrix(cr, &base)
        }
    }
}

/// One image of a frame's street labels copied onto the frame at a whole pixel (user space): an
/// icon or a haloed name (its sprite), or a glyph of a name along a line, upright or turned.
/// Copies are made beforehand (`StreetLabelPainter.copies`: every image rasterised or turned
/// then), so that bands of the frame may copy them at once, reading only.
enum LabelCopy: Sendable {
    case sprite(SpriteRuns, x: Int, y: Int)
    case glyph(GlyphBitmap, x: Int, y: Int)
    /// A place's dot (the built-in world's cities): a disc of `radius` px at (x, y), filled with
    /// the halo colour and then with the dot's colour, by cairo (`WorldLabels.paintDot`).
    case dot(x: Double, y: Double, radius: Double, halo: RGBColor, color: RGBColor)

    /// Composites the copies OVER cr's target (an image cr moves by whole pixels), in order,
    /// each within cr's clip: a band of the frame gets the rows of the whole frame's picture.
    static func copy(_ copies: [LabelCopy], cr: OpaquePointer) {
        guard let target = GlyphTarget(cr), let surface = cairo_get_target(cr) else { return }
        cairo_surface_flush(surface)
        // cr's clip in user space: a dot wholly outside it (below or above a band) is not given
        // to cairo, whose two fills cost about 30,000 instructions a dot even when clipped away.
        var cx0 = 0.0, cy0 = 0.0, cx1 = 0.0, cy1 = 0.0
        cairo_clip_extents(cr, &cx0, &cy0, &cx1, &cy1)
        for c in copies {
            switch c {
            case let .sprite(s, x, y): target.over(s, x: x, y: y)
            case let .glyph(b, x, y): target.over(b, x: x, y: y)
            case let .dot(x, y, radius, halo, color):
                // (A disc of `radius` inks pixels within radius + 1 of its centre, antialiased.)
                let reach = radius + 2
                guard x + reach > cx0, x - reach < cx1, y + reach > cy0, y - reach < cy1 else { continue }
                cairo_surface_mark_dirty(surface)
                WorldLabels.paintDot(cr: cr, x: x, y: y, radius: radius, halo: halo, color: color)
                cairo_surface_flush(surface)
            }
        }
        cairo_surface_mark_dirty(surface)
    }
}

/// Line texts kept between frames, the least recently used going first past `maxBytes`.
final class LineTexts {
    struct Key: Hashable {
        let text: String
        let sizePx: Double
        let bold: Bool
        let color: StyleColor
        let halo: StyleColor?
        let radius: Double
    }
    var maxBytes: Int { texts.maxCost }
    private var texts: LRUCache<Key, LineText>
    var bytes: Int { texts.totalCost }
    /// Texts laid out (tests: a second frame lays out none).
    private(set) var made = 0

    init(maxBytes: Int = 4 << 20) { texts = LRUCache(maxCost: maxBytes) }

    /// Draws a name along its line, glyph by glyph straight onto the frame (see LineText.draw).
    func draw(_ key: Key, _ placed: [LineGlyph], cr: OpaquePointer, renderer: TextRenderer) {
        text(key, renderer: renderer).draw(placed, cr: cr, bitmaps: renderer.glyphBitmaps)
    }

    func text(_ key: Key, renderer: TextRenderer) -> LineText {
        if let hit = texts.value(for: key) { return hit }
        let layout = renderer.layout(key.text, TextRenderer.Style(sizePx: key.sizePx, bold: key.bold, width: nil, maxLines: 1))
        let t = LineText.make(layout, color: key.color, halo: key.halo, radius: key.radius, bitmaps: renderer.glyphBitmaps)
        texts.insert(t, cost: t.bytes, for: key)
        made += 1
        return t
    }
}

/// Screen boxes already taken, bucketed in a grid so a test looks at a few neighbours only.
struct CollisionGrid {
    let cell = 64.0
    let columns: Int, rows: Int
    private var cells: [[LabelFrame]]

    init(width: Double, height: Double) {
        columns = max(1, Int((width / cell).rounded(.up)) + 1)
        rows = max(1, Int((height / cell).rounded(.up)) + 1)
        cells = Array(repeating: [], count: columns * rows)
    }

    private func range(_ b: LabelFrame) -> (ClosedRange<Int>, ClosedRange<Int>) {
        func clampC(_ v: Double) -> Int { min(max(Int((v / cell).rounded(.down)), 0), columns - 1) }
        func clampR(_ v: Double) -> Int { min(max(Int((v / cell).rounded(.down)), 0), rows - 1) }
        return (clampC(b.x)...clampC(b.x + b.width), clampR(b.y)...clampR(b.y + b.height))
    }

    func hits(_ b: LabelFrame) -> Bool {
        let (cs, rs) = range(b)
        for r in rs { for c in cs where cells[r * columns + c].contains(where: { $0.intersects(b) }) { return true } }
        return false
    }

    mutating func insert(_ b: LabelFrame) {
        let (cs, rs) = range(b)
        for r in rs { for c in cs { cells[r * columns + c].append(b) } }
    }
}
