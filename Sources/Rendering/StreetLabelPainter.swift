import CCairo
import Foundation
import MapEngine
import TouchCore
import VectorTiles

/// A label of the street map as placed: its text, where it is anchored on the ground, and the
/// screen box it took when it was placed.
public struct PlacedStreetLabel: Sendable, Equatable {
    public let layerID: String
    public let text: String
    public let coordinate: Coordinate
    /// The feature's class (`class` property, e.g. "cafe", "village") and id, for POI taps.
    public let featureClass: String?
    public let featureID: UInt64?
    /// Whether a tap on it is a POI tap (place names and points of interest).
    public let tappable: Bool
    /// The label's box on screen (x, y, width, height), px, for the frame it was drawn in.
    public var frame: LabelFrame
    let sizePx: Double
    let bold: Bool
    let wrapWidth: Double?
    let color: StyleColor
    let halo: StyleColor?
    let haloWidth: Double
    /// Offset of the text's top left from the anchor's screen point.
    let dx: Double, dy: Double
}

extension PlacedStreetLabel {
    /// The label as a tappable point of interest (nil for road and water names): its box is
    /// kept relative to the anchor, so the controller's hit test follows the map as it moves.
    public var pointOfInterest: PointOfInterest? {
        guard tappable else { return nil }
        let box = ScreenRect(x: dx - 2, y: dy - 2, width: frame.width, height: frame.height)
        return PointOfInterest(name: text, coordinate: coordinate, minZoom: 0, featureClass: featureClass, id: featureID, labelBox: box)
    }
}

/// Places and draws the symbol layers' text labels: upright (screen-aligned whatever the
/// bearing and tilt), without overlapping each other or the given obstacles (markers, the info
/// window, controls). Placement runs for final frames (the camera has settled); frames during
/// a gesture redraw the same labels at their new screen points, so nothing flickers.
struct StreetLabelPainter {
    let set: VectorTileSet
    let style: StreetStyle
    /// Multiplies every text size (viewing distance, HiDPI panels).
    var textScale = 1.0

