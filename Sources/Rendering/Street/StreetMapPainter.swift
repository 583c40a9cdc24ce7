import CCairo
import Foundation
import MapEngine
import TouchCore
import VectorTiles

/// Draws the background, fill, line and circle layers of a street style from vector tiles,
/// through a `GroundView`: every vertex is clipped in ground coordinates and projected, so a
/// tilted view is true perspective and sharp at any zoom. Past the tile set's max zoom the
/// deepest tiles' geometry is scaled (overzoom), never their pixels.
struct StreetMapPainter {
    let set: VectorTileSet
    let style: StreetStyle
    var antialias = true
    /// Whether line layers go to `LineRasterizer` (when the target allows it) rather than
    /// cairo_stroke: cairo took 30 of the 35 ms of a 1080p street frame stroking roads and
    /// dashed paths and boundaries (docs/benchmarks.md). Off: every line by cairo (tests compare).
    var rasterizesLines = true
    /// The fills' edges are kept for `FillRasterizer` (antialiased, with the lines rasterized):
    /// the bands then draw the layers 32 rows at a time through them all (`draw`).
    var rasterizesFills: Bool { rasterizesLines && antialias }
    /// Each style layer's features per tile at the last zoom drawn (the renderer keeps one for
    /// its style and tile set); nil: styled afresh each frame.
    var layerCache: StreetLayerCache?
    /// Adds the area the background layer covers to cairo's path (an extract's bounds); nil: everywhere.
    var backgroundArea: ((OpaquePointer) -> Void)?
    /// Adds the sea the tiles may lack to cairo's path (even-odd; `StreetSea`) and says whether
    /// there is any in the view; nil: none is drawn. Painted in `seaColor` over the background.
    var sea: ((OpaquePointer) -> Bool)?
    var seaColor = StyleColor(r: 0, g: 0, b: 0)
    /// Most tiles per frame; the tile zoom drops a level while more would be needed (tilted views).
    static let maxTiles = 64

    /// MapLibre styles are written for 512-px tiles: their zoom is one less than ours (256-px world).
    static func styleZoom(_ cameraZoom: Double) -> Double { cameraZoom - 1 }

    struct CoveredTile {
        let key: VectorTileSet.Key
        /// World pixels (at the camera zoom) of the tile's top left corner, x not wrapped.
        let originX: Double, originY: Double
        /// World pixels per tile unit.
        let scale: Double
    }

    /// The tiles (zoom and addresses) covering a view. A tilted view takes them from
    /// `perspectiveCover`: fewer, coarser tiles towards the horizon.
    static func cover(view: GroundView, zoom: Double, minZoom: Int, maxZoom: Int) -> [CoveredTile] {
        if view.tilted, let tiles = perspectiveCover(view: view, zoom: zoom, minZoom: minZoom, maxZoom: maxZoom) { return tiles }
        var tz = min(max(Int(floor(styleZoom(zoom) + 1e-9)), minZoom), maxZoom)
        func count(_ z: Int) -> Int {
            let span = view.worldSize / Double(1 << z)
            let nx = Int(ceil((view.worldMaxX - view.worldMinX) / span)) + 1
            let ny = Int(ceil((min(view.worldMaxY, view.worldSize) - max(view.worldMinY, 0)) / span)) + 1
            return nx * max(ny, 0)
        }
        while tz > minZoom && count(tz) > maxTiles { tz -= 1 }
        // A tile set that starts deeper than the view can show (min zoom above the camera's):
        // the base map shows rather than millions of tile lookups per frame (issue 19).
        guard count(tz) <= 4 * maxTiles else { return [] }
        let n = 1 << tz
        let span = view.worldSize / Double(n)
        let y0 = max(0, Int(floor(view.worldMinY / span))), y1 = min(n - 1, Int(floor(view.worldMaxY / span)))
        let x0 = Int(floor(view.worldMinX / span)), x1 = Int(floor(view.worldMaxX / span))
        guard y0 <= y1, x0 <= x1, x1 - x0 < 4 * n + 4 else { return [] }
        var out: [CoveredTile] = []
        for ty in y0...y1 { for tx in x0...x1 {
            let wrapped = ((tx % n) + n) % n
            out.append(CoveredTile(key: .init(z: tz, x: wrapped, y: ty), originX: Double(tx) * span, originY: Double(ty) * span, scale: span))
        } }
        return out
    }

