import Testing
@testable import Rendering

/// Splitting a frame's rows into bands of equal estimated work.
@Suite struct BandWorkTests {
    @Test func noWorkButThePixelsSplitsTheRowsEqually() {
        let w = BandWork(width: 640, height: 480)
        #expect(w.cuts(bands: 2) == [0, 240, 480])
        #expect(w.cuts(bands: 3) == [0, 160, 320, 480])
        #expect(w.cuts(bands: 1) == [0, 480])
    }

    @Test func linesInTheTopRowsMoveTheCutUp() {
        var w = BandWork(width: 640, height: 480)
        var seg: [Double] = []
        for y in stride(from: 0.0, to: 100, by: 2) { seg += [0, y, 640, y] }
        w.addLines(seg, width: 2)
        let cuts = w.cuts(bands: 2)
        #expect(cuts[1] < 120 && cuts[1] > 0, "\(cuts)")
    }

    @Test func cutsStayInOrderAndInTheFrame() {
        var w = BandWork(width: 10, height: 3)
        w.addLines([0, -50, 0, 5000, .nan, 0, 1, 1], width: 1)   // off the frame, not finite
        let cuts = w.cuts(bands: 8)
        #expect(cuts.count == 9 && cuts.first == 0 && cuts.last == 3)
        #expect(zip(cuts, cuts.dropFirst()).allSatisfy { $0 <= $1 })
        #expect(BandWork(width: 10, height: 0).cuts(bands: 2) == [0, 0])
    }
}
