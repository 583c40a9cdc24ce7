import Foundation
import TouchCore

/// An overlay's shapes as the hit test reads them: Web Mercator unit points with longitudes
/// unwrapped (each vertex taken the short way round from the one before, so a line across the
/// antimeridian runs past x = 1 instead of jumping back), and a bounding box per shape and per
/// overlay so a tap far away costs four comparisons, not a projection per vertex.
struct OverlayHitData: Sendable {
    struct Shape: Sendable {
        enum Kind: Sendable {
            /// A polyline: a tap within the slop of a segment hits.
            case line
            /// A polygon or circle: even-odd containment over every ring (holes excluded), or
            /// within the slop of a ring.
            case area
            /// A ground image: containment in its turned box only.
            case image
        }
        var kind: Kind
        /// Lines: one path; areas: rings (closed implicitly); images: the turned box's corners.
        var paths: [[Point]]
        var box: UnitBox
    }

    /// An axis-aligned box in unit coordinates (x may run outside 0...1).
    struct UnitBox: Sendable {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        mutating func add(_ p: Point) {
            minX = min(minX, p.x); maxX = max(maxX, p.x); minY = min(minY, p.y); maxY = max(maxY, p.y)
        }
        mutating func add(_ b: UnitBox) {
            minX = min(minX, b.minX); maxX = max(maxX, b.maxX); minY = min(minY, b.minY); maxY = max(maxY, b.maxY)
        }
        func intersects(_ b: UnitBox, shiftedBy k: Double) -> Bool {
            b.minX + k <= maxX && b.maxX + k >= minX && b.minY <= maxY && b.maxY >= minY
        }
        func contains(_ p: Point) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }
    }

    var shapes: [Shape]
    var box: UnitBox

    init(_ overlay: Overlay) {
        var shapes: [Shape] = []
        var all = UnitBox()
        for s in overlay.shapes {
            var paths: [[Point]] = []
            let kind: Shape.Kind
            switch s.geometry {
            case .polyline(let p):
                kind = .line
                paths = [OverlayHitData.unwrapped(p, from: nil)]
            case .polygon(let rings):
                kind = .area
                let start = rings.first?.first.map { WebMercator.unitPoint($0).x }
                paths = rings.map { OverlayHitData.unwrapped($0, from: start) }
            case .circle(let c, let r):
                kind = .area
                paths = [OverlayHitData.unwrapped(Geodesy.circle(center: c, radius: r), from: WebMercator.unitPoint(c).x)]
            case .groundImage(_, let b, let bearing, _):
                kind = .image
                let nw = WebMercator.unitPoint(Coordinate(latitude: b.north, longitude: b.west))
                var se = WebMercator.unitPoint(Coordinate(latitude: b.south, longitude: b.east))
                if se.x < nw.x { se.x += 1 }
                let c = Point(x: (nw.x + se.x) / 2, y: (nw.y + se.y) / 2)
                let hw = (se.x - nw.x) / 2, hh = (se.y - nw.y) / 2
                // Clockwise on the map (y down): the usual rotation matrix.
                let a = bearing * .pi / 180, ca = cos(a), sa = sin(a)
                paths = [[Point(x: -hw, y: -hh), Point(x: hw, y: -hh), Point(x: hw, y: hh), Point(x: -hw, y: hh)].map {
                    Point(x: c.x + $0.x * ca - $0.y * sa, y: c.y + $0.x * sa + $0.y * ca)
                }]
            }
            var box = UnitBox()
            for path in paths { for p in path { box.add(p) } }
            guard !paths.allSatisfy(\.isEmpty) else { continue }
            all.add(box)
            shapes.append(Shape(kind: kind, paths: paths, box: box))
        }
        self.shapes = shapes
        self.box = all
    }

    /// Unit points, each longitude the short way round from the one before (the first from `from`).
    static func unwrapped(_ cs: [Coordinate], from start: Double?) -> [Point] {
        var out: [Point] = []
        out.reserveCapacity(cs.count)
        var prev = start
        for c in cs {
            var u = WebMercator.unitPoint(c)
            if let px = prev {
                while u.x - px > 0.5 { u.x -= 1 }
                while u.x - px < -0.5 { u.x += 1 }
            }
            out.append(u)
            prev = u.x
        }
        return out
    }

    /// The world copies (-1, 0, +1) of the tap box that meet a box.
    static func shifts(of tap: UnitBox, meeting box: UnitBox) -> [Double] {
        [0.0, -1, 1, -2, 2].filter { box.intersects(tap, shiftedBy: $0) }
    }

    /// Whether a unit point lies inside the rings by the even-odd rule.
    static func evenOdd(_ q: Point, _ rings: [[Point]]) -> Bool {
        var inside = false
        for ring in rings where ring.count > 2 {
            var j = ring.count - 1
            for i in 0..<ring.count {
                let a = ring[i], b = ring[j]
                if (a.y > q.y) != (b.y > q.y) && q.x < (b.x - a.x) * (q.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
                j = i
            }
        }
        return inside
    }

    /// Distance from a point to a segment, px.
    static func distance(_ p: Point, _ a: Point, _ b: Point) -> Double {
        let dx = b.x - a.x, dy = b.y - a.y
        let len2 = dx * dx + dy * dy
        let t = len2 > 0 ? max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2)) : 0
        return p.distance(to: Point(x: a.x + t * dx, y: a.y + t * dy))
    }

    /// Whether a tap at screen point `p` (ground unit point `u`, slop box `tapBox` on the ground,
    /// nil when part of it lies above the horizon) hits the overlay.
    func hit(screen p: Point, unit u: Point, tapBox: UnitBox?, slop: Double, projection proj: Projection) -> Bool {
        if let tb = tapBox, OverlayHitData.shifts(of: tb, meeting: box).isEmpty { return false }
        for s in shapes where shapeHit(s, screen: p, unit: u, tapBox: tapBox, slop: slop, projection: proj) { return true }
        return false
    }

    func shapeHit(_ s: Shape, screen p: Point, unit u: Point, tapBox: UnitBox?, slop: Double, projection proj: Projection) -> Bool {
        let ks: [Double]
        if let tb = tapBox {
            ks = OverlayHitData.shifts(of: tb, meeting: s.box)
            if ks.isEmpty { return false }
        } else {
            ks = [0, -1, 1]
        }
        // Containment on the ground: the same answer as on screen for every point in front of
        // the eye (the ground-to-screen map keeps straight lines), and no vertex need project.
        if s.kind != .line {
            for k in ks {
                let q = Point(x: u.x + k, y: u.y)
                if s.box.contains(q) && OverlayHitData.evenOdd(q, s.paths) { return true }
            }
        }
        guard s.kind != .image else { return false }
        // The slop: distance on screen to every segment whose box meets the tap's box.
        let world = proj.worldSize
        let closed = s.kind == .area
        for path in s.paths where !path.isEmpty {
            let n = path.count
            let segments = closed ? n : n - 1
            if segments <= 0 {
                if let a = proj.screenPoint(world: Point(x: path[0].x * world, y: path[0].y * world)),
                   a.distance(to: p) <= slop { return true }
                continue
            }
            for i in 0..<segments {
                let a = path[i], b = path[(i + 1) % n]
                if let tb = tapBox {
                    var meets = false
                    for k in ks where min(a.x, b.x) <= tb.maxX + k && max(a.x, b.x) >= tb.minX + k
                        && min(a.y, b.y) <= tb.maxY && max(a.y, b.y) >= tb.minY { meets = true; break }
                    if !meets { continue }
                }
                guard let sa = proj.screenPoint(world: Point(x: a.x * world, y: a.y * world)),
                      let sb = proj.screenPoint(world: Point(x: b.x * world, y: b.y * world)) else { continue }
                if OverlayHitData.distance(p, sa, sb) <= slop { return true }
            }
        }
        return false
    }
}
