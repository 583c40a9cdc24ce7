import Foundation
import TouchCore

/// Room (px) to leave free on each side of the screen when fitting a camera.
public struct FitInsets: Sendable, Hashable, Codable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double, left: Double, bottom: Double, right: Double) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// The same room on every side.
    public init(all padding: Double) { self.init(top: padding, left: padding, bottom: padding, right: padding) }
}

/// The camera that shows a set of coordinates, north up and flat, as large as fits the screen
/// less `padding` px on every side (or per-side `insets`).
public enum CameraFit {
    public static func camera(fitting coordinates: [Coordinate], screen: Size, padding: Double,
                              limits: CameraLimits, maxZoom: Double) -> CameraPosition? {
        camera(fitting: coordinates, screen: screen, insets: FitInsets(all: padding), limits: limits, maxZoom: maxZoom)
    }

    /// The coordinates fill the screen less `insets`: the box between the insets is centred on
    /// them, so unequal insets move the target off their middle.
    public static func camera(fitting coordinates: [Coordinate], screen: Size, insets: FitInsets,
                              limits: CameraLimits, maxZoom: Double) -> CameraPosition? {
        guard !coordinates.isEmpty else { return nil }
        let units = coordinates.map { WebMercator.unitPoint($0) }
        // Longitude: the smallest arc holding every point, found as the complement of the
        // largest gap between neighbours around the (wrapping) world.
        let xs = units.map(\.x).sorted()
        var gapEnd = xs[0], gap = xs[0] + 1 - xs[xs.count - 1]   // the gap across the antimeridian
        for i in 1..<xs.count where xs[i] - xs[i - 1] > gap {
            gap = xs[i] - xs[i - 1]
            gapEnd = xs[i]
        }
        let spanX = max(0, 1 - gap)
        let centerX = gapEnd + spanX / 2
        let ys = units.map(\.y)
        let minY = ys.min()!, maxY = ys.max()!
        let spanY = maxY - minY
        let w = max(screen.width - insets.left - insets.right, 1), h = max(screen.height - insets.top - insets.bottom, 1)
        var zoom = min(maxZoom, limits.maxZoom)
        if spanX > 0 { zoom = min(zoom, log2(w / (spanX * WebMercator.tileSize))) }
        if spanY > 0 { zoom = min(zoom, log2(h / (spanY * WebMercator.tileSize))) }
        zoom = limits.clampZoom(zoom)
        // The free box's centre sits (left - right) / 2, (top - bottom) / 2 px off the screen's.
        let world = WebMercator.worldSize(zoom: zoom)
        let shift = Point(x: (insets.left - insets.right) / 2 / world, y: (insets.top - insets.bottom) / 2 / world)
        let target = WebMercator.coordinate(unit: Point(x: centerX - shift.x, y: (minY + maxY) / 2 - shift.y))
        return limits.clamp(CameraPosition(target: target, zoom: zoom, bearing: 0, tilt: 0))
    }
}
