import Foundation
import TouchBridge
import TouchDevices
import TouchCore
import MapEngine
import CCairo

/// What the demo tours show beside the gestures (issue 26): a route with the puck moving along
/// it (its travelled part grey), a polygon, a circle and a ground overlay (a floor plan drawn
/// once into the output folder), and a tap on one overlay.
package struct DemoOverlays: Sendable {
    public var route: [Coordinate]
    /// The puck's track along the route (seconds from the tour's first input).
    public var track: [TrackPoint]
    /// The polygon, circle and ground overlay (the ground image's path is filled in by `with(floorPlan:)`).
    public var overlays: [Overlay]
    /// The overlay the tour taps, and where (a coordinate inside it).
    public var tapped: (id: String, at: Coordinate)
    public var accuracy: Double

    /// The world tour: the demo track through central Europe as the route, the Alps as a
    /// polygon, a circle round Vienna, a floor plan laid over Poland.
    public static let world: DemoOverlays = {
        let route = DemoTrack.points.map(\.coordinate)
        let alps: [Coordinate] = [(45.6, 6.8), (46.0, 6.1), (46.6, 7.0), (47.2, 9.5), (47.6, 11.0), (47.7, 13.0), (47.3, 15.5),
                                  (46.5, 15.8), (46.1, 13.8), (46.3, 11.0), (45.8, 9.0), (45.3, 7.6)]
            .map { Coordinate(latitude: $0.0, longitude: $0.1) }
        let alpsStyle = ShapeStyle(stroke: 0x2E7D32, strokeWidth: 2, strokeOpacity: 0.9, fill: 0x66BB6A, fillOpacity: 0.45)
        let circleStyle = ShapeStyle(stroke: 0x6A1B9A, strokeWidth: 2, strokeOpacity: 1, fill: 0xAB47BC, fillOpacity: 0.35)
        let overlays = [
            Overlay(id: "alps", shapes: [OverlayShape(geometry: .polygon([alps]), style: alpsStyle, title: "The Alps")], zIndex: 0, title: "The Alps"),
            Overlay(id: "vienna", shapes: [OverlayShape(geometry: .circle(center: Coordinate(latitude: 48.2082, longitude: 16.3738), radius: 150_000),
                                                        style: circleStyle, title: "150 km round Vienna")], zIndex: 1, title: "150 km round Vienna"),
            Overlay(id: "floor-plan", shapes: [OverlayShape(geometry: .groundImage(path: "", bounds: CoordinateBounds(west: 17.0, south: 50.5, east: 24.0, north: 54.0),
                                                                                    bearing: 0, opacity: 0.85), title: "Floor plan")], zIndex: 2, tappable: false,
                    title: "Floor plan"),
        ]
        let track = DemoTrack.points.map { TrackPoint(time: $0.time / 4, coordinate: $0.coordinate, heading: $0.heading) }
        return DemoOverlays(route: route, track: track, overlays: overlays,
                            tapped: ("alps", Coordinate(latitude: 46.9, longitude: 11.0)), accuracy: 25_000)
    }()

    /// The street tour: a walk through Vaduz as the route, the Städtle's square as a polygon, a
    /// circle round the castle, the museum's floor plan on its block.
    public static let street: DemoOverlays = {
        let walk: [Coordinate] = [(47.1426, 9.5178), (47.1417, 9.5196), (47.1408, 9.5209), (47.1399, 9.5217), (47.1390, 9.5215),
                                  (47.1381, 9.5211), (47.1372, 9.5206)]
            .map { Coordinate(latitude: $0.0, longitude: $0.1) }
        var track: [TrackPoint] = []
        for (i, c) in walk.enumerated() {
            let n = walk[min(i + 1, walk.count - 1)], p = i + 1 < walk.count ? c : walk[i - 1]
            let heading = atan2((n.longitude - p.longitude) * cos(p.latitude * .pi / 180), n.latitude - p.latitude) * 180 / .pi
            track.append(TrackPoint(time: Double(i) * 6, coordinate: c, heading: CameraPosition.normalizedBearing(heading)))
        }
        let square: [Coordinate] = [(47.14105, 9.5199), (47.14125, 9.5212), (47.14055, 9.5216), (47.14035, 9.5203)]
            .map { Coordinate(latitude: $0.0, longitude: $0.1) }
        let squareStyle = ShapeStyle(stroke: 0xE65100, strokeWidth: 3, strokeOpacity: 1, fill: 0xFFB74D, fillOpacity: 0.5, dash: [8, 5])
        let circleStyle = ShapeStyle(stroke: 0x6A1B9A, strokeWidth: 2, strokeOpacity: 1, fill: 0xAB47BC, fillOpacity: 0.3)
        let overlays = [
            Overlay(id: "market", shapes: [OverlayShape(geometry: .polygon([square]), style: squareStyle, title: "Market square")], zIndex: 0,
                    title: "Market square"),
            Overlay(id: "castle-area", shapes: [OverlayShape(geometry: .circle(center: Coordinate(latitude: 47.1394, longitude: 9.5250), radius: 90),
                                                             style: circleStyle, title: "Castle grounds")], zIndex: 1, title: "Castle grounds"),
            Overlay(id: "floor-plan", shapes: [OverlayShape(geometry: .groundImage(path: "", bounds: CoordinateBounds(west: 9.5206, south: 47.13815, east: 9.5218, north: 47.13885),
                                                                                    bearing: 20, opacity: 0.9), title: "Museum floor plan")], zIndex: 2,
                    tappable: false, title: "Museum floor plan"),
        ]
        return DemoOverlays(route: walk, track: track, overlays: overlays,
                            tapped: ("market", Coordinate(latitude: 47.1408, longitude: 9.5207)), accuracy: 12)
    }()

    /// The overlays with the ground overlays' image set to `path`.
    public func with(floorPlan path: String) -> [Overlay] {
        overlays.map { o in
            var o = o
            o.shapes = o.shapes.map { s in
                var s = s
                if case .groundImage(_, let b, let bearing, let opacity) = s.geometry {
                    s.geometry = .groundImage(path: path, bounds: b, bearing: bearing, opacity: opacity)
                }
                return s
            }
            return o
        }
    }

    /// Draws a simple floor plan (walls, rooms, a corridor, labels' boxes) as a PNG.
    public static func writeFloorPlan(to path: String, width: Int = 320, height: Int = 200) throws {
        guard let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height)) else {
            throw DemoError(description: "cannot make the floor plan image")
        }
        defer { cairo_surface_destroy(s) }
        let cr = cairo_create(s)!
        defer { cairo_destroy(cr) }
        let w = Double(width), h = Double(height)
        cairo_set_source_rgba(cr, 0.98, 0.96, 0.90, 0.95)
        cairo_paint(cr)
        // Rooms.
        let rooms: [(Double, Double, Double, Double, (Double, Double, Double))] = [
            (0.03, 0.05, 0.30, 0.50, (0.73, 0.87, 0.98)), (0.35, 0.05, 0.30, 0.50, (0.98, 0.85, 0.73)),
            (0.67, 0.05, 0.30, 0.50, (0.80, 0.93, 0.78)), (0.03, 0.68, 0.45, 0.27, (0.93, 0.80, 0.93)),
            (0.52, 0.68, 0.45, 0.27, (0.98, 0.95, 0.70)),
        ]
        for r in rooms {
            cairo_rectangle(cr, r.0 * w, r.1 * h, r.2 * w, r.3 * h)
            cairo_set_source_rgb(cr, r.4.0, r.4.1, r.4.2)
            cairo_fill_preserve(cr)
            cairo_set_source_rgb(cr, 0.25, 0.25, 0.28)
            cairo_set_line_width(cr, 3)
            cairo_stroke(cr)
        }
        // The outer wall and the corridor's doors.
        cairo_set_line_width(cr, 5)
        cairo_rectangle(cr, 2.5, 2.5, w - 5, h - 5)
        cairo_stroke(cr)
        cairo_set_source_rgb(cr, 0.85, 0.15, 0.15)
        cairo_arc(cr, w * 0.5, h * 0.61, 6, 0, 2 * .pi)
        cairo_fill(cr)
        cairo_surface_flush(s)
        let status = cairo_surface_write_to_png(s, path)
        guard status == CAIRO_STATUS_SUCCESS else { throw DemoError(description: "cannot write \(path)") }
    }
}
