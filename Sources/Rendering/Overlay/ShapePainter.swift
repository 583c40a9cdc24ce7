import CCairo
import Foundation
import MapEngine
import TouchCore

/// Draws overlay shapes (polylines, polygons, circles, ground images) and the route on the
/// ground of a view, and the location puck over it.
///
/// Every vertex goes through the view's ground (`GroundView.ground`, bearing included): lines
/// are clipped to the view's ground rectangle (grown by `margin` px so no stroke's edge shows
/// where it was cut; tilted, its far edge is the far line, in front of the horizon, so no point
/// behind the eye is ever projected), then projected vertex by vertex (`GroundView.screen`), so
/// straight Mercator segments stay straight in perspective. A shape's longitudes are unwrapped
/// (`PreparedShape`) and it is drawn at every copy of the world the view overlaps: the copy
/// nearest the camera, and its neighbours when the view spans more than one world width.
///
/// Lines and outlines are drawn by `LineRasterizer` (round joins and caps: coverage is the
/// maximum over the segments' capsules, so a translucent line is not blended twice where it
/// bends) when cr is an XRGB8888 image at a whole-pixel offset, else by cairo_stroke with round
/// joins and caps. A casing is the same line `2 * casingWidth` px wider in its colour, under the
/// stroke. Dashes run in ground px along the whole line (a clipped line keeps its phase, so a
/// chunk of the overlay layer and a full frame dash alike). Fills: the rings by the even-odd rule.
struct ShapePainter {
    /// The view with the wider clip rectangle.
    let view: GroundView
    let worldSize: Double
    /// Pixels the clip rectangle extends beyond what cr shows: the widest stroke's half
    /// (`OverlayLimits.maxStrokeWidth`) and a casing.
    static let margin = 48.0
    /// Tilted views: a line's width where it is drawn, times the ground's perspective scale there
    /// (as MapLibre's lines on a pitched map), never below this part of its width.
    static let minPerspectiveWidth = 0.35

    /// Whether `fillAndOutline` may draw a fill and its outline in one pass (`fillAndStroke`;
    /// off: the two passes, for comparing).
    let fusesOutlines: Bool

    init(view: GroundView, fusesOutlines: Bool = true) {
        self.view = GroundView(projection: view.projection, margin: ShapePainter.margin)
        worldSize = view.worldSize
        self.fusesOutlines = fusesOutlines
    }

    /// The world copies (as offsets in unit widths) at which a unit box shows in the view.
    func copies(of b: PreparedShape.Box, pad: Double = 0) -> ClosedRange<Int>? {
        guard !b.isEmpty else { return nil }
        let w = worldSize
        let m = (ShapePainter.margin + pad) / w
        let vMinY = view.worldMinY / w - m, vMaxY = view.worldMaxY / w + m
        guard b.maxY >= vMinY, b.minY <= vMaxY else { return nil }
        let lo = Int((view.worldMinX / w - m - b.maxX).rounded(.up)), hi = Int((view.worldMaxX / w + m - b.minX).rounded(.down))
        guard lo <= hi else { return nil }
        // A very wide view (tilted towards the horizon at low zoom) is capped, as `wrapCopies` is.
        let c = view.wrapCopies
        let a = max(lo, c.lowerBound - 1), z = min(hi, c.upperBound + 1)
        return a <= z ? a...z : nil
    }

    // MARK: shapes

    /// Draws the shapes in order, each at the world copies the view shows.
    func paint(_ shapes: [PreparedShape], cr: OpaquePointer, images: IconCache) {
        // A flat view (turned or not) maps the ground to the screen affinely: a shape whose
        // screen box misses cr's clip (a band of the frame, a chunk of the overlay layer) is
        // skipped before any path is made.
        var clip: (Double, Double, Double, Double)? = nil
        if !view.tilted {
            var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
            cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
            clip = (x0, y0, x1, y1)
        }
        for s in shapes { paint(s, cr: cr, images: images, clip: clip) }
    }

    /// Whether the unit box at copy k, grown by `pad` px, may reach the screen rectangle `clip`.
    func reaches(_ b: PreparedShape.Box, k: Int, pad: Double, clip: (Double, Double, Double, Double)) -> Bool {
        guard let s = screenBox(b, k: k) else { return true }
        return s.x1 + pad >= clip.0 && s.x0 - pad <= clip.2 && s.y1 + pad >= clip.1 && s.y0 - pad <= clip.3
    }

    /// The screen box of the unit box at copy k (its corners' box: exact on a flat view, turned
    /// or not); nil when a corner does not land on the screen plane.
    func screenBox(_ b: PreparedShape.Box, k: Int) -> (x0: Double, y0: Double, x1: Double, y1: Double)? {
        let w = worldSize, kx = Double(k)
        var sx0 = Double.infinity, sy0 = Double.infinity, sx1 = -Double.infinity, sy1 = -Double.infinity
        for (ux, uy) in [(b.minX, b.minY), (b.maxX, b.minY), (b.minX, b.maxY), (b.maxX, b.maxY)] {
            let g = view.ground(worldX: (ux + kx) * w, worldY: uy * w)
            let p = view.screen(g.0, g.1)
            sx0 = min(sx0, p.0); sy0 = min(sy0, p.1); sx1 = max(sx1, p.0); sy1 = max(sy1, p.1)
        }
        guard sx0.isFinite, sy0.isFinite, sx1.isFinite, sy1.isFinite else { return nil }
        return (sx0, sy0, sx1, sy1)
    }