    /// The tiles of a tilted view, as MapLibre chooses them: a quadtree walked down from a few
    /// coarse tiles, keeping only tiles that meet the visible trapezoid of ground, and splitting
    /// a tile only while its nearest edge shows larger on screen than a tile of the camera's own
    /// zoom does flat. So the near ground gets the camera's tiles and the far ground ever
    /// coarser ones (whose data is generalised: no buildings, simplified roads): the far half of
    /// a 60 degree view no longer costs dozens of street-level tiles of sub-pixel features.
    /// Nil when the view is too wide for it (the flat cover then lowers the zoom instead).
    static func perspectiveCover(view: GroundView, zoom: Double, minZoom: Int, maxZoom: Int) -> [CoveredTile]? {
        let target = min(max(Int(floor(styleZoom(zoom) + 1e-9)), minZoom), maxZoom)
        let p = view.projection
        let sinT = sin(p.camera.tilt * .pi / 180)
        let d = p.cameraDistance
        // Visible ground: minGY <= gy <= maxGY and |gx| <= a - b * gy (the trapezoid's sides).
        let a = view.maxGX * d / (d - view.minGY * sinT), b = a * sinT / d
        let start = max(minZoom, target - 5)
        let n0 = 1 << start
        let span0 = view.worldSize / Double(n0)
        let y0 = max(0, Int(floor(view.worldMinY / span0))), y1 = min(n0 - 1, Int(floor(view.worldMaxY / span0)))
        let x0 = Int(floor(view.worldMinX / span0)), x1 = Int(floor(view.worldMaxX / span0))
        guard y0 <= y1, x0 <= x1, (x1 - x0 + 1) * (y1 - y0 + 1) <= 64 else { return nil }
        var out: [CoveredTile] = []
        func visit(_ tx: Int, _ ty: Int, _ z: Int) {
            let span = view.worldSize / Double(1 << z)
            // The corners (0, 0), (1, 0), (0, 1), (1, 1) on the ground (no array a visit).
            var gxs = SIMD4<Double>(), gys = SIMD4<Double>()
            for i in 0..<4 {
                let g = view.ground(worldX: (Double(tx) + Double(i & 1)) * span, worldY: (Double(ty) + Double(i >> 1)) * span)
                gxs[i] = g.0; gys[i] = g.1
            }
            // Outside when every corner is beyond the same edge of the trapezoid (conservative).
            if all(gys .< view.minGY) || all(gys .> view.maxGY) { return }
            if (0..<4).allSatisfy({ gxs[$0] > a - b * gys[$0] }) || (0..<4).allSatisfy({ gxs[$0] < -(a - b * gys[$0]) }) { return }
            // Perspective scale at the tile's nearest visible ground line.
            let nearest = min(gys.max(), view.maxGY)
            let scale = d / (d - nearest * sinT)
            if z < target && scale > pow(2, Double(z - target)) && out.count < 4 * maxTiles {
                for (cx, cy) in [(0, 0), (1, 0), (0, 1), (1, 1)] { visit(2 * tx + cx, 2 * ty + cy, z + 1) }
                return
            }
            let n = 1 << z
            out.append(CoveredTile(key: .init(z: z, x: ((tx % n) + n) % n, y: ty), originX: Double(tx) * span, originY: Double(ty) * span, scale: span))
        }
        for ty in y0...y1 { for tx in x0...x1 { visit(tx, ty, start) } }
        return out
    }

    /// The tiles bordering a covered block (`r` tiles wide all round), wrapped in x.
    static func ring(around all: [CoveredTile], zoom z: Int, radius r: Int = 1) -> [VectorTileSet.Key] {
        let covered = all.filter { $0.key.z == z }
        guard let first = covered.first else { return [] }
        let n = 1 << z
        let span = first.scale
        let xs = covered.map { Int(($0.originX / span).rounded()) }, ys = covered.map { $0.key.y }
        guard let x0 = xs.min(), let x1 = xs.max(), let y0 = ys.min(), let y1 = ys.max() else { return [] }
        var out: [VectorTileSet.Key] = []
        for ty in max(0, y0 - r)...min(n - 1, y1 + r) { for tx in (x0 - r)...(x1 + r) where tx < x0 || tx > x1 || ty < y0 || ty > y1 {
            out.append(.init(z: z, x: ((tx % n) + n) % n, y: ty))
        } }
        return out
    }

    /// A view's street map, built once: the tiles looked up, the features styled, projected,
    /// clipped and grouped into fill paths and line segments. Drawing it only fills paths and
    /// rasterizes lines, so several band threads can draw one (each clipped to its rows): every
    /// pixel comes out as a single thread draws it.
    final class Layers: @unchecked Sendable {
        enum Op {
            /// Paint the whole clip, or fill a path. `edges`: the path's, when
            /// `FillRasterizer` draws it (`FillRasterizer.edges(of:)`), as for `sea` and `fill`.
            case background(color: StyleColor, area: UnsafeMutablePointer<cairo_path_t>?, edges: [Double]?)
            /// The Natural Earth ocean where the tiles may have no sea (an even-odd path).
            case sea(UnsafeMutablePointer<cairo_path_t>, color: StyleColor, edges: [Double]?)
            /// With an outline, its segments when `LineRasterizer` draws it (1 px wide).
            case fill(UnsafeMutablePointer<cairo_path_t>, color: StyleColor, outline: StyleColor?, outlineSegments: [Double]?, edges: [Double]?)
            /// The segments, and (when `LineRasterizer` draws them, or the view is tilted) the
            /// pieces it draws: dashes cut and butt ends trimmed once, not in every band.
            case lines([Double], pieces: LinePieces?, width: Double, color: StyleColor, cap: LineCap?, join: LineJoin?, dash: [Double])
            /// `edges` and `strokeSegments`: the circles flattened, when `BandSteps` draws them.
            case circles(UnsafeMutablePointer<cairo_path_t>, color: StyleColor, stroke: StyleColor?, strokeWidth: Double, edges: [Double]?,
                         strokeSegments: [Double]?)
        }
        var ops: [Op] = []
        let antialias: Bool
        init(antialias: Bool) { self.antialias = antialias }

        /// The line work of the ops over a frame's rows, summed where the layers were built
        /// (each layer's on its thread), or nil.
        var lineWork: BandWork?

        /// The line pieces' work over the rows, to cut bands of about equal work (`BandWork`,
        /// `BandBalance`).
        func bandWork(width: Int, height: Int) -> BandWork {
            if let lineWork, lineWork.width == width, lineWork.height == height { return lineWork }
            return Self.lineWork(ops, width: width, height: height)
        }

        /// The line pieces' work of some ops over `height` rows.
        static func lineWork(_ ops: [Op], width: Int, height: Int) -> BandWork {
            var work = BandWork(width: width, height: height)
            for op in ops {
                guard case let .lines(segments, pieces, w, _, _, _, _) = op else { continue }
                work.addLines(pieces?.segments ?? segments, endWidths: pieces?.endWidths, width: w)
            }
            return work
        }

        deinit {
            for op in ops {
                switch op {
                case .background(_, let area?, _): cairo_path_destroy(area)
                case .sea(let path, _, _): cairo_path_destroy(path)
                case .fill(let path, _, _, _, _), .circles(let path, _, _, _, _, _): cairo_path_destroy(path)
                default: break
                }
            }
        }
    }

    func paint(cr: OpaquePointer, view: GroundView, zoom: Double) {
        StreetMapPainter.draw(layers(view: view, zoom: zoom), cr: cr)
    }

