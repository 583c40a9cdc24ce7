import CCairo
import Foundation
import MapEngine
import TouchCore

/// Draws the built-in world (land, borders, rivers) through a `GroundView`: parts are culled by
/// their bounding boxes, clipped in ground coordinates and projected vertex by vertex.
struct VectorMapPainter {
    let world: BuiltInWorld
    let style: MapStyle
    /// Off for interactive frames that cannot come from the cache (tilted): 2..3x faster, jaggier.
    var antialias = true

    /// The view's land, river and border paths, built once (projection, culling, clipping) so
    /// that several band threads can fill the same paths: cairo_path_t values the caller frees
    /// with `free()`.
    struct Paths: @unchecked Sendable {
        var land: UnsafeMutablePointer<cairo_path_t>?
        var rivers: UnsafeMutablePointer<cairo_path_t>?
        var borders: UnsafeMutablePointer<cairo_path_t>?
        /// The rivers' and borders' segments (x0, y0, x1, y1, ...), taken from the paths once
        /// for every band (`LineRasterizer` draws them).
        var riverSegments: [Double] = []
        var borderSegments: [Double] = []
        /// The land's edges for `FillRasterizer` (antialiased paths only; `BandSteps`).
        var landEdges: [Double]?
        func free() { for p in [land, rivers, borders] { if let p { cairo_path_destroy(p) } } }
    }