    /// How drawing the shapes falls on the rows of a flat view of `width` x `height` px (in
    /// `BandWork`'s units, a pixel the line rasterizer visits), for bands of equal work: a fill
    /// as its screen box's pixels (one costs about 0.3 of a line's pixel: 13.4 M instructions
    /// for the bench's 500 polygons against 17.6 M for their outlines), a line or an outline
    /// as each block of its segments, the block's diagonal long, at its width with the casing.
    /// Nil when tilted (equal rows).
    func bandWork(_ shapes: [PreparedShape], width: Int, height: Int) -> BandWork? {
        guard !view.tilted else { return nil }
        var work = BandWork(width: width, height: height)
        let fw = Double(width), fh = Double(height)
        for s in shapes {
            let st = s.style
            let casing = st.casing != nil ? 2 * max(0, min(st.casingWidth, OverlayLimits.maxStrokeWidth)) : 0
            let stroke = st.stroke != nil && st.strokeWidth > 0 && st.strokeOpacity > 0 ? min(st.strokeWidth, OverlayLimits.maxStrokeWidth) + casing : 0
            guard let ks = copies(of: s.box, pad: stroke / 2) else { continue }
            let filled: Bool
            switch s.kind {
            case .polygon, .circle: filled = st.fill != nil && st.fillOpacity > 0
            case .image: filled = true
            case .line: filled = false
            }
            for k in ks {
                if filled, let b = screenBox(s.box, k: k) {
                    let w = max(0, min(b.x1, fw) - max(b.x0, 0)), h = max(0, min(b.y1, fh) - max(b.y0, 0))
                    work.addBox(top: b.y0, bottom: b.y1, cost: 0.3 * w * h)
                }
                guard stroke > 0 else { continue }
                for ring in s.rings(worldSize: worldSize) {
                    for block in ring.blocks where !block.isEmpty {
                        guard let b = screenBox(block, k: k), b.x1 + stroke >= 0, b.x0 - stroke <= fw else { continue }
                        let diagonal = ((b.x1 - b.x0) * (b.x1 - b.x0) + (b.y1 - b.y0) * (b.y1 - b.y0)).squareRoot()
                        work.addBox(top: b.y0 - stroke, bottom: b.y1 + stroke, cost: (diagonal + stroke + 1) * (stroke + 1))
                    }
                }
            }
        }
        return work
    }

    func paint(_ s: PreparedShape, cr: OpaquePointer, images: IconCache, clip: (Double, Double, Double, Double)? = nil) {
        let pad = max(s.style.strokeWidth / 2 + s.style.casingWidth, 0)
        guard var ks = copies(of: s.box, pad: pad) else { return }
        if clip != nil, case .image = s.kind {} else if let clip {
            // (A ground image's box is turned by its bearing: it keeps the view's own test.)
            let hit = ks.filter { reaches(s.box, k: $0, pad: pad + 2, clip: clip) }
            guard let a = hit.first, let z = hit.last else { return }
            ks = a...z
        }
        switch s.kind {
        case .line:
            let rings = s.rings(worldSize: worldSize)
            for k in ks { strokeLine(rings, closed: false, k: k, style: s.style, cr: cr) }
        case .polygon:
            let rings = s.rings(worldSize: worldSize)
            for k in ks { fillAndOutline(rings, k: k, style: s.style, cr: cr) }
        case .circle(_, let radius):
            guard let ring = s.circleRing(segments: circleSegments(radius: radius, box: s.box)) else { return }
            for k in ks { fillAndOutline([ring], k: k, style: s.style, cr: cr) }
        case let .image(path, bounds, bearing, opacity):
            guard opacity > 0, let image = images.image(path: path) else { return }
            for k in ks { paintImage(image, bounds: bounds, bearing: bearing, opacity: min(opacity, 1), k: k, cr: cr) }
        }
    }

    /// Makes, on this thread, what painting `shapes` in this view would make lazily (each
    /// shape's rings at this world size, circle rings, ground images), so that several bands may
    /// then paint them at once and only read.
    func prepareForBands(_ shapes: [PreparedShape], images: IconCache) {
        for s in shapes {
            _ = s.rings(worldSize: worldSize)
            switch s.kind {
            case .circle(_, let radius): _ = s.circleRing(segments: circleSegments(radius: radius, box: s.box))
            case .image(let path, _, _, _): _ = images.image(path: path)
            case .line, .polygon: break
            }
        }
    }

    /// Points on a circle's ring such that a chord strays at most about a quarter pixel from
    /// the circle (96 up to a radius of about 470 px on screen), at most 4096.
    func circleSegments(radius: Double, box: PreparedShape.Box) -> Int {
        // The ring's box is the circle's: its larger half-side is the radius in unit widths (or more).
        let rpx = max(box.maxX - box.minX, box.maxY - box.minY) / 2 * worldSize
        guard rpx.isFinite, rpx > 0 else { return 96 }
        // Sagitta r (1 - cos(pi / n)) ~ r pi^2 / (2 n^2) <= 1/4  =>  n >= pi sqrt(2 r).
        let n = Double.pi * (2 * rpx).squareRoot()
        guard n > 96 else { return 96 }
        // Powers of two, so a zoom animation does not make a new ring every frame.
        var p = 128
        while Double(p) < n && p < 4096 { p *= 2 }
        return p
    }

