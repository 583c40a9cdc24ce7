import CCairo
import Foundation
import MapEngine
import TouchCore
import VectorTiles

/// The street map's icons: the style's sprite sheets (1x, and 2x for icons drawn larger), each
/// icon cut out of its atlas and scaled once into a premultiplied ARGB32 image at the size it
/// is drawn; frames composite those images at whole pixels (never rasterize an icon per frame).
public final class SpriteIcons: @unchecked Sendable {
    /// Sheets by pixel ratio, smallest first.
    let sheets: [SpriteSheet]
    private struct Key: Hashable { let name: String; let width: Int; let height: Int }
    private var images: [Key: CairoImage] = [:]
    /// The most icon images kept (a style has a few dozen icons at one or two sizes).
    static let maxImages = 512
    /// Icon images made (tests: a second frame makes none).
    public private(set) var made = 0

    init(sheets: [SpriteSheet]) { self.sheets = sheets.sorted { Self.ratio($0) < Self.ratio($1) } }

    private static func ratio(_ s: SpriteSheet) -> Double { s.entries.first?.value.pixelRatio ?? 1 }

    /// Whether the sprite has an icon of that name.
    public func has(_ name: String) -> Bool { sheets.contains { $0.entries[name] != nil } }

    /// The icon's size on screen at `scale` (icon-size times the text scale), px.
    public func size(_ name: String, scale: Double) -> (width: Double, height: Double)? {
        guard let e = sheets.lazy.compactMap({ $0.entries[name] }).first else { return nil }
        return (Double(e.width) / e.pixelRatio * scale, Double(e.height) / e.pixelRatio * scale)
    }

    /// The icon as drawn at `scale`: from the sheet whose pixel ratio is the smallest at least
    /// `scale` (else the finest), scaled once and kept.
    func image(_ name: String, scale: Double) -> CairoImage? {
        guard let (w0, h0) = size(name, scale: scale) else { return nil }
        let w = max(1, Int(w0.rounded())), h = max(1, Int(h0.rounded()))
        let key = Key(name: name, width: w, height: h)
        if let hit = images[key] { return hit }
        let candidates = sheets.filter { $0.entries[name] != nil }
        guard let sheet = candidates.first(where: { ($0.entries[name]?.pixelRatio ?? 1) >= scale - 1e-9 }) ?? candidates.last,
              let e = sheet.entries[name],
              let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else { return nil }
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(s) else {
            cairo_surface_destroy(s)
            return nil
        }
        let sub = cairo_surface_create_for_rectangle(sheet.atlas.surface, Double(e.x), Double(e.y), Double(e.width), Double(e.height))
        cairo_scale(cr, Double(w) / Double(e.width), Double(h) / Double(e.height))
        cairo_set_source_surface(cr, sub, 0, 0)
        let pattern = cairo_get_source(cr)
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        cairo_pattern_set_filter(pattern, w == e.width && h == e.height ? CAIRO_FILTER_NEAREST : CAIRO_FILTER_GOOD)
        cairo_rectangle(cr, 0, 0, Double(e.width), Double(e.height))
        cairo_fill(cr)
        cairo_destroy(cr)
        cairo_surface_destroy(sub)
        cairo_surface_flush(s)
        if images.count >= Self.maxImages { images.removeAll() }
        let img = CairoImage(owning: s)
        images[key] = img
        made += 1
        return img
    }

    /// The icons a style asks for, and why none (or only some) can be drawn: a style without a
    /// sprite whose layers name icons, a remote sprite (never fetched), a missing or corrupt
    /// file (each message names the file and what to do).
    public static func load(for style: StreetStyle) -> (SpriteIcons?, warnings: [String]) {
        let usesIcons = style.layers.contains { $0.type == .symbol && $0.property("icon-image") != nil }
        guard let location = style.spriteLocation else {
            return (nil, usesIcons ? ["style \(style.file): its layers name icons (icon-image) but it has no \"sprite\": no icons are drawn. "
                                      + "Set \"sprite\": \"touchbridge:poi\" for the built-in POI icons, or the path of a sprite beside the style."] : [])
        }
        let base: String
        switch location {
        case .remote:
            // Reported once with the style's other notices (StreetStyle.notices: the log and `check`).
            return (nil, [])
        case .builtIn:
            guard let b = SpriteSheet.builtInBase() else {
                return (nil, ["the built-in POI sprite (sprite/sprite.json and sprite.png) is missing: no POI icons are drawn. "
                              + "Install it with `make install` (to PREFIX/share/touchbridge/sprite), keep the build's TouchBridge_Rendering.resources "
                              + "folder beside the binary, or set TOUCHBRIDGE_SPRITE to its path without the extension."])
            }
            base = b
        case let .local(b):
            base = b
        }
        var sheets: [SpriteSheet] = [], problems: [String] = []
        for suffix in ["", "@2x"] {
            // A missing @2x is fine when the 1x sheet is there, and the other way round.
            let exists = FileManager.default.fileExists(atPath: base + suffix + ".json") || FileManager.default.fileExists(atPath: base + suffix + ".png")
            if suffix == "@2x" && !exists { continue }
            do { sheets.append(try SpriteSheet.load(base: base, suffix: suffix)) } catch {
                if suffix == "" && !exists { continue }
                problems.append("\(error)")
            }
        }
        if sheets.isEmpty && problems.isEmpty {
            problems.append("sprite \(base).json: no such file (nor \(base)@2x.json): no icons are drawn; the style's \"sprite\" names a path without the extension")
        }
        return (sheets.isEmpty ? nil : SpriteIcons(sheets: sheets), problems.map { sheets.isEmpty ? "\($0). No icons are drawn." : "\($0)." })
    }