    /// Builds a view's layers (on the thread that owns the tile set: it looks tiles up and
    /// asks the worker for the ring around them).
    func layers(view: GroundView, zoom: Double, parallel: Bool = false) -> Layers {
        let out = Layers(antialias: antialias)
        let sz = StreetMapPainter.styleZoom(zoom)
        let meta = set.metadata
        let covered = StreetMapPainter.cover(view: view, zoom: zoom, minZoom: meta.minZoom, maxZoom: meta.maxZoom)
        let tiles: [(CoveredTile, VectorTile)] = covered.compactMap { c in set.frameTile(c.key).map { (c, $0) } }
        if set.decodesOnWorker, let z = covered.map(\.key.z).max() {
            // The ring of tiles around the view, decoded by the worker before a pan reaches them.
            set.prefetch(StreetMapPainter.ring(around: covered, zoom: z))
        }
        // Paths are built on a scratch context in view pixels (identity matrix: copied out in
        // the same 24.8 fixed point cairo keeps) and appended to each band's context. The style's
        // layers are independent (value types, read only): with `parallel`, they are built on
        // the cores there are, each with its own context, and kept in the style's order.
        let shownIndices = style.layers.indices.filter { style.layers[$0].shows(zoom: sz) }
        let shown = shownIndices.map { style.layers[$0] }
        let cacheSlots = shownIndices.map { layerCache?.slot($0, layerCount: style.layers.count) }
        let slots = ParallelSlots<[Layers.Op]>(count: shown.count, initial: [])
        for (i, layer) in shown.enumerated() where layer.type == .background {
            let ctx = StyleContext(zoom: sz)
            guard let c = layer.background.color.evaluate(ctx) else { continue }
            let o = layer.background.opacity.evaluate(ctx) ?? 1
            var area: UnsafeMutablePointer<cairo_path_t>?
            if let backgroundArea, let scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1), let cr = cairo_create(scratch) {
                backgroundArea(cr)
                area = cairo_copy_path(cr)
                cairo_destroy(cr); cairo_surface_destroy(scratch)
            }
            slots[i] = [.background(color: StyleColor(r: c.r, g: c.g, b: c.b, a: c.a * o), area: area,
                                    edges: rasterizesFills ? area.map { FillRasterizer.edges(of: $0) } : nil)]
        }
        // The sea goes over the background layers the style starts with, under everything else.
        if let sea, let last = shown.prefix(while: { $0.type == .background }).indices.last,
           let scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1), let cr = cairo_create(scratch) {
            if sea(cr), let path = cairo_copy_path(cr) {
                slots[last] = slots[last] + [.sea(path, color: seaColor, edges: rasterizesFills ? FillRasterizer.edges(of: path) : nil)]
            }
            cairo_destroy(cr); cairo_surface_destroy(scratch)
        }
        // The layers' line work over the frame's rows, each layer's made where it is built.
        let frameWidth = Int(view.width), frameHeight = Int(view.height)
        let works = ParallelSlots<BandWork?>(count: shown.count, initial: nil)
        // The layers that took longest last frame first: one long layer (a tilted view's dashed
        // paths and boundaries, 3 ms) started last kept the other core idle while it ran.
        let costs = cacheSlots.map { $0?.buildSeconds ?? 0 }
        let order = shown.indices.sorted { costs[$0] > costs[$1] || (costs[$0] == costs[$1] && $0 < $1) }
        let painter = UncheckedSendable(self), shared = UncheckedSendable((shown, tiles, view, cacheSlots, order))
        let build: @Sendable (Int) -> Void = { k in
            let (shown, tiles, view, cacheSlots, order) = shared.value
            let i = order[k]
            let layer = shown[i]
            guard layer.type == .fill || layer.type == .line || layer.type == .circle,
                  let scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1), let cr = cairo_create(scratch) else { return }
            defer { cairo_destroy(cr); cairo_surface_destroy(scratch) }
            let start = MapRenderer.threadCPUSeconds()
            var pts: [Double] = [], work: [Double] = []
            var ops: [Layers.Op] = []
            painter.value.buildLayer(layer, cacheSlot: cacheSlots[i], cr: cr, view: view, zoom: sz, tiles: tiles, into: &ops, &pts, &work)
            slots[i] = ops
            // (Only for bands: `parallel` builds are for frames drawn in bands.)
            if parallel, layer.type == .line { works[i] = Layers.lineWork(ops, width: frameWidth, height: frameHeight) }
            cacheSlots[i]?.took(seconds: MapRenderer.threadCPUSeconds() - start)
        }
        if parallel {
            DispatchQueue.concurrentPerform(iterations: shown.count, execute: build)
        } else {
            for i in 0..<shown.count { build(i) }
        }
        out.ops = slots.values.flatMap { $0 }
        if parallel {
            var lineWork = BandWork(width: frameWidth, height: frameHeight)
            for w in works.values { if let w { lineWork.add(w) } }
            out.lineWork = lineWork
        }
        return out
    }

    /// Draws built layers into cr (clipped or translated as the caller likes): 32 rows at a
    /// time through every layer when they can be (`drawInChunks`), else layer by layer.
    static func draw(_ layers: Layers, cr: OpaquePointer) {
        if drawInChunks(layers, cr: cr) { return }
        cairo_set_antialias(cr, layers.antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE)
        let ops = layers.ops
        var i = 0
        while i < ops.count {
            // A run of line layers (a road's casing and fill, the road classes one over the
            // other) in one pass of 32-row chunks through them all: the bytes of one call each.
            var batch: [LineRasterizer.Layer] = []
            var j = i
            while j < ops.count, case let .lines(segments, pieces?, width, c, _, _, _) = ops[j] {
                if !segments.isEmpty {
                    batch.append(pieces.layer(width: width, color: c))
                }
                j += 1
            }
            if j > i + 1, LineRasterizer.stroke(layers: batch, cr: cr, antialias: layers.antialias) {
                i = j
                continue
            }
            let op = ops[i]
            i += 1
            switch op {
            case let .background(c, area, _):
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
                if let area {
                    cairo_new_path(cr)
                    cairo_append_path(cr, area)
                    cairo_fill(cr)
                } else {
                    cairo_paint(cr)
                }
            case let .sea(path, c, _):
                cairo_new_path(cr)
                cairo_append_path(cr, path)
                cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
                cairo_fill(cr)
                cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
            case let .fill(path, c, outline, outlineSegments, _):
                cairo_new_path(cr)
                cairo_append_path(cr, path)
                cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
                guard let o = outline else { cairo_fill(cr); continue }
                cairo_fill_preserve(cr)
                // A 1 px outline (MapLibre's fill-outline-color is a hairline round the fill):
                // rasterized when the target allows, else stroked by cairo.
                if let outlineSegments,
                   LineRasterizer.stroke(outlineSegments, cr: cr, lineWidth: 1, color: o.rgb, alpha: o.a, antialias: layers.antialias) {
                    cairo_new_path(cr)
                } else {
                    cairo_set_source_rgba(cr, o.r, o.g, o.b, o.a)
                    cairo_set_line_width(cr, 1)
                    cairo_stroke(cr)
                }
            case let .lines(segments, pieces, width, c, cap, join, dash):
                StreetMapPainter.strokeLines(pieces: pieces, segments, width: width, color: c, cap: cap, join: join, dash: dash,
                                             antialias: layers.antialias, cr: cr)
            case let .circles(path, c, stroke, strokeWidth, _, _):
                cairo_new_path(cr)
                cairo_append_path(cr, path)
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
                if let s = stroke {
                    cairo_fill_preserve(cr)
                    cairo_set_source_rgba(cr, s.r, s.g, s.b, s.a)
                    cairo_set_line_width(cr, strokeWidth)
                    cairo_stroke(cr)
                } else {
                    cairo_fill(cr)
                }
            }
        }
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT)
    }

    /// The layers drawn straight into cr's target, 32 rows at a time through all of them
    /// (`BandSteps`): the background, the fills (`FillRasterizer`), their outlines and the
    /// lines (`LineRasterizer`). False, drawing nothing, when a layer needs cairo
    /// (`addSteps`) or cr's target does not take `BandSteps`.
    static func drawInChunks(_ layers: Layers, cr: OpaquePointer) -> Bool {
        var steps = BandSteps()
        return addSteps(layers, to: &steps) && steps.draw(cr: cr)
    }

    /// The layers as steps of `steps`; false when one needs cairo: a translucent
    /// background over everything, fills kept without edges or lines without pieces
    /// (antialiasing off, lines by cairo).
    static func addSteps(_ layers: Layers, to steps: inout BandSteps) -> Bool {
        guard layers.antialias else { return false }
        var out = steps
        for op in layers.ops {
            switch op {
            case let .background(c, area, edges):
                if area == nil {
                    // Only an opaque paint is a plain store.
                    guard c.a >= 1 else { return false }
                    out.paint(c.rgb)
                } else {
                    guard let edges else { return false }
                    out.fill(FillRasterizer.Fill(edges: edges, evenOdd: false, color: c.rgb, alpha: c.a))
                }
            case let .sea(_, c, edges):
                guard let edges else { return false }
                out.fill(FillRasterizer.Fill(edges: edges, evenOdd: true, color: c.rgb, alpha: c.a))
            case let .fill(_, c, outline, outlineSegments, edges):
                guard let edges else { return false }
                var line: LineRasterizer.Layer?
                if let o = outline {
                    guard let outlineSegments else { return false }
                    line = LineRasterizer.Layer(segments: outlineSegments, lineWidth: 1, color: o.rgb, alpha: o.a)
                }
                out.fill(FillRasterizer.Fill(edges: edges, evenOdd: false, color: c.rgb, alpha: c.a), outline: line)
            case let .lines(segments, pieces, width, c, _, _, _):
                guard let pieces else { return false }
                out.lines(segments.isEmpty ? [] : [pieces.layer(width: width, color: c)])
            case let .circles(_, c, stroke, strokeWidth, edges, strokeSegments):
                guard let edges, let strokeSegments else { return false }
                let line = stroke.map { LineRasterizer.Layer(segments: strokeSegments, lineWidth: strokeWidth, color: $0.rgb, alpha: $0.a) }
                out.fill(FillRasterizer.Fill(edges: edges, evenOdd: false, color: c.rgb, alpha: c.a), outline: line)
            }
        }
        steps = out
        return true
    }

    /// How one group of features is drawn (features with equal values share one cairo path).
    struct Paint: Hashable {
        var color: StyleColor
        var opacity: Double
        var width: Double = 0
        var outline: StyleColor?
        var dash: [Double] = []
        var strokeColor: StyleColor?
        var strokeWidth: Double = 0
    }

    /// A fill, line or circle layer's paint, resolved for a frame: zoom-only values computed
    /// once, the others per feature.
    private enum ResolvedPaint {
        case fill(color: StyleProperty<StyleColor>.Resolved, opacity: StyleProperty<Double>.Resolved,
                  outline: StyleProperty<StyleColor>.Resolved)
        case line(color: StyleProperty<StyleColor>.Resolved, width: StyleProperty<Double>.Resolved,
                  opacity: StyleProperty<Double>.Resolved, dash: StyleProperty<StyleNumbers>.Resolved)
        case circle(color: StyleProperty<StyleColor>.Resolved, radius: StyleProperty<Double>.Resolved,
                    opacity: StyleProperty<Double>.Resolved, strokeColor: StyleProperty<StyleColor>.Resolved,
                    strokeWidth: StyleProperty<Double>.Resolved)

        init(_ layer: StreetStyle.Layer, _ c: StyleContext) {
            switch layer.type {
            case .fill:
                let f = layer.fill
                self = .fill(color: f.color.resolve(c), opacity: f.opacity.resolve(c), outline: f.outlineColor.resolve(c))
            case .line:
                let l = layer.line
                self = .line(color: l.color.resolve(c), width: l.width.resolve(c), opacity: l.opacity.resolve(c), dash: l.dasharray.resolve(c))
            default:
                let k = layer.circle
                self = .circle(color: k.color.resolve(c), radius: k.radius.resolve(c), opacity: k.opacity.resolve(c),
                               strokeColor: k.strokeColor.resolve(c), strokeWidth: k.strokeWidth.resolve(c))
            }
        }

        /// One feature's paint (the renderer's defaults where the style sets none).
        func paint(_ ctx: StyleContext) -> Paint {
            let black = StyleColor(r: 0, g: 0, b: 0)
            switch self {
            case let .fill(color, opacity, outline):
                var p = Paint(color: color.value(ctx) ?? black, opacity: opacity.value(ctx) ?? 1)
                p.outline = outline.value(ctx)
                return p
            case let .line(color, width, opacity, dash):
                var p = Paint(color: color.value(ctx) ?? black, opacity: opacity.value(ctx) ?? 1, width: width.value(ctx) ?? 1)
                if let d = dash.value(ctx) { p.dash = d.values }
                return p
            case let .circle(color, radius, opacity, strokeColor, strokeWidth):
                var p = Paint(color: color.value(ctx) ?? black, opacity: opacity.value(ctx) ?? 1, width: radius.value(ctx) ?? 5)
                p.strokeColor = strokeColor.value(ctx)
                p.strokeWidth = strokeWidth.value(ctx) ?? 0
                return p
            }
        }
    }

    private func buildLayer(_ layer: StreetStyle.Layer, cacheSlot: StreetLayerCache.Slot?, cr: OpaquePointer, view: GroundView, zoom: Double,
                            tiles: [(CoveredTile, VectorTile)], into ops: inout [Layers.Op], _ pts: inout [Double], _ scratch: inout [Double]) {
        guard let sourceLayer = layer.sourceLayer else { return }
        let constant = StyleContext(zoom: zoom)
        // Each property: evaluated once when it depends on zoom only, else per feature.
        let resolved = ResolvedPaint(layer, constant)
        // The features the layer's filter passes in each tile, with their paints: computed once
        // per tile and zoom (`StreetLayerCache`), then only culled to the view each frame.
        let slot = cacheSlot ?? StreetLayerCache.Slot()
        slot.lock.lock()
        defer { slot.lock.unlock() }
        slot.use(zoom: zoom)
        // Paint numbers in the order of their first feature in view, and each group's members.
        var groupOf = [Int32](repeating: -1, count: slot.paints.count)
        var order: [Int] = []
        var groups: [[(Int, Int)]] = []
        // The view's world box, widened by the widest line or circle a style draws (px).
        let pad = 64.0
        let vx0 = view.worldMinX - pad, vx1 = view.worldMaxX + pad, vy0 = view.worldMinY - pad, vy1 = view.worldMaxY + pad
        // Each tile's source layer, looked up once (not again for every feature drawn).
        let sourceLayers = tiles.map { $0.1.layers[sourceLayer] }
        for (ti, (c, _)) in tiles.enumerated() {
            guard let tl = sourceLayers[ti] else { continue }
            let unit = c.scale / Double(tl.extent)
            let styled = slot.styled(c.key) {
                var out: [Int32] = []
                for (fi, f) in tl.features.enumerated() {
                    if layer.type == .fill && f.type != .polygon { continue }
                    if layer.type == .line && f.type == .point { continue }
                    if layer.type == .circle && f.type != .point { continue }
                    let ctx = StyleContext(zoom: zoom, properties: f.properties, geometryType: f.type, id: f.id)
                    if let filter = layer.filter, !filter.evaluate(ctx).isTruthy { continue }
                    let p = resolved.paint(ctx)
                    guard p.opacity > 0, p.color.a > 0 || p.outline != nil || p.strokeWidth > 0 else { continue }
                    out.append(Int32(fi)); out.append(slot.number(p))
                }
                return out
            }
            if groupOf.count < slot.paints.count { groupOf += [Int32](repeating: -1, count: slot.paints.count - groupOf.count) }
            styled.withUnsafeBufferPointer { pairs in
                tl.features.withUnsafeBufferPointer { features in
                    var k = 0
                    while k + 1 < pairs.count {
                        let fi = Int(pairs[k]), pid = Int(pairs[k + 1])
                        k += 2
                        // (The box read in place: a copy of the feature retains and releases its arrays.)
                        let f = features.baseAddress! + fi
                        if c.originX + Double(f.pointee.maxX) * unit < vx0 || c.originX + Double(f.pointee.minX) * unit > vx1
                            || c.originY + Double(f.pointee.maxY) * unit < vy0 || c.originY + Double(f.pointee.minY) * unit > vy1 { continue }
                        var g = Int(groupOf[pid])
                        if g < 0 {
                            g = groups.count
                            groupOf[pid] = Int32(g)
                            order.append(pid)
                            groups.append([])
                        }
                        groups[g].append((ti, fi))
                    }
                }
            }
        }
        let cap = layer.line.cap.evaluate(constant)
        let join = layer.line.join.evaluate(constant)
        for (g, pid) in order.enumerated() {
            let p = slot.paints[pid], members = groups[g]
            if layer.type == .line {
                var segments: [Double] = []
                // Dash lengths are in line widths, as MapLibre defines them.
                let dash = p.dash.map { max($0 * max(p.width, 1), 0.5) }
                let width = max(p.width, 0.25)
                let trim = cap == .round || cap == .square ? 0 : width / 2
                // The lines' runs (where each starts along its feature) only for dashes and butt
                // ends the rasterizer cuts: the rest are drawn as they come.
                var runs: [LineRasterizer.Run]? = (view.tilted || rasterizesLines) && (!dash.isEmpty || trim > 0) ? [] : nil
                for (ti, fi) in members {
                    guard let tl = sourceLayers[ti] else { continue }
                    let c = tiles[ti].0
                    addLines(tl.features[fi], view: view, tile: c, unit: c.scale / Double(tl.extent), into: &segments, runs: &runs)
                }
                guard !segments.isEmpty else { continue }
                var pieces: LinePieces?
                // A dash and a gap drawn along the lines where the rasterizer draws them
                // antialiased (`LineRasterizer.along`), else cut into dashes.
                let along = rasterizesFills && LineRasterizer.drawsAlong(dash)
                if view.tilted {
                    pieces = LinePieces(perspective: segments, width: width, dash: dash, trim: trim, view: view, runs: runs, along: along)
                } else if along {
                    let (cut, dashes) = LineRasterizer.along(segments, pattern: dash, trim: trim, runs: runs)
                    pieces = LinePieces(segments: cut)
                    pieces?.dashes = dashes
                } else if rasterizesLines {
                    pieces = LinePieces(segments: dash.isEmpty && trim == 0 ? segments : LineRasterizer.dashed(segments, pattern: dash, trim: trim, runs: runs))
                }
                let color = p.color.withOpacity(p.opacity)
                if rasterizesFills, let made = pieces {
                    // Bucketed for the frame's pieces here, on the thread building this layer.
                    pieces?.buckets = LineRasterizer.buckets(made.layer(width: width, color: color), antialias: true,
                                                             width: Int(view.width), height: Int(view.height))
                }
                ops.append(.lines(segments, pieces: pieces, width: width, color: color, cap: cap, join: join, dash: dash))
                continue
            }
            cairo_new_path(cr)
            for (ti, fi) in members {
                guard let tl = sourceLayers[ti] else { continue }
                let c = tiles[ti].0
                let f = tl.features[fi]
                let unit = c.scale / Double(tl.extent)
                if layer.type == .fill {
                    addPolygon(f, cr: cr, view: view, tile: c, unit: unit, &pts, &scratch)
                } else {
                    addCircles(f, cr: cr, view: view, tile: c, unit: unit, radius: p.width)
                }
            }
            // Circles flattened (cairo's tolerance, 0.1 px) for `BandSteps`.
            var flat: (edges: [Double], segments: [Double])?
            if layer.type == .circle, rasterizesFills, let p = cairo_copy_path_flat(cr) {
                flat = (FillRasterizer.edges(of: p), LineRasterizer.segments(of: p))
                cairo_path_destroy(p)
            }
            guard let path = cairo_copy_path(cr) else { continue }
            cairo_new_path(cr)
            if layer.type == .fill {
                let outline = p.outline?.withOpacity(p.opacity)
                ops.append(.fill(path, color: p.color.withOpacity(p.opacity), outline: outline,
                                     outlineSegments: outline != nil && rasterizesLines ? LineRasterizer.segments(of: path) : nil,
                                     edges: rasterizesFills ? FillRasterizer.edges(of: path) : nil))
            } else {
                ops.append(.circles(path, color: p.color.withOpacity(p.opacity), stroke: p.strokeWidth > 0 ? p.strokeColor?.withOpacity(p.opacity) : nil,
                                        strokeWidth: p.strokeWidth, edges: flat?.edges, strokeSegments: flat?.segments))
            }
        }
    }

    private func addPolygon(_ f: VectorTile.Feature, cr: OpaquePointer, view: GroundView, tile: CoveredTile, unit: Double,
                            _ pts: inout [Double], _ scratch: inout [Double]) {
        for part in 0..<f.parts.count {
            let r = f.partRange(part)
            guard r.count >= 3 else { continue }
            pts.removeAll(keepingCapacity: true)
            var inside = true
            f.points.withUnsafeBufferPointer { q in
                for i in r {
                    let (gx, gy) = view.ground(worldX: tile.originX + Double(q[2 * i]) * unit, worldY: tile.originY + Double(q[2 * i + 1]) * unit)
                    if gx < view.minGX || gx > view.maxGX || gy < view.minGY || gy > view.maxGY { inside = false }
                    pts.append(gx); pts.append(gy)
                }
            }
            view.addRing(&pts, &scratch, inside: inside, to: cr)
        }
    }

    /// Draws one group's lines (segments in cr's user space, joined where one starts at the
    /// last one's end). `LineRasterizer` draws its `pieces` (the segments dashed and trimmed;
    /// nil: cairo draws every line) when cr's target allows: its joins and ends are round (a
    /// butt end is the line trimmed by half its width, a miter or bevel join comes out round),
    /// its edges a box filter as cairo's are. Else cairo strokes the pieces of their own
    /// widths (a tilted view) with round ends, or the segments.
    static func strokeLines(pieces: LinePieces?, _ segments: [Double], width: Double, color c: StyleColor, cap: LineCap?, join: LineJoin?, dash: [Double],
                            antialias: Bool, cr: OpaquePointer) {
        guard !segments.isEmpty else { return }
        if let pieces, LineRasterizer.stroke(layers: [LineRasterizer.Layer(segments: pieces.segments, endWidths: pieces.endWidths, lineWidth: width,
                                                                           color: c.rgb, alpha: c.a, dashes: pieces.dashes)],
                                             cr: cr, antialias: antialias) { return }
        // (Pieces with their pattern drawn along them are stroked below as the lines they are,
        // dashed by cairo: a target the rasterizer cannot draw into.)
        if let pieces, pieces.endWidths != nil, pieces.dashes == nil {
            // cairo strokes one width at a time: short pieces, each of the width at its middle.
            cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
            cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
            for p in pieces.evenPieces() {
                cairo_new_path(cr)
                cairo_move_to(cr, p.x0, p.y0)
                cairo_line_to(cr, p.x1, p.y1)
                cairo_set_line_width(cr, p.width)
                cairo_stroke(cr)
            }
            return
        }
        cairo_new_path(cr)
        for k in 0..<segments.count / 4 {
            if k == 0 || segments[4 * k] != segments[4 * k - 2] || segments[4 * k + 1] != segments[4 * k - 1] {
                cairo_move_to(cr, segments[4 * k], segments[4 * k + 1])
            }
            cairo_line_to(cr, segments[4 * k + 2], segments[4 * k + 3])
        }
        cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a)
        cairo_set_line_width(cr, width)
        cairo_set_line_cap(cr, cap == .round ? CAIRO_LINE_CAP_ROUND : cap == .square ? CAIRO_LINE_CAP_SQUARE : CAIRO_LINE_CAP_BUTT)
        cairo_set_line_join(cr, join == .round ? CAIRO_LINE_JOIN_ROUND : join == .miter ? CAIRO_LINE_JOIN_MITER : CAIRO_LINE_JOIN_BEVEL)
        if !dash.isEmpty { cairo_set_dash(cr, dash, Int32(dash.count), 0) }
        cairo_stroke(cr)
        cairo_set_dash(cr, nil, 0, 0)
    }

    /// A feature's lines as screen segments (x0, y0, x1, y1, ...), clipped to the view; a
    /// segment that continues its line starts exactly where the last one ended. With `runs`,
    /// each stretch of it on screen is a run: how far along the feature's line it starts (ground
    /// px), so that its dashes start where the feature does whatever the view (as MapLibre
    /// dashes a tile's line from its start), and whether its ends are the view's edge.
    private func addLines(_ f: VectorTile.Feature, view: GroundView, tile: CoveredTile, unit: Double, into out: inout [Double],
                          runs: inout [LineRasterizer.Run]?) {
        // Polygon outlines drawn by line layers close their rings.
        let closed = f.type == .polygon
        for part in 0..<f.parts.count {
            let r = f.partRange(part)
            guard r.count >= 2 else { continue }
            f.points.withUnsafeBufferPointer { q in
                func g(_ i: Int) -> (Double, Double) {
                    view.ground(worldX: tile.originX + Double(q[2 * i]) * unit, worldY: tile.originY + Double(q[2 * i + 1]) * unit)
                }
                var (px, py) = g(r.lowerBound)
                var penDown = false
                var lastX = 0.0, lastY = 0.0
                // The line's length up to (px, py), ground px (screen px in a flat view).
                var along = 0.0
                let measuring = runs != nil
                func step(_ i: Int) {
                    let (gx, gy) = g(i)
                    defer {
                        if measuring { along += ((gx - px) * (gx - px) + (gy - py) * (gy - py)).squareRoot() }
                        px = gx; py = gy
                    }
                    guard let s = RectClip.segment(px, py, gx, gy, minX: view.minGX, maxX: view.maxGX, minY: view.minGY, maxY: view.maxGY) else {
                        if penDown && measuring { runs![runs!.count - 1].endCut = true }
                        penDown = false
                        return
                    }
                    var (ax, ay) = view.screen(s.0, s.1), (bx, by) = view.screen(s.2, s.3)
                    var startCut = s.4, endCut = s.5
                    var screenCut = false
                    if view.tilted {
                        // The ground rectangle of a tilted view is the trapezoid's bounding box: near
                        // the eye most of it is far off screen. Clip again on screen (a projected
                        // segment is straight), or all of that unseen length is stroked and dashed.
                        guard let c = RectClip.segment(ax, ay, bx, by, minX: -64, maxX: view.width + 64, minY: -64, maxY: view.height + 64) else {
                            penDown = false
                            return
                        }
                        (ax, ay, bx, by) = (c.0, c.1, c.2, c.3)
                        startCut = startCut || c.4; endCut = endCut || c.5
                        screenCut = c.4
                    }
                    // A segment that continues the line starts exactly at the last one's end.
                    if penDown && !startCut {
                        ax = lastX; ay = lastY
                    } else if measuring {
                        if penDown { runs![runs!.count - 1].endCut = true }
                        // Where the run starts on the ground: the view's ground rectangle's cut,
                        // or (tilted) the screen's, brought back to the ground.
                        var (sx0, sy0) = (s.0, s.1)
                        if screenCut,
                           let back = view.projection.groundOffset(screen: Point(x: ax, y: ay)) {
                            (sx0, sy0) = (back.x, back.y)
                        }
                        let before = startCut ? ((sx0 - px) * (sx0 - px) + (sy0 - py) * (sy0 - py)).squareRoot() : 0
                        runs!.append(LineRasterizer.Run(first: out.count / 4, along: along + before, startCut: startCut))
                    }
                    out.append(ax); out.append(ay); out.append(bx); out.append(by)
                    lastX = bx; lastY = by
                    if endCut && measuring { runs![runs!.count - 1].endCut = true }
                    penDown = !endCut
                }
                for i in r.dropFirst() { step(i) }
                if closed { step(r.lowerBound) }
            }
        }
    }

    private func addCircles(_ f: VectorTile.Feature, cr: OpaquePointer, view: GroundView, tile: CoveredTile, unit: Double, radius: Double) {
        let n = f.points.count / 2
        let scale = view.perspective    // a tilted view's far dots are smaller
        for i in 0..<n {
            let (gx, gy) = view.ground(worldX: tile.originX + Double(f.points[2 * i]) * unit, worldY: tile.originY + Double(f.points[2 * i + 1]) * unit)
            guard gx >= view.minGX, gx <= view.maxGX, gy >= view.minGY, gy <= view.maxGY else { continue }
            let (sx, sy) = view.screen(gx, gy)
            cairo_new_sub_path(cr)
            cairo_arc(cr, sx, sy, radius * scale(sy), 0, 2 * .pi)
        }
    }
}

