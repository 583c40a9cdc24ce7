import TouchCore

/// A latitude/longitude box, `[west, south, east, north]` in degrees as in GeoJSON bbox and
/// the configuration's `[map] bounds`. West is below east: a box across the antimeridian is
/// not supported (the configuration reader says so).
public struct CoordinateBounds: Sendable, Hashable, Codable {
    public var west: Double
    public var south: Double
    public var east: Double
    public var north: Double

    public init(west: Double, south: Double, east: Double, north: Double) {
        self.west = min(west, east)
        self.east = max(west, east)
        self.south = min(south, north)
        self.north = max(south, north)
    }

    /// The nearest coordinate inside the box: each axis is held at its edge on its own, so a
    /// drag against one edge still slides along it.
    public func clamp(_ c: Coordinate) -> Coordinate {
        Coordinate(latitude: min(max(c.latitude, south), north), longitude: min(max(c.longitude, west), east))
    }

    public func contains(_ c: Coordinate) -> Bool {
        (south...north).contains(c.latitude) && (west...east).contains(c.longitude)
    }

    /// South-west and north-east corners, for fitting the box on screen.
    public var corners: [Coordinate] {
        [Coordinate(latitude: south, longitude: west), Coordinate(latitude: north, longitude: east)]
    }
}
