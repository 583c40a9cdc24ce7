import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering

/// A line's dashes start where the line does (its feature in the tile), not where a view cuts
/// it (MapLibre dashes a tile's line from its start): every view, a scrolled cache's strip and
/// the next full frame cut the same dashes. A butt end is trimmed only where the line ends.
@Suite struct DashPhaseTests {
    /// Pieces as (x0, y0, x1, y1) rounded to 1e-6 px, for comparing sets.
    static func pieces(_ s: [Double], dx: Double = 0, dy: Double = 0) -> [[Double]] {
        stride(from: 0, to: s.count, by: 4).map { i in
            [s[i] + dx, s[i + 1] + dy, s[i + 2] + dx, s[i + 3] + dy].map { ($0 * 1e6).rounded() / 1e6 }
        }
    }

    @Test func aLineCutByTheViewKeepsTheDashesOfTheWholeLine() {
        // A line from x = 0 to 100 with two vertices, dashed 4 on, 2 off, butt ends (trim 0.5).
        let whole: [Double] = [0, 0, 30, 0, 30, 0, 60, 0, 60, 0, 100, 0]
        let all = LineRasterizer.dashed(whole, pattern: [4, 2], trim: 0.5,
                                        runs: [.init(first: 0, along: 0, startCut: false)])
        // The same line as a view from x = 13 to 71 cuts it.
        let cut: [Double] = [13, 0, 30, 0, 30, 0, 60, 0, 60, 0, 71, 0]
        let seen = LineRasterizer.dashed(cut, pattern: [4, 2], trim: 0.5,
                                         runs: [.init(first: 0, along: 13, startCut: true, endCut: true)])
        // The whole line's pieces inside (13, 71), with the ones across x = 13 and x = 71 ending there.
        let expected = Self.pieces(all).compactMap { p -> [Double]? in
            let a = max(p[0], 13), b = min(p[2], 71)
            return a <= b && p[2] > 13 && p[0] < 71 ? [a, 0, b, 0] : nil
        }
        #expect(Self.pieces(seen) == expected, "\(Self.pieces(seen)) vs \(expected)")
        // Dashes at 0..4, 6..10, 12..16 (trimmed to 12.5..15.5): the one across x = 13 starts at
        // the cut, untrimmed; the line's own start is trimmed.
        #expect(Self.pieces(seen).first == [13, 0, 15.5, 0])
        #expect(Self.pieces(all).first == [0.5, 0, 3.5, 0])
        // Without runs, the cut line was dashed from its cut (the old view-dependent phase).
        #expect(Self.pieces(LineRasterizer.dashed(cut, pattern: [4, 2], trim: 0.5)).first == [13.5, 0, 16.5, 0])
    }

    /// Tilted, a run's `along` is ground px (the pattern's own px): on screen the skipped part
    /// of the pattern is scaled as the dashes are where the run starts.
    @Test func aTiltedLineCutByTheViewKeepsItsDashesOnTheGround() {
        let half = PerspectiveScale(base: 0.5, slope: 0, minimum: 0, maximum: 10)
        let all = LineRasterizer.dashed([0, 0, 50, 0], pattern: [4, 2], trim: 0, scale: half,
                                        runs: [.init(first: 0, along: 0, startCut: false)])
        // Cut 6.5 px into the screen: 13 px of ground at half scale.
        let seen = LineRasterizer.dashed([6.5, 0, 50, 0], pattern: [4, 2], trim: 0, scale: half,
                                         runs: [.init(first: 0, along: 13, startCut: true)])
        let expected = Self.pieces(all).compactMap { p -> [Double]? in p[2] > 6.5 ? [max(p[0], 6.5), 0, p[2], 0] : nil }
        #expect(Self.pieces(seen) == expected, "\(Self.pieces(seen)) vs \(expected)")
        #expect(Self.pieces(seen).first == [6.5, 0, 8, 0])
    }

