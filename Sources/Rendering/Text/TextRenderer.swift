import CCairo
import Foundation

/// Pango text with layouts kept between frames (creating layouts each frame costs 5..10x more
/// than drawing kept ones; the first frame pays for loading the font once).
final class TextRenderer {
    struct Style: Hashable {
        var sizePx: Double
        var bold: Bool
        /// Wrap width in px (nil: one line, no wrapping).
        var width: Double?
        /// Most lines before the text is cut with an ellipsis (with `width`).
        var maxLines: Int
        var alignCenter: Bool = false
    }
    private struct Key: Hashable { let text: String; let style: Style }

    private let context: OpaquePointer
    private let family: String
    /// Layouts kept; the least recently used goes first (its sprites with it).
    static let capacity = 512
    private var layouts = LRUCache<Key, OpaquePointer>(maxCount: TextRenderer.capacity)
    /// Measured sizes kept before the lot is dropped and measured anew (a few dozen bytes each).
    static let maxMeasured = 16_384

    /// A label's text size as drawn: kept to whole half pixels. A style's `text-size` follows the
    /// zoom, so a pinch asks for a new size at every frame, and every new size is a new font to
    /// pango and cairo (a fontset, glyph-extent and glyph caches) and new layouts and sprites to
    /// make: a day of pinching grew the kiosk's heap without end (the 2-hour soak: +30 MiB, the
    /// growth inside pango and cairo's per-size caches). Half-pixel steps do not show.
    static func labelSize(_ px: Double) -> Double { (px * 2).rounded() / 2 }

    init(family: String) {
        self.family = family
        let fontMap = pango_cairo_font_map_get_default()
        context = pango_font_map_create_context(fontMap)!
        // Grey antialiasing with hinting off: the same pixels whatever the subpixel order.
        let options = cairo_font_options_create()
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_font_options_set_hint_style(options, CAIRO_HINT_STYLE_SLIGHT)
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        pango_cairo_context_set_font_options(context, options)
        cairo_font_options_destroy(options)
    }

    deinit {
        layouts.forEach { _, layout in g_object_unref(UnsafeMutableRawPointer(layout)) }
        g_object_unref(UnsafeMutableRawPointer(context))
    }

    func layout(_ text: String, _ style: Style) -> OpaquePointer {
        let key = Key(text: text, style: style)
        if let hit = layouts.value(for: key) { return hit }
        let layout = makeLayout(text, style)
        layouts.insert(layout, cost: 0, for: key) { _, old in
            sprites.remove(layout: old)
            g_object_unref(UnsafeMutableRawPointer(old))
        }
        return layout
    }

