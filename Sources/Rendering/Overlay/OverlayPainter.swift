import CCairo
import Foundation
import MapEngine
import TouchCore

/// Screen-space furniture drawn over the map, always upright: sky, markers, the info window,
/// compass, scale bar, attribution and the re-center button. Frames match the controller's
/// `MapControls` (compass top right 48x48 with a 16 px margin; Re-center bottom right 120x44,
/// 16 px margin above the 20 px attribution strip).
struct OverlayPainter {
    let style: MapStyle

    static let compassSize = 48.0, controlMargin = 16.0
    static let recenterSize = Size(width: 120, height: 44)
    static let attributionHeight = 20.0
    /// Info window: widest text block, px; lines of title and snippet before the ellipsis.
    static let infoMaxTextWidth = 240.0, infoPadding = 10.0, infoPointer = 10.0
    static let infoTitleLines = 2, infoSnippetLines = 4

    static func compassFrame(screen: Size) -> (x: Double, y: Double, w: Double, h: Double) {
        (screen.width - controlMargin - compassSize, controlMargin, compassSize, compassSize)
    }
    static func recenterFrame(screen: Size) -> (x: Double, y: Double, w: Double, h: Double) {
        (screen.width - controlMargin - recenterSize.width,
         screen.height - attributionHeight - controlMargin - recenterSize.height, recenterSize.width, recenterSize.height)
    }

    // MARK: sky

    /// Above the horizon: sky; from the horizon down to the far clip line opaque sky (it hides
    /// where the drawn ground ends), then a fade to transparent over the ground.
    func paintSky(cr: OpaquePointer, view: GroundView) {
        guard let far = view.skyLineY, let horizon = view.horizonY else { return }
        let fade = max(40, (far - horizon) * 1.5)
        guard far + fade > 0 else { return }
        let sky = style.sky
        cairo_new_path(cr)
        cairo_rectangle(cr, 0, 0, view.width, max(0, far))
        cairo_set_source_rgb(cr, sky.r, sky.g, sky.b)
        cairo_fill(cr)
        let g = cairo_pattern_create_linear(0, far, 0, far + fade)!
        cairo_pattern_add_color_stop_rgba(g, 0, sky.r, sky.g, sky.b, 1)
        cairo_pattern_add_color_stop_rgba(g, 1, sky.r, sky.g, sky.b, 0)
        cairo_rectangle(cr, 0, far, view.width, fade)
        cairo_set_source(cr, g)
        cairo_fill(cr)
        cairo_pattern_destroy(g)
    }

    // MARK: markers

    func paintMarkers(cr: OpaquePointer, scene: MapScene, view: GroundView, icons: IconCache, text: TextRenderer? = nil) {
        OverlayPainter.blit(planMarkers(scene: scene, view: view, icons: icons, text: text), cr: cr)
    }

    /// One marker as drawn: a sprite at a whole-pixel top left, or (an image that could not be
    /// read) a grey pin drawn as a path.
    struct PlacedMarker {
        var image: CairoImage?
        /// The image as runs (`SpriteRuns`), when it is a small ARGB32 sprite.
        var runs: SpriteRuns? = nil
        var x: Double, y: Double
        var fallbackTip: Point?
        /// The rows it may touch.
        var top: Double, bottom: Double
    }

