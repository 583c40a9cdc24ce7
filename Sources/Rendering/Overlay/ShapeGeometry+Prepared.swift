import Foundation
import MapEngine
import TouchCore

/// A shape made ready for drawing once (not every frame): its coordinates in Web Mercator's unit
/// square (x east, y south, both 0...1 over the world), each ring's longitudes unwrapped the
/// short way relative to the vertex before (so a line across the antimeridian runs on past x = 1
/// or below 0 instead of jumping across the world), its bounding box, and for lines the arc
/// length at every vertex (dash phase) and the boxes of runs of `blockSize` segments (a chunk of
/// the overlay layer or a zoomed-in frame skips most of a 10,000-vertex route by its boxes).
final class PreparedShape {
    enum Kind {
        case line
        case polygon
        /// The ring is made per zoom (`ring(segments:)`): finer when the circle is large on screen.
        case circle(center: Coordinate, radius: Double)
        case image(path: String, bounds: CoordinateBounds, bearing: Double, opacity: Double)
    }

    struct Box {
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        mutating func add(_ x: Double, _ y: Double) {
            if x < minX { minX = x }
            if x > maxX { maxX = x }
            if y < minY { minY = y }
            if y > maxY { maxY = y }
        }
        var isEmpty: Bool { minX > maxX }
    }

    /// A ring (or line) in unit coordinates, flat x, y, x, y, ...
    struct Ring {
        var points: [Double]
        /// Arc length (unit) from the first vertex to each vertex.
        var lengths: [Double]
        /// Boxes of segments blockSize * b ..< blockSize * (b + 1) (a closed ring's last segment
        /// back to its start is in the last block).
        var blocks: [Box]
        var count: Int { points.count / 2 }
    }

    static let blockSize = 32

    let kind: Kind
    let style: ShapeStyle
    private(set) var rings: [Ring]
    let box: Box
    /// Circles: the last ring made, by segment count.
    private var circleRing: (segments: Int, ring: Ring)?

    init(kind: Kind, style: ShapeStyle, rings: [[Coordinate]], closed: Bool) {
        self.kind = kind
        self.style = style
        self.rings = []
        var box = Box()
        var first: Double?
        for r in rings where !r.isEmpty {
            let ring = PreparedShape.unitRing(r, closed: closed, anchor: &first)
            for b in ring.blocks where !b.isEmpty { box.add(b.minX, b.minY); box.add(b.maxX, b.maxY) }
            if ring.count == 1 { box.add(ring.points[0], ring.points[1]) }
            self.rings.append(ring)
        }
        if case let .image(_, b, bearing, _) = kind {
            // The turned box's corners (in unit coordinates, turned about its centre).
            let corners = PreparedShape.imageCorners(b, bearing: bearing)
            for c in corners { box.add(c.x, c.y) }
        }
        self.box = box
    }

    /// Unit coordinates of a coordinate list, unwrapped; the first vertex of the first ring of a
    /// shape lies in 0..<1 and later rings (holes) are taken nearest it.
    private static func unitRing(_ cs: [Coordinate], closed: Bool, anchor: inout Double?) -> Ring {
        var pts: [Double] = []
        pts.reserveCapacity(cs.count * 2)
        var prevX = 0.0
        for (i, c) in cs.enumerated() {
            let u = WebMercator.unitPoint(c)
            var x = u.x
            if i == 0 {
                if let a = anchor { x += (a - x).rounded() } else { x -= x.rounded(.down); anchor = x }
            } else {
                x += (prevX - x).rounded()   // the short way: within half a world of the last vertex
            }
            pts.append(x); pts.append(u.y)
            prevX = x
        }
        return makeRing(pts, closed: closed)
    }

