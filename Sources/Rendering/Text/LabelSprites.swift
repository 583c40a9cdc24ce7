import CCairo
import Foundation

/// Haloed labels drawn once into small transparent images and copied onto frames after that.
///
/// A name with its halo is nine pango runs (eight offset copies in the halo colour, then the
/// text): about 20 us a name, 2 ms of a 1080p full redraw with a hundred names. The sprite is
/// the same nine runs onto a transparent ARGB32 image, made once per text, style and colours;
/// drawing it is one OVER composite at a whole-pixel position. Compositing the finished label
/// (OVER is associative) gives the pixels of the nine runs drawn onto the map, up to the
/// rounding of each 8-bit step (at most a level or two where halo copies overlap); every frame
/// path (full redraw, overlay layer, its strips, tilted names) draws the same sprites, so they
/// agree with each other byte for byte.
///
/// The key is the kept layout (one per text and style, the style's size the text scale's), so a
/// text-scale change draws new sprites and never shows an old one; the least recently used sprites go once `maxBytes` is
/// reached (4 MiB, counting each sprite's image and, once a frame's band copies asked for them,
/// its runs, a second copy of the pixels: about 300 street names at 1080p, more than the
/// overlay layer's area shows).
final class LabelSprites {
    /// A kept layout (TextRenderer's: one per text and style, so the key holds the text scale's
    /// size) and the colours. A layout the TextRenderer lets go takes its sprites with it.
    struct Key: Hashable {
        let layout: UInt
        let color: RGBColor
        let halo: RGBColor
        /// The text's and the halo's alpha and the halo's offset in px (place names: 1, 0.85, 1;
        /// street labels take theirs from the style).
        var textAlpha = 1.0
        var haloAlpha = 0.85
        var radius = 1.0
    }
    struct Sprite {
        let image: CairoImage
        /// The image as runs, for copies straight onto a frame (`runs(of:)`: made on first use,
        /// so names drawn only through cairo, as the overlay layer's, never make them).
        var runs: SpriteRuns?
        /// The image's top left relative to the layout's origin (whole pixels).
        let dx: Int, dy: Int
        /// What the sprite holds: its image, and its runs once made.
        var bytes: Int { image.width * image.height * 4 + (runs?.bytes ?? 0) }
    }

    var maxBytes: Int { sprites.maxCost }
    var bytes: Int { sprites.totalCost }
    private var sprites: LRUCache<Key, Sprite>
    /// Sprites drawn (tests: a second frame draws none).
    private(set) var made = 0

    init(maxBytes: Int = 4 << 20) { sprites = LRUCache(maxCost: maxBytes) }

    var count: Int { sprites.count }

    /// Forgets the sprites of a layout that is being freed (its address may be reused).
    func remove(layout: OpaquePointer) {
        let id = UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(layout)))
        sprites.removeAll { k, _ in k.layout == id }
    }

    func removeAll() {
        sprites.removeAll()
    }

    /// The sprite of a laid-out text, made on first use.
    func sprite(_ key: Key, layout: OpaquePointer, draw: (OpaquePointer, Double, Double) -> Void) -> Sprite? {
        if let hit = sprites.value(for: key) { return hit }
        var ink = PangoRectangle(), logical = PangoRectangle()
        pango_layout_get_pixel_extents(layout, &ink, &logical)
        // Ink and logical box, grown by the halo's offset and one more pixel for antialiasing.
        let pad = Int(key.radius.rounded(.up)) + 1
        let x0 = Int(min(ink.x, logical.x)) - pad, y0 = Int(min(ink.y, logical.y)) - pad
        let x1 = Int(max(ink.x + ink.width, logical.x + logical.width)) + pad
        let y1 = Int(max(ink.y + ink.height, logical.y + logical.height)) + pad
        let w = x1 - x0, h = y1 - y0
        guard w > 0, h > 0, w <= 4096, h <= 4096, w * h * 4 <= maxBytes,
              let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            return nil
        }
        draw(cr, Double(-x0), Double(-y0))
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        let s = Sprite(image: CairoImage(owning: surface), runs: nil, dx: x0, dy: y0)
        sprites.insert(s, cost: s.bytes, for: key)
        made += 1
        return s
    }

    /// The runs of a sprite made by `sprite(_:layout:draw:)` (nil: no such sprite, or an image
    /// runs cannot hold), made the first time they are asked for; the budget counts them (a
    /// second copy of the pixels and the run table; the sprite is then the most recently used).
    func runs(of key: Key) -> SpriteRuns? {
        guard var s = sprites.peek(key) else { return nil }
        if let r = s.runs { return r }
        guard let r = SpriteRuns(s.image) else { return nil }
        s.runs = r
        sprites.insert(s, cost: s.bytes, for: key)
        return r
    }

    /// Composites a sprite with the layout's origin at (x, y) (whole pixels).
    static func paint(_ s: Sprite, cr: OpaquePointer, x: Double, y: Double) {
        let sx = x + Double(s.dx), sy = y + Double(s.dy)
        cairo_set_source_surface(cr, s.image.surface, sx, sy)
        cairo_rectangle(cr, sx, sy, Double(s.image.width), Double(s.image.height))
        cairo_fill(cr)
    }
}

extension LabelSprites.Key {
    /// The key of a kept layout's sprite.
    init(_ layout: OpaquePointer, color: RGBColor, halo: RGBColor, textAlpha: Double, haloAlpha: Double, radius: Double) {
        self.init(layout: UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(layout))), color: color, halo: halo,
                  textAlpha: textAlpha, haloAlpha: haloAlpha, radius: radius)
    }
}