    /// Builds the three layers' paths at once on the cores there are (each layer has its own
    /// scratch context, and the world's data is immutable): the land's projection and clipping
    /// is the larger part, so the lines are built beside it. `alongside`, when given, runs as
    /// one more task of the same pool, the first: work of the frame's that needs no path (the
    /// overlays' preparation) done while the other core builds the land.
    func paths(view: GroundView, zoom: Double, parallel: Bool = false, alongside: (@Sendable () -> Void)? = nil) -> Paths {
        let paths = ParallelSlots<UnsafeMutablePointer<cairo_path_t>?>(count: 3, initial: nil)
        let segments = ParallelSlots<[Double]>(count: 3, initial: [])
        let antialias = antialias
        let build: @Sendable (Int) -> Void = { task in
            let i = alongside == nil ? task : task - 1
            if i < 0 { alongside?(); return }
            // A path lives in device space as 24.8 fixed point; with the identity matrix, copying
            // it out and appending it again gives the same fixed-point values.
            guard let scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1), let cr = cairo_create(scratch) else { return }
            defer { cairo_destroy(cr); cairo_surface_destroy(scratch) }
            switch i {
            case 0:
                guard let land = world.level("land", zoom: zoom) else { return }
                var a: [Double] = [], b: [Double] = []
                a.reserveCapacity(4096); b.reserveCapacity(4096)
                addPolygons(land, cr: cr, view: view, &a, &b)
            case 1:
                guard zoom >= 1.5, let rivers = world.level("rivers", zoom: zoom) else { return }
                addLines(rivers, cr: cr, view: view)
            default:
                guard let borders = world.level("borders", zoom: zoom) else { return }
                addLines(borders, cr: cr, view: view)
            }
            let p = cairo_copy_path(cr)
            paths[i] = p
            if i > 0, let p { segments[i] = LineRasterizer.segments(of: p) }
            if i == 0, antialias, let p { segments[0] = FillRasterizer.edges(of: p) }
        }
        let tasks = alongside == nil ? 3 : 4
        if parallel {
            DispatchQueue.concurrentPerform(iterations: tasks) { build($0) }
        } else {
            for i in 0..<tasks { build(i) }
        }
        var out = Paths()
        out.land = paths[0]
        if antialias, paths[0] != nil { out.landEdges = segments[0] }
        out.rivers = paths[1]; out.riverSegments = segments[1]
        out.borders = paths[2]; out.borderSegments = segments[2]
        return out
    }

    /// The paths as steps of `steps` (the land by `FillRasterizer`, even-odd; the rivers, then the
    /// borders): false, adding none, for paths built without antialiasing.
    func addSteps(_ paths: Paths, zoom: Double, to steps: inout BandSteps) -> Bool {
        guard antialias, paths.land == nil || paths.landEdges != nil else { return false }
        if let edges = paths.landEdges { steps.fill(FillRasterizer.Fill(edges: edges, evenOdd: true, color: style.land, alpha: 1)) }
        var layers: [LineRasterizer.Layer] = []
        if paths.rivers != nil { layers.append(LineRasterizer.Layer(segments: paths.riverSegments, lineWidth: riverWidth(zoom), color: style.river)) }
        if paths.borders != nil { layers.append(LineRasterizer.Layer(segments: paths.borderSegments, lineWidth: borderWidth(zoom), color: style.border)) }
        steps.lines(layers)
        return true
    }

    /// Fills and strokes paths built by `paths(view:zoom:)`, as `paint` does.
    func paint(cr: OpaquePointer, paths: Paths, zoom: Double) {
        cairo_set_antialias(cr, Self.fillAntialias(antialias))
        if let land = paths.land {
            cairo_new_path(cr)
            cairo_append_path(cr, land)
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
            cairo_set_source_rgb(cr, style.land.r, style.land.g, style.land.b)
            cairo_fill(cr)
        }
        // Rivers, then borders, 32 rows at a time through both (`LineRasterizer.stroke(layers:)`).
        var layers: [LineRasterizer.Layer] = []
        if paths.rivers != nil { layers.append(LineRasterizer.Layer(segments: paths.riverSegments, lineWidth: riverWidth(zoom), color: style.river)) }
        if paths.borders != nil { layers.append(LineRasterizer.Layer(segments: paths.borderSegments, lineWidth: borderWidth(zoom), color: style.border)) }
        guard !layers.isEmpty, !LineRasterizer.stroke(layers: layers, cr: cr, antialias: antialias) else { return }
        for l in layers { strokeLines(l.segments, cr: cr, lineWidth: l.lineWidth, color: l.color) }
    }

    func paint(cr: OpaquePointer, view: GroundView, zoom: Double) {
        var a: [Double] = [], b: [Double] = []
        a.reserveCapacity(4096); b.reserveCapacity(4096)
        cairo_set_antialias(cr, Self.fillAntialias(antialias))
        if let land = world.level("land", zoom: zoom) {
            cairo_new_path(cr)
            addPolygons(land, cr: cr, view: view, &a, &b)
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
            cairo_set_source_rgb(cr, style.land.r, style.land.g, style.land.b)
            cairo_fill(cr)
        }
        if zoom >= 1.5, let rivers = world.level("rivers", zoom: zoom) {
            cairo_new_path(cr)
            addLines(rivers, cr: cr, view: view)
            strokeLines(copiedSegments(cr), cr: cr, lineWidth: riverWidth(zoom), color: style.river)
        }
        if let borders = world.level("borders", zoom: zoom) {
            cairo_new_path(cr)
            addLines(borders, cr: cr, view: view)
            strokeLines(copiedSegments(cr), cr: cr, lineWidth: borderWidth(zoom), color: style.border)
        }
    }

    /// The land's fill: cairo 1.16's FAST antialiasing (a 4x4 sample grid) fills it in half the
    /// time of the default (15 sub-rows a pixel row) and, land against sea being pale colours
    /// (72 levels apart in red, less in green and blue), looks the same: 1.3 % of a 1080p
    /// frame's pixels differ, none by more than 40 levels (docs/benchmarks.md, session 5).
    /// Without antialiasing: interactive frames.
    static func fillAntialias(_ antialias: Bool) -> cairo_antialias_t {
        antialias ? CAIRO_ANTIALIAS_FAST : CAIRO_ANTIALIAS_NONE
    }

    func riverWidth(_ zoom: Double) -> Double { zoom >= 5 ? 1.5 : 1 }
    func borderWidth(_ zoom: Double) -> Double { zoom >= 4 ? 1.2 : 1 }

    /// The segments of cr's current path (user space), which is then cleared.
    private func copiedSegments(_ cr: OpaquePointer) -> [Double] {
        guard let p = cairo_copy_path(cr) else { return [] }
        defer { cairo_path_destroy(p); cairo_new_path(cr) }
        return LineRasterizer.segments(of: p)
    }

    /// Draws line segments given in cr's user space with `LineRasterizer` straight into cr's
    /// target image within its clip (cairo_stroke costs 10x more: see LineRasterizer). Every
    /// caller draws with a whole-pixel translation at most; any other target or transform is
    /// stroked by cairo instead.
    func strokeLines(_ seg: [Double], cr: OpaquePointer, lineWidth: Double, color: RGBColor) {
        guard !seg.isEmpty, !LineRasterizer.stroke(seg, cr: cr, lineWidth: lineWidth, color: color, antialias: antialias) else { return }
        cairo_new_path(cr)
        for k in 0..<seg.count / 4 {
            cairo_move_to(cr, seg[4 * k], seg[4 * k + 1])
            cairo_line_to(cr, seg[4 * k + 2], seg[4 * k + 3])
        }
        cairo_set_source_rgb(cr, color.r, color.g, color.b)
        cairo_set_line_width(cr, lineWidth)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_stroke(cr)
    }

    private func visible(_ part: BuiltInWorld.Part, scale: Double, k: Double, view: GroundView) -> Bool {
        let minX = Double(part.minX) * scale + k, maxX = Double(part.maxX) * scale + k
        let minY = Double(part.minY) * scale, maxY = Double(part.maxY) * scale
        return maxX >= view.worldMinX && minX <= view.worldMaxX && maxY >= view.worldMinY && minY <= view.worldMaxY
    }

    private func addPolygons(_ level: BuiltInWorld.Level, cr: OpaquePointer, view: GroundView,
                             _ pts: inout [Double], _ scratch: inout [Double]) {
        let scale = view.worldSize / BuiltInWorld.quantisation
        for copy in view.wrapCopies {
            let k = Double(copy) * view.worldSize
            for part in level.parts where visible(part, scale: scale, k: k, view: view) {
                pts.removeAll(keepingCapacity: true)
                var inside = true
                part.points.withUnsafeBufferPointer { q in
                    let n = q.count / 2
                    for i in 0..<n {
                        let (gx, gy) = view.ground(worldX: Double(q[2 * i]) * scale + k, worldY: Double(q[2 * i + 1]) * scale)
                        if gx < view.minGX || gx > view.maxGX || gy < view.minGY || gy > view.maxGY { inside = false }
                        pts.append(gx); pts.append(gy)
                    }
                }
                view.addRing(&pts, &scratch, inside: inside, to: cr)
            }
        }
    }

    private func addLines(_ level: BuiltInWorld.Level, cr: OpaquePointer, view: GroundView) {
        let scale = view.worldSize / BuiltInWorld.quantisation
        for copy in view.wrapCopies {
            let k = Double(copy) * view.worldSize
            for part in level.parts where visible(part, scale: scale, k: k, view: view) {
                part.points.withUnsafeBufferPointer { q in
                    let n = q.count / 2
                    var (px, py) = view.ground(worldX: Double(q[0]) * scale + k, worldY: Double(q[1]) * scale)
                    var penDown = false
                    for i in 1..<n {
                        let (gx, gy) = view.ground(worldX: Double(q[2 * i]) * scale + k, worldY: Double(q[2 * i + 1]) * scale)
                        if let s = RectClip.segment(px, py, gx, gy, minX: view.minGX, maxX: view.maxGX, minY: view.minGY, maxY: view.maxGY) {
                            if !penDown || s.4 {
                                let (ax, ay) = view.screen(s.0, s.1)
                                cairo_move_to(cr, ax, ay)
                            }
                            let (bx, by) = view.screen(s.2, s.3)
                            cairo_line_to(cr, bx, by)
                            penDown = !s.5
                        } else {
                            penDown = false
                        }
                        px = gx; py = gy
                    }
                }
            }
        }
    }
}
