import Foundation
import TouchCore

/// How a shape is painted, by the de-facto GeoJSON "simplestyle" properties (stroke,
/// stroke-width, stroke-opacity, fill, fill-opacity, marker-color) plus what the map SDKs add
/// (a dash pattern, a casing under the line). Colours are 0xRRGGBB, widths screen px.
public struct ShapeStyle: Sendable, Hashable, Codable {
    /// Line (and polygon outline) colour; nil: no stroke.
    public var stroke: UInt32?
    public var strokeWidth: Double
    public var strokeOpacity: Double
    /// Polygon and circle fill; nil: no fill.
    public var fill: UInt32?
    public var fillOpacity: Double
    /// On/off lengths in px along the line (nil: solid).
    public var dash: [Double]?
    /// A darker line under the stroke (the navigation look); nil: none.
    public var casing: UInt32?
    /// The casing's extra width in px on each side of the stroke.
    public var casingWidth: Double
    /// A Point feature's pin colour.
    public var markerColor: UInt32?

    /// simplestyle-spec 1.1.0's defaults: #555555 lines 2 px wide, fill #555555 at 0.6.
    public init(stroke: UInt32? = 0x555555, strokeWidth: Double = 2, strokeOpacity: Double = 1,
                fill: UInt32? = 0x555555, fillOpacity: Double = 0.6, dash: [Double]? = nil,
                casing: UInt32? = nil, casingWidth: Double = 0, markerColor: UInt32? = nil) {
        self.stroke = stroke
        self.strokeWidth = strokeWidth
        self.strokeOpacity = strokeOpacity
        self.fill = fill
        self.fillOpacity = fillOpacity
        self.dash = dash
        self.casing = casing
        self.casingWidth = casingWidth
        self.markerColor = markerColor
    }

    /// The route's look: a 7 px blue line on a 2 px dark-blue casing each side.
    public static let route = ShapeStyle(stroke: 0x1A73E8, strokeWidth: 7, strokeOpacity: 1, fill: nil, fillOpacity: 0,
                                         casing: 0x0B4DA2, casingWidth: 2)
    /// The part of the route already travelled: grey on a darker grey casing.
    public static let routeTravelled = ShapeStyle(stroke: 0x9AA0A6, strokeWidth: 7, strokeOpacity: 1, fill: nil, fillOpacity: 0,
                                                  casing: 0x5F6368, casingWidth: 2)
}

/// One drawable shape of an overlay, in GeoJSON's terms but with coordinates as
/// `Coordinate(latitude:longitude:)`.
public enum ShapeGeometry: Sendable, Hashable {
    /// A line through the points (GMSPolyline). Geodesic lines are stored densified along the
    /// great circle (`Geodesy.densified`), so every consumer draws straight Mercator segments.
    case polyline([Coordinate])
    /// Rings: the outer boundary first, then holes (GMSPolygon with holes). A MultiPolygon is
    /// several shapes.
    case polygon([[Coordinate]])
    /// A circle on the ground: `radius` metres round `center` (GMSCircle).
    case circle(center: Coordinate, radius: Double)
    /// A PNG laid over a coordinate box (GMSGroundOverlay): turned `bearing` degrees clockwise
    /// about the box's centre, drawn at `opacity`.
    case groundImage(path: String, bounds: CoordinateBounds, bearing: Double, opacity: Double)
}

/// A shape with its style and the text a tap on it reports.
public struct OverlayShape: Sendable, Hashable {
    public var geometry: ShapeGeometry
    public var style: ShapeStyle
    public var title: String?
    public var description: String?

    public init(geometry: ShapeGeometry, style: ShapeStyle = ShapeStyle(), title: String? = nil, description: String? = nil) {
        self.geometry = geometry
        self.style = style
        self.title = title
        self.description = description
    }

    /// Rings as drawn: a polygon's rings, a circle's outline (`Geodesy.circle`), nothing else.
    public var rings: [[Coordinate]] {
        switch geometry {
        case .polygon(let r): return r
        case .circle(let c, let radius): return [Geodesy.circle(center: c, radius: radius)]
        case .polyline, .groundImage: return []
        }
    }

