import CCairo
import Foundation
import MapEngine
import TouchCore

/// The built-in world's place names placed once per zoom over the whole world, in world pixels,
/// with no view: the overlay layer draws them, so a layer drawn whole, one drawn strip by strip
/// as it scrolls with a pan, and a settled frame show the same names at a camera whichever way
/// the camera got there. The rule is `PlaceLabelPainter`'s (cities in the file's rank order,
/// then countries; a name whose box meets one already placed is left out), applied to every
/// place of the world instead of the places near one view.
final class WorldLabels {
    struct Label {
        let name: String
        let kind: BuiltInWorld.Place.Kind
        let coordinate: Coordinate
        /// World px: the dot (cities) or the label's centre (countries).
        let point: Point
        /// World px: the box that collides (and that taps match), x0, y0, x1, y1.
        let box: (Double, Double, Double, Double)
        /// World px: the text's top left, whole pixels.
        let textX: Double, textY: Double
        let text: String
        let style: TextRenderer.Style
    }

    let zoom: Double
    let textScale: Double
    let labels: [Label]
    /// The world's width in px at `zoom`: the map wraps round the antimeridian.
    let worldWidth: Double
    /// Pixels a label's paint (halo, antialiasing, ink beyond the logical box) may reach beyond
    /// its box: a strip draws every label whose box comes this close to it.
    let paintPad: Double

    init(world: BuiltInWorld, zoom: Double, textScale s: Double, text: TextRenderer) {
        self.zoom = zoom
        self.textScale = s
        worldWidth = WebMercator.worldSize(zoom: zoom)
        paintPad = 8 * s
        let cityStyle = PlaceLabelPainter.cityStyle(zoom: zoom, textScale: s)
        let countryStyle = PlaceLabelPainter.countryStyle(textScale: s)
        let dot = 3 * s, gap = 6 * s
        var out: [Label] = []
        // Placed boxes in a grid of 256-px cells, so placing the world's names is linear.
        var grid: [Int: [Int]] = [:]
        let cell = 256.0
        func cells(_ r: (Double, Double, Double, Double)) -> [Int] {
            var keys: [Int] = []
            for cy in Int((r.1 / cell).rounded(.down))...Int((r.3 / cell).rounded(.down)) {
                for cx in Int((r.0 / cell).rounded(.down))...Int((r.2 / cell).rounded(.down)) { keys.append(cy &* 1_000_003 &+ cx) }
            }
            return keys
        }
        func place(_ label: Label) -> Bool {
            let r = label.box
            let keys = cells(r)
            for k in keys {
                for i in grid[k] ?? [] {
                    let q = out[i].box
                    if r.0 < q.2 && r.2 > q.0 && r.1 < q.3 && r.3 > q.1 { return false }
                }
            }
            for k in keys { grid[k, default: []].append(out.count) }
            out.append(label)
            return true
        }
        for city in world.places where city.kind == .city && city.minZoom <= zoom + 1e-9 {
            let p = WebMercator.worldPoint(city.coordinate, zoom: zoom)
            let (w, h) = text.measure(city.name, cityStyle)
            _ = place(Label(name: city.name, kind: .city, coordinate: city.coordinate, point: p,
                            box: (p.x - dot, p.y - h / 2, p.x + gap + w, p.y + h / 2),
                            textX: (p.x + gap).rounded(), textY: (p.y - h / 2).rounded(), text: city.name, style: cityStyle))
        }
        if zoom < 7 {
            let countries = world.places.filter { $0.kind == .country && $0.minZoom <= zoom + 0.5 }.sorted { $0.minZoom < $1.minZoom }
            for country in countries {
                let p = WebMercator.worldPoint(country.coordinate, zoom: zoom)
                let upper = country.name.uppercased()
                let (w, h) = text.measure(upper, countryStyle)
                _ = place(Label(name: country.name, kind: .country, coordinate: country.coordinate, point: p,
                                box: (p.x - w / 2, p.y - h / 2, p.x + w / 2, p.y + h / 2),
                                textX: (p.x - w / 2).rounded(), textY: (p.y - h / 2).rounded(), text: upper, style: countryStyle))
            }
        }
        labels = out
    }