    /// The route with the navigation look: both casings under both strokes (so the travelled
    /// grey meets the blue without a casing's cap across it), the part ahead over the travelled.
    func paintRoute(travelled: PreparedShape?, ahead: PreparedShape?, cr: OpaquePointer) {
        let parts = [travelled, ahead].compactMap { $0 }
        var casings: [(layer: LineRasterizer.Layer, scales: [Double]?)] = [], lines: [(layer: LineRasterizer.Layer, scales: [Double]?)] = []
        for p in parts {
            guard let ks = copies(of: p.box, pad: p.style.strokeWidth / 2 + p.style.casingWidth) else { continue }
            for k in ks {
                guard let l = lineLayers(p.rings(worldSize: worldSize), closed: false, k: k, style: p.style) else { continue }
                if let c = l.casing { casings.append((c, l.scales)) }
                lines.append((l.line, l.scales))
            }
        }
        // Both casings, then both lines, 32 rows at a time through the four layers.
        let layers = casings + lines
        guard !layers.isEmpty, !ShapePainter.rasterize(layers: layers.map(\.layer), cr: cr) else { return }
        for (l, scales) in layers {
            stroke(l.segments, scales: scales, width: l.lineWidth, color: l.color, alpha: l.alpha, cr: cr)
        }
    }

    // MARK: lines

    /// The visible parts of rings in the view at copy k: runs of ground points (x, y, ...), each
    /// with the ground length along its line where it starts. A run ends where the line leaves
    /// the clip rectangle.
    func runs(_ rings: [PreparedShape.Ring], closed: Bool, k: Int) -> [(start: Double, points: [Double])] {
        var out: [(start: Double, points: [Double])] = []
        let w = worldSize, kx = Double(k)
        let v = view
        let m = ShapePainter.margin / w
        let bMinX = v.worldMinX / w - m - kx, bMaxX = v.worldMaxX / w + m - kx
        let bMinY = v.worldMinY / w - m, bMaxY = v.worldMaxY / w + m
        // (The run in progress is passed inout to `flush`, which captures nothing: a variable
        // a nested function captures is boxed and each access checked at run time, a third of
        // this function's instructions.)
        @inline(__always) func flush(_ current: inout [Double], _ start: Double, _ penDown: inout Bool, _ out: inout [(start: Double, points: [Double])]) {
            if current.count >= 4 { out.append((start, current)); current = [] } else { current.removeAll(keepingCapacity: true) }
            penDown = false
        }
        for ring in rings {
            let n = ring.count
            let segments = closed ? n : n - 1
            guard segments > 0 else { continue }
            var current: [Double] = []
            current.reserveCapacity(2 * (segments + 1))
            var currentStart = 0.0
            var penDown = false
            ring.points.withUnsafeBufferPointer { p in
                for (bi, b) in ring.blocks.enumerated() {
                    let s0 = bi * PreparedShape.blockSize, s1 = min(segments, s0 + PreparedShape.blockSize)
                    if b.maxX < bMinX || b.minX > bMaxX || b.maxY < bMinY || b.minY > bMaxY {
                        flush(&current, currentStart, &penDown, &out)
                        continue
                    }
                    var (px, py) = v.ground(worldX: (p[2 * s0] + kx) * w, worldY: p[2 * s0 + 1] * w)
                    for s in s0..<s1 {
                        let j = s + 1 < n ? s + 1 : 0
                        let (gx, gy) = v.ground(worldX: (p[2 * j] + kx) * w, worldY: p[2 * j + 1] * w)
                        if let c = RectClip.segment(px, py, gx, gy, minX: v.minGX, maxX: v.maxGX, minY: v.minGY, maxY: v.maxGY) {
                            if !penDown || c.4 {
                                flush(&current, currentStart, &penDown, &out)
                                if current.capacity == 0 { current.reserveCapacity(2 * (segments - s + 1)) }
                                let dx = c.0 - px, dy = c.1 - py
                                currentStart = ring.lengths[s] * w + (dx * dx + dy * dy).squareRoot()
                                current.append(c.0); current.append(c.1)
                            }
                            current.append(c.2); current.append(c.3)
                            penDown = true
                            if c.5 { flush(&current, currentStart, &penDown, &out) }
                        } else {
                            flush(&current, currentStart, &penDown, &out)
                        }
                        px = gx; py = gy
                    }
                }
            }
            flush(&current, currentStart, &penDown, &out)
        }
        return out
    }

    /// Cuts runs into the dashes of a pattern (on/off ground px), the pattern's phase taken from
    /// each run's start along its line. Each dash is shortened by `trim` at both ends (the
    /// rasterizer's round ends then reach the dash's true ends).
    static func dashed(_ runs: [(start: Double, points: [Double])], pattern: [Double], trim: Double) -> [(start: Double, points: [Double])] {
        let period = pattern.reduce(0, +)
        guard period > 0, pattern.allSatisfy({ $0 >= 0 && $0.isFinite }) else { return runs }
        var out: [(start: Double, points: [Double])] = []
        for run in runs {
            let pts = run.points, n = pts.count / 2
            // Position in the pattern at the run's start.
            var phase = run.start.truncatingRemainder(dividingBy: period)
            var i = 0
            while phase >= pattern[i] { phase -= pattern[i]; i = (i + 1) % pattern.count }
            var on = i % 2 == 0
            var left = pattern[i] - phase           // of the current dash or gap
            var dash: [Double] = []
            var dashLen = 0.0
            func endDash() {
                if dash.count >= 4, dashLen > 0 { out.append((0, trimmed(dash, dashLen, trim))) }
                dash = []; dashLen = 0
            }
            if on { dash = [pts[0], pts[1]] }
            for s in 0..<(n - 1) {
                var ax = pts[2 * s], ay = pts[2 * s + 1]
                let bx = pts[2 * s + 2], by = pts[2 * s + 3]
                var segLeft = ((bx - ax) * (bx - ax) + (by - ay) * (by - ay)).squareRoot()
                guard segLeft.isFinite else { continue }
                while segLeft > left {
                    let t = left / segLeft
                    ax += (bx - ax) * t; ay += (by - ay) * t
                    segLeft -= left
                    if on { dash.append(ax); dash.append(ay); dashLen += left; endDash() } else { dash = [ax, ay] }
                    on.toggle()
                    i = (i + 1) % pattern.count
                    left = pattern[i]
                    if period <= 0 { break }
                }
                left -= segLeft
                if on { dash.append(bx); dash.append(by); dashLen += segLeft }
            }
            if on { endDash() }
        }
        return out
    }

