import Foundation
import TouchCore

/// Camera target bounds (`[map] bounds`, GMS cameraTargetBounds): `CameraLimits.clamp` holds
/// the target inside on every change, so a drag against the edge stops there (and slides along
/// it), and dragging back moves the map at once. A fling that would carry the target out is
/// started slower, so that it decelerates to a stop at the edge instead of hitting it.
extension MapController {
    /// The fling `m`, slowed so that its whole travel ends inside the target bounds; nil when the
    /// target is already at the edge it would push against.
    func momentumSoftenedAtBounds(_ m: Momentum) -> Momentum? {
        guard let bounds = configuration.limits.targetBounds else { return m }
        let law = m.law
        let total = law.displacement(m.velocity, after: .infinity)
        guard total.length > 0 else { return m }
        // Unclamped: where the target would go without the bounds, in Web Mercator units (linear
        // in the screen displacement for a flat camera; near enough when tilted).
        var free = configuration.limits
        free.targetBounds = nil
        guard let unclamped = cameraKeepingUnbounded(screen: m.origin, at: m.origin + total, limits: free) else { return m }
        let a = WebMercator.unitPoint(camera.target), b = WebMercator.unitPoint(unclamped.target)
        let nw = WebMercator.unitPoint(Coordinate(latitude: bounds.north, longitude: bounds.west))
        let se = WebMercator.unitPoint(Coordinate(latitude: bounds.south, longitude: bounds.east))
        var f = 1.0
        func limit(_ from: Double, _ to: Double, _ lo: Double, _ hi: Double) {
            if to > hi, to > from { f = min(f, max(0, (hi - from) / (to - from))) }
            if to < lo, to < from { f = min(f, max(0, (lo - from) / (to - from))) }
        }
        limit(a.x, b.x, nw.x, se.x)
        limit(a.y, b.y, nw.y, se.y)
        guard f < 1 else { return m }
        // Travel is tau * (speed - stopSpeed): the start speed that travels f of the way.
        let speed = m.velocity.length
        let newSpeed = f * (speed - law.stopSpeed) + law.stopSpeed
        guard f > 1e-6, newSpeed > law.stopSpeed else { return nil }
        var soft = m
        soft.velocity = m.velocity * (newSpeed / speed)
        return soft
    }

    /// `cameraKeeping(screen:at:...)` with other limits (here: without the target bounds).
    func cameraKeepingUnbounded(screen from: Point, at to: Point, limits: CameraLimits) -> CameraPosition? {
        let saved = configuration.limits
        configuration.limits = limits
        defer { configuration.limits = saved }
        return cameraKeeping(screen: from, at: to, zoom: camera.zoom, bearing: camera.bearing, tilt: camera.tilt)
    }
}