    /// The labels whose box, grown by `pad`, meets the world rectangle (x, y, w, h), in placing
    /// order, each with the horizontal shift (a multiple of the world's width) that brings it there.
    func meeting(x: Double, y: Double, w: Double, h: Double, pad: Double) -> [(label: Label, shift: Double)] {
        var out: [(Label, Double)] = []
        for l in labels {
            guard l.box.1 - pad < y + h, l.box.3 + pad > y else { continue }
            for shift in [0, -worldWidth, worldWidth] where l.box.0 + shift - pad < x + w && l.box.2 + shift + pad > x {
                out.append((l, shift))
                break
            }
        }
        return out
    }

    /// Draws the labels that reach the world rectangle (x, y, w, h) with its top left at the
    /// cairo context's origin (the caller clips to the rectangle). Text goes to whole pixels of
    /// the target (the same as the world's whole pixels when x and y are whole).
    func paint(cr: OpaquePointer, x: Double, y: Double, w: Double, h: Double, style: MapStyle, text: TextRenderer) {
        let dot = 3 * textScale
        for (l, shift) in meeting(x: x, y: y, w: w, h: h, pad: paintPad) {
            let layout = text.layout(l.text, l.style)
            if l.kind == .city {
                WorldLabels.paintDot(cr: cr, x: l.point.x + shift - x, y: l.point.y - y, radius: dot, halo: style.halo, color: style.cityDot)
            }
            text.drawWithHalo(layout, cr: cr, x: (l.textX + shift - x).rounded(), y: (l.textY - y).rounded(),
                              color: l.kind == .city ? style.cityText : style.countryText, halo: style.halo)
        }
    }

    /// What `paint` draws, as copies in the same order (a city's dot, then its name), every
    /// name's sprite made here, so that bands of the frame may copy them at once. Nil when a name
    /// is not drawn from a sprite (sprites off or too large, cr turned or scaled): `paint` then.
    func copies(cr: OpaquePointer, x: Double, y: Double, w: Double, h: Double, style: MapStyle, text: TextRenderer) -> [LabelCopy]? {
        let dot = 3 * textScale
        var out: [LabelCopy] = []
        for (l, shift) in meeting(x: x, y: y, w: w, h: h, pad: paintPad) {
            let layout = text.layout(l.text, l.style)
            if l.kind == .city {
                out.append(.dot(x: l.point.x + shift - x, y: l.point.y - y, radius: dot, halo: style.halo, color: style.cityDot))
            }
            let tx = (l.textX + shift - x).rounded(), ty = (l.textY - y).rounded()
            let key = TextRenderer.haloKey(layout, color: l.kind == .city ? style.cityText : style.countryText, halo: style.halo)
            guard let copy = text.haloCopy(layout, key, cr: cr, x: tx, y: ty) else { return nil }
            out.append(copy)
        }
        return out
    }

    /// A city's dot: a disc filled with the halo colour, then with the dot's colour.
    static func paintDot(cr: OpaquePointer, x: Double, y: Double, radius: Double, halo: RGBColor, color: RGBColor) {
        cairo_new_path(cr)
        cairo_arc(cr, x, y, radius, 0, 2 * .pi)
        cairo_set_source_rgb(cr, halo.r, halo.g, halo.b)
        cairo_fill_preserve(cr)
        cairo_set_source_rgb(cr, color.r, color.g, color.b)
        cairo_set_line_width(cr, 1)
        cairo_fill(cr)
    }

    /// The names whose box touches the screen whose top left is world pixel (x, y), in screen px.
    func places(x: Double, y: Double, w: Double, h: Double) -> [DrawnPlace] {
        meeting(x: x, y: y, w: w, h: h, pad: 0).map { l, shift in
            let dx = shift - x, dy = -y
            return DrawnPlace(name: l.name, kind: l.kind, coordinate: l.coordinate, point: Point(x: l.point.x + dx, y: l.point.y + dy),
                              frame: LabelFrame(x: l.box.0 + dx, y: l.box.1 + dy, width: l.box.2 - l.box.0, height: l.box.3 - l.box.1))
        }
    }
}