    /// The markers in drawing order (z-index, then lower on screen above, then order) with their
    /// sprites made (pins per colour and phase, images, cluster bubbles): everything that is
    /// cached is made here, so `blit` only reads and several bands may blit at once.
    func planMarkers(scene: MapScene, view: GroundView, icons: IconCache, text: TextRenderer?) -> [PlacedMarker] {
        // Sorted as (z-index, y, index) keys, not markers: moving a marker (its id, strings,
        // icon) in the sort retained and released it at every step (1,000 pins: about a third
        // of the plan's instructions).
        var keys: [(z: Int, y: Double, i: Int, p: Point)] = []
        keys.reserveCapacity(scene.markers.count)
        for (i, m) in scene.markers.enumerated() {
            guard let p = view.visiblePoint(m.coordinate, slack: 64) else { continue }
            keys.append((m.zIndex, p.y, i, p))
        }
        keys.sort { ($0.z, $0.y, $0.i) < ($1.z, $1.y, $1.i) }
        var out: [PlacedMarker] = []
        out.reserveCapacity(keys.count)
        for key in keys {
            let marker = scene.markers[key.i], p = key.p
            switch marker.icon {
            case let .defaultPin(color):
                guard p.x.isFinite, p.y.isFinite else { continue }
                var ix = Int(p.x.rounded(.down)), iy = Int(p.y.rounded(.down))
                var qx = Int(((p.x - Double(ix)) * 4).rounded()), qy = Int(((p.y - Double(iy)) * 4).rounded())
                if qx == 4 { qx = 0; ix += 1 }
                if qy == 4 { qy = 0; iy += 1 }
                let sprite = icons.pinSprite(color: color, phase: qy * 4 + qx) { c in
                    paintPin(cr: c, tip: Point(x: Double(OverlayPainter.pinSpriteTip.x) + Double(qx) / 4,
                                               y: Double(OverlayPainter.pinSpriteTip.y) + Double(qy) / 4), color: color)
                }
                let y = Double(iy - OverlayPainter.pinSpriteTip.y)
                out.append(PlacedMarker(image: sprite, x: Double(ix - OverlayPainter.pinSpriteTip.x), y: y, fallbackTip: nil,
                                        top: y, bottom: y + Double(sprite.height)))
            case let .argb(_, _, _, anchor), let .png(_, anchor):
                if let img = icons.image(for: marker) {
                    let x = p.x - anchor.x * Double(img.width), y = p.y - anchor.y * Double(img.height)
                    out.append(PlacedMarker(image: img, x: x.rounded(), y: y.rounded(), fallbackTip: nil,
                                            top: y.rounded(), bottom: y.rounded() + Double(img.height)))
                } else {
                    out.append(PlacedMarker(image: nil, x: 0, y: 0, fallbackTip: p, top: p.y - PinGeometry.size.height - 2, bottom: p.y + 2))
                }
            case let .cluster(count):
                guard let text, p.x.isFinite, p.y.isFinite else { continue }
                let sprite = icons.clusterSprite(count: count, text: text)
                let half = sprite.width / 2
                let y = Double(Int(p.y.rounded(.down)) - half)
                out.append(PlacedMarker(image: sprite, x: Double(Int(p.x.rounded(.down)) - half), y: y, fallbackTip: nil,
                                        top: y, bottom: y + Double(sprite.height)))
            }
        }
        for i in out.indices {
            if let image = out[i].image { out[i].runs = icons.runs(for: image) }
        }
        return out
    }

    /// Draws planned markers; with `rows`, only those that reach them (cr clipped to them).
    /// A sprite with runs is copied straight into cr's target when that is an image cr moves by
    /// whole pixels (the bytes cairo_paint gives; `SpriteRuns`), else painted by cairo.
    static func blit(_ plan: [PlacedMarker], cr: OpaquePointer, rows: Range<Double>? = nil) {
        let target = GlyphTarget(cr)
        var direct = false
        if target != nil, let t = cairo_get_target(cr) { cairo_surface_flush(t) }
        func copiesDirectly(_ m: PlacedMarker) -> Bool {
            m.runs != nil && target != nil && abs(m.x) < 1e7 && abs(m.y) < 1e7 && m.x == m.x.rounded() && m.y == m.y.rounded()
        }
        for (i, m) in plan.enumerated() {
            if let rows, m.bottom < rows.lowerBound || m.top > rows.upperBound { continue }
            if let runs = m.runs, let target, copiesDirectly(m) {
                // The next sprite's lines asked for while this one is copied.
                if i + 1 < plan.count, copiesDirectly(plan[i + 1]) {
                    target.prefetch(plan[i + 1].runs!, x: Int(plan[i + 1].x), y: Int(plan[i + 1].y))
                }
                target.over(runs, x: Int(m.x), y: Int(m.y))
                direct = true
            } else if let img = m.image {
                if direct, let t = cairo_get_target(cr) { cairo_surface_mark_dirty(t); direct = false }
                cairo_set_source_surface(cr, img.surface, m.x, m.y)
                cairo_paint(cr)
                if target != nil, let t = cairo_get_target(cr) { cairo_surface_flush(t) }
            } else if let tip = m.fallbackTip {
                if direct, let t = cairo_get_target(cr) { cairo_surface_mark_dirty(t); direct = false }
                OverlayPainter(style: MapStyle()).paintPin(cr: cr, tip: tip, color: RGBColor(hex: 0x888888))
                if target != nil, let t = cairo_get_target(cr) { cairo_surface_flush(t) }
            }
        }
        if direct, let t = cairo_get_target(cr) { cairo_surface_mark_dirty(t) }
    }

