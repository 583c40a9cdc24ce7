import Foundation
import CCairo
import MapEngine
import TouchCore

/// The part of the ground one frame shows, for drawing geometry through `Projection`.
///
/// Ground coordinates are world pixels at the camera's zoom, relative to the camera target and
/// rotated by the bearing (x right, y down the screen), exactly as `Projection` defines them.
/// Geometry is clipped to a ground rectangle a little larger than what the screen shows (and,
/// when tilted, to a far line below the horizon, which the sky band covers), then every vertex
/// goes through `Projection.screenPoint(ground:)`, so straight edges stay straight in perspective.
struct GroundView {
    let projection: Projection
    let width: Double, height: Double
    let worldSize: Double
    let centerX: Double, centerY: Double
    let cosB: Double, sinB: Double
    let tilted: Bool
    /// Ground clip rectangle.
    let minGX: Double, maxGX: Double, minGY: Double, maxGY: Double
    /// World-pixel bounding box of the clip rectangle (not wrapped: x may leave 0..<worldSize).
    let worldMinX: Double, worldMaxX: Double, worldMinY: Double, worldMaxY: Double
    /// Screen y of the far clip line (nil when flat): nothing is drawn above it.
    let farLineY: Double?
    /// Screen y of the farthest ground ever drawn (farDepthFactor away; nil when flat): the sky
    /// is opaque down to here and fades out below, hiding where the drawn ground ends.
    let skyLineY: Double?
    let horizonY: Double?
    /// Screen y of the camera target (the centre of the ground's perspective scale).
    let targetY: Double

    /// How far away the far clip line is: where one ground pixel shows as 1/12 of a pixel.
    static let farDepthFactor = 12.0

    init(projection p: Projection, margin: Double = 8) {
        projection = p
        width = p.screen.width
        height = p.screen.height
        worldSize = p.worldSize
        centerX = p.centerWorld.x
        centerY = p.centerWorld.y
        let b = p.camera.bearing * .pi / 180
        cosB = cos(b); sinB = sin(b)
        let t = p.camera.tilt * .pi / 180
        let sinT = sin(t)
        tilted = sinT > 1e-6
        horizonY = p.horizonY
        targetY = p.screenPoint(ground: Point(x: 0, y: 0))?.y ?? p.screen.height / 2
        if tilted {
            let d = p.cameraDistance
            let farGY = (d - GroundView.farDepthFactor * d) / sinT
            let topGY = p.groundOffset(screen: Point(x: width / 2, y: 0))?.y
            let bottomGY = p.groundOffset(screen: Point(x: width / 2, y: height))?.y ?? 0
            let far = max(farGY, (topGY ?? farGY) - margin)
            minGY = far
            maxGY = bottomGY + margin
            // The visible trapezoid is widest at its far edge.
            let farScale = d / (d - far * sinT)
            let half = (width / 2 + margin) / farScale
            minGX = -half; maxGX = half
            farLineY = p.screenPoint(ground: Point(x: 0, y: far))?.y
            skyLineY = p.screenPoint(ground: Point(x: 0, y: farGY))?.y
        } else {
            minGX = -width / 2 - margin; maxGX = width / 2 + margin
            minGY = -height / 2 - margin; maxGY = height / 2 + margin
            farLineY = nil
            skyLineY = nil
        }
        var xs: [Double] = [], ys: [Double] = []
        for gx in [minGX, maxGX] { for gy in [minGY, maxGY] {
            let w = p.worldPoint(ground: Point(x: gx, y: gy))
            xs.append(w.x); ys.append(w.y)
        } }
        worldMinX = xs.min()!; worldMaxX = xs.max()!
        worldMinY = ys.min()!; worldMaxY = ys.max()!
    }

    /// Which copies of the world (multiples of worldSize added to x) the view overlaps.
    var wrapCopies: ClosedRange<Int> {
        let lo = Int(floor(worldMinX / worldSize)), hi = Int(floor(worldMaxX / worldSize))
        // A very wide view (tilted towards the horizon at low zoom) is capped.
        return max(lo, -4)...min(hi, 4)
    }