    /// A ring of unit points with its arc lengths and segment boxes.
    static func makeRing(_ pts: [Double], closed: Bool) -> Ring {
        let n = pts.count / 2
        var lengths: [Double] = [0]
        lengths.reserveCapacity(n + 1)
        for i in stride(from: 1, to: n, by: 1) {
            let dx = pts[2 * i] - pts[2 * i - 2], dy = pts[2 * i + 1] - pts[2 * i - 1]
            lengths.append(lengths[i - 1] + (dx * dx + dy * dy).squareRoot())
        }
        let segments = closed ? n : n - 1
        var blocks: [Box] = []
        if segments > 0 {
            blocks.reserveCapacity(segments / blockSize + 1)
            var b = Box()
            for s in 0..<segments {
                let i = s, j = (s + 1) % n
                b.add(pts[2 * i], pts[2 * i + 1]); b.add(pts[2 * j], pts[2 * j + 1])
                if (s + 1) % blockSize == 0 || s == segments - 1 { blocks.append(b); b = Box() }
            }
        }
        if closed && n > 1 {
            let dx = pts[0] - pts[2 * n - 2], dy = pts[1] - pts[2 * n - 1]
            lengths.append(lengths[lengths.count - 1] + (dx * dx + dy * dy).squareRoot())
        }
        return Ring(points: pts, lengths: lengths, blocks: blocks)
    }

    /// Rings as drawn at a world size (px): rings of many points simplified (Douglas-Peucker)
    /// to within `simplifyTolerance` world px, so a 10,000-point route whose segments are under
    /// a pixel long is not rasterized as 10,000 overlapping capsules (each pixel of a wide line
    /// measured a dozen times over). Made once per world size; the same in every view and chunk
    /// at that zoom (so the overlay layer and a direct frame draw the same line).
    func rings(worldSize w: Double) -> [Ring] {
        guard rings.contains(where: { $0.count > PreparedShape.simplifyMinimum }) else { return rings }
        if let s = simplified, s.worldSize == w { return s.rings }
        let closed: Bool
        if case .line = kind { closed = false } else { closed = true }
        let out = rings.map { r -> Ring in
            guard r.count > PreparedShape.simplifyMinimum else { return r }
            return PreparedShape.makeRing(PreparedShape.simplify(r.points, closed: closed, tolerance: PreparedShape.simplifyTolerance / w), closed: closed)
        }
        simplified = (w, out)
        return out
    }
    private var simplified: (worldSize: Double, rings: [Ring])?
    static let simplifyTolerance = 0.3
    static let simplifyMinimum = 64

    /// Douglas-Peucker on flat unit points, in pieces of at most 4096 points (the pieces' ends
    /// kept), so a long line costs about n log n.
    static func simplify(_ p: [Double], closed: Bool, tolerance eps: Double) -> [Double] {
        var pts = p
        if closed, pts.count >= 2 { pts.append(pts[0]); pts.append(pts[1]) }
        let n = pts.count / 2
        guard n > 2 else { return p }
        var keep = [Bool](repeating: false, count: n)
        var stack: [(Int, Int)] = []
        var start = 0
        while start < n - 1 {
            let end = min(n - 1, start + 4095)
            keep[start] = true; keep[end] = true
            stack.append((start, end))
            start = end
        }
        let eps2 = eps * eps
        pts.withUnsafeBufferPointer { q in
            while let (a, b) = stack.popLast() {
                guard b > a + 1 else { continue }
                let ax = q[2 * a], ay = q[2 * a + 1], dx = q[2 * b] - ax, dy = q[2 * b + 1] - ay
                let len2 = dx * dx + dy * dy
                var worst = -1.0, at = -1
                for i in (a + 1)..<b {
                    let px = q[2 * i] - ax, py = q[2 * i + 1] - ay
                    var d2: Double
                    if len2 > 0 {
                        let t = min(max((px * dx + py * dy) / len2, 0), 1)
                        let ex = px - t * dx, ey = py - t * dy
                        d2 = ex * ex + ey * ey
                    } else {
                        d2 = px * px + py * py
                    }
                    if d2 > worst { worst = d2; at = i }
                }
                if worst > eps2 {
                    keep[at] = true
                    stack.append((a, at)); stack.append((at, b))
                }
            }
        }
        var out: [Double] = []
        out.reserveCapacity(pts.count / 4)
        for i in 0..<(closed ? n - 1 : n) where keep[i] { out.append(pts[2 * i]); out.append(pts[2 * i + 1]) }
        return out
    }

