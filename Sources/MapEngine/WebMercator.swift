import Foundation
import TouchCore

/// Web Mercator (EPSG:3857) in "world pixels": at zoom z the world is 256 * 2^z pixels wide,
/// x grows east from longitude -180, y grows south from latitude +85.0511.
public enum WebMercator {
    public static let tileSize = 256.0
    public static let maxLatitude = 85.05112877980659

    public static func worldSize(zoom: Double) -> Double { tileSize * pow(2, zoom) }

    /// Normalised 0...1 world position (x east, y south).
    public static func unitPoint(_ c: Coordinate) -> Point {
        let lat = min(max(c.latitude, -maxLatitude), maxLatitude) * .pi / 180
        let x = (c.longitude + 180) / 360
        let y = (1 - log(tan(lat) + 1 / cos(lat)) / .pi) / 2
        return Point(x: x, y: y)
    }

    /// The coordinate at a normalised world position; longitude wraps into -180..<180.
    public static func coordinate(unit p: Point) -> Coordinate {
        var lon = p.x * 360 - 180
        lon = (lon + 180).truncatingRemainder(dividingBy: 360)
        if lon < 0 { lon += 360 }
        lon -= 180
        let n = Double.pi * (1 - 2 * p.y)
        let lat = atan(sinh(n)) * 180 / .pi
        return Coordinate(latitude: lat, longitude: lon)
    }

    public static func worldPoint(_ c: Coordinate, zoom: Double) -> Point {
        unitPoint(c) * worldSize(zoom: zoom)
    }

    public static func coordinate(world p: Point, zoom: Double) -> Coordinate {
        coordinate(unit: p / worldSize(zoom: zoom))
    }
}