    @Test func aButtEndIsTrimmedOnlyWhereTheLineEnds() {
        // Undashed, butt ends: cut by the view at its start, its own end at x = 50.
        let seg: [Double] = [0, 0, 50, 0]
        let cutStart = LineRasterizer.dashed(seg, pattern: [], trim: 2, runs: [.init(first: 0, along: 7, startCut: true)])
        #expect(Self.pieces(cutStart) == [[0, 0, 48, 0]])
        var both = LineRasterizer.Run(first: 0, along: 0, startCut: false)
        both.endCut = true
        #expect(Self.pieces(LineRasterizer.dashed(seg, pattern: [], trim: 2, runs: [both])) == [[2, 0, 50, 0]])
        // Two lines, the second going on from the first's end (a road's next way): no gap there.
        let chain: [Double] = [0, 0, 50, 0, 50, 0, 90, 0]
        let twoRuns = LineRasterizer.dashed(chain, pattern: [], trim: 2,
                                            runs: [.init(first: 0, along: 0, startCut: false), .init(first: 1, along: 0, startCut: false)])
        #expect(Self.pieces(twoRuns) == [[2, 0, 50, 0], [50, 0, 88, 0]])
        // Each line's dashes start at its own start.
        let dashedRuns = LineRasterizer.dashed(chain, pattern: [4, 2], trim: 0,
                                               runs: [.init(first: 0, along: 0, startCut: false), .init(first: 1, along: 0, startCut: false)])
        #expect(Self.pieces(dashedRuns).contains([50, 0, 54, 0]))
        #expect(Self.pieces(dashedRuns).contains([48, 0, 50, 0]))
    }

    /// The street map's dashed paths in two flat views 150 px apart: the pieces both views see
    /// well inside are the same pieces (moved by the views' offset). Before, each view dashed a
    /// path from where the view's edge cut it.
    @Test func twoViewsOfTheStreetMapCutTheSameDashes() throws {
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let r = MapRenderer(vector: opened.vector)
        let zoom = 15.5
        let w = 800.0, h = 600.0
        let centre = WebMercator.worldPoint(StreetLinesTests.vaduz, zoom: zoom)
        let a = Point(x: centre.x.rounded(), y: centre.y.rounded()), b = a + Point(x: 150, y: 90)
        /// The dashed line groups of a view by their paint (a group with no line in a view is not
        /// there): each piece, moved by (dx, dy), and where it starts in the pattern when the
        /// dashes are drawn along the pieces (to 1/1000 px).
        func dashedLayers(_ c: Point, dx: Double = 0, dy: Double = 0) -> [String: [[Double]]] {
            let cam = CameraPosition(target: WebMercator.coordinate(world: c, zoom: zoom), zoom: zoom)
            let view = GroundView(projection: Projection(camera: cam, screen: Size(width: w, height: h)))
            let layers = r.streetPainter(opened.vector!, view: view, zoom: zoom, antialias: true).layers(view: view, zoom: zoom)
            var out: [String: [[Double]]] = [:]
            for op in layers.ops {
                guard case let .lines(_, pieces?, width, color, _, _, dash) = op, !dash.isEmpty else { continue }
                var made = Self.pieces(pieces.segments, dx: dx, dy: dy)
                if let places = pieces.dashes?.pieces {
                    for i in made.indices { made[i].append((Double(places[4 * i]) * 1000).rounded() / 1000) }
                }
                out["\(width) \(color) \(dash)", default: []] += made
            }
            return out
        }
        let byPaintA = dashedLayers(a), byPaintB = dashedLayers(b, dx: 150, dy: 90)
        let shared = Set(byPaintA.keys).intersection(byPaintB.keys).sorted()
        try #require(shared.count >= 2, "\(byPaintA.keys.sorted()) / \(byPaintB.keys.sorted())")
        let inA = shared.map { byPaintA[$0]! }, inB = shared.map { byPaintB[$0]! }
        // B's screen point (x, y) is A's (x + 150, y + 90); well inside both: 40 px from either's edges.
        func inside(_ p: [Double]) -> Bool {
            [p[0], p[2]].allSatisfy { $0 > 190 && $0 < w - 40 } && [p[1], p[3]].allSatisfy { $0 > 130 && $0 < h - 40 }
        }
        var compared = 0
        for (la, lb) in zip(inA, inB) {
            let pa = Set(la.filter(inside)), pb = Set(lb.filter(inside))
            // (Pieces rounded to 1e-6 px: the views' projections differ in the last bits.)
            let missing = pa.symmetricDifference(pb)
            #expect(missing.count <= max(2, pa.count / 100), "\(missing.count) of \(pa.count) pieces differ")
            compared += pa.count
        }
        #expect(compared > 200, "\(compared) dash pieces compared")
    }
}