    @inline(__always)
    func ground(worldX wx: Double, worldY wy: Double) -> (Double, Double) {
        let dx = wx - centerX, dy = wy - centerY
        return (dx * cosB + dy * sinB, -dx * sinB + dy * cosB)
    }

    @inline(__always)
    func screen(_ gx: Double, _ gy: Double) -> (Double, Double) {
        if !tilted { return (width / 2 + gx, height / 2 + gy) }
        let s = projection.screenPoint(ground: Point(x: gx, y: gy)) ?? Point(x: width / 2, y: height)
        return (s.x, s.y)
    }

    /// How much larger than at the camera target a length on the ground shows at screen row y:
    /// 1 everywhere in a flat view. Tilted, the inverse of a ground point's depth is affine in
    /// screen y, so the scale falls in a straight line from the near edge to 0 at the horizon
    /// (at most `maxPerspectiveScale`). MapLibre extrudes a pitched view's lines and circles on
    /// the ground, so their widths in pixels hold at the target and thin out with distance.
    @inline(__always)
    func perspectiveScale(y: Double) -> Double { perspective(y) }

    /// `perspectiveScale` as a value (no closure on a hot path).
    var perspective: PerspectiveScale {
        guard tilted, let h = horizonY, targetY - h > 1e-9 else { return PerspectiveScale(base: 1, slope: 0, minimum: 1, maximum: 1) }
        let slope = 1 / (targetY - h)
        return PerspectiveScale(base: -h * slope, slope: slope, minimum: 0, maximum: GroundView.maxPerspectiveScale)
    }

    /// The largest `perspectiveScale`: lines and dots near the eye keep their style's size (a
    /// steep view's near edge would widen them several times over, and that costs pixels).
    static let maxPerspectiveScale = 1.0

    /// Screen point of a coordinate, or nil when it is not on the drawn ground (behind the eye,
    /// beyond the far line, or more than `slack` px off screen).
    func visiblePoint(_ c: Coordinate, slack: Double = 0) -> Point? {
        guard let s = projection.point(for: c) else { return nil }
        if let far = farLineY, s.y < far { return nil }
        guard s.x >= -slack, s.x <= width + slack, s.y >= -slack, s.y <= height + slack else { return nil }
        return s
    }
}

/// A scale affine in screen y, clamped: base + slope * y within minimum...maximum.
struct PerspectiveScale: Sendable {
    var base: Double, slope: Double, minimum: Double, maximum: Double

    @inline(__always)
    func callAsFunction(_ y: Double) -> Double { min(max(base + slope * y, minimum), maximum) }

    /// The scale held at `floor` at least.
    func atLeast(_ floor: Double) -> PerspectiveScale {
        PerspectiveScale(base: base, slope: slope, minimum: max(minimum, floor), maximum: max(maximum, floor))
    }
}

/// Sutherland-Hodgman clipping of a polygon and Liang-Barsky-style clipping of polylines
/// against an axis-aligned rectangle, on flat (x, y, x, y, ...) arrays to avoid allocations.
enum RectClip {
    static func polygon(_ input: inout [Double], _ scratch: inout [Double],
                        minX: Double, maxX: Double, minY: Double, maxY: Double) {
        clipEdge(&input, &scratch) { x, _ in x >= minX } intersect: { ax, ay, bx, by in
            let t = (minX - ax) / (bx - ax); return (minX, ay + t * (by - ay)) }
        clipEdge(&input, &scratch) { x, _ in x <= maxX } intersect: { ax, ay, bx, by in
            let t = (maxX - ax) / (bx - ax); return (maxX, ay + t * (by - ay)) }
        clipEdge(&input, &scratch) { _, y in y >= minY } intersect: { ax, ay, bx, by in
            let t = (minY - ay) / (by - ay); return (ax + t * (bx - ax), minY) }
        clipEdge(&input, &scratch) { _, y in y <= maxY } intersect: { ax, ay, bx, by in
            let t = (maxY - ay) / (by - ay); return (ax + t * (bx - ax), maxY) }
    }

