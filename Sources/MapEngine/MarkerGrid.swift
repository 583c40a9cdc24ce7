import Foundation
import TouchCore

/// Markers bucketed by where they are on the world: a uniform grid of `side` x `side` cells over
/// the Web Mercator unit square, so a tap looks only at the markers near it instead of
/// projecting every one (10,000 markers cost a linear hit test about 100x more than the few a
/// finger can touch). Sorted (cell, marker) pairs and binary search: no hashing, and one
/// allocation per rebuild.
public struct MarkerGrid: Sendable {
    struct Entry: Sendable { var cell: Int; var index: Int }

    public let side: Int
    let entries: [Entry]

    /// - Parameter side: cells per side; 4096 makes a cell about 10 km at the equator.
    public init(positions: [Coordinate], side: Int = 4096) {
        self.side = side
        var e: [Entry] = []
        e.reserveCapacity(positions.count)
        for (i, c) in positions.enumerated() {
            let u = WebMercator.unitPoint(c)
            let cx = min(side - 1, max(0, Int(u.x * Double(side))))
            let cy = min(side - 1, max(0, Int(u.y * Double(side))))
            e.append(Entry(cell: cy * side + cx, index: i))
        }
        e.sort { $0.cell != $1.cell ? $0.cell < $1.cell : $0.index < $1.index }
        entries = e
    }

    public var count: Int { entries.count }

    /// Calls `body` with the index of every marker in the cells that cover the unit-square box
    /// (x may run past 0 or 1: the world wraps east-west; y is clamped).
    public func forEach(inUnitBox minX: Double, _ minY: Double, _ maxX: Double, _ maxY: Double, _ body: (Int) -> Void) {
        let n = Double(side)
        let y0 = max(0, Int((minY * n).rounded(.down))), y1 = min(side - 1, Int((maxY * n).rounded(.down)))
        guard y0 <= y1 else { return }
        // Columns, wrapped into one or two runs.
        var runs: [(Int, Int)] = []
        if maxX - minX >= 1 {
            runs = [(0, side - 1)]
        } else {
            let a = Int((minX * n).rounded(.down)), b = Int((maxX * n).rounded(.down))
            let wa = ((a % side) + side) % side, wb = ((b % side) + side) % side
            runs = wa <= wb && b - a < side ? [(wa, wb)] : [(wa, side - 1), (0, wb)]
        }
        for y in y0...y1 {
            for (x0, x1) in runs {
                var i = lowerBound(y * side + x0)
                let end = y * side + x1
                while i < entries.count && entries[i].cell <= end {
                    body(entries[i].index)
                    i += 1
                }
            }
        }
    }

    func lowerBound(_ cell: Int) -> Int {
        var lo = 0, hi = entries.count
        while lo < hi {
            let m = (lo + hi) / 2
            if entries[m].cell < cell { lo = m + 1 } else { hi = m }
        }
        return lo
    }
}

/// What the hit test keeps between taps: the grid and the largest icon, made again after the
/// markers change.
final class MarkerIndex {
    private(set) var grid: MarkerGrid?
    private(set) var largestIcon = 0.0
    /// Counts marker changes, so drawing can keep what it made from the markers until they change.
    private(set) var revision = 0

    func invalidate() { grid = nil; revision &+= 1 }

    func grid(for markers: [Marker]) -> MarkerGrid {
        if let g = grid { return g }
        let g = MarkerGrid(positions: markers.map(\.position))
        largestIcon = markers.reduce(0) { max($0, $1.icon.size.width, $1.icon.size.height) }
        grid = g
        return g
    }
}

extension MapController {
    /// Changes whenever a marker is added, replaced or removed.
    public var markersRevision: Int { markerIndex.revision }

    /// Below this many markers a tap simply tests them all.
    static let markerGridThreshold = 64

    /// The topmost marker whose drawn icon contains `p`, found through the grid: only markers
    /// whose position lies under the screen box in which an icon covering `p` can have its
    /// anchor. The same answer as testing every marker in drawing order; nil when the box
    /// reaches above the horizon (the caller then tests them all).
    func markerThroughGrid(at p: Point, projection proj: Projection, skipping skipped: Set<String> = []) -> Marker?? {
        let grid = markerIndex.grid(for: markers)
        let e = markerIndex.largestIcon + 1
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        // A screen rectangle lands on the ground as a convex quadrilateral: its corners bound it.
        for corner in [Point(x: p.x - e, y: p.y - e), Point(x: p.x + e, y: p.y - e),
                       Point(x: p.x - e, y: p.y + e), Point(x: p.x + e, y: p.y + e)] {
            guard let w = proj.worldPoint(screen: corner) else { return .none }
            minX = min(minX, w.x); maxX = max(maxX, w.x); minY = min(minY, w.y); maxY = max(maxY, w.y)
        }
        let s = proj.worldSize
        var best: Int? = nil
        grid.forEach(inUnitBox: minX / s, minY / s, maxX / s, maxY / s) { i in
            let m = markers[i]
            if let b = best, (m.zIndex, i) < (markers[b].zIndex, b) { return }
            if !skipped.isEmpty && skipped.contains(m.id) { return }
            guard let sp = proj.point(for: m.position), m.iconContains(p, markerAt: sp) else { return }
            best = i
        }
        return .some(best.map { markers[$0] })
    }
}
