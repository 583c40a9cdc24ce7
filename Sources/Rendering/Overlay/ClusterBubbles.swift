import CCairo
import Foundation
import MapEngine
import TouchCore

/// Cluster bubbles (`MarkerSprite.Icon.cluster(count:)`): a filled circle, its colour by how many
/// markers it holds, in a white border, with the count in white, centred on the coordinate.
/// Each count's bubble is drawn once into a sprite, so a frame of many bubbles costs blits, as
/// the default pin does.
enum ClusterBubble {
    /// The bubble's radius in px: 18 + 4 log10(count) (18 for one marker, 26 for a hundred).
    /// The same formula as MapEngine's `MarkerCluster.bubbleRadius` (added there by the
    /// clustering work; kept here so the renderer does not wait for it), which hit tests use.
    static func radius(count: Int) -> Double { 18 + 4 * log10(Double(max(1, count))) }

    /// Fill colour by count bucket: blue under 10, amber under 100, orange under 1,000, red beyond.
    static func color(count: Int) -> RGBColor {
        switch count {
        case ..<10: return RGBColor(hex: 0x1A73E8)
        case ..<100: return RGBColor(hex: 0xF29900)
        case ..<1000: return RGBColor(hex: 0xE8710A)
        default: return RGBColor(hex: 0xD93025)
        }
    }

    static let borderWidth = 2.5

    /// The count as shown: in full under 10,000, then in thousands ("12k"), then "999k+".
    static func label(count: Int) -> String {
        if count < 10_000 { return "\(max(0, count))" }
        if count < 1_000_000 { return "\(count / 1000)k" }
        return "999k+"
    }

    /// The sprite's side in px (odd, so the centre is a pixel's centre).
    static func spriteSide(count: Int) -> Int { 2 * Int((radius(count: count) + borderWidth / 2 + 1).rounded(.up)) + 1 }

    /// Draws the bubble centred at (c, c) into cr.
    static func draw(cr: OpaquePointer, centre c: Double, count: Int, text: TextRenderer) {
        let r = radius(count: count), fill = color(count: count)
        cairo_new_path(cr)
        cairo_arc(cr, c, c, r, 0, 2 * .pi)
        cairo_set_source_rgba(cr, fill.r, fill.g, fill.b, 0.92)
        cairo_fill_preserve(cr)
        cairo_set_source_rgb(cr, 1, 1, 1)
        cairo_set_line_width(cr, borderWidth)
        cairo_stroke(cr)
        let size = count < 1000 ? 14.0 : 12.5
        let layout = text.layout(label(count: count), TextRenderer.Style(sizePx: size, bold: true, width: nil, maxLines: 1))
        let (w, h) = text.size(layout)
        text.draw(layout, cr: cr, x: (c - w / 2).rounded(), y: (c - h / 2).rounded(), color: RGBColor(r: 1, g: 1, b: 1))
    }
}

extension IconCache {
    /// The bubble sprite for a count, drawn once (at most 512 kept; the oldest counts go first).
    func clusterSprite(count: Int, text: TextRenderer) -> CairoImage {
        if let hit = clusters[count] { return hit }
        let side = ClusterBubble.spriteSide(count: count)
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(side), Int32(side))!
        let c = cairo_create(s)!
        ClusterBubble.draw(cr: c, centre: Double(side) / 2, count: count, text: text)
        cairo_destroy(c)
        cairo_surface_flush(s)
        let image = CairoImage(owning: s)
        if clusters.count >= 512 { clusters.removeAll(keepingCapacity: true) }
        clusters[count] = image
        return image
    }
}

