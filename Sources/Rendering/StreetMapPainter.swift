import CCairo
import Foundation
import MapEngine
import VectorTiles

/// Draws the background, fill, line and circle layers of a street style from vector tiles,
/// through a `GroundView`: every vertex is clipped in ground coordinates and projected, so a
/// tilted view is true perspective and sharp at any zoom. Past the tile set's max zoom the
/// deepest tiles' geometry is scaled (overzoom), never their pixels.
struct StreetMapPainter {
    let set: VectorTileSet
    let style: StreetStyle
    var antialias = true
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

    /// The tiles (zoom and addresses) covering a view.
    static func cover(view: GroundView, zoom: Double, minZoom: Int, maxZoom: Int) -> [CoveredTile] {
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

    func paint(cr: OpaquePointer, view: GroundView, zoom: Double) {
        let sz = StreetMapPainter.styleZoom(zoom)
        let meta = set.metadata
        let covered = StreetMapPainter.cover(view: view, zoom: zoom, minZoom: meta.minZoom, maxZoom: meta.maxZoom)
        let tiles: [(CoveredTile, VectorTile)] = covered.compactMap { c in set.tile(c.key).map { (c, $0) } }
        cairo_set_antialias(cr, antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE)
        var pts: [Double] = [], scratch: [Double] = []
        pts.reserveCapacity(4096); scratch.reserveCapacity(4096)
        for layer in style.layers where layer.shows(zoom: sz) {
            switch layer.type {
            case .background:
                let ctx = StyleContext(zoom: sz)
                guard let c = layer.property("background-color")?.evaluate(ctx).color else { continue }
                let o = layer.property("background-opacity")?.evaluate(ctx).number ?? 1
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * o)
                cairo_paint(cr)
            case .fill, .line, .circle:
                drawLayer(layer, cr: cr, view: view, zoom: sz, tiles: tiles, &pts, &scratch)
            case .symbol:
                continue   // labels are placed and drawn per frame by StreetLabelPainter
            }
        }
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT)
    }

    /// How one group of features is drawn (features with equal values share one cairo path).
    private struct Paint: Hashable {
        var color: StyleColor
        var opacity: Double
        var width: Double = 0
        var outline: StyleColor?
        var dash: [Double] = []
        var strokeColor: StyleColor?
        var strokeWidth: Double = 0
    }

    private func drawLayer(_ layer: StreetStyle.Layer, cr: OpaquePointer, view: GroundView, zoom: Double,
                           tiles: [(CoveredTile, VectorTile)], _ pts: inout [Double], _ scratch: inout [Double]) {
        guard let sourceLayer = layer.sourceLayer else { return }
        let constant = StyleContext(zoom: zoom)
        // Each property: evaluated once when it depends on zoom only, else per feature.
        func resolve(_ name: String) -> (StyleExpression?, StyleValue?) {
            guard let e = layer.property(name) else { return (nil, nil) }
            return e.isFeatureConstant ? (nil, e.evaluate(constant)) : (e, nil)
        }
        let props: [String] = switch layer.type {
        case .fill: ["fill-color", "fill-opacity", "fill-outline-color"]
        case .line: ["line-color", "line-width", "line-opacity", "line-dasharray", "line-gap-width"]
        default: ["circle-color", "circle-radius", "circle-opacity", "circle-stroke-color", "circle-stroke-width"]
        }
        let resolved = props.map(resolve)
        var groups: [Paint: [(Int, Int)]] = [:]
        var order: [Paint] = []
        for (ti, (_, tile)) in tiles.enumerated() {
            guard let tl = tile.layers[sourceLayer] else { continue }
            for (fi, f) in tl.features.enumerated() {
                if layer.type == .fill && f.type != .polygon { continue }
                if layer.type == .line && f.type == .point { continue }
                if layer.type == .circle && f.type != .point { continue }
                let ctx = StyleContext(zoom: zoom, properties: f.properties, geometryType: f.type, id: f.id)
                if let filter = layer.filter, !filter.evaluate(ctx).isTruthy { continue }
                func v(_ i: Int) -> StyleValue? { resolved[i].1 ?? resolved[i].0?.evaluate(ctx) }
                var p: Paint
                switch layer.type {
                case .fill:
                    p = Paint(color: v(0)?.color ?? StyleColor(r: 0, g: 0, b: 0), opacity: v(1)?.number ?? 1)
                    p.outline = v(2)?.color
                case .line:
                    p = Paint(color: v(0)?.color ?? StyleColor(r: 0, g: 0, b: 0), opacity: v(2)?.number ?? 1, width: v(1)?.number ?? 1)
                    if case let .array(d)? = v(3) { p.dash = d.compactMap(\.number) }
                default:
                    p = Paint(color: v(0)?.color ?? StyleColor(r: 0, g: 0, b: 0), opacity: v(2)?.number ?? 1, width: v(1)?.number ?? 5)
                    p.strokeColor = v(3)?.color
                    p.strokeWidth = v(4)?.number ?? 0
                }
                guard p.opacity > 0, p.color.a > 0 || p.outline != nil || p.strokeWidth > 0 else { continue }
                if groups[p] == nil { order.append(p) }
                groups[p, default: []].append((ti, fi))
            }
        }
        let cap = layer.property("line-cap")?.evaluate(constant).string
        let join = layer.property("line-join")?.evaluate(constant).string
        for p in order {
            guard let members = groups[p] else { continue }
            cairo_new_path(cr)
            for (ti, fi) in members {
                let (c, tile) = tiles[ti]
                guard let tl = tile.layers[sourceLayer] else { continue }
                let f = tl.features[fi]
                let unit = c.scale / Double(tl.extent)
                switch layer.type {
                case .fill: addPolygon(f, cr: cr, view: view, tile: c, unit: unit, &pts, &scratch)
                case .line: addLines(f, cr: cr, view: view, tile: c, unit: unit)
                default: addCircles(f, cr: cr, view: view, tile: c, unit: unit, radius: p.width)
                }
            }
            let c = p.color
            switch layer.type {
            case .fill:
                cairo_set_fill_rule(cr, CAIRO_FILL_RULE_WINDING)
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * p.opacity)
                if let o = p.outline {
                    cairo_fill_preserve(cr)
                    cairo_set_source_rgba(cr, o.r, o.g, o.b, o.a * p.opacity)
                    cairo_set_line_width(cr, 1)
                    cairo_stroke(cr)
                } else {
                    cairo_fill(cr)
                }
            case .line:
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * p.opacity)
                cairo_set_line_width(cr, max(p.width, 0.25))
                cairo_set_line_cap(cr, cap == "round" ? CAIRO_LINE_CAP_ROUND : cap == "square" ? CAIRO_LINE_CAP_SQUARE : CAIRO_LINE_CAP_BUTT)
                cairo_set_line_join(cr, join == "round" ? CAIRO_LINE_JOIN_ROUND : join == "miter" ? CAIRO_LINE_JOIN_MITER : CAIRO_LINE_JOIN_BEVEL)
                if !p.dash.isEmpty {
                    // Dash lengths are in line widths, as MapLibre defines them.
                    let d = p.dash.map { max($0 * max(p.width, 1), 0.5) }
                    cairo_set_dash(cr, d, Int32(d.count), 0)
                }
                cairo_stroke(cr)
                cairo_set_dash(cr, nil, 0, 0)
            default:
                cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a * p.opacity)
                if let s = p.strokeColor, p.strokeWidth > 0 {
                    cairo_fill_preserve(cr)
                    cairo_set_source_rgba(cr, s.r, s.g, s.b, s.a * p.opacity)
                    cairo_set_line_width(cr, p.strokeWidth)
                    cairo_stroke(cr)
                } else {
                    cairo_fill(cr)
                }
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

    private func addLines(_ f: VectorTile.Feature, cr: OpaquePointer, view: GroundView, tile: CoveredTile, unit: Double) {
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
                let indices = closed ? Array(r.dropFirst()) + [r.lowerBound] : Array(r.dropFirst())
                for i in indices {
                    let (gx, gy) = g(i)
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

    private func addCircles(_ f: VectorTile.Feature, cr: OpaquePointer, view: GroundView, tile: CoveredTile, unit: Double, radius: Double) {
        let n = f.points.count / 2
        for i in 0..<n {
            let (gx, gy) = view.ground(worldX: tile.originX + Double(f.points[2 * i]) * unit, worldY: tile.originY + Double(f.points[2 * i + 1]) * unit)
            guard gx >= view.minGX, gx <= view.maxGX, gy >= view.minGY, gy <= view.maxGY else { continue }
            let (sx, sy) = view.screen(gx, gy)
            cairo_new_sub_path(cr)
            cairo_arc(cr, sx, sy, radius, 0, 2 * .pi)
        }
    }
}