    /// A circle's ring with `segments` points (cached for the last count asked).
    func circleRing(segments: Int) -> Ring? {
        guard case let .circle(center, radius) = kind else { return nil }
        if let c = circleRing, c.segments == segments { return c.ring }
        var anchor: Double? = rings.first.map { $0.points[0] }
        let ring = PreparedShape.unitRing(Geodesy.circle(center: center, radius: radius, segments: segments), closed: true, anchor: &anchor)
        circleRing = (segments, ring)
        return ring
    }

    /// A ground image's box corners in unit coordinates: top left, top right, bottom left,
    /// bottom right of the image, turned `bearing` degrees clockwise about the box's centre.
    static func imageCorners(_ b: CoordinateBounds, bearing: Double) -> [Point] {
        let nw = WebMercator.unitPoint(Coordinate(latitude: b.north, longitude: b.west))
        let se = WebMercator.unitPoint(Coordinate(latitude: b.south, longitude: b.east))
        var east = se.x
        if east < nw.x { east += 1 }
        let cx = (nw.x + east) / 2, cy = (nw.y + se.y) / 2
        let hw = (east - nw.x) / 2, hh = (se.y - nw.y) / 2
        let t = bearing * .pi / 180, c = cos(t), s = sin(t)
        // Clockwise on a map whose y grows down: (x, y) -> (x cos - y sin, x sin + y cos).
        return [(-hw, -hh), (hw, -hh), (-hw, hh), (hw, hh)].map { (x, y) in
            Point(x: cx + x * c - y * s, y: cy + x * s + y * c)
        }
    }

    /// The drawable shapes of one overlay shape.
    static func make(_ s: OverlayShape) -> PreparedShape? {
        switch s.geometry {
        case .polyline(let p):
            guard p.count > 1 else { return nil }
            return PreparedShape(kind: .line, style: s.style, rings: [p], closed: false)
        case .polygon(let r):
            guard let outer = r.first, outer.count > 2 else { return nil }
            return PreparedShape(kind: .polygon, style: s.style, rings: r.filter { $0.count > 2 }, closed: true)
        case let .circle(center, radius):
            guard radius > 0, radius.isFinite else { return nil }
            // The 96-point ring bounds the circle (its box grown a little for finer rings).
            return PreparedShape(kind: .circle(center: center, radius: radius), style: s.style,
                                 rings: [Geodesy.circle(center: center, radius: radius)], closed: true)
        case let .groundImage(path, bounds, bearing, opacity):
            return PreparedShape(kind: .image(path: path, bounds: bounds, bearing: bearing, opacity: opacity), style: s.style,
                                 rings: [], closed: false)
        }
    }
}

/// What a scene's overlays and route come to, made once and kept while they do not change
/// (compared by value: a scene that holds the same arrays costs a pointer comparison).
final class PreparedShapes {
    private(set) var overlays: [Overlay] = []
    private(set) var route: RouteDrawing?
    private(set) var shapes: [PreparedShape] = []
    /// The route's travelled part and the part ahead (either may be missing).
    private(set) var travelled: PreparedShape?
    private(set) var ahead: PreparedShape?
    private var made = false

    /// How many times the shapes were made again (tests: a pan makes none).
    private(set) var builds = 0

    func update(overlays: [Overlay], route: RouteDrawing?) {
        if made && overlays == self.overlays && route == self.route { return }
        made = true
        builds += 1
        self.overlays = overlays
        self.route = route
        shapes = overlays.flatMap { $0.shapes.compactMap(PreparedShape.make) }
        travelled = nil
        ahead = nil
        if let route, route.points.count > 1 {
            let parts = route.progress.map { $0.split(route.points) } ?? ([], route.points)
            if parts.0.count > 1 { travelled = PreparedShape(kind: .line, style: .routeTravelled, rings: [parts.0], closed: false) }
            if parts.1.count > 1 { ahead = PreparedShape(kind: .line, style: .route, rings: [parts.1], closed: false) }
        }
    }

    var isEmpty: Bool { shapes.isEmpty && travelled == nil && ahead == nil }
}