    /// Where the pin sprite's tip is, px from its top left corner, and the sprite's size.
    static let pinSpriteTip = (x: 15, y: 45), pinSpriteSize = (w: 31, h: 49)

    // The default pin is drawn from a sprite made once per colour and quarter-pixel phase (a tip
    // at most 1/8 px from the exact point; `planMarkers`): thousands of pins cost thousands of
    // small blits, not paths.

    /// The default pin exactly as `PinGeometry` hit-tests it: head disc and the cone from the tip
    /// to the head's tangent points.
    func paintPin(cr: OpaquePointer, tip: Point, color: RGBColor) {
        let c = PinGeometry.headCenter(tip: tip)
        let r = PinGeometry.headRadius, d = PinGeometry.headHeight
        let ang = asin(r / d)
        // Tangent points: angle between the axis (up) and the tangent is `ang`.
        let tx = d * cos(ang) * sin(ang), ty = d * cos(ang) * cos(ang)
        cairo_new_path(cr)
        cairo_move_to(cr, tip.x, tip.y)
        cairo_line_to(cr, tip.x - tx, tip.y - ty)
        let a0 = atan2(-ty + d, -tx)        // from the centre to the left tangent point (y down)
        cairo_arc(cr, c.x, c.y, r, a0, 3 * .pi - a0)   // over the top to the right tangent point (at pi - a0)
        cairo_line_to(cr, tip.x, tip.y)
        cairo_close_path(cr)
        // Shadow-free: fill, darker rim, white dot.
        cairo_set_source_rgb(cr, color.r, color.g, color.b)
        cairo_fill_preserve(cr)
        cairo_set_source_rgb(cr, color.r * 0.6, color.g * 0.6, color.b * 0.6)
        cairo_set_line_width(cr, 1.5)
        cairo_stroke(cr)
        cairo_arc(cr, c.x, c.y, r * 0.38, 0, 2 * .pi)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_fill(cr)
    }

    // MARK: info window

    /// Content width, title height and snippet height (with its gap) of laid-out text.
    static func infoContentSize(title: OpaquePointer, snippet: OpaquePointer?, text: TextRenderer) -> (Double, Double, Double) {
        // Measure the text's own width (pango reports the wrap width for wrapped layouts).
        func inkWidth(_ l: OpaquePointer) -> Double {
            var ink = PangoRectangle(), logical = PangoRectangle()
            pango_layout_get_pixel_extents(l, &ink, &logical)
            return Double(logical.x + logical.width)
        }
        let tw = inkWidth(title), th = text.size(title).height
        let sw = snippet.map(inkWidth) ?? 0, sh = snippet.map { text.size($0).height + 4 } ?? 0
        return (min(OverlayPainter.infoMaxTextWidth, max(tw, sw, 60)), th, sh)
    }

    /// Size of the window for this text, pointer included: the box's width, and its height plus
    /// the pointer down to the anchor (what a tap on the window is tested against).
    static func infoWindowSize(title: String, snippet: String?, image: CairoImage? = nil, text: TextRenderer) -> Size {
        let titleStyle = TextRenderer.Style(sizePx: 15, bold: true, width: infoMaxTextWidth, maxLines: infoTitleLines)
        let snippetStyle = TextRenderer.Style(sizePx: 12.5, bold: false, width: infoMaxTextWidth, maxLines: infoSnippetLines)
        let t = text.layout(title, titleStyle)
        let sn = snippet.flatMap { $0.isEmpty ? nil : text.layout($0, snippetStyle) }
        let (cw, th, sh) = infoContentSize(title: t, snippet: sn, text: text)
        let img = infoImageSize(image)
        let r = infoWindowRect(anchor: .zero, contentWidth: cw + (img.width > 0 ? img.width + infoImageGap : 0),
                               contentHeight: max(th + sh, img.height))
        return Size(width: r.w, height: -r.y)
    }

    /// Largest side of an info window's image, px, and the gap to the text.
    static let infoImageMax = 48.0, infoImageGap = 8.0

    /// The drawn size of an info window's image: its own, scaled down to fit `infoImageMax`.
    static func infoImageSize(_ image: CairoImage?) -> Size {
        guard let image, image.width > 0, image.height > 0 else { return Size(width: 0, height: 0) }
        let w = Double(image.width), h = Double(image.height)
        let k = min(1, infoImageMax / max(w, h))
        return Size(width: (w * k).rounded(), height: (h * k).rounded())
    }

