import Foundation
import MapEngine

/// The tiles of one zoom level a view needs, cut to the tile set's bounds, or nil when they are
/// more than a frame may touch. A tile set whose min zoom lies above the camera's (a city
/// extract from zoom 14 seen at zoom 3) would otherwise mean millions of tile queries per frame
/// (a frozen kiosk); cut to its bounds it is a handful, and beyond the limit the base map shows.
struct TileGrid {
    /// Tile rows (y), within 0..<2^z.
    let rows: ClosedRange<Int>
    /// Tile columns, not wrapped (one range per copy of the world the view shows).
    let columns: [ClosedRange<Int>]
    var count: Int { rows.count * columns.reduce(0) { $0 + $1.count } }

    init?(view: GroundView, z: Int, bounds: (west: Double, south: Double, east: Double, north: Double)?, limit: Int) {
        guard z >= 0, z <= 30 else { return nil }
        let n = 1 << z
        let span = view.worldSize / Double(n)
        func tile(_ v: Double) -> Int { Int(max(min(floor(v / span), 4e9), -4e9)) }
        var y0 = max(0, tile(view.worldMinY)), y1 = min(n - 1, tile(view.worldMaxY))
        let x0 = tile(view.worldMinX), x1 = tile(view.worldMaxX)
        guard y0 <= y1, x0 <= x1, x1 - x0 < 4 * n + 4 else { return nil }
        var columns = [x0...x1]
        if let b = bounds, b.west < b.east, b.south < b.north, b.west >= -180, b.east <= 180 {
            // Tiles of the bounds at zoom z (a bounds across the antimeridian is not cut).
            let nw = WebMercator.worldPoint(Coordinate(latitude: min(b.north, 85.06), longitude: b.west), zoom: Double(z))
            let se = WebMercator.worldPoint(Coordinate(latitude: max(b.south, -85.06), longitude: b.east), zoom: Double(z))
            let tileSize = WebMercator.tileSize
            let bx0 = max(0, Int(floor(nw.x / tileSize))), bx1 = min(n - 1, Int(floor(se.x / tileSize)))
            let by0 = max(0, Int(floor(nw.y / tileSize))), by1 = min(n - 1, Int(floor(se.y / tileSize)))
            y0 = max(y0, by0); y1 = min(y1, by1)
            guard y0 <= y1, bx0 <= bx1 else { return nil }
            columns = []
            // Each copy of the world in view (x0...x1 may run past either edge).
            let firstCopy = Int((Double(x0) / Double(n)).rounded(.down)), lastCopy = Int((Double(x1) / Double(n)).rounded(.down))
            for k in firstCopy...lastCopy {
                let lo = max(x0, k * n + bx0), hi = min(x1, k * n + bx1)
                if lo <= hi { columns.append(lo...hi) }
            }
            guard !columns.isEmpty else { return nil }
        }
        rows = y0...y1
        self.columns = columns
        guard count <= limit else { return nil }
    }
}