/// What `LineRasterizer` draws of a group of lines: the segments dashed and their butt ends
/// trimmed, and in a tilted view each piece's width at its two ends.
struct LinePieces {
    var segments: [Double]
    /// Width at each piece's start and end (two per piece), or nil: the style's width throughout.
    var endWidths: [Double]?

    /// The pieces bucketed by the frame's chunks (`LineRasterizer.buckets`), when made.
    var buckets: LineRasterizer.Buckets?
    /// A pattern drawn along the pieces (`LineRasterizer.along`), or nil: the dashes, if any,
    /// are pieces of their own.
    var dashes: LineRasterizer.Dashes?

    init(segments: [Double], endWidths: [Double]? = nil) {
        self.segments = segments
        self.endWidths = endWidths
    }

    /// The pieces as a `LineRasterizer` layer `width` px wide (or each piece's own widths) in `color`.
    func layer(width: Double, color: StyleColor) -> LineRasterizer.Layer {
        LineRasterizer.Layer(segments: segments, endWidths: endWidths, lineWidth: width, color: color.rgb, alpha: color.a, buckets: buckets,
                             dashes: dashes)
    }

    /// A tilted view's pieces, as MapLibre draws a pitched map's lines: widths, dashes and
    /// trims in pixels at the camera target, scaled by the ground's perspective
    /// (`GroundView.perspectiveScale`, at most 1), so far lines thin out and fade. The
    /// scale is affine in screen y, so along a straight piece the width changes linearly: the
    /// rasterizer draws each piece tapered from its start's width to its end's.
    /// `along`: a pattern of a dash and a gap drawn along the pieces (`LineRasterizer.along`),
    /// not cut into them.
    init(perspective segments: [Double], width: Double, dash: [Double], trim: Double, view: GroundView, runs: [LineRasterizer.Run]? = nil,
         along: Bool = false) {
        // Dashes shorten with distance until their period is `minDashPeriod`: shorter ones would
        // not read as dashes, and each costs its round ends.
        let period = dash.reduce(0, +)
        let floor = period > 0 ? min(1, LinePieces.minDashPeriod / period) : 0
        let scale = view.perspective
        var marks: LineRasterizer.Dashes?
        let dashes: [Double]
        if along {
            (dashes, marks) = LineRasterizer.along(segments, pattern: dash, trim: trim, scale: scale.atLeast(floor), runs: runs)
        } else {
            dashes = LineRasterizer.dashed(segments, pattern: dash, trim: trim, scale: scale.atLeast(floor), runs: runs)
        }
        // The scale stops growing at the row where it reaches its maximum: a piece across that
        // row is cut there, so that the width along each piece is linear (and a pattern's
        // scale, which stops there too).
        let clampY = scale.slope > 0 ? (scale.maximum - scale.base) / scale.slope : .infinity
        var cut: [Double] = [], widths: [Double] = [], places: [Float] = []
        cut.reserveCapacity(dashes.count + 64)
        widths.reserveCapacity(dashes.count / 2 + 32)
        if marks != nil { places.reserveCapacity(dashes.count + 64) }
        func piece(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double) {
            cut.append(x0); cut.append(y0); cut.append(x1); cut.append(y1)
            widths.append(width * scale(y0)); widths.append(width * scale(y1))
        }
        for k in 0..<dashes.count / 4 {
            let x0 = dashes[4 * k], y0 = dashes[4 * k + 1], x1 = dashes[4 * k + 2], y1 = dashes[4 * k + 3]
            if (y0 - clampY) * (y1 - clampY) < 0 {
                let t = (clampY - y0) / (y1 - y0), xc = x0 + t * (x1 - x0)
                piece(x0, y0, xc, clampY)
                piece(xc, clampY, x1, y1)
                if let m = marks?.pieces {
                    // Split where the pattern's scale stops changing: its pattern px in
                    // proportion to each part's (1 / scale) integral.
                    let p = m[4 * k], span = Double(m[4 * k + 1]), s0 = Double(m[4 * k + 2]), s1 = Double(m[4 * k + 3])
                    let sc = scale.atLeast(floor)(clampY)
                    let len = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot()
                    let first = LineRasterizer.patternLength(t * len, s0, sc), second = LineRasterizer.patternLength((1 - t) * len, sc, s1)
                    let part = first + second > 0 ? span * first / (first + second) : 0
                    places += [p, Float(part), Float(s0), Float(sc)]
                    places += [Float((Double(p) + part).truncatingRemainder(dividingBy: marks!.period)), Float(span - part), Float(sc), Float(s1)]
                }
            } else {
                piece(x0, y0, x1, y1)
                if let m = marks?.pieces { places += m[(4 * k)..<(4 * k + 4)] }
            }
        }
        self.init(segments: cut, endWidths: widths)
        if let marks { self.dashes = LineRasterizer.Dashes(pieces: places, period: marks.period, on: marks.on, trim: marks.trim) }
    }