    /// The window's rectangle (without its pointer) for a marker point, for tests and callers.
    static func infoWindowRect(anchor: Point, contentWidth: Double, contentHeight: Double) -> (x: Double, y: Double, w: Double, h: Double) {
        let w = contentWidth + 2 * infoPadding, h = contentHeight + 2 * infoPadding
        return ((anchor.x - w / 2).rounded(), (anchor.y - infoPointer - h).rounded(), w.rounded(), h.rounded())
    }

    func paintInfoWindow(cr: OpaquePointer, window: InfoWindowScene, view: GroundView, text: TextRenderer,
                         icons: IconCache? = nil) {
        guard let p = view.visiblePoint(window.coordinate, slack: 400) else { return }
        let anchor = p + window.anchorOffset
        let content = window.content
        let titleStyle = TextRenderer.Style(sizePx: 15, bold: true, width: OverlayPainter.infoMaxTextWidth, maxLines: OverlayPainter.infoTitleLines)
        let snippetStyle = TextRenderer.Style(sizePx: 12.5, bold: false, width: OverlayPainter.infoMaxTextWidth, maxLines: OverlayPainter.infoSnippetLines)
        let title = text.layout(content.title ?? "", titleStyle)
        let snippet = content.snippetText.flatMap { $0.isEmpty ? nil : text.layout($0, snippetStyle) }
        let (cw, th, sh) = OverlayPainter.infoContentSize(title: title, snippet: snippet, text: text)
        let image = content.imageName.flatMap { icons?.image(path: $0) }
        let img = OverlayPainter.infoImageSize(image)
        let imageSpace = img.width > 0 ? img.width + OverlayPainter.infoImageGap : 0
        let r = OverlayPainter.infoWindowRect(anchor: anchor, contentWidth: cw + imageSpace,
                                              contentHeight: max(th + sh, img.height))
        // Box with a pointer whose tip is at the anchor.
        let rad = 6.0, pw = 9.0
        cairo_new_path(cr)
        cairo_move_to(cr, r.x + rad, r.y)
        cairo_arc(cr, r.x + r.w - rad, r.y + rad, rad, -.pi / 2, 0)
        cairo_arc(cr, r.x + r.w - rad, r.y + r.h - rad, rad, 0, .pi / 2)
        cairo_line_to(cr, anchor.x + pw, r.y + r.h)
        cairo_line_to(cr, anchor.x, anchor.y)
        cairo_line_to(cr, anchor.x - pw, r.y + r.h)
        cairo_arc(cr, r.x + rad, r.y + r.h - rad, rad, .pi / 2, .pi)
        cairo_arc(cr, r.x + rad, r.y + rad, rad, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
        let fill = content.backgroundRGB.map { RGBColor(hex: $0) } ?? RGBColor(r: 1, g: 1, b: 1)
        cairo_set_source_rgb(cr, fill.r, fill.g, fill.b)
        cairo_fill_preserve(cr)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.35)
        cairo_set_line_width(cr, 1)
        cairo_stroke(cr)
        var x = r.x + OverlayPainter.infoPadding
        let y = r.y + OverlayPainter.infoPadding
        if let image, img.width > 0 {
            // The app's image, left of the text, scaled down to fit.
            cairo_save(cr)
            cairo_translate(cr, x, y)
            cairo_scale(cr, img.width / Double(image.width), img.height / Double(image.height))
            cairo_set_source_surface(cr, image.surface, 0, 0)
            cairo_paint(cr)
            cairo_restore(cr)
            x += imageSpace
        }
        text.draw(title, cr: cr, x: x, y: y, color: RGBColor(hex: 0x202124))
        if let snippet { text.draw(snippet, cr: cr, x: x, y: y + th + 4, color: RGBColor(hex: 0x5F6368)) }
    }

    // MARK: controls

