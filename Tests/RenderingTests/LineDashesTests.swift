import Foundation
import Testing
@testable import Rendering

/// Dashes drawn along a line's pieces (`LineRasterizer.along`) against the same dashes cut
/// into pieces of their own (`LineRasterizer.dashed`), the way the street map drew them before:
/// on a straight line the same pixels, round a corner and in a tilted view the same dashes
/// within a few edge pixels.
@Suite struct LineDashesTests {
    typealias Canvas = LineRasterizerTests.Canvas

    /// `seg` drawn w x h with the pattern along its pieces (or, `cut`, as dashes of their own).
    static func drawn(_ seg: [Double], pattern: [Double], trim: Double, width lw: Double, cut: Bool,
                      scale: PerspectiveScale? = nil, runs: [LineRasterizer.Run]? = nil, w: Int = 160, h: Int = 120,
                      rows: [Range<Int>]? = nil) -> Canvas {
        let c = Canvas(w, h)
        var layer: LineRasterizer.Layer
        if cut {
            layer = LineRasterizer.Layer(segments: LineRasterizer.dashed(seg, pattern: pattern, trim: trim, scale: scale, runs: runs),
                                         lineWidth: lw, color: LineRasterizerTests.color)
        } else {
            let (pieces, dashes) = LineRasterizer.along(seg, pattern: pattern, trim: trim, scale: scale, runs: runs)
            layer = LineRasterizer.Layer(segments: pieces, lineWidth: lw, color: LineRasterizerTests.color, dashes: dashes)
        }
        for r in rows ?? [0..<h] {
            LineRasterizer.stroke(layers: [layer], antialias: true, pixels: UnsafeMutableRawPointer(c.pixels), stride: w * 4, width: w, rows: r)
        }
        return c
    }

    /// The largest difference in coverage between two canvases, and how many pixels differ by
    /// more than `by` (only pixels `compared`, when given).
    static func compare(_ a: Canvas, _ b: Canvas, by: Double, compared: (Int, Int) -> Bool = { _, _ in true }) -> (worst: Double, over: Int) {
        var worst = 0.0, over = 0
        for y in 0..<a.h { for x in 0..<a.w where compared(x, y) {
            let d = abs(a.coverage(x, y) - b.coverage(x, y))
            worst = max(worst, d)
            if d > by { over += 1 }
        } }
        return (worst, over)
    }

    @Test(arguments: [0.0, 17.0, 45.0, 90.0, 133.0, 200.0])
    func aStraightLinesDashesAreTheCutDashes(degrees: Double) {
        let a = degrees * .pi / 180
        let cx = 80.3, cy = 60.7, r = 55.0
        let seg = [cx - r * cos(a), cy - r * sin(a), cx + r * cos(a), cy + r * sin(a)]
        // Pixels whose feet on the line lie 4 px or more inside its ends: a dash the line's own
        // end cuts short may be a dot in the cut dashes (`LineDashes`).
        func inside(_ x: Int, _ y: Int) -> Bool {
            let u = (Double(x) + 0.5 - seg[0]) * cos(a) + (Double(y) + 0.5 - seg[1]) * sin(a)
            return u > 4 && u < 2 * r - 4
        }
        for (lw, pattern) in [(1.3, [2.6, 1.95]), (2.5, [7.5, 5.0]), (1.0, [1.0, 3.0])] {
            for (along, ends) in [(0.0, false), (1.3, false), (4.1, true), (2.2, true)] {
                let runs = [LineRasterizer.Run(first: 0, along: along, startCut: ends, endCut: ends)]
                let cut = Self.drawn(seg, pattern: pattern, trim: lw / 2, width: lw, cut: true, runs: runs)
                let drawn = Self.drawn(seg, pattern: pattern, trim: lw / 2, width: lw, cut: false, runs: runs)
                // The same distances to the same dash capsules; single against double precision.
                let (worst, _) = Self.compare(cut, drawn, by: 1, compared: inside)
                #expect(worst <= 2.5 / 255, "\(degrees) degrees, width \(lw), \(pattern) from \(along): worst \(worst * 255) levels")
                #expect(cut.ink > 20)
            }
        }
    }