    private func makeLayout(_ text: String, _ style: Style) -> OpaquePointer {
        let layout = pango_layout_new(context)!
        let desc = pango_font_description_new()!
        pango_font_description_set_family(desc, family)
        pango_font_description_set_absolute_size(desc, style.sizePx * Double(PANGO_SCALE))
        pango_font_description_set_weight(desc, style.bold ? PANGO_WEIGHT_BOLD : PANGO_WEIGHT_NORMAL)
        pango_layout_set_font_description(layout, desc)
        pango_font_description_free(desc)
        if let w = style.width {
            pango_layout_set_width(layout, Int32(w * Double(PANGO_SCALE)))
            pango_layout_set_wrap(layout, PANGO_WRAP_WORD_CHAR)
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
            pango_layout_set_height(layout, Int32(-style.maxLines))
        } else {
            pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_NONE)
        }
        if style.alignCenter { pango_layout_set_alignment(layout, PANGO_ALIGN_CENTER) }
        pango_layout_set_text(layout, TextBounds.bounded(text), -1)
        charactersLaidOut += Int(pango_layout_get_character_count(layout))
        return layout
    }

    /// Characters (code points) handed to pango so far: the shaping work, bounded per text by
    /// `TextBounds` (tests).
    private(set) var charactersLaidOut = 0
    private var sizes: [Key: (width: Double, height: Double)] = [:]
    /// Texts measured with pango so far (tests: idle work leaves none for a new zoom).
    private(set) var measurements = 0
    /// Measured sizes kept now (tests: bounded by `maxMeasured`).
    var measuredKept: Int { sizes.count }

    /// The logical size of a text in a style, kept once measured (sizes are a few bytes each, so
    /// placing every name of the world does not churn the layout cache that drawing uses).
    func measure(_ text: String, _ style: Style) -> (width: Double, height: Double) {
        let key = Key(text: text, style: style)
        if let hit = sizes[key] { return hit }
        let s: (width: Double, height: Double)
        if let kept = layouts.peek(key) {
            s = size(kept)
        } else {
            // A layout made only to measure, not kept: the same font description and text as
            // `layout` makes, so the same extents.
            let l = makeLayout(text, style)
            s = size(l)
            g_object_unref(UnsafeMutableRawPointer(l))
        }
        if sizes.count >= Self.maxMeasured { sizes.removeAll(keepingCapacity: true) }
        sizes[key] = s
        measurements += 1
        return s
    }

    /// Logical size in px.
    func size(_ layout: OpaquePointer) -> (width: Double, height: Double) {
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        return (Double(logical.width), Double(logical.height))
    }

    /// Draws a layout with its top left at (x, y).
    func draw(_ layout: OpaquePointer, cr: OpaquePointer, x: Double, y: Double, color: RGBColor) {
        cairo_set_source_rgb(cr, color.r, color.g, color.b)
        cairo_move_to(cr, x, y)
        pango_cairo_show_layout(cr, layout)
    }

    /// Haloed labels kept as images (see LabelSprites).
    let sprites = LabelSprites()
    /// Labels along lines kept as glyph sprites (see LineText).
    let lineTexts = LineTexts()
    /// Glyph images of labels along lines, as plain pixels, upright and turned (see GlyphBitmaps).
    let glyphBitmaps = GlyphBitmaps()
    /// Draw haloed labels from their sprites (false: the nine pango runs every time, for tests
    /// and measuring).
    var usesLabelSprites = true

    /// Draws a layout with a halo: 8 offset copies in the halo colour (8x cheaper than stroking
    /// the glyph outlines), then the text. At a whole-pixel position under a whole-pixel
    /// translation (every place name) it comes from the layout's sprite, drawn once.
    /// The street map's labels take the text's and halo's alpha and the halo's offset from
    /// the style (`radius` px); place names use the defaults.
    func drawWithHalo(_ layout: OpaquePointer, cr: OpaquePointer, x: Double, y: Double, color: RGBColor, halo: RGBColor,
                      textAlpha: Double = 1, haloAlpha: Double = 0.85, radius: Double = 1) {
        drawWithHalo(layout, TextRenderer.haloKey(layout, color: color, halo: halo, textAlpha: textAlpha, haloAlpha: haloAlpha, radius: radius),
                     cr: cr, x: x, y: y)
    }

    /// The sprite key of a layout drawn with a halo (`drawWithHalo`; place names take the defaults).
    static func haloKey(_ layout: OpaquePointer, color: RGBColor, halo: RGBColor,
                        textAlpha: Double = 1, haloAlpha: Double = 0.85, radius: Double = 1) -> LabelSprites.Key {
        LabelSprites.Key(layout, color: color, halo: halo, textAlpha: textAlpha, haloAlpha: haloAlpha, radius: radius)
    }

    /// Draws a layout with the halo and colours of its sprite's key.
    func drawWithHalo(_ layout: OpaquePointer, _ key: LabelSprites.Key, cr: OpaquePointer, x: Double, y: Double) {
        if let s = haloSprite(layout, key, cr: cr, x: x, y: y) {
            LabelSprites.paint(s, cr: cr, x: x, y: y)
            return
        }
        haloRuns(layout, cr: cr, x: x, y: y, key)
    }

    /// The sprite `drawWithHalo` copies for a layout drawn at (x, y) onto cr (made on first
    /// use); nil when it draws the nine pango runs instead (not at a whole pixel, cr turned or
    /// scaled, sprites off, a sprite too large).
    func haloSprite(_ layout: OpaquePointer, _ key: LabelSprites.Key, cr: OpaquePointer, x: Double, y: Double) -> LabelSprites.Sprite? {
        guard usesLabelSprites, x == x.rounded(), y == y.rounded(), isWholePixelTranslation(cr) else { return nil }
        return sprites.sprite(key, layout: layout, draw: { c, ox, oy in self.haloRuns(layout, cr: c, x: ox, y: oy, key) })
    }

    /// A layout drawn with a halo at (x, y) (whole pixels) as a band copy: its sprite's runs at
    /// the sprite's place (made here if need be). Nil when `drawWithHalo` would not draw it from a
    /// sprite or the sprite has no runs: the caller draws it through cairo then.
    func haloCopy(_ layout: OpaquePointer, _ key: LabelSprites.Key, cr: OpaquePointer, x: Double, y: Double) -> LabelCopy? {
        guard abs(x) < 1e7, abs(y) < 1e7, let s = haloSprite(layout, key, cr: cr, x: x, y: y), let r = sprites.runs(of: key) else { return nil }
        return .sprite(r, x: Int(x) + s.dx, y: Int(y) + s.dy)
    }

    private func haloRuns(_ layout: OpaquePointer, cr: OpaquePointer, x: Double, y: Double, _ k: LabelSprites.Key) {
        cairo_set_source_rgba(cr, k.halo.r, k.halo.g, k.halo.b, k.haloAlpha)
        for (dx, dy) in [(-1.0, -1.0), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)] {
            cairo_move_to(cr, x + dx * k.radius, y + dy * k.radius)
            pango_cairo_show_layout(cr, layout)
        }
        cairo_set_source_rgba(cr, k.color.r, k.color.g, k.color.b, k.textAlpha)
        cairo_move_to(cr, x, y)
        pango_cairo_show_layout(cr, layout)
    }
}
