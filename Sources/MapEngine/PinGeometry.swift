import Foundation
import TouchCore

/// The default marker pin, shared by the renderer (which draws it) and the controller (which
/// hit-tests taps against it), so a tap finds exactly what is drawn. The pin's tip is at the
/// marker's coordinate; its round head sits above the tip.
public enum PinGeometry {
    /// Radius of the round head, px.
    public static let headRadius = 12.0
    /// Distance from the tip up to the centre of the head, px.
    public static let headHeight = 30.0
    /// Overall box: width, height above the tip.
    public static var size: Size { Size(width: 2 * headRadius, height: headHeight + headRadius) }

    /// Centre of the head for a pin whose tip is at `tip`.
    public static func headCenter(tip: Point) -> Point { Point(x: tip.x, y: tip.y - headHeight) }

    /// Whether a screen point is on the pin: the head disc or the triangle from the tip to the
    /// head's tangent points.
    public static func contains(_ p: Point, tip: Point) -> Bool {
        let c = headCenter(tip: tip)
        if p.distance(to: c) <= headRadius { return true }
        // Tangent points from the tip to the circle.
        let d = headHeight
        let r = headRadius
        let ang = asin(r / d)            // half-angle of the cone at the tip
        let dy = tip.y - p.y              // height of p above the tip
        guard dy >= 0, dy <= d else { return false }
        let halfWidth = dy * tan(ang)
        return abs(p.x - tip.x) <= halfWidth
    }
}
