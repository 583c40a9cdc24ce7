import CCairo
import Foundation
import MapEngine
import TouchCore

/// Draws place names (capitals with a dot, country names) upright at their projected points,
/// skipping any label that would overlap one already placed.
struct PlaceLabelPainter {
    let world: BuiltInWorld
    let style: MapStyle
    /// Label text size factor (`[map] text_scale`): bigger text for a panel seen from afar or
    /// a HiDPI panel. Dots and gaps grow with it, so a label keeps its shape.
    var textScale = 1.0

    static func cityStyle(zoom: Double, textScale s: Double) -> TextRenderer.Style {
        TextRenderer.Style(sizePx: (zoom >= 5 ? 13 : 12) * s, bold: false, width: nil, maxLines: 1)
    }

    static func countryStyle(textScale s: Double) -> TextRenderer.Style {
        TextRenderer.Style(sizePx: 11 * s, bold: true, width: nil, maxLines: 1)
    }

    /// Draws the labels that fit and returns them, so taps can be matched with what is drawn.
    @discardableResult
    func paint(cr: OpaquePointer, view: GroundView, zoom: Double, text: TextRenderer) -> [DrawnPlace] {
        var drawn: [DrawnPlace] = []
        var placed: [(Double, Double, Double, Double)] = []
        func isFree(_ r: (Double, Double, Double, Double)) -> Bool {
            !placed.contains { r.0 < $0.2 && r.2 > $0.0 && r.1 < $0.3 && r.3 > $0.1 }
        }
        let s = textScale
        let cityStyle = Self.cityStyle(zoom: zoom, textScale: s)
        let countryStyle = Self.countryStyle(textScale: s)
        let dot = 3 * s, gap = 6 * s
        // world.bin lists cities in label priority order (min zoom, capitals, population: see
        // tools/convert_naturalearth.py); keep that order, so the bigger place wins a collision.
        let cities = world.places.filter { $0.kind == .city && $0.minZoom <= zoom + 1e-9 }
        for city in cities {
            guard let p = view.visiblePoint(city.coordinate, slack: 40) else { continue }
            // Towards a tilted horizon the ground shrinks: show only the more important places there.
            if view.tilted && city.minZoom > zoom - 2 && view.projection.scale(at: p) < 0.5 { continue }
            let layout = text.layout(city.name, cityStyle)
            let (w, h) = text.size(layout)
            let rect = (p.x - dot, p.y - h / 2, p.x + gap + w, p.y + h / 2)
            guard isFree(rect) else { continue }
            placed.append(rect)
            drawn.append(DrawnPlace(name: city.name, kind: .city, coordinate: city.coordinate, point: p,
                                    frame: LabelFrame(x: rect.0, y: rect.1, width: rect.2 - rect.0, height: rect.3 - rect.1)))
            cairo_new_path(cr)
            cairo_arc(cr, p.x, p.y, dot, 0, 2 * .pi)
            cairo_set_source_rgb(cr, style.halo.r, style.halo.g, style.halo.b)
            cairo_fill_preserve(cr)
            cairo_set_source_rgb(cr, style.cityDot.r, style.cityDot.g, style.cityDot.b)
            cairo_set_line_width(cr, 1)
            cairo_fill(cr)
            text.drawWithHalo(layout, cr: cr, x: (p.x + gap).rounded(), y: (p.y - h / 2).rounded(), color: style.cityText, halo: style.halo)
        }
        guard zoom < 7 else { return drawn }
        let countries = world.places.filter { $0.kind == .country && $0.minZoom <= zoom + 0.5 }.sorted { $0.minZoom < $1.minZoom }
        for country in countries {
            guard let p = view.visiblePoint(country.coordinate, slack: 0) else { continue }
            if view.tilted && view.projection.scale(at: p) < 0.4 { continue }
            let layout = text.layout(country.name.uppercased(), countryStyle)
            let (w, h) = text.size(layout)
            let rect = (p.x - w / 2, p.y - h / 2, p.x + w / 2, p.y + h / 2)
            guard isFree(rect) else { continue }
            placed.append(rect)
            drawn.append(DrawnPlace(name: country.name, kind: .country, coordinate: country.coordinate, point: p,
                                    frame: LabelFrame(x: rect.0, y: rect.1, width: rect.2 - rect.0, height: rect.3 - rect.1)))
            text.drawWithHalo(layout, cr: cr, x: (p.x - w / 2).rounded(), y: (p.y - h / 2).rounded(), color: style.countryText, halo: style.halo)
        }
        return drawn
    }
}

/// A place name drawn in the last frame: the dot (cities) or label centre (countries) and the
/// label's screen rectangle (x, y, width, height in px).
public struct DrawnPlace: Sendable {
    public let name: String
    public let kind: BuiltInWorld.Place.Kind
    public let coordinate: Coordinate
    public let point: Point
    public let frame: LabelFrame
}

/// A label's rectangle on screen, px.
public struct LabelFrame: Sendable, Equatable {
    public let x: Double, y: Double, width: Double, height: Double
}
