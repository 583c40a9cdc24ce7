import CCairo
import Foundation
import VectorTiles

/// The sea under a street map whose tiles carry none.
///
/// OpenMapTiles tiles have no land layer: the style's background is the land, and the sea is
/// the `water` layer's ocean polygons, which tilemaker makes only from a coastline shapefile it
/// is given. A tile set made without one (an extract) would show the sea in the background's
/// land colour. So under the tile layers, just above the background, the street map paints the
/// built-in Natural Earth ocean (the land polygons' complement) in the style's water colour:
/// where the tiles have their own water it is covered, elsewhere it shows.
///
/// A view on land (all of it on one side of every Natural Earth coast) gets no sea at all: its
/// frame is the frame without this, byte for byte.
///
/// The land is cut into cells of a coarse tile grid once (`StreetSeaCache`), so a frame only
/// clips the few rings of the cells it overlaps; an inland cell is one rectangle.
enum StreetSea {
    /// The style's water colour for the open sea: the first visible fill layer on the `water`
    /// source layer whose filter takes an ocean polygon (`class` "ocean"), with its opacity; nil
    /// when the style has none (the caller picks a default).
    static func waterColor(style: StreetStyle, styleZoom sz: Double) -> StyleColor? {
        let ocean = StyleContext(zoom: sz, properties: ["class": .string("ocean")], geometryType: .polygon)
        for layer in style.layers where layer.type == .fill && layer.sourceLayer == "water" && layer.shows(zoom: sz) {
            if let f = layer.filter, !f.evaluate(ocean).isTruthy { continue }
            guard let c = layer.fill.color.evaluate(ocean) else { continue }
            let o = layer.fill.opacity.evaluate(ocean) ?? 1
            guard o > 0, c.a > 0 else { continue }
            return c.withOpacity(o)
        }
        return nil
    }

    /// The sea's path in the view (even-odd: the area's outline and the land's rings inside
    /// it), on cr; false when the view's area holds no sea (nothing was added).
    /// `area` is the street map's ground in world pixels at the camera zoom (the tile set's
    /// bounds, or nil: the whole world).
    static func addPath(world: BuiltInWorld, cache: StreetSeaCache, view: GroundView, zoom: Double,
                        area: (minX: Double, minY: Double, maxX: Double, maxY: Double)?, cr: OpaquePointer) -> Bool {
        guard let level = world.level("land", zoom: zoom) else { return false }
        let q = BuiltInWorld.quantisation
        let toUnits = q / view.worldSize, toWorld = view.worldSize / q
        let cz = cellZoom(zoom)
        let cells = 1 << cz
        let cellSize = q / Double(cells)
        var added = false
        var rings: [[Double]] = []
        var pts: [Double] = [], scratch: [Double] = []
        for copy in view.wrapCopies {
            let k = Double(copy) * view.worldSize
            // The rectangle this copy of the world shows of the street map, in quantised units.
            var r = (minX: (view.worldMinX - k) * toUnits, minY: view.worldMinY * toUnits,
                     maxX: (view.worldMaxX - k) * toUnits, maxY: view.worldMaxY * toUnits)
            let limit = area.map { ($0.minX * toUnits, $0.minY * toUnits, $0.maxX * toUnits, $0.maxY * toUnits) } ?? (0, 0, q, q)
            r.minX = max(r.minX, limit.0, 0); r.maxX = min(r.maxX, limit.2, q)
            r.minY = max(r.minY, limit.1, 0); r.maxY = min(r.maxY, limit.3, q)
            guard r.maxX > r.minX, r.maxY > r.minY else { continue }
            let areaR = (r.maxX - r.minX) * (r.maxY - r.minY)
            let cx0 = max(0, Int(floor(r.minX / cellSize))), cx1 = min(cells - 1, Int(floor(r.maxX / cellSize)))
            let cy0 = max(0, Int(floor(r.minY / cellSize))), cy1 = min(cells - 1, Int(floor(r.maxY / cellSize)))
            guard cx0 <= cx1, cy0 <= cy1, (cx1 - cx0 + 1) * (cy1 - cy0 + 1) <= 256 else { continue }
            // The land within r: each cell's rings clipped to r. A ring that fills r whole only
            // flips it (land, or a lake in it); any other ring means a coast crosses the view.
            rings.removeAll(keepingCapacity: true)
            var coast = false, whole = 0
            for cy in cy0...cy1 { for cx in cx0...cx1 {
                for ring in cache.rings(level: level, z: cz, x: cx, y: cy) {
                    pts = ring
                    RectClip.polygon(&pts, &scratch, minX: r.minX, maxX: r.maxX, minY: r.minY, maxY: r.maxY)
                    guard pts.count >= 6 else { continue }
                    let a = abs(signedArea(pts))
                    if a <= areaR * 1e-12 { continue }
                    if a >= areaR * (1 - 1e-9) { whole += 1 } else { coast = true }
                    rings.append(pts)
                }
            } }
            // All land here: nothing to draw for this copy.
            if !coast && whole % 2 == 1 { continue }
            // Sea: r, and the land's rings (even-odd), in ground coordinates.
            let outline = [r.minX, r.minY, r.maxX, r.minY, r.maxX, r.maxY, r.minX, r.maxY]
            if !coast { rings.removeAll() }
            rings.append(outline)
            for ring in rings {
                pts.removeAll(keepingCapacity: true)
                var inside = true
                for i in 0..<ring.count / 2 {
                    let (gx, gy) = view.ground(worldX: ring[2 * i] * toWorld + k, worldY: ring[2 * i + 1] * toWorld)
                    if gx < view.minGX || gx > view.maxGX || gy < view.minGY || gy > view.maxGY { inside = false }
                    pts.append(gx); pts.append(gy)
                }
                view.addRing(&pts, &scratch, inside: inside, to: cr)
            }
            added = true
        }
        return added
    }