    /// A dash's points with `trim` taken off each end (a dash shorter than twice that becomes
    /// its midpoint: a dot as wide as the line).
    private static func trimmed(_ p: [Double], _ length: Double, _ trim: Double) -> [Double] {
        guard trim > 0 else { return p }
        let t = min(trim, length / 2)
        func point(at d: Double) -> (Double, Double, Int) {
            var acc = 0.0
            let n = p.count / 2
            for s in 0..<(n - 1) {
                let l = ((p[2 * s + 2] - p[2 * s]) * (p[2 * s + 2] - p[2 * s]) + (p[2 * s + 3] - p[2 * s + 1]) * (p[2 * s + 3] - p[2 * s + 1])).squareRoot()
                if acc + l >= d || s == n - 2 {
                    let f = l > 0 ? min(max((d - acc) / l, 0), 1) : 0
                    return (p[2 * s] + f * (p[2 * s + 2] - p[2 * s]), p[2 * s + 1] + f * (p[2 * s + 3] - p[2 * s + 1]), s)
                }
                acc += l
            }
            return (p[0], p[1], 0)
        }
        let a = point(at: t), b = point(at: length - t)
        var out = [a.0, a.1]
        if a.2 < b.2 { for s in (a.2 + 1)...b.2 { out.append(p[2 * s]); out.append(p[2 * s + 1]) } }
        out.append(b.0); out.append(b.1)
        return out
    }

    /// Strokes rings (a polyline, or closed outlines) at copy k with the style's casing and
    /// stroke (or one of them).
    func strokeLine(_ rings: [PreparedShape.Ring], closed: Bool, k: Int, style: ShapeStyle, cr: OpaquePointer) {
        guard let l = lineLayers(rings, closed: closed, k: k, style: style) else { return }
        strokeLine(l, cr: cr)
    }

    /// Strokes a line's layers (`lineLayers`).
    func strokeLine(_ l: (casing: LineRasterizer.Layer?, line: LineRasterizer.Layer, scales: [Double]?), cr: OpaquePointer) {
        // Casing and line 32 rows at a time through both (straight into an XRGB8888 image).
        if ShapePainter.rasterize(layers: [l.casing, l.line].compactMap { $0 }, cr: cr) { return }
        if let casing = l.casing {
            stroke(casing.segments, scales: l.scales, width: casing.lineWidth, color: casing.color, alpha: casing.alpha, cr: cr)
        }
        stroke(l.line.segments, scales: l.scales, width: l.line.lineWidth, color: l.line.color, alpha: l.line.alpha, cr: cr)
    }

    /// A line's screen segments as `LineRasterizer` layers: its casing (when the style has one)
    /// and its stroke, with each end's width on a tilted view (and the scale there, `scales`).
    func lineLayers(_ rings: [PreparedShape.Ring], closed: Bool, k: Int, style: ShapeStyle)
        -> (casing: LineRasterizer.Layer?, line: LineRasterizer.Layer, scales: [Double]?)? {
        guard let color = style.stroke, style.strokeWidth > 0, style.strokeOpacity > 0 else { return nil }
        var runs = runs(rings, closed: closed, k: k)
        guard !runs.isEmpty else { return nil }
        let width = min(style.strokeWidth, OverlayLimits.maxStrokeWidth)
        if let d = style.dash, !d.isEmpty { runs = ShapePainter.dashed(runs, pattern: d, trim: width / 2) }
        // Screen segments x0, y0, x1, y1 (consecutive ones continue their line) and, tilted,
        // the scale at each end.
        var seg: [Double] = []
        var scales: [Double] = []
        let persp = view.tilted ? view.perspective.atLeast(ShapePainter.minPerspectiveWidth) : nil
        let points = runs.reduce(0) { $0 + $1.points.count / 2 - 1 }
        seg.reserveCapacity(4 * points)
        if persp != nil { scales.reserveCapacity(2 * points) }
        for run in runs {
            let pts = run.points
            var (ax, ay) = view.screen(pts[0], pts[1])
            for i in 1..<(pts.count / 2) {
                let (bx, by) = view.screen(pts[2 * i], pts[2 * i + 1])
                seg.append(ax); seg.append(ay); seg.append(bx); seg.append(by)
                if let persp { scales.append(persp(ay)); scales.append(persp(by)) }
                ax = bx; ay = by
            }
        }
        guard !seg.isEmpty else { return nil }
        let endScales = persp == nil ? nil : scales
        let alpha = min(style.strokeOpacity, 1)
        var casing: LineRasterizer.Layer?
        if let c = style.casing, style.casingWidth > 0 {
            let w = width + 2 * min(style.casingWidth, OverlayLimits.maxStrokeWidth)
            casing = LineRasterizer.Layer(segments: seg, endWidths: endScales?.map { $0 * w }, lineWidth: w, color: RGBColor(hex: c), alpha: alpha)
        }
        let line = LineRasterizer.Layer(segments: seg, endWidths: endScales?.map { $0 * width }, lineWidth: width, color: RGBColor(hex: color), alpha: alpha)
        return (casing, line, endScales)
    }

