import Foundation

/// How the camera is driven, as in the Navigation SDK.
public enum CameraMode: String, Sendable, Hashable, Codable, CaseIterable {
    /// Follows the position source: centred on it, tilted, facing its heading.
    case following
    /// Shows the whole route (or all markers).
    case overview
    /// The user moved the map; returns to following after a quiet interval.
    case free
}

/// One sample of a position source.
public struct PositionFix: Sendable, Hashable, Codable {
    public var coordinate: Coordinate
    /// Degrees clockwise from north.
    public var heading: Double
    /// Horizontal accuracy (radius, metres), when the source says.
    public var accuracy: Double?
    /// Whether `heading` is known (a fix from a standing receiver has none): following mode then
    /// keeps the camera's bearing.
    public var headingKnown: Bool

    public init(coordinate: Coordinate, heading: Double = 0, accuracy: Double? = nil, headingKnown: Bool = true) {
        self.coordinate = coordinate
        self.heading = heading
        self.accuracy = accuracy
        self.headingKnown = headingKnown
    }

    enum CodingKeys: String, CodingKey { case coordinate, heading, accuracy, headingKnown }

    /// Reads fixes written before `accuracy` and `headingKnown` existed (heading known).
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(coordinate: try c.decode(Coordinate.self, forKey: .coordinate),
                  heading: try c.decodeIfPresent(Double.self, forKey: .heading) ?? 0,
                  accuracy: try c.decodeIfPresent(Double.self, forKey: .accuracy),
                  headingKnown: try c.decodeIfPresent(Bool.self, forKey: .headingKnown) ?? true)
    }
}

/// One point of a scripted track.
public struct TrackPoint: Sendable, Hashable, Codable {
    /// Seconds, on the same clock as the controller.
    public var time: Double
    public var coordinate: Coordinate
    public var heading: Double
    public init(time: Double, coordinate: Coordinate, heading: Double) {
        self.time = time
        self.coordinate = coordinate
        self.heading = heading
    }
}

/// Where "you" are. Pure: the controller asks for the value at a time.
public enum PositionSource: Sendable, Hashable, Codable {
    /// A fixed position from the configuration ("you are here").
    case fixed(PositionFix)
    /// A scripted track, linearly interpolated between points (heading the short way round),
    /// held at its first point before it starts and at its last point after it ends.
    case track([TrackPoint])

    public func fix(at time: Double) -> PositionFix? {
        switch self {
        case .fixed(let f): return f
        case .track(let raw):
            let pts = raw.sorted { $0.time < $1.time }
            guard let first = pts.first, let last = pts.last else { return nil }
            if time <= first.time { return PositionFix(coordinate: first.coordinate, heading: first.heading) }
            if time >= last.time { return PositionFix(coordinate: last.coordinate, heading: last.heading) }
            for i in 1..<pts.count where time <= pts[i].time {
                let a = pts[i - 1], b = pts[i]
                let f = b.time > a.time ? (time - a.time) / (b.time - a.time) : 1
                var dLon = b.coordinate.longitude - a.coordinate.longitude
                if dLon > 180 { dLon -= 360 } else if dLon < -180 { dLon += 360 }
                let c = Coordinate(latitude: a.coordinate.latitude + f * (b.coordinate.latitude - a.coordinate.latitude),
                                   longitude: CameraLimits.wrapLongitude(a.coordinate.longitude + f * dLon))
                let h = CameraPosition.normalizedBearing(a.heading + f * CameraInterpolation.shortestTurn(from: a.heading, to: b.heading))
                return PositionFix(coordinate: c, heading: h)
            }
            return PositionFix(coordinate: last.coordinate, heading: last.heading)
        }
    }

    /// The same source with a track's times moved by `dt` seconds, e.g. to start a track
    /// scripted from 0 at the loop's monotonic time of the first input event.
    public func shifted(by dt: Double) -> PositionSource {
        switch self {
        case .fixed: return self
        case .track(let pts):
            return .track(pts.map { TrackPoint(time: $0.time + dt, coordinate: $0.coordinate, heading: $0.heading) })
        }
    }

    /// The earliest time from `time` on at which the value changes: `time` itself while a
    /// track runs, its start before it starts, nil when it will not change any more.
    public func nextChange(after time: Double) -> Double? {
        switch self {
        case .fixed: return nil
        case .track(let pts):
            guard let start = pts.map(\.time).min(), let end = pts.map(\.time).max(), time < end else { return nil }
            return max(time, start)
        }
    }

    /// Whether the value may change after `time` (so a following camera needs frames).
    public func isMoving(at time: Double) -> Bool {
        switch self {
        case .fixed: return false
        case .track(let pts):
            guard let end = pts.map(\.time).max() else { return false }
            return time < end
        }
    }
}
