import Foundation
import TouchCore

/// Focal point, span and angle of two fingers: the quantities pinch, rotate, pan and tilt are
/// made of. Span and angle are worked out once, when the pair is seen (each is read several
/// times a frame, and atan2 was the recogniser's largest single cost).
struct TwoFingerGeometry: Sendable, Hashable {
    let a: Point
    let b: Point
    /// Distance between the fingers, px.
    let span: Double
    /// Direction from finger a to finger b, degrees clockwise on screen from +x (y points down).
    let angle: Double

    init(a: Point, b: Point) {
        self.a = a
        self.b = b
        span = a.distance(to: b)
        angle = atan2(b.y - a.y, b.x - a.x) * 180 / .pi
    }

    /// Midpoint of the two fingers.
    var focal: Point { (a + b) / 2 }
    /// The screen point at pair coordinates `u` (origin the focal point, unit the span, x along
    /// a -> b, y a quarter turn clockwise from it on screen).
    func point(atPair u: Point) -> Point {
        let d = b - a
        return focal + Point(x: u.x * d.x - u.y * d.y, y: u.x * d.y + u.y * d.x)
    }

    /// The pair coordinates of screen point `p` (inverse of `point(atPair:)`; zero for a pair
    /// with no span).
    func pairCoordinates(of p: Point) -> Point {
        let d = b - a
        let n = d.x * d.x + d.y * d.y
        guard n > 0 else { return .zero }
        let v = p - focal
        return Point(x: (v.x * d.x + v.y * d.y) / n, y: (v.y * d.x - v.x * d.y) / n)
    }

    /// Angle of the finger line from horizontal, 0...90 degrees.
    var lineAngleFromHorizontal: Double {
        let d = abs(angle).truncatingRemainder(dividingBy: 180)
        return min(d, 180 - d)
    }
}

/// `a - b` in degrees, normalised to -180..<180.
func angleDifference(_ a: Double, _ b: Double) -> Double {
    var d = a - b
    // fmod is the identity below 360 (the common case: two angles of one pair, frame to frame).
    if !(d.magnitude < 360) { d = d.truncatingRemainder(dividingBy: 360) }
    if d >= 180 { d -= 360 }
    if d < -180 { d += 360 }
    return d
}

/// Angle between two vectors, 0...180 degrees (0 when either is zero).
func angleBetween(_ u: Point, _ v: Point) -> Double {
    let lu = u.length, lv = v.length
    guard lu > 0, lv > 0 else { return 0 }
    let c = max(-1, min(1, (u.x * v.x + u.y * v.y) / (lu * lv)))
    return acos(c) * 180 / .pi
}

/// Angle of a vector from vertical, 0...90 degrees.
func angleFromVertical(_ v: Point) -> Double {
    atan2(abs(v.x), abs(v.y)) * 180 / .pi
}

/// Angle of a vector from horizontal, 0...90 degrees.
func angleFromHorizontal(_ v: Point) -> Double {
    atan2(abs(v.y), abs(v.x)) * 180 / .pi
}

/// Compact number for reasons and logs: one decimal, `String(format: "%.1f", x)` byte for byte
/// (reasons go into the event stream), without Foundation's format machinery: a gesture's
/// reasons cost more than all its frames did.
func fmt(_ x: Double) -> String { FixedDecimal.string(x, decimals: 1) ?? String(format: "%.1f", x) }
