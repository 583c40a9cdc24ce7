import Foundation
import TouchCore

/// The camera that shows a set of coordinates, north up and flat, as large as fits the screen
/// less `padding` px on every side.
public enum CameraFit {
    public static func camera(fitting coordinates: [Coordinate], screen: Size, padding: Double,
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
        let w = max(screen.width - 2 * padding, 1), h = max(screen.height - 2 * padding, 1)
        var zoom = min(maxZoom, limits.maxZoom)
        if spanX > 0 { zoom = min(zoom, log2(w / (spanX * WebMercator.tileSize))) }
        if spanY > 0 { zoom = min(zoom, log2(h / (spanY * WebMercator.tileSize))) }
        let target = WebMercator.coordinate(unit: Point(x: centerX, y: (minY + maxY) / 2))
        return limits.clamp(CameraPosition(target: target, zoom: zoom, bearing: 0, tilt: 0))
    }
}