    /// Candidates of the symbol layers, in priority order, placed against obstacles.
    func place(view: GroundView, zoom: Double, text: TextRenderer, obstacles: [LabelFrame]) -> [PlacedStreetLabel] {
        let sz = StreetMapPainter.styleZoom(zoom)
        let meta = set.metadata
        let covered = StreetMapPainter.cover(view: view, zoom: zoom, minZoom: meta.minZoom, maxZoom: meta.maxZoom)
        let tiles: [(StreetMapPainter.CoveredTile, VectorTile)] = covered.compactMap { c in set.frameTile(c.key).map { (c, $0) } }
        var placed: [PlacedStreetLabel] = []
        var boxes: [LabelFrame] = obstacles
        // Later layers in a style are drawn on top and win collisions, as in MapLibre.
        for layer in style.layers.reversed() where layer.type == .symbol && layer.shows(zoom: sz) {
            guard let sourceLayer = layer.sourceLayer, let field = layer.property("text-field") else { continue }
            let constant = StyleContext(zoom: sz)
            func num(_ name: String, _ ctx: StyleContext, _ fallback: Double) -> Double {
                layer.property(name)?.evaluate(ctx).number ?? fallback
            }
            struct Candidate { let text: String; let wx: Double; let wy: Double; let sort: Double; let ctx: StyleContext; let order: Int }
            var candidates: [Candidate] = []
            for (c, tile) in tiles {
                guard let tl = tile.layers[sourceLayer] else { continue }
                let unit = c.scale / Double(tl.extent)
                for f in tl.features {
                    let ctx = StyleContext(zoom: sz, properties: f.properties, geometryType: f.type, id: f.id)
                    if let filter = layer.filter, !filter.evaluate(ctx).isTruthy { continue }
                    var label = field.evaluate(ctx).text
                    switch layer.property("text-transform")?.evaluate(constant).string {
                    case "uppercase": label = label.uppercased()
                    case "lowercase": label = label.lowercased()
                    default: break
                    }
                    guard !label.isEmpty, let (ax, ay) = StreetLabelPainter.anchor(f) else { continue }
                    // Anchors in a tile's buffer belong to the neighbouring tile: skip them there.
                    guard ax >= 0, ay >= 0, ax < Double(tl.extent), ay < Double(tl.extent) else { continue }
                    candidates.append(Candidate(text: label, wx: c.originX + ax * unit, wy: c.originY + ay * unit,
                                                sort: layer.property("symbol-sort-key")?.evaluate(ctx).number ?? 0,
                                                ctx: ctx, order: candidates.count))
                }
            }
            candidates.sort { ($0.sort, $0.order) < ($1.sort, $1.order) }
            let linePlacement = layer.property("symbol-placement")?.evaluate(constant).string == "line"
            for cand in candidates {
                let (gx, gy) = view.ground(worldX: cand.wx, worldY: cand.wy)
                guard gx >= view.minGX, gx <= view.maxGX, gy >= view.minGY, gy <= view.maxGY else { continue }
                let (sx, sy) = view.screen(gx, gy)
                guard sx >= 0, sx <= view.width, sy >= 0, sy <= view.height else { continue }
                if let far = view.farLineY, sy < far { continue }
                // Towards a tilted horizon the ground shrinks: leave the far labels out.
                if view.tilted && view.projection.scale(at: Point(x: sx, y: sy)) < 0.45 { continue }
                let ctx = cand.ctx
                let size = num("text-size", ctx, 16) * textScale
                let fonts = layer.property("text-font")?.evaluate(constant).text ?? ""
                let bold = fonts.contains("Bold")
                let maxWidth = layer.property("text-max-width")?.evaluate(ctx).number
                let tstyle = TextRenderer.Style(sizePx: size, bold: bold, width: maxWidth.map { $0 * size }, maxLines: 2, alignCenter: true)
                let layout = text.layout(cand.text, tstyle)
                let (w, h) = text.size(layout)
                guard w > 0, h > 0 else { continue }
                var ox = -w / 2, oy = -h / 2
                switch layer.property("text-anchor")?.evaluate(ctx).string {
                case "top": oy = 0
                case "bottom": oy = -h
                case "left": ox = 0
                case "right": ox = -w
                default: break
                }
                if case let .array(off)? = layer.property("text-offset")?.evaluate(ctx), off.count == 2 {
                    ox += (off[0].number ?? 0) * size; oy += (off[1].number ?? 0) * size
                }
                let pad = 2.0
                let box = LabelFrame(x: sx + ox - pad, y: sy + oy - pad, width: w + 2 * pad, height: h + 2 * pad)
                guard box.x >= 0, box.y >= 0, box.x + box.width <= view.width, box.y + box.height <= view.height else { continue }
                if let far = view.farLineY, box.y < far { continue }
                guard !boxes.contains(where: { $0.intersects(box) }) else { continue }
                // One road or river name per 250 px, though every tile repeats it.
                if linePlacement, placed.contains(where: { $0.text == cand.text && hypot($0.frame.midX - box.midX, $0.frame.midY - box.midY) < 250 }) { continue }
                boxes.append(box)
                let cls = ctx.properties["class"].map { StyleValue($0).text }
                let coordinate = WebMercator.coordinate(world: Point(x: cand.wx, y: cand.wy), zoom: zoom)
                placed.append(PlacedStreetLabel(
                    layerID: layer.id, text: cand.text, coordinate: coordinate, featureClass: cls, featureID: ctx.id,
                    tappable: sourceLayer == "poi" || sourceLayer == "place" || sourceLayer == "mountain_peak",
                    frame: box, sizePx: size, bold: bold, wrapWidth: tstyle.width,
                    color: layer.property("text-color")?.evaluate(ctx).color ?? StyleColor(r: 0, g: 0, b: 0),
                    halo: layer.property("text-halo-color")?.evaluate(ctx).color,
                    haloWidth: num("text-halo-width", ctx, 0), dx: ox, dy: oy))
            }
        }
        return placed
    }