    func paintCompass(cr: OpaquePointer, bearing: Double, screen: Size) {
        let f = OverlayPainter.compassFrame(screen: screen)
        let cx = f.x + f.w / 2, cy = f.y + f.h / 2, r = f.w / 2
        cairo_new_path(cr)
        cairo_arc(cr, cx, cy, r - 1, 0, 2 * .pi)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_fill_preserve(cr)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.3)
        cairo_set_line_width(cr, 1.5)
        cairo_stroke(cr)
        // North on screen is the bearing turned back: the needle points there.
        let b = bearing * .pi / 180
        let ux = -sin(b), uy = -cos(b)            // unit vector to north (screen, y down)
        let px = -uy, py = ux                      // perpendicular
        let len = r * 0.72, half = r * 0.2
        func needle(_ dir: Double, _ color: RGBColor) {
            cairo_new_path(cr)
            cairo_move_to(cr, cx + dir * ux * len, cy + dir * uy * len)
            cairo_line_to(cr, cx + px * half, cy + py * half)
            cairo_line_to(cr, cx - px * half, cy - py * half)
            cairo_close_path(cr)
            cairo_set_source_rgb(cr, color.r, color.g, color.b)
            cairo_fill(cr)
        }
        needle(1, RGBColor(hex: 0xE53935))
        needle(-1, RGBColor(hex: 0x9E9E9E))
    }

    func paintRecenterButton(cr: OpaquePointer, screen: Size, text: TextRenderer) {
        let f = OverlayPainter.recenterFrame(screen: screen)
        roundedRect(cr, f.x, f.y, f.w, f.h, 8)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_fill_preserve(cr)
        cairo_set_source_rgba(cr, 0, 0, 0, 0.3)
        cairo_set_line_width(cr, 1)
        cairo_stroke(cr)
        // A small target icon, then the label.
        let ix = f.x + 18, iy = f.y + f.h / 2
        cairo_new_path(cr)
        cairo_arc(cr, ix, iy, 7, 0, 2 * .pi)
        cairo_set_source_rgb(cr, 0.10, 0.45, 0.91)
        cairo_set_line_width(cr, 2)
        cairo_stroke(cr)
        cairo_arc(cr, ix, iy, 3, 0, 2 * .pi)
        cairo_fill(cr)
        let layout = text.layout("Re-center", TextRenderer.Style(sizePx: 13, bold: true, width: nil, maxLines: 1))
        let (w, h) = text.size(layout)
        text.draw(layout, cr: cr, x: (f.x + 30 + (f.w - 30 - w) / 2).rounded(), y: (f.y + (f.h - h) / 2).rounded(),
                  color: RGBColor(hex: 0x1A73E8))
    }

    /// The scale bar's length (px, to a quarter pixel, so a pan along a parallel does not
    /// redraw it) and label for a projection; nil where the scale is undefined.
    struct ScaleBar: Equatable { let width: Double; let label: String }
    static func scaleBar(projection: Projection) -> ScaleBar? {
        // Metres per screen pixel at the screen centre (one world pixel there is one screen pixel).
        let lat = projection.camera.target.latitude * .pi / 180
        let metresPerPixel = 40_075_016.686 * cos(lat) / projection.worldSize
        guard metresPerPixel > 0, metresPerPixel.isFinite else { return nil }
        let maxWidth = 120.0 // px
        let maxMetres = metresPerPixel * maxWidth
        let p = pow(10, floor(log10(maxMetres)))
        let nice = [5.0, 2, 1].map { $0 * p }.first { $0 <= maxMetres } ?? p
        let w = (nice / metresPerPixel * 4).rounded() / 4
        return ScaleBar(width: w, label: nice >= 1000 ? "\(Int(nice / 1000)) km" : "\(Int(nice)) m")
    }
    /// The screen rectangle the scale bar is drawn in (bar, halo and label).
    static func scaleBarFrame(screen: Size) -> (x: Int, y: Int, w: Int, h: Int) {
        (0, Int(screen.height - attributionHeight - 12) - 40, 200, 46)
    }

    func paintScaleBar(cr: OpaquePointer, bar: ScaleBar, screen: Size, text: TextRenderer) {
        let w = bar.width, label = bar.label
        let x = 12.0, y = screen.height - OverlayPainter.attributionHeight - 12
        cairo_new_path(cr)
        cairo_move_to(cr, x, y - 6); cairo_line_to(cr, x, y); cairo_line_to(cr, x + w, y); cairo_line_to(cr, x + w, y - 6)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.9)
        cairo_set_line_width(cr, 4)
        cairo_stroke_preserve(cr)
        cairo_set_source_rgb(cr, 0.2, 0.2, 0.2)
        cairo_set_line_width(cr, 1.5)
        cairo_stroke(cr)
        let layout = text.layout(label, TextRenderer.Style(sizePx: 11, bold: false, width: nil, maxLines: 1))
        let (_, h) = text.size(layout)
        text.drawWithHalo(layout, cr: cr, x: x + 4, y: (y - 6 - h).rounded(), color: RGBColor(hex: 0x333333), halo: style.halo)
    }

    func paintAttribution(cr: OpaquePointer, text attribution: String, screen: Size, renderer: TextRenderer) {
        let layout = renderer.layout(attribution, TextRenderer.Style(sizePx: 11, bold: false, width: nil, maxLines: 1))
        let (w, h) = renderer.size(layout)
        let sh = OverlayPainter.attributionHeight
        let x = screen.width - w - 8
        cairo_new_path(cr)
        cairo_rectangle(cr, x - 6, screen.height - sh, w + 14, sh)
        cairo_set_source_rgba(cr, 1, 1, 1, 0.75)
        cairo_fill(cr)
        renderer.draw(layout, cr: cr, x: x.rounded(), y: (screen.height - sh + (sh - h) / 2).rounded(), color: RGBColor(hex: 0x444444))
    }

    private func roundedRect(_ cr: OpaquePointer, _ x: Double, _ y: Double, _ w: Double, _ h: Double, _ r: Double) {
        cairo_new_path(cr)
        cairo_arc(cr, x + w - r, y + r, r, -.pi / 2, 0)
        cairo_arc(cr, x + w - r, y + h - r, r, 0, .pi / 2)
        cairo_arc(cr, x + r, y + h - r, r, .pi / 2, .pi)
        cairo_arc(cr, x + r, y + r, r, .pi, 3 * .pi / 2)
        cairo_close_path(cr)
    }
}