    @inline(__always)
    private static func clipEdge(_ pts: inout [Double], _ out: inout [Double],
                                 inside: (Double, Double) -> Bool,
                                 intersect: (Double, Double, Double, Double) -> (Double, Double)) {
        let n = pts.count / 2
        out.removeAll(keepingCapacity: true)
        guard n > 0 else { return }
        var px = pts[2 * (n - 1)], py = pts[2 * (n - 1) + 1]
        var pin = inside(px, py)
        for i in 0..<n {
            let x = pts[2 * i], y = pts[2 * i + 1]
            let cin = inside(x, y)
            if cin {
                if !pin { let (ix, iy) = intersect(px, py, x, y); out.append(ix); out.append(iy) }
                out.append(x); out.append(y)
            } else if pin {
                let (ix, iy) = intersect(px, py, x, y); out.append(ix); out.append(iy)
            }
            px = x; py = y; pin = cin
        }
        swap(&pts, &out)
    }

    /// Clips one segment; nil when it lies outside.
    @inline(__always)
    static func segment(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double,
                        minX: Double, maxX: Double, minY: Double, maxY: Double) -> (Double, Double, Double, Double, Bool, Bool)? {
        var t0 = 0.0, t1 = 1.0
        let dx = x1 - x0, dy = y1 - y0
        for (p, q) in [(-dx, x0 - minX), (dx, maxX - x0), (-dy, y0 - minY), (dy, maxY - y0)] {
            if p == 0 { if q < 0 { return nil } } else {
                let r = q / p
                if p < 0 { if r > t1 { return nil }; if r > t0 { t0 = r } } else { if r < t0 { return nil }; if r < t1 { t1 = r } }
            }
        }
        return (x0 + t0 * dx, y0 + t0 * dy, x0 + t1 * dx, y0 + t1 * dy, t0 > 0, t1 < 1)
    }
}

extension GroundView {
    /// The ring's screen points after the same clip as `addRing` (empty when under 3 are left).
    func screenRing(_ pts: inout [Double], _ scratch: inout [Double], inside: Bool) -> [Double] {
        if !inside { RectClip.polygon(&pts, &scratch, minX: minGX, maxX: maxGX, minY: minGY, maxY: maxGY) }
        let n = pts.count / 2
        guard n >= 3 else { return [] }
        var out = [Double](repeating: 0, count: 2 * n)
        for i in 0..<n {
            let (sx, sy) = screen(pts[2 * i], pts[2 * i + 1])
            out[2 * i] = sx; out[2 * i + 1] = sy
        }
        return out
    }

    /// Adds one ring of ground points to cairo's path as a closed polygon, clipped to the view
    /// first when some point fell outside it; a ring left with fewer than three points is skipped.
    /// The built-in world and the street map fill their polygons through this one place.
    func addRing(_ pts: inout [Double], _ scratch: inout [Double], inside: Bool, to cr: OpaquePointer) {
        if !inside { RectClip.polygon(&pts, &scratch, minX: minGX, maxX: maxGX, minY: minGY, maxY: maxGY) }
        addPolygon(pts, to: cr)
    }

    /// A closed subpath through ground points (x, y, ...) projected to the screen; nothing for
    /// fewer than 3.
    func addPolygon(_ pts: [Double], to cr: OpaquePointer) {
        let n = pts.count / 2
        guard n >= 3 else { return }
        for i in 0..<n {
            let (sx, sy) = screen(pts[2 * i], pts[2 * i + 1])
            if i == 0 { cairo_move_to(cr, sx, sy) } else { cairo_line_to(cr, sx, sy) }
        }
        cairo_close_path(cr)
    }
}
