import Foundation
import TouchCore

/// Turns coordinates into screen points and back for one camera and screen size, with bearing
/// and a perspective tilt. Shared by the controller (hit tests, gestures) and the renderer, so
/// that a marker is drawn exactly where a tap finds it.
///
/// The ground plane is seen by a pinhole camera aimed at the screen centre from a distance
/// `cameraDistance` (1.5 x the screen height: a 36.87 degree vertical field of view, as in
/// Mapbox/MapLibre), tilted by `camera.tilt` about the screen's horizontal axis. At the centre
/// one world pixel is one screen pixel whatever the tilt. The horizon is at
/// `center.y - cameraDistance / tan(tilt)`.
public struct Projection: Sendable, Equatable {
    public let camera: CameraPosition
    public let screen: Size
    /// Distance from the eye to the screen centre, in pixels.
    public let cameraDistance: Double
    /// Target in world pixels at the camera's zoom.
    public let centerWorld: Point
    public let worldSize: Double
    private let cosB: Double, sinB: Double, cosT: Double, sinT: Double

    public init(camera: CameraPosition, screen: Size) {
        self.init(camera: camera, screen: screen, cameraDistance: 1.5 * screen.height)
    }

    /// A camera whose eye is `cameraDistance` px from the screen centre instead of 1.5 x the
    /// screen's height: the same camera on a larger screen with the same distance sees what the
    /// smaller screen sees, pixel for pixel, plus a margin (the renderer's ground cache).
    public init(camera: CameraPosition, screen: Size, cameraDistance: Double) {
        self.camera = camera
        self.screen = screen
        self.cameraDistance = cameraDistance
        self.worldSize = WebMercator.worldSize(zoom: camera.zoom)
        self.centerWorld = WebMercator.worldPoint(camera.target, zoom: camera.zoom)
        let b = camera.bearing * .pi / 180, t = camera.tilt * .pi / 180
        cosB = cos(b); sinB = sin(b); cosT = cos(t); sinT = sin(t)
    }

    /// Screen y of the horizon, or nil when the ground fills every direction (no tilt).
    public var horizonY: Double? {
        guard sinT > 1e-9 else { return nil }
        return screen.center.y - cameraDistance * cosT / sinT
    }

    // MARK: world pixels <-> screen

    /// Ground offset from the centre (world px, rotated by bearing so y is "screen down") for a world point.
    @inline(__always)
    func groundOffset(world p: Point) -> Point {
        var dx = p.x - centerWorld.x
        // Take the shortest way round the antimeridian so the map wraps.
        if dx > worldSize / 2 { dx -= worldSize } else if dx < -worldSize / 2 { dx += worldSize }
        let dy = p.y - centerWorld.y
        return Point(x: dx * cosB + dy * sinB, y: -dx * sinB + dy * cosB)
    }

    /// Screen point for a ground offset; nil when the point is behind the eye.
    @inline(__always)
    public func screenPoint(ground g: Point) -> Point? {
        let depth = cameraDistance - g.y * sinT
        guard depth > 1e-6 else { return nil }
        let k = cameraDistance / depth
        return Point(x: screen.center.x + g.x * k, y: screen.center.y + g.y * cosT * k)
    }

    /// Ground offset under a screen point; nil above the horizon.
    public func groundOffset(screen s: Point) -> Point? {
        let sx = s.x - screen.center.x, sy = s.y - screen.center.y
        let den = cameraDistance * cosT + sy * sinT
        guard den > 1e-9 else { return nil }
        let gy = sy * cameraDistance / den
        let gx = sx * (cameraDistance - gy * sinT) / cameraDistance
        return Point(x: gx, y: gy)
    }

    /// World point (at the camera's zoom) for a ground offset.
    public func worldPoint(ground g: Point) -> Point {
        let dx = g.x * cosB - g.y * sinB
        let dy = g.x * sinB + g.y * cosB
        return Point(x: centerWorld.x + dx, y: centerWorld.y + dy)
    }

    public func screenPoint(world p: Point) -> Point? { screenPoint(ground: groundOffset(world: p)) }

    public func worldPoint(screen s: Point) -> Point? {
        groundOffset(screen: s).map { worldPoint(ground: $0) }
    }

    // MARK: coordinates <-> screen

    /// Where a coordinate appears on screen (possibly off-screen); nil when behind the eye.
    public func point(for c: Coordinate) -> Point? {
        screenPoint(world: WebMercator.worldPoint(c, zoom: camera.zoom))
    }

    /// The coordinate under a screen point; nil above the horizon.
    public func coordinate(at s: Point) -> Coordinate? {
        worldPoint(screen: s).map { WebMercator.coordinate(world: $0, zoom: camera.zoom) }
    }

    /// Screen pixels per world pixel at a screen point (1 at the centre; smaller towards the horizon).
    public func scale(at s: Point) -> Double {
        guard let g = groundOffset(screen: s) else { return 0 }
        return cameraDistance / (cameraDistance - g.y * sinT)
    }
}
