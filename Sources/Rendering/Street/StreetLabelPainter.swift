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
    /// A label along a line (`symbol-placement: line`): its glyphs as placed, in text order
    /// (empty for point labels, which are drawn horizontally at `frame`).
    public var glyphs: [LineGlyph] = []
    /// The boxes it takes for collisions: one per glyph along a line, `frame` for the others
    /// (and its icon's box).
    public var boxes: [LabelFrame] = []
    /// The symbol's icon, drawn with the text as one (`icon-image`), if any.
    public var icon: PlacedIcon? = nil
    /// False for an icon whose text did not fit (`text-optional`) or that has none: `text` is
    /// then the feature's name, for taps, and not drawn.
    public var drawsText = true
}

extension PlacedStreetLabel {
    /// The label as a tappable point of interest (nil for road and water names): its box is
    /// kept relative to the anchor, so the controller's hit test follows the map as it moves.
    public var pointOfInterest: PointOfInterest? {
        guard tappable else { return nil }
        var box = ScreenRect(x: dx - 2, y: dy - 2, width: frame.width, height: frame.height)
        if let icon, drawsText {
            // The icon and its name are one target.
            let x0 = min(box.minX, icon.dx), y0 = min(box.minY, icon.dy)
            let x1 = max(box.minX + box.size.width, icon.dx + icon.frame.width), y1 = max(box.minY + box.size.height, icon.dy + icon.frame.height)
            box = ScreenRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
        }
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
    /// The label language (nil: the style's own names).
    var language: String? = nil
    /// The style's sprite, for `icon-image` (nil: no icons).
    var icons: SpriteIcons? = nil
    /// The features each symbol layer labels per tile at the last zoom (the renderer keeps one
    /// for its style and tile set); nil: found afresh each frame.
    var cache: StreetLabelCache? = nil

    /// Candidates of the symbol layers, in priority order, placed against obstacles.
    func place(view: GroundView, zoom: Double, text: TextRenderer, obstacles: [LabelFrame]) -> [PlacedStreetLabel] {
        let sz = StreetMapPainter.styleZoom(zoom)
        let meta = set.metadata
        let covered = StreetMapPainter.cover(view: view, zoom: zoom, minZoom: meta.minZoom, maxZoom: meta.maxZoom)
        let tiles: [(StreetMapPainter.CoveredTile, VectorTile)] = covered.compactMap { c in set.frameTile(c.key).map { (c, $0) } }
        var placed: [PlacedStreetLabel] = []
        var grid = CollisionGrid(width: view.width, height: view.height)
        for o in obstacles { grid.insert(o) }
        /// Where each line label's text was placed so far (screen px): one name per `symbol-spacing`.
        var repeats: [String: [(Double, Double)]] = [:]
        var scratch = AlongLineScratch()
        // Later layers in a style are drawn on top and win collisions, as in MapLibre.
        let setting = StreetLabelCache.Setting(zoom: sz, language: language, icons: icons != nil)
        for li in style.layers.indices.reversed() {
            let layer = style.layers[li]
            guard layer.type == .symbol && layer.shows(zoom: sz) else { continue }
            let sym = layer.symbol
            guard let sourceLayer = layer.sourceLayer else { continue }
            let hasText = sym.textField.expression != nil
            // A symbol layer with icons (and a sprite that has them) places them, with or without text.
            let iconLayer = icons != nil && layer.property("icon-image") != nil
            guard hasText || iconLayer else { continue }
            let constant = StyleContext(zoom: sz)
            // Zoom-only values once per layer, the others per feature.
            let textSize = sym.textSize.resolve(constant), sortKey = sym.symbolSortKey.resolve(constant)
            let maxWidthEm = sym.textMaxWidth.resolve(constant), textAnchor = sym.textAnchor.resolve(constant)
            let textOffset = sym.textOffset.resolve(constant), textColor = sym.textColor.resolve(constant)
            let haloColor = sym.textHaloColor.resolve(constant), haloWidth = sym.textHaloWidth.resolve(constant)
            let transform = sym.textTransform.evaluate(constant)
            let bold = sym.textFont.evaluate(constant)?.isBold ?? false
            let lineStyle = LineTextStyle(size: textSize, bold: bold, spacing: sym.symbolSpacing.resolve(constant), maxAngle: sym.textMaxAngle.resolve(constant),
                                          color: textColor, halo: haloColor, haloWidth: haloWidth)
            let nameOnly = StyleExpression.template("{name}")
            struct Candidate {
                let text: String; let wx: Double; let wy: Double; let sort: Double; let ctx: StyleContext; let order: Int
                /// An icon without text of its own: `text` is the feature's name, for taps.
                var hidesText = false
                /// A line's parts in world px (line placement), empty for a point label.
                var lines: [[(Double, Double)]] = []
            }
            var candidates: [Candidate] = []
            let placement = sym.symbolPlacement.evaluate(constant)
            let linePlacement = placement == .line || placement == .lineCenter
            for (c, tile) in tiles {
                guard let tl = tile.layers[sourceLayer] else { continue }
                let unit = c.scale / Double(tl.extent)
                // The features this layer labels in the tile (kept at this zoom: `StreetLabelCache`).
                let make = { () -> [StreetLabelCache.Pick] in
                    var out: [StreetLabelCache.Pick] = []
                    for (fi, f) in tl.features.enumerated() {
                        let ctx = StyleContext(zoom: sz, properties: f.properties, geometryType: f.type, id: f.id)
                        if let filter = layer.filter, !filter.evaluate(ctx).isTruthy { continue }
                        let named = language == nil ? ctx : StyleContext(zoom: sz, properties: LabelLanguage.localized(f.properties, language: language),
                                                                         geometryType: f.type, id: f.id)
                        var label = (hasText ? sym.textField.evaluate(named) : nil) ?? ""
                        switch transform {
                        case .uppercase: label = label.uppercased()
                        case .lowercase: label = label.lowercased()
                        case .none?, nil: break
                        }
                        let iconOnly = label.isEmpty && iconLayer && !linePlacement
                        guard !label.isEmpty || iconOnly, let (ax, ay) = StreetLabelPainter.anchor(f) else { continue }
                        if !(linePlacement && f.type == .lineString) {
                            // Anchors in a tile's buffer belong to the neighbouring tile: skip them there.
                            guard ax >= 0, ay >= 0, ax < Double(tl.extent), ay < Double(tl.extent) else { continue }
                        }
                        out.append(StreetLabelCache.Pick(feature: fi, text: iconOnly ? nameOnly.evaluate(named).text : label,
                                                         hidesText: iconOnly, ax: ax, ay: ay, sort: sortKey.value(ctx) ?? 0, ctx: ctx))
                    }
                    return out
                }
                let picks = cache?.picks(layer: li, tile: c.key, setting: setting, make: make) ?? make()
                for pick in picks where pick.feature < tl.features.count {
                    let f = tl.features[pick.feature]
                    var cand = Candidate(text: pick.text, wx: c.originX + pick.ax * unit, wy: c.originY + pick.ay * unit,
                                         sort: pick.sort, ctx: pick.ctx, order: candidates.count)
                    cand.hidesText = pick.hidesText
                    if linePlacement && f.type == .lineString {
                        // The line's parts, cut to the tile's own square (the buffer belongs to
                        // the neighbouring tile, which places its own stretch).
                        let p = f.points, e = Double(tl.extent)
                        for i in 0..<f.parts.count {
                            let r = f.partRange(i)
                            var part: [(Double, Double)] = []
                            part.reserveCapacity(r.count)
                            for k in r.dropFirst() {
                                guard let (a, b) = LinePlacement.clip(Double(p[2 * k - 2]), Double(p[2 * k - 1]), Double(p[2 * k]), Double(p[2 * k + 1]),
                                                                      to: e) else {
                                    if part.count >= 2 { cand.lines.append(part) }
                                    part.removeAll(); continue
                                }
                                let wa = (c.originX + a.0 * unit, c.originY + a.1 * unit), wb = (c.originX + b.0 * unit, c.originY + b.1 * unit)
                                if let last = part.last, abs(last.0 - wa.0) > 1e-9 || abs(last.1 - wa.1) > 1e-9 {
                                    // The line left the tile and came back: a new piece.
                                    if part.count >= 2 { cand.lines.append(part) }
                                    part.removeAll()
                                }
                                if part.isEmpty { part.append(wa) }
                                part.append(wb)
                            }
                            if part.count >= 2 { cand.lines.append(part) }
                        }
                        if cand.lines.isEmpty { continue }
                    }
                    candidates.append(cand)
                }
            }
            candidates.sort { ($0.sort, $0.order) < ($1.sort, $1.order) }
            for cand in candidates {
                if !cand.lines.isEmpty {
                    placed += placeAlongLine(cand.text, lines: cand.lines, ctx: cand.ctx, layer: layer, style: lineStyle, view: view, zoom: zoom,
                                             text: text, grid: &grid, repeats: &repeats, scratch: &scratch)
                    continue
                }
                let (gx, gy) = view.ground(worldX: cand.wx, worldY: cand.wy)
                guard gx >= view.minGX, gx <= view.maxGX, gy >= view.minGY, gy <= view.maxGY else { continue }
                let (sx, sy) = view.screen(gx, gy)
                guard sx >= 0, sx <= view.width, sy >= 0, sy <= view.height else { continue }
                if let far = view.farLineY, sy < far { continue }
                // Towards a tilted horizon the ground shrinks: leave the far labels out.
                if view.tilted && view.projection.scale(at: Point(x: sx, y: sy)) < 0.45 { continue }
                let ctx = cand.ctx
                let size = TextRenderer.labelSize((textSize.value(ctx) ?? 16) * textScale)
                let maxWidth = maxWidthEm.value(ctx)
                let tstyle = TextRenderer.Style(sizePx: size, bold: bold,
                                                width: maxWidth.map { StreetLabelPainter.wrapWidth(cand.text, maxWidth: $0 * size, sizePx: size, bold: bold, text: text) },
                                                maxLines: StreetLabelPainter.maxLines, alignCenter: true)
                // The icon (if the layer has one for this feature) and the text are placed as one.
                let icon = iconLayer ? self.icon(layer: layer, ctx: ctx, sx: sx, sy: sy) : nil
                if cand.hidesText && icon == nil { continue }
                var ox = 0.0, oy = 0.0
                var box: LabelFrame?
                if !cand.hidesText {
                    let layout = text.layout(cand.text, tstyle)
                    let (w, h) = text.size(layout)
                    if w > 0, h > 0 {
                        ox = -w / 2; oy = -h / 2
                        switch textAnchor.value(ctx) {
                        case .top?: oy = 0
                        case .bottom?: oy = -h
                        case .left?: ox = 0
                        case .right?: ox = -w
                        default: break   // centre (the corner anchors are drawn centred too)
                        }
                        if let off = textOffset.value(ctx) {
                            ox += off.x * size; oy += off.y * size
                        }
                        let pad = 2.0
                        box = LabelFrame(x: sx + ox - pad, y: sy + oy - pad, width: w + 2 * pad, height: h + 2 * pad)
                    }
                }
                func onScreen(_ b: LabelFrame) -> Bool {
                    b.x >= 0 && b.y >= 0 && b.x + b.width <= view.width && b.y + b.height <= view.height && b.y >= (view.farLineY ?? -.infinity)
                }
                func flag(_ name: String) -> Bool { layer.property(name)?.evaluate(ctx).isTruthy ?? false }
                var showText = box.map { onScreen($0) && (flag("text-allow-overlap") || !grid.hits($0)) } ?? false
                // One road or river name per 250 px, though every tile repeats it.
                if showText, linePlacement, let b = box, (repeats[cand.text] ?? []).contains(where: { hypot($0.0 - b.midX, $0.1 - b.midY) < 250 }) { showText = false }
                var showIcon = false
                if let icon {
                    showIcon = onScreen(icon.collision) && (icon.allowOverlap || !grid.hits(icon.collision))
                    // Both or neither, unless the text (text-optional) or the icon (icon-optional) may go alone.
                    if showIcon && !showText && box != nil && !flag("text-optional") { showIcon = false }
                    if showText && !showIcon && !icon.optional { showText = false }
                }
                guard showText || showIcon else { continue }
                var boxes: [LabelFrame] = []
                if showText, let b = box {
                    if linePlacement { repeats[cand.text, default: []].append((b.midX, b.midY)) }
                    if !flag("text-ignore-placement") { grid.insert(b) }
                    boxes.append(b)
                }
                if showIcon, let icon {
                    if !icon.ignorePlacement { grid.insert(icon.collision) }
                    boxes.append(icon.collision)
                }
                // A label's frame is its text's box; an icon alone is its frame (then dx, dy place the icon's box).
                let frame = showText ? box! : icon!.collision
                if !showText { ox = frame.x + 2 - sx; oy = frame.y + 2 - sy }
                let cls = ctx.properties["class"].map { StyleValue($0).text }
                let coordinate = WebMercator.coordinate(world: Point(x: cand.wx, y: cand.wy), zoom: zoom)
                placed.append(PlacedStreetLabel(
                    layerID: layer.id, text: cand.text, coordinate: coordinate, featureClass: cls, featureID: ctx.id,
                    tappable: sourceLayer == "poi" || sourceLayer == "place" || sourceLayer == "mountain_peak",
                    frame: frame, sizePx: size, bold: bold, wrapWidth: tstyle.width,
                    color: textColor.value(ctx) ?? StyleColor(r: 0, g: 0, b: 0),
                    halo: haloColor.value(ctx),
                    haloWidth: haloWidth.value(ctx) ?? 0, dx: ox, dy: oy, boxes: boxes,
                    icon: showIcon ? icon?.icon : nil, drawsText: showText))
            }
        }
        return placed
    }

    /// Moves labels placed for another camera to where their anchors are now (a gesture frame);
    /// labels that left the screen or the drawn ground are dropped for this frame.
    static func follow(_ labels: [PlacedStreetLabel], view: GroundView, text: TextRenderer? = nil) -> [PlacedStreetLabel] {
        labels.compactMap { l in
            if !l.glyphs.isEmpty { return followAlongLine(l, view: view, text: text) }
            guard let p = view.visiblePoint(l.coordinate, slack: 0) else { return nil }
            var m = l
            m.frame = LabelFrame(x: p.x + l.dx - 2, y: p.y + l.dy - 2, width: l.frame.width, height: l.frame.height)
            let tx = m.frame.x - l.frame.x, ty = m.frame.y - l.frame.y
            m.boxes = l.boxes.map { LabelFrame(x: $0.x + tx, y: $0.y + ty, width: $0.width, height: $0.height) }
            if var i = l.icon {
                i.frame = LabelFrame(x: (p.x + i.dx).rounded(), y: (p.y + i.dy).rounded(), width: i.frame.width, height: i.frame.height)
                m.icon = i
            }
            return m
        }
    }

    /// Draws labels upright (screen-aligned) with their halos: copies of the text in the halo
    /// colour at the halo width in eight directions, then the text.
    static func draw(_ labels: [PlacedStreetLabel], cr: OpaquePointer, text: TextRenderer) {
        for l in labels where l.drawsText {
            if !l.glyphs.isEmpty {
                drawAlongLine(l, cr: cr, text: text)
                continue
            }
            let (layout, x, y) = pointText(l, text: text)
            if let key = haloKey(l, layout: layout) {
                // Eight halo copies and the text: from the label's sprite, drawn once (x and y
                // are whole pixels), as the place names are.
                text.drawWithHalo(layout, key, cr: cr, x: x, y: y)
                continue
            }
            cairo_set_source_rgba(cr, l.color.r, l.color.g, l.color.b, l.color.a)
            cairo_move_to(cr, x, y)
            pango_cairo_show_layout(cr, layout)
        }
    }

    /// What `drawIcons` and `draw` put on cr's target, as copies in the same order (the icons,
    /// then the names), every image made here: icons and haloed names as their sprites' runs,
    /// names along lines glyph by glyph (turned glyphs made). Nil when a label is drawn through
    /// pango or cairo (a name without a halo, an image too large for runs): `draw` then.
    /// `angleSteps`: steps of a turn a glyph along a line is kept to (`GlyphBitmaps`).
    static func copies(_ labels: [PlacedStreetLabel], cr: OpaquePointer, text: TextRenderer, icons: SpriteIcons?,
                       runs: IconCache, angleSteps: Int = GlyphBitmaps.angleSteps) -> [LabelCopy]? {
        var out: [LabelCopy] = []
        if let icons {
            for l in labels {
                guard let i = l.icon, let img = icons.image(i.name, scale: i.scale) else { continue }
                let x = i.frame.x.rounded(), y = i.frame.y.rounded()
                guard abs(x) < 1e7, abs(y) < 1e7, let r = runs.runs(for: img) else { return nil }
                out.append(.sprite(r, x: Int(x), y: Int(y)))
            }
        }
        for l in labels where l.drawsText {
            if !l.glyphs.isEmpty {
                text.lineTexts.text(lineKey(l), renderer: text).copies(l.glyphs, bitmaps: text.glyphBitmaps, angleSteps: angleSteps, into: &out)
                continue
            }
            let (layout, x, y) = pointText(l, text: text)
            guard let key = haloKey(l, layout: layout), let copy = text.haloCopy(layout, key, cr: cr, x: x, y: y) else { return nil }
            out.append(copy)
        }
        return out
    }

    /// A point label's layout and where `draw` puts its origin (whole pixels).
    private static func pointText(_ l: PlacedStreetLabel, text: TextRenderer) -> (layout: OpaquePointer, x: Double, y: Double) {
        let layout = text.layout(l.text, TextRenderer.Style(sizePx: l.sizePx, bold: l.bold, width: l.wrapWidth, maxLines: maxLines, alignCenter: true))
        // A wrapped, centred layout starts its lines inside its wrap width: shift by the logical x.
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        return (layout, (l.frame.x + 2 - Double(logical.x)).rounded(), (l.frame.y + 2 - Double(logical.y)).rounded())
    }

    /// The sprite key of a point label with a halo (nil without one).
    private static func haloKey(_ l: PlacedStreetLabel, layout: OpaquePointer) -> LabelSprites.Key? {
        guard let h = l.halo, l.haloWidth > 0 else { return nil }
        return LabelSprites.Key(layout, color: l.color.rgb, halo: h.rgb, textAlpha: l.color.a, haloAlpha: h.a * 0.9, radius: max(1, l.haloWidth.rounded()))
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

/// Labels along lines (`symbol-placement: line`) and text wrapping.
extension StreetLabelPainter {
    /// Most lines of a wrapped point label.
    static let maxLines = 3

    /// The wrap width of a label: `text-max-width` in px, widened to its longest word so that
    /// lines break only between words, never inside one ("Liechtensteinische", not
    /// "Liechtensteinisc-he").
    static func wrapWidth(_ label: String, maxWidth: Double, sizePx: Double, bold: Bool, text: TextRenderer) -> Double {
        var widest = 0.0
        for word in label.split(whereSeparator: { $0 == " " || $0 == "\u{00a0}" || $0 == "\n" }) {
            widest = max(widest, text.measure(String(word), TextRenderer.Style(sizePx: sizePx, bold: bold, width: nil, maxLines: 1)).width)
        }
        // Measured widths are whole pixels: one more keeps the word inside the wrap width.
        return max(maxWidth, widest.rounded(.up) + 2)
    }

    /// A symbol layer's text properties for names along lines, resolved once per layer and
    /// frame (`StyleProperty.resolve`: a value when it depends on the zoom only, else
    /// evaluated per feature), as the point labels' are.
    struct LineTextStyle {
        let size: StyleProperty<Double>.Resolved
        let bold: Bool
        let spacing: StyleProperty<Double>.Resolved, maxAngle: StyleProperty<Double>.Resolved
        let color: StyleProperty<StyleColor>.Resolved, halo: StyleProperty<StyleColor>.Resolved
        let haloWidth: StyleProperty<Double>.Resolved
    }

    /// A frame's room for `placeAlongLine`'s on-screen pieces, reused from candidate to candidate.
    struct AlongLineScratch {
        /// The pieces' screen points, each piece's points one after the other (as
        /// `ScreenPolyline.append` keeps them: `ScreenPolyline.step`), and each point's length
        /// along its piece.
        var xs: [Double] = [], ys: [Double] = [], lengths: [Double] = []
        /// Each piece of two or more points: its first point, its end and its length.
        var pieces: [(start: Int, end: Int, length: Double)] = []
    }

    /// Places a name along one of a line's parts: at `symbol-spacing` intervals (250 px by
    /// default), centred on a stretch bending at most `text-max-angle` between neighbouring
    /// glyphs, reading left to right, clear of every box placed so far and at least the spacing
    /// away from the same name placed before (every tile the road crosses carries it).
    func placeAlongLine(_ label: String, lines: [[(Double, Double)]], ctx: StyleContext, layer: StreetStyle.Layer, style: LineTextStyle,
                        view: GroundView, zoom: Double,
                        text: TextRenderer, grid: inout CollisionGrid, repeats: inout [String: [(Double, Double)]],
                        scratch: inout AlongLineScratch) -> [PlacedStreetLabel] {
        let size = TextRenderer.labelSize((style.size.value(ctx) ?? 16) * textScale)
        let bold = style.bold
        let spacing = style.spacing.value(ctx) ?? 250
        let maxAngle = (style.maxAngle.value(ctx) ?? 45) * .pi / 180
        let color = style.color.value(ctx) ?? StyleColor(r: 0, g: 0, b: 0)
        let haloColor = style.halo.value(ctx)
        let haloWidth = style.haloWidth.value(ctx) ?? 0
        let radius = haloColor != nil && haloWidth > 0 ? max(1, haloWidth.rounded()) : 0
        let halo = radius > 0 ? haloColor.map { StyleColor(r: $0.r, g: $0.g, b: $0.b, a: $0.a * 0.9) } : nil
        // The parts on screen, cut where they leave the drawn ground: first only their points and
        // lengths, into the frame's scratch (most candidates have no part long enough for a name,
        // and their polylines were three arrays a line).
        scratch.xs.removeAll(keepingCapacity: true); scratch.ys.removeAll(keepingCapacity: true)
        scratch.lengths.removeAll(keepingCapacity: true); scratch.pieces.removeAll(keepingCapacity: true)
        var longest = 0.0
        for line in lines {
            var start = scratch.xs.count, length = 0.0
            @inline(__always) func endPiece() {
                if scratch.xs.count - start >= 2 {
                    scratch.pieces.append((start, scratch.xs.count, length))
                    longest = max(longest, length)
                } else {
                    scratch.xs.removeSubrange(start...); scratch.ys.removeSubrange(start...)
                    scratch.lengths.removeSubrange(start...)
                }
                start = scratch.xs.count; length = 0
            }
            for (wx, wy) in line {
                let (gx, gy) = view.ground(worldX: wx, worldY: wy)
                // Flat, every point has its screen point: the line is not cut at the view's
                // edge, so a pan moves its names' anchors with it (their shape, drawn once, kept).
                let inside = !view.tilted || (gx >= view.minGX && gx <= view.maxGX && gy >= view.minGY && gy <= view.maxGY)
                if !inside { endPiece(); continue }
                let (sx, sy) = view.screen(gx, gy)
                if scratch.xs.count > start {
                    guard let d = ScreenPolyline.step(from: scratch.xs[scratch.xs.count - 1], scratch.ys[scratch.ys.count - 1],
                                                      to: sx, sy) else { continue }
                    length += d
                }
                scratch.xs.append(sx); scratch.ys.append(sy); scratch.lengths.append(length)
            }
            endPiece()
        }
        // No piece on screen long enough for even a short name: skip before laying it out.
        guard longest >= 2 * size else { return [] }
        let key = LineTexts.Key(text: label, sizePx: size, bold: bold, color: color, halo: halo, radius: radius)
        let lineText = text.lineTexts.text(key, renderer: text)
        let glyphs = lineText.placement
        let width = lineText.width
        guard width > 0, !glyphs.isEmpty else { return [] }
        let boxSide = lineText.height * 0.8
        var results: [PlacedStreetLabel] = []
        do {
            for piece in scratch.pieces where piece.length >= width {
                let r = piece.start..<piece.end
                let poly = ScreenPolyline(xs: scratch.xs[r], ys: scratch.ys[r], lengths: scratch.lengths[r])
                var reversed: ScreenPolyline?
                let shiftLimit = min(spacing, poly.length) / 2
                for anchor in LinePlacement.anchors(length: poly.length, width: width, spacing: spacing) {
                    // Every glyph `best` can place for this anchor lies within `reach` of the
                    // anchor's point (along the line at most the shift plus half the text, and a
                    // straight line is no longer than the line; 4 px to spare). An anchor
                    // that far off screen, or nearer than the spacing less `reach` to the same
                    // name placed before, would be refused below (a glyph off screen, the middle
                    // glyph too near): it is skipped before the glyphs are placed. In the street
                    // bench's flat views 46 % of the anchors were (a flat line is not cut at the
                    // view's edge); the same labels are placed.
                    let reach = shiftLimit + width / 2 + 4
                    let (ax, ay) = poly.point(at: anchor)
                    if ax < -reach || ay < -reach || ax > view.width + reach || ay > view.height + reach { continue }
                    if (repeats[label] ?? []).contains(where: { hypot($0.0 - ax, $0.1 - ay) < spacing - reach }) { continue }
                    guard let spots = LinePlacement.best(glyphs, width: width, along: poly, reversed: &reversed, anchor: anchor,
                                                         maxAngle: maxAngle, shiftLimit: shiftLimit) else { continue }
                    // Every glyph on screen, in front of the far line, on ground not shrunk to nothing.
                    var boxes: [LabelFrame] = []
                    var fits = true
                    for (g, p) in zip(glyphs, spots) {
                        let half = max(boxSide, g.advance) / 2
                        let b = LabelFrame(x: p.x - half, y: p.y - boxSide / 2, width: 2 * half, height: boxSide)
                        if b.x < 0 || b.y < 0 || b.x + b.width > view.width || b.y + b.height > view.height { fits = false; break }
                        if let far = view.farLineY, b.y < far { fits = false; break }
                        boxes.append(b)
                    }
                    guard fits, let mid = spots.dropFirst(spots.count / 2).first else { continue }
                    if view.tilted && view.projection.scale(at: Point(x: mid.x, y: mid.y)) < 0.45 { continue }
                    if (repeats[label] ?? []).contains(where: { hypot($0.0 - mid.x, $0.1 - mid.y) < spacing }) { continue }
                    if boxes.contains(where: { grid.hits($0) }) { continue }
                    for b in boxes { grid.insert(b) }
                    repeats[label, default: []].append((mid.x, mid.y))
                    let placedGlyphs = spots.map { p in
                        LineGlyph(x: p.x, y: p.y, angle: p.angle,
                                  coordinate: view.projection.coordinate(at: Point(x: p.x, y: p.y)) ?? Coordinate(latitude: 0, longitude: 0))
                    }
                    let x0 = boxes.map(\.x).min()!, y0 = boxes.map(\.y).min()!
                    let x1 = boxes.map { $0.x + $0.width }.max()!, y1 = boxes.map { $0.y + $0.height }.max()!
                    let frame = LabelFrame(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
                    let l = PlacedStreetLabel(
                        layerID: layer.id, text: label, coordinate: placedGlyphs[placedGlyphs.count / 2].coordinate,
                        featureClass: ctx.properties["class"].map { StyleValue($0).text }, featureID: ctx.id, tappable: false,
                        frame: frame, sizePx: size, bold: bold, wrapWidth: nil, color: color, halo: halo, haloWidth: radius,
                        dx: 0, dy: 0, glyphs: placedGlyphs, boxes: boxes)
                    // A long road's further placements are labels of their own.
                    results.append(l)
                }
            }
        }
        return results
    }

    /// Draws a label along its line from its glyph sprites.
    static func drawAlongLine(_ l: PlacedStreetLabel, cr: OpaquePointer, text: TextRenderer) {
        text.lineTexts.draw(lineKey(l), l.glyphs, cr: cr, renderer: text)
    }

    /// The line text a label along a line is drawn from.
    static func lineKey(_ l: PlacedStreetLabel) -> LineTexts.Key {
        LineTexts.Key(text: l.text, sizePx: l.sizePx, bold: l.bold, color: l.color, halo: l.halo, radius: l.haloWidth)
    }

    /// A line label in a gesture frame: its glyphs at their ground points now, each turned to
    /// its neighbours; nil when a glyph left the screen or the label would read upside down
    /// (the settled frame places it afresh).
    static func followAlongLine(_ l: PlacedStreetLabel, view: GroundView, text: TextRenderer?) -> PlacedStreetLabel? {
        var pts: [Point] = []
        pts.reserveCapacity(l.glyphs.count)
        for g in l.glyphs {
            // A name partly off the screen is drawn partly, as the ground it lies on.
            guard let p = view.visiblePoint(g.coordinate, slack: 400) else { return nil }
            pts.append(p)
        }
        var m = l
        let n = pts.count
        // A pan: every glyph moved by the same offset; the name keeps its shape and angles (and
        // so its composed image).
        let tx = pts[0].x - l.glyphs[0].x, ty = pts[0].y - l.glyphs[0].y
        if zip(pts, l.glyphs).allSatisfy({ abs($0.x - $1.x - tx) < 0.05 && abs($0.y - $1.y - ty) < 0.05 }) {
            for i in 0..<n { m.glyphs[i].x = l.glyphs[i].x + tx; m.glyphs[i].y = l.glyphs[i].y + ty }
            m.frame = LabelFrame(x: l.frame.x + tx, y: l.frame.y + ty, width: l.frame.width, height: l.frame.height)
            m.boxes = l.boxes.map { LabelFrame(x: $0.x + tx, y: $0.y + ty, width: $0.width, height: $0.height) }
            return m
        }
        var upsideDown = false
        for i in 0..<n {
            if n > 1 {
                let a = pts[max(0, i - 1)], b = pts[min(n - 1, i + 1)]
                m.glyphs[i].angle = atan2(b.y - a.y, b.x - a.x)
            }
            m.glyphs[i].x = pts[i].x; m.glyphs[i].y = pts[i].y
        }
        // Upside down as a whole (MapLibre's keep-upright: the text's ends, not each glyph, as a
        // curved name turning mid-gesture leans a glyph or two before it reads backwards).
        if n > 1 {
            let dx = pts[n - 1].x - pts[0].x, dy = pts[n - 1].y - pts[0].y
            upsideDown = cos(atan2(dy, dx)) < -0.17
        } else {
            upsideDown = cos(m.glyphs[0].angle) < -0.17
        }
        if upsideDown {
            // Turned past upright mid-gesture: the name read along its own path the other way.
            guard n >= 2, let text else { return nil }
            let t = text.lineTexts.text(lineKey(l), renderer: text)
            func unit(_ a: Point, _ b: Point) -> Point {
                let d = hypot(a.x - b.x, a.y - b.y)
                return d > 1e-9 ? Point(x: (a.x - b.x) / d, y: (a.y - b.y) / d) : Point(x: 0, y: 0)
            }
            let ext = t.width
            var path = ScreenPolyline()
            let head = unit(pts[n - 1], pts[n - 2]), tail = unit(pts[0], pts[1])
            path.append(pts[n - 1].x + head.x * ext, pts[n - 1].y + head.y * ext)
            for p in pts.reversed() { path.append(p.x, p.y) }
            path.append(pts[0].x + tail.x * ext, pts[0].y + tail.y * ext)
            guard let spots = LinePlacement.place(t.placement, width: t.width, along: path, center: path.length / 2, maxAngle: .pi),
                  spots.count == n else { return nil }
            for i in 0..<n {
                m.glyphs[i] = LineGlyph(x: spots[i].x, y: spots[i].y, angle: spots[i].angle,
                                        coordinate: view.projection.coordinate(at: Point(x: spots[i].x, y: spots[i].y)) ?? l.glyphs[i].coordinate)
            }
            let dx = pts[n / 2].x - l.glyphs[n / 2].x, dy = pts[n / 2].y - l.glyphs[n / 2].y
            m.frame = LabelFrame(x: l.frame.x + dx, y: l.frame.y + dy, width: l.frame.width, height: l.frame.height)
            m.boxes = l.boxes.map { LabelFrame(x: $0.x + dx, y: $0.y + dy, width: $0.width, height: $0.height) }
            return m
        }
        let dx = pts[n / 2].x - l.glyphs[n / 2].x, dy = pts[n / 2].y - l.glyphs[n / 2].y
        m.frame = LabelFrame(x: l.frame.x + dx, y: l.frame.y + dy, width: l.frame.width, height: l.frame.height)
        m.boxes = l.boxes.map { LabelFrame(x: $0.x + dx, y: $0.y + dy, width: $0.width, height: $0.height) }
        return m
    }
}
