import Foundation
import TouchCore

/// Markers grouped because they lie close together on screen, drawn as one bubble with their
/// count (Google Maps Utils' NonHierarchicalDistanceBasedAlgorithm).
public struct MarkerCluster: Sendable, Hashable {
    /// "cluster:" + the id of the marker that started it.
    public var id: String
    /// The members' mean position in Web Mercator.
    public var coordinate: Coordinate
    /// The marker that started it first, then the others in insertion order.
    public var memberIDs: [String]

    public init(id: String, coordinate: Coordinate, memberIDs: [String]) {
        self.id = id
        self.coordinate = coordinate
        self.memberIDs = memberIDs
    }

    public var count: Int { memberIDs.count }

    /// The bubble's radius in px for a count (the renderer draws it, taps test it):
    /// 18 + 4 log10(count).
    public static func bubbleRadius(count: Int) -> Double { 18 + 4 * log10(Double(max(count, 1))) }

    /// Groups markers: in insertion order, each marker not yet in a cluster starts one, and takes
    /// every marker whose world point (at `zoomLevel`) lies within `radius` px of it, unless that
    /// marker already sits nearer the marker that started its own cluster. Deterministic; a grid
    /// of radius-sized cells keeps it near linear. The world wraps east-west.
    public static func clusters(of markers: [Marker], zoomLevel: Int, radius: Double)
        -> (singles: [Marker], clusters: [MarkerCluster]) {
        let r = clusterAll(markers, zoomLevel: zoomLevel, radius: radius)
        return (r.singles, r.clusters)
    }

    static func clusterAll(_ markers: [Marker], zoomLevel: Int, radius: Double) -> ClusterResult {
        let n = markers.count
        guard n > 1, radius > 0 else { return ClusterResult(singles: markers, clusters: [], clusteredIDs: []) }
        let world = WebMercator.worldSize(zoom: Double(min(max(zoomLevel, 0), 30)))
        let pts = markers.map { m -> Point in
            let u = WebMercator.unitPoint(m.position)
            return Point(x: u.x * world, y: u.y * world)
        }
        // Cells at least `radius` wide, a whole number of them round the world.
        let cols = max(1, Int((world / radius).rounded(.down)))
        let cell = world / Double(cols)
        var grid: [Int: [Int]] = [:]
        grid.reserveCapacity(n)
        func cellOf(_ p: Point) -> (Int, Int) {
            (min(cols - 1, max(0, Int(p.x / cell))), Int((p.y / cell).rounded(.down)))
        }
        for i in 0..<n {
            let (cx, cy) = cellOf(pts[i])
            grid[cy &* cols &+ cx, default: []].append(i)
        }
        var owner = [Int](repeating: -1, count: n)        // index of the marker that started its cluster
        var distance2 = [Double](repeating: .infinity, count: n)
        let r2 = radius * radius
        var starters: [Int] = []
        for i in 0..<n where owner[i] < 0 {
            starters.append(i)
            owner[i] = i
            distance2[i] = 0
            let p = pts[i]
            let (cx, cy) = cellOf(p)
            var columns: [Int] = []
            for dx in -1...1 {
                let c = ((cx + dx) % cols + cols) % cols
                if !columns.contains(c) { columns.append(c) }
            }
            for dy in -1...1 {
                for c in columns {
                    guard let bucket = grid[(cy + dy) &* cols &+ c] else { continue }
                    for j in bucket where j != i && distance2[j] != 0 {
                        var ddx = abs(pts[j].x - p.x)
                        ddx = min(ddx, world - ddx)
                        let ddy = pts[j].y - p.y
                        let d2 = ddx * ddx + ddy * ddy
                        if d2 <= r2 && d2 < distance2[j] {
                            owner[j] = i
                            distance2[j] = d2
                        }
                    }
                }
            }
        }
        var members: [Int: [Int]] = [:]
        for j in 0..<n where owner[j] != j { members[owner[j], default: []].append(j) }
        var singles: [Marker] = []
        var clusters: [MarkerCluster] = []
        var clustered = Set<String>()
        for j in 0..<n where owner[j] == j && members[j] == nil { singles.append(markers[j]) }
        for s in starters {
            guard let others = members[s] else { continue }
            let all = [s] + others
            let u0 = WebMercator.unitPoint(markers[s].position)
            var sx = 0.0, sy = 0.0
            for k in all {
                var u = WebMercator.unitPoint(markers[k].position)
                if u.x - u0.x > 0.5 { u.x -= 1 } else if u.x - u0.x < -0.5 { u.x += 1 }
                sx += u.x
                sy += u.y
            }
            let mean = Point(x: sx / Double(all.count), y: sy / Double(all.count))
            let ids = all.map { markers[$0].id }
            clustered.formUnion(ids)
            clusters.append(MarkerCluster(id: "cluster:" + markers[s].id, coordinate: WebMercator.coordinate(unit: mean),
                                          memberIDs: ids))
        }
        return ClusterResult(singles: singles, clusters: clusters, clusteredIDs: clustered)
    }
}