    /// The cell grid's zoom for a camera zoom: cells a few times larger than the view, so a
    /// frame meets one to four of them (at most zoom 8, cells of about 150 km).
    static func cellZoom(_ zoom: Double) -> Int { max(0, min(8, Int(floor(zoom)) - 5)) }

    /// Twice a ring's signed area (x, y, ... in any unit).
    static func signedArea(_ p: [Double]) -> Double {
        let n = p.count / 2
        var s = 0.0
        for i in 0..<n {
            let j = (i + 1) % n
            s += p[2 * i] * p[2 * j + 1] - p[2 * j] * p[2 * i + 1]
        }
        return s / 2
    }
}

/// The built-in world's land cut into the cells of a tile grid, in quantised world units (as
/// `BuiltInWorld` keeps it): each cell's rings are the land parts clipped to the cell, made
/// the first time a frame needs the cell. One per renderer; locked, as frames may be built on
/// any thread.
final class StreetSeaCache: @unchecked Sendable {
    /// Cells kept before the cache starts afresh (a kiosk panned across a continent).
    static let maxCells = 512

    private struct Key: Hashable { let level: Double, z: Int, x: Int, y: Int }
    private let lock = NSLock()
    private var cells: [Key: [[Double]]] = [:]

    var cellCount: Int { lock.withLock { cells.count } }

    func rings(level: BuiltInWorld.Level, z: Int, x: Int, y: Int) -> [[Double]] {
        let key = Key(level: level.minZoom, z: z, x: x, y: y)
        if let hit = lock.withLock({ cells[key] }) { return hit }
        let made = Self.clip(level, z: z, x: x, y: y)
        lock.withLock {
            if cells.count >= Self.maxCells { cells.removeAll() }
            cells[key] = made
        }
        return made
    }

    /// The level's rings that reach a cell, clipped to it.
    static func clip(_ level: BuiltInWorld.Level, z: Int, x: Int, y: Int) -> [[Double]] {
        let size = BuiltInWorld.quantisation / Double(1 << z)
        let minX = Double(x) * size, maxX = minX + size, minY = Double(y) * size, maxY = minY + size
        var out: [[Double]] = []
        var pts: [Double] = [], scratch: [Double] = []
        for part in level.parts where Double(part.maxX) >= minX && Double(part.minX) <= maxX
            && Double(part.maxY) >= minY && Double(part.minY) <= maxY {
            pts.removeAll(keepingCapacity: true)
            for v in part.points { pts.append(Double(v)) }
            RectClip.polygon(&pts, &scratch, minX: minX, maxX: maxX, minY: minY, maxY: maxY)
            if pts.count >= 6, StreetSea.signedArea(pts) != 0 { out.append(pts) }
        }
        return out
    }
}