    /// Screen segments drawn `width` px wide (times each end's scale when given).
    func stroke(_ seg: [Double], scales: [Double]?, width: Double, color: RGBColor, alpha: Double, cr: OpaquePointer) {
        guard !seg.isEmpty else { return }
        let widths = scales?.map { $0 * width }
        if ShapePainter.rasterize(seg, endWidths: widths, width: width, color: color, alpha: min(alpha, 1), cr: cr) { return }
        // Not an XRGB8888 image at a whole-pixel offset: cairo strokes it (one width).
        cairo_save(cr)
        cairo_new_path(cr)
        var i = 0
        while i < seg.count {
            if i == 0 || seg[i] != seg[i - 2] || seg[i + 1] != seg[i - 1] { cairo_move_to(cr, seg[i], seg[i + 1]) }
            cairo_line_to(cr, seg[i + 2], seg[i + 3])
            i += 4
        }
        cairo_set_line_width(cr, width)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_source_rgba(cr, color.r, color.g, color.b, min(alpha, 1))
        cairo_stroke(cr)
        cairo_restore(cr)
    }

    /// `LineRasterizer.stroke(_:cr:...)` over only the segments' box (within cr's clip), not the
    /// whole clip: a frame of 500 small outlines would otherwise clear a mask the frame's width
    /// 500 times. False when cr is not an XRGB8888 image at a whole-pixel offset.
    static func rasterize(_ seg: [Double], endWidths: [Double]?, width: Double, color: RGBColor, alpha: Double, cr: OpaquePointer) -> Bool {
        rasterize(layers: [LineRasterizer.Layer(segments: seg, endWidths: endWidths, lineWidth: width, color: color, alpha: alpha)], cr: cr)
    }

    /// `rasterize` for layers drawn in order (`LineRasterizer.stroke(layers:...)`) over the box
    /// of them all.
    static func rasterize(layers: [LineRasterizer.Layer], cr: OpaquePointer) -> Bool {
        guard let placed = place(layers, cr: cr) else { return false }
        guard let p = placed, let target = cairo_get_target(cr) else { return true }
        cairo_surface_flush(target)
        LineRasterizer.stroke(layers: p.layers, antialias: true, pixels: p.pixels, stride: p.stride, width: p.width, rows: p.rows)
        cairo_surface_mark_dirty(target)
        return true
    }

    /// Where `rasterize` draws layers in cr's target: the layers moved into the box of them all
    /// within cr's clip (its left column 0), the pixels of its left column, the target's
    /// stride, the box's width and rows. Nil when cr is not an XRGB8888 image at a whole-pixel
    /// offset; nil inside when the box misses the clip.
    static func place(_ layers: [LineRasterizer.Layer], cr: OpaquePointer)
        -> (layers: [LineRasterizer.Layer], pixels: UnsafeMutableRawPointer, stride: Int, width: Int, rows: Range<Int>)?? {
        guard let target = cairo_get_target(cr), cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
              cairo_image_surface_get_format(target) == CAIRO_FORMAT_RGB24, isWholePixelTranslation(cr),
              let data = cairo_image_surface_get_data(target) else { return nil }
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        var box = PreparedShape.Box()
        var widest = 0.0
        for l in layers {
            l.segments.withUnsafeBufferPointer { seg in
                for i in Swift.stride(from: 0, to: seg.count - 1, by: 2) { box.add(seg[i], seg[i + 1]) }
            }
            widest = max(widest, l.endWidths?.max() ?? l.lineWidth)
        }
        let reach = widest / 2 + 2
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        x0 = max(x0, box.minX - reach); y0 = max(y0, box.minY - reach)
        x1 = min(x1, box.maxX + reach); y1 = min(y1, box.maxY + reach)
        let sw = Double(cairo_image_surface_get_width(target)), sh = Double(cairo_image_surface_get_height(target))
        let c0 = min(max(0, (x0 + m.x0).rounded(.down)), sw), c1 = min(max(0, (x1 + m.x0).rounded(.up)), sw)
        let r0 = min(max(0, (y0 + m.y0).rounded(.down)), sh), r1 = min(max(0, (y1 + m.y0).rounded(.up)), sh)
        guard c0 < c1, r0 < r1 else { return .some(nil) }
        let shiftX = m.x0 - c0, shiftY = m.y0
        var shifted = layers
        for i in shifted.indices {
            shifted[i].segments.withUnsafeMutableBufferPointer { seg in
                for k in 0..<seg.count / 2 { seg[2 * k] += shiftX; seg[2 * k + 1] += shiftY }
            }
        }
        return (shifted, UnsafeMutableRawPointer(data) + Int(c0) * 4, Int(cairo_image_surface_get_stride(target)), Int(c1 - c0), Int(r0)..<Int(r1))
    }