    /// The shortest dash period (dash and gap, px) perspective shortens a pattern to.
    static let minDashPeriod = 8.0

    /// The pieces cut to span at most `rows` rows each, each with the width at its middle (for
    /// strokers of one width per stroke).
    func evenPieces(rows: Double = 16) -> [(x0: Double, y0: Double, x1: Double, y1: Double, width: Double)] {
        guard let w = endWidths else { return [] }
        var out: [(x0: Double, y0: Double, x1: Double, y1: Double, width: Double)] = []
        for k in 0..<segments.count / 4 {
            let x0 = segments[4 * k], y0 = segments[4 * k + 1], x1 = segments[4 * k + 2], y1 = segments[4 * k + 3]
            let dy = abs(y1 - y0)
            let n = dy.isFinite ? max(1, min(256, Int((dy / rows).rounded(.up)))) : 1
            for i in 0..<n {
                let t0 = Double(i) / Double(n), t1 = Double(i + 1) / Double(n), tm = (t0 + t1) / 2
                out.append((x0 + t0 * (x1 - x0), y0 + t0 * (y1 - y0), x0 + t1 * (x1 - x0), y0 + t1 * (y1 - y0),
                            w[2 * k] + tm * (w[2 * k + 1] - w[2 * k])))
            }
        }
        return out
    }
}

extension StyleColor {
    /// The colour with its alpha multiplied by a layer's opacity.
    func withOpacity(_ o: Double) -> StyleColor { StyleColor(r: r, g: g, b: b, a: a * o) }
    /// The colour without its alpha, for the painters that take the alpha apart.
    var rgb: RGBColor { RGBColor(r: r, g: g, b: b) }
}