    /// Every coordinate that bounds the shape (for fitting the camera).
    public var extentCoordinates: [Coordinate] {
        switch geometry {
        case .polyline(let p): return p
        case .polygon(let r): return r.first ?? []
        case .circle: return rings.first ?? []
        case .groundImage(_, let b, _, _):
            return [Coordinate(latitude: b.south, longitude: b.west), Coordinate(latitude: b.north, longitude: b.west),
                    Coordinate(latitude: b.south, longitude: b.east), Coordinate(latitude: b.north, longitude: b.east)]
        }
    }
}

/// An overlay: one or more shapes (a GeoJSON FeatureCollection, or a single shape) under one id,
/// drawn in z-order with the other overlays, below markers and the info window. Point features
/// become `markers` (their ids are "OVERLAY/N").
public struct Overlay: Sendable, Hashable, Identifiable {
    public var id: String
    public var shapes: [OverlayShape]
    /// Markers from the overlay's Point features.
    public var markers: [Marker]
    /// Higher is drawn above and hit first; ties go to the overlay added later.
    public var zIndex: Int
    /// Whether a tap on it gives `didTapOverlay`.
    public var tappable: Bool
    public var title: String?

    public init(id: String, shapes: [OverlayShape], markers: [Marker] = [], zIndex: Int = 0, tappable: Bool = true,
                title: String? = nil) {
        self.id = id
        self.shapes = shapes
        self.markers = markers
        self.zIndex = zIndex
        self.tappable = tappable
        self.title = title
    }

    /// Every coordinate the overlay's shapes and markers reach (for `fit` and overview).
    public var extentCoordinates: [Coordinate] {
        shapes.flatMap(\.extentCoordinates) + markers.map(\.position)
    }

    /// A count of the coordinates it holds (limits: `OverlayLimits`).
    public var vertexCount: Int {
        shapes.reduce(markers.count) { n, s in
            switch s.geometry {
            case .polyline(let p): return n + p.count
            case .polygon(let r): return n + r.reduce(0) { $0 + $1.count }
            case .circle, .groundImage: return n + 1
            }
        }
    }
}

/// What a kiosk holds at most: a client or file asking for more is refused with a clear error.
public enum OverlayLimits {
    public static let maxOverlays = 10_000
    public static let maxShapesPerOverlay = 100_000
    /// Coordinates over all overlays.
    public static let maxVertices = 2_000_000
    /// A circle's radius, metres (a quarter of the Earth's circumference).
    public static let maxCircleRadius = 10_000_000.0
    public static let maxStrokeWidth = 64.0
    public static let maxDashes = 16
}

/// Distances and circles on the WGS 84 sphere (mean radius), as the map SDKs draw them.
public enum Geodesy {
    public static let earthRadius = 6_371_008.8

    /// The point `distance` metres from `start` in direction `bearing` (degrees clockwise from
    /// north), along the great circle.
    public static func destination(from start: Coordinate, distance: Double, bearing: Double) -> Coordinate {
        let d = distance / earthRadius, b = bearing * .pi / 180
        let la1 = start.latitude * .pi / 180, lo1 = start.longitude * .pi / 180
        let sinLa2 = sin(la1) * cos(d) + cos(la1) * sin(d) * cos(b)
        let la2 = asin(max(-1, min(1, sinLa2)))
        let lo2 = lo1 + atan2(sin(b) * sin(d) * cos(la1), cos(d) - sin(la1) * sinLa2)
        return Coordinate(latitude: la2 * 180 / .pi, longitude: CameraLimits.wrapLongitude(lo2 * 180 / .pi))
    }