    /// Moves labels placed for another camera to where their anchors are now (a gesture frame);
    /// labels that left the screen or the drawn ground are dropped for this frame.
    static func follow(_ labels: [PlacedStreetLabel], view: GroundView) -> [PlacedStreetLabel] {
        labels.compactMap { l in
            guard let p = view.visiblePoint(l.coordinate, slack: 0) else { return nil }
            var m = l
            m.frame = LabelFrame(x: p.x + l.dx - 2, y: p.y + l.dy - 2, width: l.frame.width, height: l.frame.height)
            return m
        }
    }

    /// Draws labels upright (screen-aligned) with their halos: copies of the text in the halo
    /// colour at the halo width in eight directions, then the text.
    static func draw(_ labels: [PlacedStreetLabel], cr: OpaquePointer, text: TextRenderer) {
        for l in labels {
            let layout = text.layout(l.text, TextRenderer.Style(sizePx: l.sizePx, bold: l.bold, width: l.wrapWidth, maxLines: 2, alignCenter: true))
            // A wrapped, centred layout starts its lines inside its wrap width: shift by the logical x.
            var ink = PangoRectangle(), logical = PangoRectangle()
            pango_layout_get_pixel_extents(layout, &ink, &logical)
            let x = (l.frame.x + 2 - Double(logical.x)).rounded(), y = (l.frame.y + 2 - Double(logical.y)).rounded()
            if let h = l.halo, l.haloWidth > 0 {
                // Eight halo copies and the text: from the label's sprite, drawn once (x and y
                // are whole pixels), as the place names are.
                text.drawWithHalo(layout, cr: cr, x: x, y: y, color: l.color.rgb, halo: h.rgb, textAlpha: l.color.a, haloAlpha: h.a * 0.9,
                                  radius: max(1, l.haloWidth.rounded()))
                continue
            }
            cairo_set_source_rgba(cr, l.color.r, l.color.g, l.color.b, l.color.a)
            cairo_move_to(cr, x, y)
            pango_cairo_show_layout(cr, layout)
        }
    }
}

extension LabelFrame {
    func intersects(_ o: LabelFrame) -> Bool {
        x < o.x + o.width && o.x < x + width && y < o.y + o.height && o.y < y + height
    }
    var midX: Double { x + width / 2 }
    var midY: Double { y + height / 2 }
}

extension StreetLabelPainter {
    /// Where a feature's label goes, in tile units: a point feature's point; a line's middle
    /// (half its length along it); a polygon's first ring's centre of vertices.
    static func anchor(_ f: VectorTile.Feature) -> (Double, Double)? {
        guard !f.parts.isEmpty else { return nil }
        let p = f.points
        switch f.type {
        case .point:
            return (Double(p[0]), Double(p[1]))
        case .lineString:
            // The longest part, at half its length.
            var best: (Range<Int>, Double)?
            for i in 0..<f.parts.count {
                let r = f.partRange(i)
                guard r.count >= 2 else { continue }
                var len = 0.0
                for k in r.dropFirst() { len += hypot(Double(p[2 * k] - p[2 * k - 2]), Double(p[2 * k + 1] - p[2 * k - 1])) }
                if best == nil || len > best!.1 { best = (r, len) }
            }
            guard let (r, len) = best else { return nil }
            var remaining = len / 2
            for k in r.dropFirst() {
                let x0 = Double(p[2 * k - 2]), y0 = Double(p[2 * k - 1]), x1 = Double(p[2 * k]), y1 = Double(p[2 * k + 1])
                let seg = hypot(x1 - x0, y1 - y0)
                if seg >= remaining && seg > 0 { let t = remaining / seg; return (x0 + t * (x1 - x0), y0 + t * (y1 - y0)) }
                remaining -= seg
            }
            return (Double(p[2 * (r.upperBound - 1)]), Double(p[2 * (r.upperBound - 1) + 1]))
        case .polygon:
            let r = f.partRange(0)
            guard !r.isEmpty else { return nil }
            var sx = 0.0, sy = 0.0
            for k in r { sx += Double(p[2 * k]); sy += Double(p[2 * k + 1]) }
            return (sx / Double(r.count), sy / Double(r.count))
        case .unknown:
            return nil
        }
    }
}