/// Decoded custom marker icons, kept by marker id (and PNG path).
final class IconCache {
    private var images: [String: CairoImage?] = [:]
    /// Images a client's file was decoded into once (`DecodedImages`): drawn by their name,
    /// never read again by path.
    var decoded = DecodedImages()
    /// Default pin sprites by colour and phase: a short list searched in order (a frame uses one
    /// or two colours), no hashing per pin.
    private var pins: [(color: UInt32, phase: Int, image: CairoImage)] = []
    /// Cluster bubble sprites by count (`clusterSprite`).
    var clusters: [Int: CairoImage] = [:]
    /// Sprites as runs (`SpriteRuns`) by image, made once; at most `maxRunPixels` pixels kept.
    private var spriteRuns: [ObjectIdentifier: SpriteRuns] = [:]
    private var runPixels = 0
    static let maxRunPixels = 1 << 22

    /// The image as runs, made the first time it is asked for; nil for an image larger than
    /// 256 px a side (drawn by cairo).
    func runs(for image: CairoImage) -> SpriteRuns? {
        if let r = spriteRuns[ObjectIdentifier(image)], r.image === image { return r }
        guard image.width <= 256, image.height <= 256, let r = SpriteRuns(image) else { return nil }
        if runPixels + r.width * r.height > IconCache.maxRunPixels {
            spriteRuns.removeAll(keepingCapacity: true)
            runPixels = 0
        }
        spriteRuns[ObjectIdentifier(image)] = r
        runPixels += r.width * r.height
        return r
    }

    func pinSprite(color: RGBColor, phase: Int, draw: (OpaquePointer) -> Void) -> CairoImage {
        let key = color.pixel
        for p in pins where p.color == key && p.phase == phase { return p.image }
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(OverlayPainter.pinSpriteSize.w), Int32(OverlayPainter.pinSpriteSize.h))!
        let c = cairo_create(s)!
        draw(c)
        cairo_destroy(c)
        cairo_surface_flush(s)
        let image = CairoImage(owning: s)
        if pins.count >= 256 { pins.removeFirst(16) }
        pins.append((key, phase, image))
        return image
    }
    /// A PNG file (an info window's image), decoded once.
    func image(path: String) -> CairoImage? {
        if let d = decoded.image(named: path) { return d }
        let key = "png:" + path
        if let hit = images[key] { return hit }
        let img = CairoImage.pngFile(path)
        images[key] = img
        return img
    }
    func image(for marker: MarkerSprite) -> CairoImage? {
        switch marker.icon {
        case .defaultPin, .cluster: return nil
        case let .argb(pixels, w, h, _):
            let key = "argb:\(marker.id):\(w)x\(h):\(pixels.hashValue)"
            if let hit = images[key] { return hit }
            let img = CairoImage.argb(pixels, width: w, height: h)
            images[key] = img
            return img
        case let .png(path, _):
            return image(path: path)
        }
    }
}