    /// Great-circle distance in metres (haversine).
    public static func distance(_ a: Coordinate, _ b: Coordinate) -> Double {
        let la1 = a.latitude * .pi / 180, la2 = b.latitude * .pi / 180
        let dla = la2 - la1, dlo = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dla / 2) * sin(dla / 2) + cos(la1) * cos(la2) * sin(dlo / 2) * sin(dlo / 2)
        return 2 * earthRadius * asin(min(1, sqrt(h)))
    }

    /// A circle's outline on the ground: `segments` points `radius` metres from `center`
    /// (destinations along great circles, so true at every latitude; the ring is not closed).
    /// Latitudes are held inside Web Mercator's range.
    public static func circle(center: Coordinate, radius: Double, segments: Int = 96) -> [Coordinate] {
        let n = max(8, segments)
        return (0..<n).map { i in
            var c = destination(from: center, distance: radius, bearing: Double(i) * 360 / Double(n))
            c.latitude = max(-WebMercator.maxLatitude, min(WebMercator.maxLatitude, c.latitude))
            return c
        }
    }

    /// A line with points added along the great circle between its points, at most
    /// `maxStep` metres apart (a geodesic polyline); longitudes keep the short way round.
    public static func densified(_ points: [Coordinate], maxStep: Double = 50_000, maxPoints: Int = 200_000) -> [Coordinate] {
        guard points.count > 1 else { return points }
        var out: [Coordinate] = [points[0]]
        for i in 1..<points.count {
            let a = points[i - 1], b = points[i]
            let d = distance(a, b)
            let n = min(max(1, Int((d / maxStep).rounded(.up))), 512)
            if n > 1 && out.count + n < maxPoints {
                let la1 = a.latitude * .pi / 180, lo1 = a.longitude * .pi / 180
                let la2 = b.latitude * .pi / 180, lo2 = b.longitude * .pi / 180
                let delta = d / earthRadius
                for k in 1..<n where sin(delta) > 1e-12 {
                    let f = Double(k) / Double(n)
                    let A = sin((1 - f) * delta) / sin(delta), B = sin(f * delta) / sin(delta)
                    let x = A * cos(la1) * cos(lo1) + B * cos(la2) * cos(lo2)
                    let y = A * cos(la1) * sin(lo1) + B * cos(la2) * sin(lo2)
                    let z = A * sin(la1) + B * sin(la2)
                    out.append(Coordinate(latitude: atan2(z, sqrt(x * x + y * y)) * 180 / .pi,
                                          longitude: atan2(y, x) * 180 / .pi))
                }
            }
            out.append(b)
        }
        return out
    }
}

/// Where "you" are along the route: the position's nearest point on it (in Web Mercator), the
/// segment it lies on, and the route split there into the part travelled and the part ahead.
public struct RouteProgress: Sendable, Hashable {
    /// Index of the segment (points[segment] ... points[segment + 1]) holding the split.
    public var segment: Int
    /// The split point on that segment.
    public var point: Coordinate

    public init(segment: Int, point: Coordinate) {
        self.segment = segment
        self.point = point
    }

    /// The position's projection onto the route (nil for a route of fewer than two points).
    public static func of(_ position: Coordinate, on route: [Coordinate]) -> RouteProgress? {
        guard route.count > 1 else { return nil }
        let p = WebMercator.unitPoint(position)
        var best: (d: Double, seg: Int, u: Point)? = nil
        var prev = WebMercator.unitPoint(route[0])
        for i in 1..<route.count {
            var b = WebMercator.unitPoint(route[i])
            // The short way across the antimeridian, relative to the segment's start.
            if b.x - prev.x > 0.5 { b.x -= 1 } else if b.x - prev.x < -0.5 { b.x += 1 }
            var q = p
            if q.x - prev.x > 0.5 { q.x -= 1 } else if q.x - prev.x < -0.5 { q.x += 1 }
            let dx = b.x - prev.x, dy = b.y - prev.y
            let len2 = dx * dx + dy * dy
            let t = len2 > 0 ? max(0, min(1, ((q.x - prev.x) * dx + (q.y - prev.y) * dy) / len2)) : 0
            let u = Point(x: prev.x + t * dx, y: prev.y + t * dy)
            let d = (u.x - q.x) * (u.x - q.x) + (u.y - q.y) * (u.y - q.y)
            if best == nil || d < best!.d { best = (d, i - 1, u) }
            prev = WebMercator.unitPoint(route[i])
        }
        guard let b = best else { return nil }
        var u = b.u
        u.x = u.x - u.x.rounded(.down)
        return RouteProgress(segment: b.seg, point: WebMercator.coordinate(unit: u))
    }

    /// The route split at the progress point: travelled (start ... point) and ahead (point ... end).
    public func split(_ route: [Coordinate]) -> (travelled: [Coordinate], ahead: [Coordinate]) {
        guard segment + 1 < route.count else { return (route, []) }
        return (Array(route[0...segment]) + [point], [point] + Array(route[(segment + 1)...]))
    }
}