    /// A small polygon's fill (screen rings, even-odd) and then its outline (one layer of one
    /// width) straight into cr's target, a row of the fill blended just before the outline's
    /// blend in that row: the bytes of `AreaRasterizer.fill(cr:)` and then `rasterize`, in one
    /// pass over the rows while they are in the cache, without the set-up of two passes.
    /// False, drawing nothing, when they are not drawn this way (cr not an XRGB8888 image at a
    /// whole-pixel offset, a point out of range, a tapered outline, or an outline of more
    /// segments and rows than `fusedWork`): the caller draws them one after the other.
    static func fillAndStroke(_ rings: [[Double]], fill: RGBColor, fillAlpha: Double, outline: LineRasterizer.Layer, cr: OpaquePointer) -> Bool {
        guard outline.endWidths == nil, outline.lineWidth > 0, outline.alpha > 0, fillAlpha > 0,
              let placed = place([outline], cr: cr), let made = AreaRasterizer.coverage(rings, cr: cr, color: fill, alpha: fillAlpha, evenOdd: true)
        else { return false }
        let segments = outline.segments.count / 4
        if let p = placed, segments * ((p.rows.count + LineRasterizer.chunkRows - 1) / LineRasterizer.chunkRows) > fusedWork {
            made?.free()
            return false
        }
        guard let target = cairo_get_target(cr) else { made?.free(); return false }
        cairo_surface_flush(target)
        defer { cairo_surface_mark_dirty(target) }
        guard let p = placed else {
            // The outline misses the clip: the fill alone.
            if let c = made { for y in c.rows { c.blend(row: y) }; c.free() }
            return true
        }
        guard let c = made else {
            LineRasterizer.stroke(layers: p.layers, antialias: true, pixels: p.pixels, stride: p.stride, width: p.width, rows: p.rows)
            return true
        }
        defer { c.free() }
        let rows = min(c.rows.lowerBound, p.rows.lowerBound)..<max(c.rows.upperBound, p.rows.upperBound)
        _ = LineRasterizer.stroke(p.layers[0], pixels: p.pixels, stride: p.stride, width: p.width, rows: rows) { y in
            if c.rows.contains(y) { c.blend(row: y) }
        }
        return true
    }

    /// The most segments times chunks of 32 rows an outline is drawn with its fill
    /// (`fillAndStroke`): each chunk takes every segment, so a long outline goes through the
    /// rasterizer's buckets instead.
    static let fusedWork = 256

    // MARK: polygons

    /// Fills rings (outer boundary and holes) by the even-odd rule, then strokes their outlines.
    func fillAndOutline(_ rings: [PreparedShape.Ring], k: Int, style: ShapeStyle, cr: OpaquePointer) {
        var screenRings: [[Double]] = []
        if style.fill != nil, style.fillOpacity > 0 {
            let w = worldSize, kx = Double(k)
            var pts: [Double] = [], scratch: [Double] = []
            for ring in rings {
                pts.removeAll(keepingCapacity: true)
                pts.reserveCapacity(ring.points.count)
                var inside = true
                ring.points.withUnsafeBufferPointer { p in
                    for i in 0..<(p.count / 2) {
                        let (gx, gy) = view.ground(worldX: (p[2 * i] + kx) * w, worldY: p[2 * i + 1] * w)
                        if gx < view.minGX || gx > view.maxGX || gy < view.minGY || gy > view.maxGY { inside = false }
                        pts.append(gx); pts.append(gy)
                    }
                }
                let r = view.screenRing(&pts, &scratch, inside: inside)
                if !r.isEmpty { screenRings.append(r) }
            }
        }
        let fill = style.fill.map { RGBColor(hex: $0) }, fillAlpha = min(style.fillOpacity, 1)
        // A flat outline of one width without a casing is drawn with its fill, in one pass.
        let fuses = !screenRings.isEmpty && fusesOutlines && !view.tilted && (style.casing == nil || style.casingWidth <= 0)
        let outline = fuses ? lineLayers(rings, closed: true, k: k, style: style) : nil
        if let outline, let fill, ShapePainter.fillAndStroke(screenRings, fill: fill, fillAlpha: fillAlpha, outline: outline.line, cr: cr) { return }
        // By area coverage straight into the frame's rows (a cairo fill's setup cost about
        // 20 us a polygon: 500 overlay polygons were 12 ms of a 1080p frame); cairo when cr
        // is not such an image.
        if !screenRings.isEmpty, let fill, !AreaRasterizer.fill(screenRings, cr: cr, color: fill, alpha: fillAlpha, evenOdd: true) {
            cairoFill(screenRings, color: fill, alpha: fillAlpha, cr: cr)
        }
        if !fuses {
            strokeLine(rings, closed: true, k: k, style: style, cr: cr)
        } else if let outline {
            strokeLine(outline, cr: cr)
        }
    }

    /// Screen rings filled by cairo (even-odd), for a target `AreaRasterizer` does not draw.
    private func cairoFill(_ screenRings: [[Double]], color c: RGBColor, alpha: Double, cr: OpaquePointer) {
        cairo_new_path(cr)
        for r in screenRings {
            for i in 0..<(r.count / 2) {
                if i == 0 { cairo_move_to(cr, r[0], r[1]) } else { cairo_line_to(cr, r[2 * i], r[2 * i + 1]) }
            }
            cairo_close_path(cr)
        }
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
        cairo_set_source_rgba(cr, c.r, c.g, c.b, min(alpha, 1))
        cairo_fill(cr)
        cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
    }

    // MARK: ground images

