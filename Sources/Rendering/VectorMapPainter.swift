import CCairo
import Foundation
import MapEngine
import TouchCore

/// Draws the built-in world (land, borders, rivers) through a `GroundView`: parts are culled by
/// their bounding boxes, clipped in ground coordinates and projected vertex by vertex.
struct VectorMapPainter {
    let world: BuiltInWorld
    let style: MapStyle
    /// Off for interactive frames that cannot come from the cache (tilted): 2..3x faster, jaggier.
    var antialias = true

    func paint(cr: OpaquePointer, view: GroundView, zoom: Double) {
        var a: [Double] = [], b: [Double] = []
        a.reserveCapacity(4096); b.reserveCapacity(4096)
        cairo_set_antialias(cr, antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE)
        if let land = world.level("land", zoom: zoom) {
            cairo_new_path(cr)
            addPolygons(land, cr: cr, view: view, &a, &b)
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
            cairo_set_source_rgb(cr, style.land.r, style.land.g, style.land.b)
            cairo_fill(cr)
        }
        if zoom >= 1.5, let rivers = world.level("rivers", zoom: zoom) {
            cairo_new_path(cr)
            addLines(rivers, cr: cr, view: view)
            cairo_set_source_rgb(cr, style.river.r, style.river.g, style.river.b)
            cairo_set_line_width(cr, zoom >= 5 ? 1.5 : 1)
            cairo_stroke(cr)
        }
        if let borders = world.level("borders", zoom: zoom) {
            cairo_new_path(cr)
            addLines(borders, cr: cr, view: view)
            cairo_set_source_rgb(cr, style.border.r, style.border.g, style.border.b)
            cairo_set_line_width(cr, zoom >= 4 ? 1.2 : 1)
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
            cairo_stroke(cr)
        }
    }

    private func visible(_ part: BuiltInWorld.Part, scale: Double, k: Double, view: GroundView) -> Bool {
        let minX = Double(part.minX) * scale + k, maxX = Double(part.maxX) * scale + k
        let minY = Double(part.minY) * scale, maxY = Double(part.maxY) * scale
        return maxX >= view.worldMinX && minX <= view.worldMaxX && maxY >= view.worldMinY && minY <= view.worldMaxY
    }

    private func addPolygons(_ level: BuiltInWorld.Level, cr: OpaquePointer, view: GroundView,
                             _ pts: inout [Double], _ scratch: inout [Double]) {
        let scale = view.worldSize / BuiltInWorld.quantisation
        for copy in view.wrapCopies {
            let k = Double(copy) * view.worldSize
            for part in level.parts where visible(part, scale: scale, k: k, view: view) {
                pts.removeAll(keepingCapacity: true)
                var inside = true
                part.points.withUnsafeBufferPointer { q in
                    let n = q.count / 2
                    for i in 0..<n {
                        let (gx, gy) = view.ground(worldX: Double(q[2 * i]) * scale + k, worldY: Double(q[2 * i + 1]) * scale)
                        if gx < view.minGX || gx > view.maxGX || gy < view.minGY || gy > view.maxGY { inside = false }
                        pts.append(gx); pts.append(gy)
                    }
                }
                if !inside {
                    RectClip.polygon(&pts, &scratch, minX: view.minGX, maxX: view.maxGX, minY: view.minGY, maxY: view.maxGY)
                }
                let n = pts.count / 2
                guard n >= 3 else { continue }
                for i in 0..<n {
                    let (sx, sy) = view.screen(pts[2 * i], pts[2 * i + 1])
                    if i == 0 { cairo_move_to(cr, sx, sy) } else { cairo_line_to(cr, sx, sy) }
                }
                cairo_close_path(cr)
            }
        }
    }

    private func addLines(_ level: BuiltInWorld.Level, cr: OpaquePointer, view: GroundView) {
        let scale = view.worldSize / BuiltInWorld.quantisation
        for copy in view.wrapCopies {
            let k = Double(copy) * view.worldSize
            for part in level.parts where visible(part, scale: scale, k: k, view: view) {
                part.points.withUnsafeBufferPointer { q in
                    let n = q.count / 2
                    var (px, py) = view.ground(worldX: Double(q[0]) * scale + k, worldY: Double(q[1]) * scale)
                    var penDown = false
                    for i in 1..<n {
                        let (gx, gy) = view.ground(worldX: Double(q[2 * i]) * scale + k, worldY: Double(q[2 * i + 1]) * scale)
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
    }
}

/// Draws place names (capitals with a dot, country names) upright at their projected points,
/// skipping any label that would overlap one already placed.
struct PlaceLabelPainter {
    let world: BuiltInWorld
    let style: MapStyle

    /// Draws the labels that fit and returns them, so taps can be matched with what is drawn.
    @discardableResult
    func paint(cr: OpaquePointer, view: GroundView, zoom: Double, text: TextRenderer) -> [DrawnPlace] {
        var drawn: [DrawnPlace] = []
        var placed: [(Double, Double, Double, Double)] = []
        func isFree(_ r: (Double, Double, Double, Double)) -> Bool {
            !placed.contains { r.0 < $0.2 && r.2 > $0.0 && r.1 < $0.3 && r.3 > $0.1 }
        }
        let cityStyle = TextRenderer.Style(sizePx: zoom >= 5 ? 13 : 12, bold: false, width: nil, maxLines: 1)
        let countryStyle = TextRenderer.Style(sizePx: 11, bold: true, width: nil, maxLines: 1)
        let cities = world.places.filter { $0.kind == .city && $0.minZoom <= zoom + 1e-9 }.sorted { $0.minZoom < $1.minZoom }
        for city in cities {
            guard let p = view.visiblePoint(city.coordinate, slack: 40) else { continue }
            // Towards a tilted horizon the ground shrinks: show only the more important places there.
            if view.tilted && city.minZoom > zoom - 2 && view.projection.scale(at: p) < 0.5 { continue }
            let layout = text.layout(city.name, cityStyle)
            let (w, h) = text.size(layout)
            let rect = (p.x - 3, p.y - h / 2, p.x + 6 + w, p.y + h / 2)
            guard isFree(rect) else { continue }
            placed.append(rect)
            drawn.append(DrawnPlace(name: city.name, kind: .city, coordinate: city.coordinate, point: p,
                                    frame: LabelFrame(x: rect.0, y: rect.1, width: rect.2 - rect.0, height: rect.3 - rect.1)))
            cairo_new_path(cr)
            cairo_arc(cr, p.x, p.y, 3, 0, 2 * .pi)
            cairo_set_source_rgb(cr, style.halo.r, style.halo.g, style.halo.b)
            cairo_fill_preserve(cr)
            cairo_set_source_rgb(cr, style.cityDot.r, style.cityDot.g, style.cityDot.b)
            cairo_set_line_width(cr, 1)
            cairo_fill(cr)
            text.drawWithHalo(layout, cr: cr, x: (p.x + 6).rounded(), y: (p.y - h / 2).rounded(), color: style.cityText, halo: style.halo)
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
