import Foundation
import TouchCore

/// A WGS84 coordinate in degrees.
public struct Coordinate: Sendable, Hashable, Codable, CustomStringConvertible {
    public var latitude: Double
    public var longitude: Double
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
    public var description: String { "(\(latitude), \(longitude))" }
}

/// Where the camera looks, as in the phone map SDKs: the target is at the centre of the screen,
/// zoom z shows a world 256 * 2^z pixels wide, bearing is degrees clockwise from north (0..<360),
/// tilt (viewing angle) is degrees away from straight down.
public struct CameraPosition: Sendable, Hashable, Codable, CustomStringConvertible {
    public var target: Coordinate
    public var zoom: Double
    public var bearing: Double
    public var tilt: Double

    public init(target: Coordinate, zoom: Double, bearing: Double = 0, tilt: Double = 0) {
        self.target = target
        self.zoom = zoom
        self.bearing = CameraPosition.normalizedBearing(bearing)
        self.tilt = tilt
    }

    /// Bearing folded into 0..<360.
    public static func normalizedBearing(_ b: Double) -> Double {
        guard b.isFinite else { return 0 }
        var r = b.truncatingRemainder(dividingBy: 360)
        if r < 0 { r += 360 }
        if r >= 360 { r = 0 }
        return r
    }

    public var description: String {
        String(format: "lat %.5f lon %.5f zoom %.3f bearing %.1f tilt %.1f",
               target.latitude, target.longitude, zoom, bearing, tilt)
    }
}