    /// An image laid on its box, turned about the box's centre, at `opacity`: flat, one affine
    /// transform; tilted, cut into cells on the ground small enough that each cell's own affine
    /// transform strays under half a pixel from the perspective.
    func paintImage(_ image: CairoImage, bounds: CoordinateBounds, bearing: Double, opacity: Double, k: Int, cr: OpaquePointer) {
        let iw = Double(image.width), ih = Double(image.height)
        guard iw > 0, ih > 0 else { return }
        let w = worldSize, kx = Double(k)
        // Ground points of the image's corners: top left, top right, bottom left.
        let c = PreparedShape.imageCorners(bounds, bearing: bearing).map { view.ground(worldX: ($0.x + kx) * w, worldY: $0.y * w) }
        // Image px -> ground: an affine map.
        let ax = (c[1].0 - c[0].0) / iw, ay = (c[1].1 - c[0].1) / iw
        let bx = (c[2].0 - c[0].0) / ih, by = (c[2].1 - c[0].1) / ih
        let ground = cairo_matrix_t(xx: ax, yx: ay, xy: bx, yy: by, x0: c[0].0, y0: c[0].1)
        // The image's parallelogram on the ground, clipped to the view's ground rectangle.
        var quad = [c[0].0, c[0].1, c[1].0, c[1].1, c[1].0 + c[2].0 - c[0].0, c[1].1 + c[2].1 - c[0].1, c[2].0, c[2].1]
        var scratch: [Double] = []
        RectClip.polygon(&quad, &scratch, minX: view.minGX, maxX: view.maxGX, minY: view.minGY, maxY: view.maxGY)
        guard quad.count >= 6 else { return }
        var box = PreparedShape.Box()
        for i in 0..<(quad.count / 2) { box.add(quad[2 * i], quad[2 * i + 1]) }
        // Only the part of the image that shows is the source (a sub-surface a pixel or two
        // larger), so a deep zoom into a small image keeps the source's offsets small for pixman.
        var inverse = ground
        guard cairo_matrix_invert(&inverse) == CAIRO_STATUS_SUCCESS else { return }
        var ibox = PreparedShape.Box()
        for i in 0..<(quad.count / 2) {
            var x = quad[2 * i], y = quad[2 * i + 1]
            cairo_matrix_transform_point(&inverse, &x, &y)
            ibox.add(x, y)
        }
        let sx = max(0, (ibox.minX - 2).rounded(.down)), sy = max(0, (ibox.minY - 2).rounded(.down))
        let ex = min(iw, (ibox.maxX + 2).rounded(.up)), ey = min(ih, (ibox.maxY + 2).rounded(.up))
        guard ex > sx, ey > sy, let sub = cairo_surface_create_for_rectangle(image.surface, sx, sy, ex - sx, ey - sy) else { return }
        defer { cairo_surface_destroy(sub) }
        func setSource() {
            cairo_set_source_surface(cr, sub, sx, sy)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_PAD)
        }
        if !view.tilted {
            // Flat: ground -> screen is a translation; one affine map, clipped to the image's
            // parallelogram (within the view) in screen px.
            cairo_save(cr)
            cairo_new_path(cr)
            view.addPolygon(quad, to: cr)
            cairo_clip(cr)
            var m = ground
            m.x0 += view.width / 2; m.y0 += view.height / 2
            cairo_transform(cr, &m)
            setSource()
            cairo_paint_with_alpha(cr, opacity)
            cairo_restore(cr)
            return
        }
        let parallelogram = [c[0].0, c[0].1, c[1].0, c[1].1, c[1].0 + c[2].0 - c[0].0, c[1].1 + c[2].1 - c[0].1, c[2].0, c[2].1]
        // The cells are drawn opaque into a group (an interior edge's antialiased clip is then
        // covered by its neighbour's, which reaches a pixel past it), then the group at the opacity.
        var sbox = PreparedShape.Box()
        for i in 0..<(quad.count / 2) { let s = view.screen(quad[2 * i], quad[2 * i + 1]); sbox.add(s.0, s.1) }
        cairo_save(cr)
        cairo_new_path(cr)
        cairo_rectangle(cr, floor(sbox.minX) - 1, floor(sbox.minY) - 1, ceil(sbox.maxX) - floor(sbox.minX) + 2, ceil(sbox.maxY) - floor(sbox.minY) + 2)
        cairo_clip(cr)
        cairo_push_group(cr)
        var budget = 4096   // cells at most (a cell split costs four)
        func cell(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, depth: Int) {
            var probe = parallelogram, s1: [Double] = []
            RectClip.polygon(&probe, &s1, minX: x0, maxX: x1, minY: y0, maxY: y1)
            guard probe.count >= 6 else { return }
            // Perspective is the same along a ground row; its error across a cell grows with the
            // cell's depth range: compare the far corner and centre with the affine guess.
            let p00 = view.screen(x0, y0), p10 = view.screen(x1, y0), p01 = view.screen(x0, y1)
            let p11 = view.screen(x1, y1), pc = view.screen((x0 + x1) / 2, (y0 + y1) / 2)
            let g11 = (p10.0 + p01.0 - p00.0, p10.1 + p01.1 - p00.1)
            let gc = ((p10.0 + p01.0) / 2, (p10.1 + p01.1) / 2)
            let err = max(hypot(g11.0 - p11.0, g11.1 - p11.1), hypot(gc.0 - pc.0, gc.1 - pc.1))
            if err > 0.5 && depth < 10 && budget >= 4 {
                budget -= 3
                let mx = (x0 + x1) / 2, my = (y0 + y1) / 2
                for (a, b, c2, d) in [(x0, y0, mx, my), (mx, y0, x1, my), (x0, my, mx, y1), (mx, my, x1, y1)] {
                    cell(a, b, c2, d, depth: depth + 1)
                }
                return
            }
            // The cell's clip: the image's parallelogram within the cell grown by about a pixel.
            let e = 1.0 / max(view.perspectiveScale(y: min(p00.1, p01.1)), 0.05)
            var poly = parallelogram
            var s2: [Double] = []
            RectClip.polygon(&poly, &s2, minX: max(x0 - e, view.minGX), maxX: min(x1 + e, view.maxGX),
                             minY: max(y0 - e, view.minGY), maxY: min(y1 + e, view.maxGY))
            guard poly.count >= 6 else { return }
            cairo_save(cr)
            cairo_new_path(cr)
            view.addPolygon(poly, to: cr)
            cairo_clip(cr)
            // Ground -> screen on this cell: the affine map through three of its corners.
            let sx = x1 - x0, sy = y1 - y0
            var local = cairo_matrix_t(xx: (p10.0 - p00.0) / sx, yx: (p10.1 - p00.1) / sx, xy: (p01.0 - p00.0) / sy, yy: (p01.1 - p00.1) / sy,
                                       x0: 0, y0: 0)
            local.x0 = p00.0 - local.xx * x0 - local.xy * y0
            local.y0 = p00.1 - local.yx * x0 - local.yy * y0
            var g = ground, m = cairo_matrix_t()
            cairo_matrix_multiply(&m, &g, &local)
            cairo_transform(cr, &m)
            setSource()
            cairo_paint(cr)
            cairo_restore(cr)
        }
        // Square-ish ground cells to start with, then split where the perspective needs it.
        let side = max(box.maxX - box.minX, box.maxY - box.minY) / 4
        if side > 0 && side.isFinite {
            var y = box.minY
            while y < box.maxY {
                var x = box.minX
                let y1 = min(y + side, box.maxY)
                while x < box.maxX {
                    let x1 = min(x + side, box.maxX)
                    cell(x, y, x1, y1, depth: 0)
                    x = x1
                }
                y = y1
            }
        }
        cairo_pop_group_to_source(cr)
        cairo_paint_with_alpha(cr, opacity)
        cairo_restore(cr)
    }

    // MARK: the puck

    static let puckBlue = RGBColor(hex: 0x1A73E8)
    static let puckDotRadius = 9.0, puckRingWidth = 3.0
    static let headingConeRadius = 56.0, headingConeHalfAngle = 28.0

    /// The accuracy circle on the ground (translucent blue, a thin blue outline) when its radius
    /// is known, then, upright at the position, the heading cone (turned with the map) and the
    /// blue dot in its white ring.
    func paintPuck(_ puck: PuckDrawing, accuracyShape: PreparedShape?, cr: OpaquePointer, images: IconCache) {
        if let a = accuracyShape { paint(a, cr: cr, images: images) }
        guard let p = view.visiblePoint(puck.coordinate, slack: 64) else { return }
        let blue = ShapePainter.puckBlue
        if let heading = puck.heading, heading.isFinite {
            // The heading's direction on screen: a step along it on the ground, projected.
            let world = WebMercator.worldPoint(puck.coordinate, zoom: view.projection.camera.zoom)
            let h = heading * .pi / 180
            let step = 8.0
            let ahead = Point(x: world.x + sin(h) * step, y: world.y - cos(h) * step)
            var angle = (heading - view.projection.camera.bearing) * .pi / 180 - .pi / 2
            if let q = view.projection.screenPoint(world: ahead), hypot(q.x - p.x, q.y - p.y) > 1e-6 {
                angle = atan2(q.y - p.y, q.x - p.x)
            }
            let r = ShapePainter.headingConeRadius, half = ShapePainter.headingConeHalfAngle * .pi / 180
            let g = cairo_pattern_create_radial(p.x, p.y, ShapePainter.puckDotRadius, p.x, p.y, r)!
            cairo_pattern_add_color_stop_rgba(g, 0, blue.r, blue.g, blue.b, 0.45)
            cairo_pattern_add_color_stop_rgba(g, 1, blue.r, blue.g, blue.b, 0)
            cairo_new_path(cr)
            cairo_move_to(cr, p.x, p.y)
            cairo_arc(cr, p.x, p.y, r, angle - half, angle + half)
            cairo_close_path(cr)
            cairo_set_source(cr, g)
            cairo_fill(cr)
            cairo_pattern_destroy(g)
        }
        // A soft shadow, the white ring, the blue dot.
        cairo_new_path(cr)
        cairo_arc(cr, p.x, p.y + 1, ShapePainter.puckDotRadius + ShapePainter.puckRingWidth + 1, 0, 2 * .pi)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.18)
        cairo_fill(cr)
        cairo_arc(cr, p.x, p.y, ShapePainter.puckDotRadius + ShapePainter.puckRingWidth, 0, 2 * .pi)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_fill(cr)
        cairo_arc(cr, p.x, p.y, ShapePainter.puckDotRadius, 0, 2 * .pi)
        cairo_set_source_rgb(cr, blue.r, blue.g, blue.b)
        cairo_fill(cr)
    }

    /// The accuracy circle's shape (nil without an accuracy).
    static func accuracyShape(_ puck: PuckDrawing) -> PreparedShape? {
        guard let a = puck.accuracy, a > 0, a.isFinite else { return nil }
        let style = ShapeStyle(stroke: 0x1A73E8, strokeWidth: 1, strokeOpacity: 0.6, fill: 0x1A73E8, fillOpacity: 0.15)
        return PreparedShape.make(OverlayShape(geometry: .circle(center: puck.coordinate, radius: min(a, OverlayLimits.maxCircleRadius)), style: style))
    }
}