    @Test func dashesRoundACornerAreTheCutDashesButAtTheVertex() {
        // A chain of three segments turning 90 and 45 degrees, dashed 4 on 2 off at 1.5 px.
        let seg = [10.2, 20.4, 90.7, 20.4, 90.7, 20.4, 90.7, 80.1, 90.7, 80.1, 130.3, 110.6]
        for along in [0.0, 2.7] {
            // (Its ends cut by the view: a dash its own end cuts short may be a dot in the cut dashes.)
            let runs = [LineRasterizer.Run(first: 0, along: along, startCut: true, endCut: true)]
            let cut = Self.drawn(seg, pattern: [6, 3], trim: 0.75, width: 1.5, cut: true, runs: runs)
            let drawn = Self.drawn(seg, pattern: [6, 3], trim: 0.75, width: 1.5, cut: false, runs: runs)
            let (_, over) = Self.compare(cut, drawn, by: 2.5 / 255)
            // Only pixels by the two vertices may differ (a dash's core and a piece's end meet
            // there), and by the view's cuts (a cut dash starts at the cut, one drawn along at
            // its core: the edge of the view, where the lines run on unseen).
            let near = [(90.7, 20.4), (90.7, 80.1), (10.2, 20.4), (130.3, 110.6)]
            var far = 0
            for y in 0..<cut.h { for x in 0..<cut.w where abs(cut.coverage(x, y) - drawn.coverage(x, y)) > 2.5 / 255 {
                if near.allSatisfy({ hypot(Double(x) + 0.5 - $0.0, Double(y) + 0.5 - $0.1) > 3 }) { far += 1 }
            } }
            #expect(far == 0, "\(far) pixels away from the vertices differ")
            #expect(over <= 12, "\(over) pixels differ by the vertices")
            #expect(abs(drawn.ink - cut.ink) <= 0.03 * cut.ink, "ink \(drawn.ink) against \(cut.ink)")
        }
    }

    @Test func aTiltedViewsDashesShortenAsTheCutOnesDo() {
        // The scale halves from the bottom of the frame to its top (a tilted view's ground).
        let scale = PerspectiveScale(base: 0.5, slope: 0.5 / 120, minimum: 0.05, maximum: 1)
        let seg = [150.5, 115.2, 10.3, 4.8]
        let runs = [LineRasterizer.Run(first: 0, along: 0, startCut: false)]
        let cut = Self.drawn(seg, pattern: [8, 4], trim: 1, width: 2, cut: true, scale: scale, runs: runs)
        let drawn = Self.drawn(seg, pattern: [8, 4], trim: 1, width: 2, cut: false, scale: scale, runs: runs)
        // The same number of dashes: ink runs along the line's middle.
        func dashes(_ c: Canvas) -> Int {
            var n = 0, inDash = false
            for i in 0...400 {
                let t = Double(i) / 400
                let x = Int(150.5 + t * (10.3 - 150.5)), y = Int(115.2 + t * (4.8 - 115.2))
                let on = c.coverage(x, y) > 0.5
                if on && !inDash { n += 1 }
                inDash = on
            }
            return n
        }
        #expect(dashes(cut) >= 15)
        #expect(abs(dashes(drawn) - dashes(cut)) <= 1, "\(dashes(drawn)) dashes against \(dashes(cut))")
        #expect(abs(drawn.ink - cut.ink) <= 0.06 * cut.ink, "ink \(drawn.ink) against \(cut.ink)")
    }

    @Test func anyRowsGiveTheSameBytes() {
        let seg = [3.3, 100.1, 60.2, 7.9, 60.2, 7.9, 155.0, 90.4]
        let whole = Self.drawn(seg, pattern: [5, 3], trim: 0.6, width: 1.2, cut: false)
        let banded = Self.drawn(seg, pattern: [5, 3], trim: 0.6, width: 1.2, cut: false, rows: [0..<17, 17..<50, 50..<51, 51..<120])
        #expect(memcmp(whole.pixels, banded.pixels, whole.w * whole.h * 4) == 0)
    }

    @Test func aRepeatedPieceIsLeftOutButNotAtAnotherPlaceInThePattern() {
        // Two boundaries sharing a way from the same start, and a third dashed from elsewhere.
        let seg = [0.0, 0, 30, 0, 0, 0, 30, 0, 0, 0, 30, 0]
        let runs = [LineRasterizer.Run(first: 0, along: 0, startCut: true, endCut: true),
                    LineRasterizer.Run(first: 1, along: 0, startCut: true, endCut: true),
                    LineRasterizer.Run(first: 2, along: 1.5, startCut: true, endCut: true)]
        let (pieces, dashes) = LineRasterizer.along(seg, pattern: [4, 2], trim: 0, runs: runs)
        #expect(pieces.count == 8)
        #expect(dashes.pieces.count == 8)
        #expect(dashes.pieces[0] == 0 && dashes.pieces[4] == 1.5)
        #expect(dashes.pieces[1] == 30)
    }

    @Test func aLinesOwnEndsAreTrimmedAsTheCutOnes() {
        // Ends trimmed by half the width where the line ends, not where the view cut it.
        let seg = [10.0, 5, 40, 5]
        let (ended, _) = LineRasterizer.along(seg, pattern: [4, 2], trim: 1, runs: [.init(first: 0, along: 0, startCut: false)])
        #expect(ended == [11, 5, 39, 5])
        let (cutStart, marks) = LineRasterizer.along(seg, pattern: [4, 2], trim: 1, runs: [.init(first: 0, along: 7, startCut: true)])
        #expect(cutStart == [10, 5, 39, 5])
        // 7 px along the whole line: 1 px into its second period.
        #expect(abs(Double(marks.pieces[0]) - 1) < 1e-6)
        #expect(LineRasterizer.drawsAlong([4, 2]) && !LineRasterizer.drawsAlong([4, 2, 1, 2]) && !LineRasterizer.drawsAlong([0, 0]))
    }
}