    /// The icon name an `icon-image` gives for a feature: its value when the sprite has it; in
    /// a `coalesce` the first part the sprite has (MapLibre's `["coalesce", ["image", a],
    /// ["image", b]]`); a name ending in a size (`cafe_11`, as OSM Bright names them) falls back
    /// to the name without it.
    func resolve(_ e: StyleExpression, _ ctx: StyleContext) -> String? {
        switch e {
        case let .coalesce(parts):
            for p in parts { if let n = resolve(p, ctx) { return n } }
            return nil
        case let .limit(inner, _, _, _):
            return resolve(inner, ctx)
        default:
            let name = e.evaluate(ctx).text
            guard !name.isEmpty else { return nil }
            if has(name) { return name }
            if let cut = name.lastIndex(of: "_"), name[name.index(after: cut)...].allSatisfy(\.isNumber), cut > name.startIndex {
                let short = String(name[..<cut])
                if has(short) { return short }
            }
            return nil
        }
    }
}

/// An icon as placed: its sprite name, size and where it is drawn.
public struct PlacedIcon: Sendable, Equatable {
    public let name: String
    /// Icon size times the text scale.
    public let scale: Double
    /// The drawn box on screen (whole pixels), px.
    public var frame: LabelFrame
    /// The box's top left relative to the anchor's screen point (so a gesture frame moves it).
    let dx: Double, dy: Double
}

extension StreetLabelPainter {
    /// A symbol layer's icon for a feature anchored at screen point (sx, sy), with what its
    /// icon properties ask of placement; nil when the layer has no icon for it (no icon-image,
    /// a name the sprite lacks, an icon-size of 0).
    func icon(layer: StreetStyle.Layer, ctx: StyleContext, sx: Double, sy: Double)
        -> (icon: PlacedIcon, collision: LabelFrame, allowOverlap: Bool, ignorePlacement: Bool, optional: Bool)? {
        guard let icons, let expr = layer.property("icon-image"), let name = icons.resolve(expr, ctx) else { return nil }
        let scale = (layer.property("icon-size")?.evaluate(ctx).number ?? 1) * textScale
        guard scale > 0, let (w, h) = icons.size(name, scale: scale) else { return nil }
        // icon-anchor: which part of the icon sits on the point (default its centre).
        var ax = -w / 2, ay = -h / 2
        switch layer.property("icon-anchor")?.evaluate(ctx).string {
        case "top": ay = 0
        case "bottom": ay = -h
        case "left": ax = 0
        case "right": ax = -w
        case "top-left": ax = 0; ay = 0
        case "top-right": ax = -w; ay = 0
        case "bottom-left": ax = 0; ay = -h
        case "bottom-right": ax = -w; ay = -h
        default: break
        }
        // icon-offset is in the icon's own pixels (times icon-size), as in MapLibre.
        if case let .array(off)? = layer.property("icon-offset")?.evaluate(ctx), off.count == 2 {
            ax += (off[0].number ?? 0) * scale; ay += (off[1].number ?? 0) * scale
        }
        // Whole pixels: the icon's image is copied, not resampled, every frame.
        let x = (sx + ax).rounded(), y = (sy + ay).rounded()
        let frame = LabelFrame(x: x, y: y, width: w.rounded(), height: h.rounded())
        let pad = layer.property("icon-padding")?.evaluate(ctx).number ?? 2
        let collision = LabelFrame(x: frame.x - pad, y: frame.y - pad, width: frame.width + 2 * pad, height: frame.height + 2 * pad)
        func flag(_ p: String) -> Bool { layer.property(p)?.evaluate(ctx).isTruthy ?? false }
        return (PlacedIcon(name: name, scale: scale, frame: frame, dx: x - sx, dy: y - sy), collision,
                flag("icon-allow-overlap"), flag("icon-ignore-placement"), flag("icon-optional"))
    }

    /// Draws the labels' icons from their kept images (under every label's text).
    static func drawIcons(_ labels: [PlacedStreetLabel], cr: OpaquePointer, icons: SpriteIcons?) {
        guard let icons else { return }
        for l in labels {
            guard let i = l.icon, let img = icons.image(i.name, scale: i.scale) else { continue }
            let x = i.frame.x.rounded(), y = i.frame.y.rounded()
            cairo_set_source_surface(cr, img.surface, x, y)
            cairo_rectangle(cr, x, y, Double(img.width), Double(img.height))
            cairo_fill(cr)
        }
    }
}
