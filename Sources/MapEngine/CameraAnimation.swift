import Foundation
import TouchCore

/// Helpers to interpolate between cameras.
public enum CameraInterpolation {
    /// Signed degrees (-180..<180) to turn from one bearing to another the short way round.
    public static func shortestTurn(from a: Double, to b: Double) -> Double {
        var d = (b - a).truncatingRemainder(dividingBy: 360)
        if d >= 180 { d -= 360 } else if d < -180 { d += 360 }
        return d
    }

    /// Ease-in-out (smoothstep): 0 -> 0, 1 -> 1, zero speed at both ends.
    public static func ease(_ f: Double) -> Double {
        let x = min(max(f, 0), 1)
        return x * x * (3 - 2 * x)
    }

    /// Camera a fraction `f` (0...1, already eased) of the way from `a` to `b`: target in
    /// Web Mercator unit space (the short way round the antimeridian), zoom, bearing (short way)
    /// and tilt linearly.
    public static func camera(from a: CameraPosition, to b: CameraPosition, fraction f: Double) -> CameraPosition {
        if f >= 1 { return b }
        let ua = WebMercator.unitPoint(a.target), ub = WebMercator.unitPoint(b.target)
        var dx = ub.x - ua.x
        if dx > 0.5 { dx -= 1 } else if dx < -0.5 { dx += 1 }
        let u = Point(x: ua.x + f * dx, y: ua.y + f * (ub.y - ua.y))
        return CameraPosition(target: WebMercator.coordinate(unit: u),
                              zoom: a.zoom + f * (b.zoom - a.zoom),
                              bearing: a.bearing + f * shortestTurn(from: a.bearing, to: b.bearing),
                              tilt: a.tilt + f * (b.tilt - a.tilt))
    }
}

/// A timed camera animation. With a `focus`, the map point under the focus's screen point stays
/// there on every frame (double tap, two-finger tap); without, the target moves in Web Mercator.
struct CameraAnimation {
    struct Focus {
        var coordinate: Coordinate
        var screen: Point
    }
    var from: CameraPosition
    var to: CameraPosition
    var start: Double
    var duration: Double
    var focus: Focus?
    /// Whether a gesture started it (reported in willMove).
    var byGesture: Bool
    /// When set, the end follows the position source (entering following mode).
    var endFollowsSource: Bool
    /// A double-tap or two-finger-tap zoom step: the next step adds to its target.
    var isZoomStep = false

    var end: Double { start + duration }

    func fraction(at t: Double) -> Double {
        guard duration > 0 else { return 1 }
        return CameraInterpolation.ease((t - start) / duration)
    }
}

/// The law a fling follows after a pan is released with speed.
///
/// The velocity decays exponentially, v(t) = v0 * exp(-t / timeConstant), so the camera travels
/// d(t) = v0 * timeConstant * (1 - exp(-t / timeConstant)) and slows smoothly with no jerk at
/// release. The fling stops when the speed falls below `stopSpeed`, at
/// t_stop = timeConstant * ln(|v0| / stopSpeed), having travelled
/// v0 * timeConstant * (1 - stopSpeed / |v0|). A release slower than `minStartSpeed` gives no
/// fling; one faster than `maxStartSpeed` is capped.
public struct MomentumLaw: Sendable, Hashable, Codable {
    /// Seconds.
    public var timeConstant: Double
    /// px/s.
    public var minStartSpeed: Double
    /// px/s.
    public var stopSpeed: Double
    /// px/s.
    public var maxStartSpeed: Double

    public init(timeConstant: Double = 0.325, minStartSpeed: Double = 150, stopSpeed: Double = 10,
                maxStartSpeed: Double = 8000) {
        self.timeConstant = timeConstant
        self.minStartSpeed = minStartSpeed
        self.stopSpeed = stopSpeed
        self.maxStartSpeed = maxStartSpeed
    }

    /// The release velocity actually used (capped), or nil when too slow for a fling.
    public func startVelocity(_ v: Point) -> Point? {
        let s = v.length
        guard s.isFinite, s >= minStartSpeed, s > stopSpeed else { return nil }
        return s > maxStartSpeed ? v * (maxStartSpeed / s) : v
    }

    /// Seconds from release to stop for a start velocity.
    public func duration(_ v0: Point) -> Double {
        let s = v0.length
        guard s > stopSpeed else { return 0 }
        return timeConstant * log(s / stopSpeed)
    }

    /// Screen displacement (px) `t` seconds after release, capped at the stop time.
    public func displacement(_ v0: Point, after t: Double) -> Point {
        let tc = min(max(t, 0), duration(v0))
        return v0 * (timeConstant * (1 - exp(-tc / timeConstant)))
    }

    /// Speed (px/s) `t` seconds after release; 0 once stopped.
    public func speed(_ v0: Point, after t: Double) -> Double {
        t >= duration(v0) ? 0 : v0.length * exp(-max(t, 0) / timeConstant)
    }
}

/// A running fling.
struct Momentum {
    var velocity: Point
    var start: Double
    /// The finger's release point: the map point that was under it keeps moving with the fling.
    var origin: Point
    /// Displacement already applied.
    var applied: Point
    var law: MomentumLaw
    var end: Double { start + law.duration(velocity) }
}
