import Foundation
import TouchCore

/// The range a camera may take, as in the phone SDKs.
///
/// - Zoom is kept in `minZoom...maxZoom` (default 0...20).
/// - The largest tilt grows with zoom: `lowZoomMaxTilt` (60 degrees) up to `lowZoom` (2), rising
///   linearly to `highZoomMaxTilt` (75 degrees) at `highZoom` (5) and staying there. At 75 degrees
///   the horizon shows: `Projection.horizonY` is `center.y - 1.5 * height / tan(tilt)`, a fifth of
///   the screen height from the top; at 60 degrees it is just off the top of the screen.
/// - Bearing is folded into 0..<360, latitude clamped to the Web Mercator range (+-85.0511
///   degrees) and longitude wrapped into -180..<180.
public struct CameraLimits: Sendable, Hashable, Codable {
    public var minZoom: Double
    public var maxZoom: Double
    /// Degrees; the tilt limit at and below `lowZoom`.
    public var lowZoomMaxTilt: Double
    /// Degrees; the tilt limit at and above `highZoom`.
    public var highZoomMaxTilt: Double
    public var lowZoom: Double
    public var highZoom: Double
    /// Where the camera target may go (GMS cameraTargetBounds, MapLibre maxBounds); nil: anywhere.
    public var targetBounds: CoordinateBounds?

    public init(minZoom: Double = 0, maxZoom: Double = 20, lowZoomMaxTilt: Double = 60,
                highZoomMaxTilt: Double = 75, lowZoom: Double = 2, highZoom: Double = 5,
                targetBounds: CoordinateBounds? = nil) {
        self.targetBounds = targetBounds
        self.minZoom = min(minZoom, maxZoom)
        self.maxZoom = max(minZoom, maxZoom)
        self.lowZoomMaxTilt = lowZoomMaxTilt
        self.highZoomMaxTilt = highZoomMaxTilt
        self.lowZoom = lowZoom
        self.highZoom = highZoom
    }

    /// Largest tilt (degrees) allowed at a zoom level.
    public func maxTilt(atZoom zoom: Double) -> Double {
        if zoom <= lowZoom { return lowZoomMaxTilt }
        if zoom >= highZoom { return highZoomMaxTilt }
        let f = (zoom - lowZoom) / (highZoom - lowZoom)
        return lowZoomMaxTilt + f * (highZoomMaxTilt - lowZoomMaxTilt)
    }

    public func clampZoom(_ zoom: Double) -> Double {
        guard zoom.isFinite else { return minZoom }
        return min(max(zoom, minZoom), maxZoom)
    }

    /// The camera brought inside the limits: zoom first, then tilt for that zoom, then bearing,
    /// latitude and longitude.
    public func clamp(_ camera: CameraPosition) -> CameraPosition {
        let zoom = clampZoom(camera.zoom)
        let tilt = camera.tilt.isFinite ? min(max(camera.tilt, 0), maxTilt(atZoom: zoom)) : 0
        let lat = camera.target.latitude.isFinite
            ? min(max(camera.target.latitude, -WebMercator.maxLatitude), WebMercator.maxLatitude) : 0
        let lon = camera.target.longitude.isFinite ? CameraLimits.wrapLongitude(camera.target.longitude) : 0
        let target = targetBounds?.clamp(Coordinate(latitude: lat, longitude: lon)) ?? Coordinate(latitude: lat, longitude: lon)
        return CameraPosition(target: target, zoom: zoom,
                              bearing: camera.bearing, tilt: tilt)
    }

    /// Longitude folded into -180..<180.
    public static func wrapLongitude(_ lon: Double) -> Double {
        if lon >= -180 && lon < 180 { return lon }
        var r = (lon + 180).truncatingRemainder(dividingBy: 360)
        if r < 0 { r += 360 }
        if r >= 360 { r = 0 }
        return r - 180
    }
}