struct ClusterResult: Sendable, Equatable {
    var singles: [Marker]
    var clusters: [MarkerCluster]
    var clusteredIDs: Set<String>
}

/// The last grouping and what it was made from.
struct ClusterCache: Sendable {
    struct Key: Hashable, Sendable {
        var markersRevision: Int
        var zoomLevel: Int
        var radius: Double
        var on: Bool
    }
    var key: Key
    var result: ClusterResult
}

extension MapController {
    /// Markers drawn alone and cluster bubbles, for the current zoom level (floor of the zoom).
    /// With `clusterMarkers` off every marker is single. Made again only when the markers, the
    /// zoom level, the radius or the switch changed.
    public func markerClusters() -> (singles: [Marker], clusters: [MarkerCluster]) {
        let r = clusterResult()
        return (r.singles, r.clusters)
    }

    /// Changes whenever the grouping `markerClusters()` gives changes (the façade rebuilds its
    /// cluster sprites then).
    public var clusteringRevision: Int {
        _ = clusterResult()
        return clusterRevisionCounter
    }

    func clusterResult() -> ClusterResult {
        let key = ClusterCache.Key(markersRevision: markersRevision,
                                   zoomLevel: Int(camera.zoom.rounded(.down)),
                                   radius: configuration.clusterRadius, on: configuration.clusterMarkers)
        if let c = clusterCache, c.key == key { return c.result }
        let result = key.on
            ? MarkerCluster.clusterAll(markers, zoomLevel: key.zoomLevel, radius: key.radius)
            : ClusterResult(singles: markers, clusters: [], clusteredIDs: [])
        if clusterCache?.result != result { clusterRevisionCounter &+= 1 }
        clusterCache = ClusterCache(key: key, result: result)
        return result
    }

    /// The cluster bubble under a screen point (the nearest centre when bubbles overlap); nil
    /// with clustering off.
    public func markerCluster(at p: Point) -> MarkerCluster? {
        guard configuration.clusterMarkers else { return nil }
        let proj = projection
        var best: (MarkerCluster, Double)?
        for c in clusterResult().clusters {
            guard let s = proj.point(for: c.coordinate) else { continue }
            let d = s.distance(to: p)
            if d <= MarkerCluster.bubbleRadius(count: c.count) && d < (best?.1 ?? .infinity) { best = (c, d) }
        }
        return best?.0
    }

    /// A tap on a bubble: the camera animates (gesture: false) to fit its members, north up and
    /// flat, at least one zoom level closer than now and at most `fitMaxZoom` (or one level
    /// closer than now when that is already past it), within the zoom limits, so it splits.
    func zoomInto(_ cluster: MarkerCluster, at t: Double) {
        let members = cluster.memberIDs.compactMap { marker(id: $0) }
        let limits = configuration.limits
        let closer = limits.clampZoom(camera.zoom + 1)
        guard var target = CameraFit.camera(fitting: members.map(\.position), screen: screenSize,
                                            insets: fitInsets(padding: configuration.overviewPadding, pins: members, controls: true),
                                            limits: limits, maxZoom: max(configuration.fitMaxZoom, closer)) else { return }
        if target.zoom < closer {
            target.zoom = closer
            target.target = cluster.coordinate
        }
        userTookOver(at: t)
        startAnimation(to: target, duration: configuration.modeTransitionDuration, byGesture: false, at: t)
    }
}
