import Foundation
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

    /// Shares give the pieces their parts of the work (the frame's pieces: the first taken
    /// largest, the last smallest), on whole steps; shares that cannot be used give equal parts.
    @Test func sharesGiveEachPieceItsPartOfTheWork() {
        let even = [Double](repeating: 1, count: 1024)
        #expect(BandWork.cuts(rowCosts: even, bands: 4, step: 32, shares: [4, 3, 2, 1]) == [0, 416, 704, 928, 1024])
        #expect(BandWork.cuts(rowCosts: even, bands: 4, shares: [1, 1, 1, 1]) == BandWork.cuts(rowCosts: even, bands: 4))
        for bad: [Double] in [[1, 2], [1, 0, 1, 1], [1, .nan, 1, 1], [1, -1, 1, 1]] {
            #expect(BandWork.cuts(rowCosts: even, bands: 4, shares: bad) == [0, 256, 512, 768, 1024], "\(bad)")
        }
        // Work crowded into the top rows: the shares are of the work, not of the rows.
        let crowded = (0..<1000).map { $0 < 100 ? 10.0 : 0.0 }
        let cuts = BandWork.cuts(rowCosts: crowded, bands: 3, shares: [3, 2, 1])
        #expect(cuts == [0, 50, 84, 1000], "\(cuts)")
    }
}

/// Band cuts that learn from the bands' times (`BandBalance`): scripted times, no clock.
@Suite struct BandBalanceTests {
    /// The CPU time of rows a..<b when row y truly costs `cost(y)`.
    static func time(_ cuts: [Int], _ cost: (Int) -> Double) -> [Double] {
        (0..<(cuts.count - 1)).map { b in (cuts[b]..<cuts[b + 1]).reduce(0.0) { $0 + cost($1) } }
    }

    @Test func withoutTimesTheEstimateCuts() {
        let balance = BandBalance()
        var w = BandWork(width: 640, height: 480)
        var seg: [Double] = []
        for y in stride(from: 0.0, to: 100, by: 2) { seg += [0, y, 640, y] }
        w.addLines(seg, width: 2)
        let plan = balance.cuts(rowCosts: w.rowCosts(), bands: 2, width: 640, height: 480)
        #expect(plan.cuts == w.cuts(bands: 2))
        #expect(balance.cuts(rowCosts: nil, bands: 2, width: 640, height: 480).cuts == [0, 240, 480])
    }

    /// The estimate says the rows cost alike; truly the top quarter costs five times a row
    /// below it. Frame after frame the cut moves up until the two bands take about the same
    /// time, and stays there.
    @Test func theCutMovesUntilTheBandsTakeTheSameTime() {
        let balance = BandBalance()
        let cost = { (y: Int) -> Double in y < 120 ? 5 : 1 }
        var cuts: [Int] = []
        var spread: [Double] = []
        for _ in 0..<12 {
            let plan = balance.cuts(rowCosts: nil, bands: 2, width: 640, height: 480)
            cuts = plan.cuts
            let t = Self.time(cuts, cost)
            spread.append(abs(t[0] - t[1]) / (t[0] + t[1]))
            balance.learn(cuts: cuts, estimates: plan.estimates, times: t)
        }
        // Equal rows first: 600 + 120 against 240 (a spread of a half).
        #expect(spread[0] > 0.45)
        #expect(spread.last! < 0.05, "\(spread)")
        // Equal time: 5 y = 600 - 5 y + 360, y = 96.
        #expect(abs(cuts[1] - 96) <= 6, "\(cuts)")
    }

    /// One band preempted once (its time doubled in one frame) moves the cut a little, and the
    /// next frames bring it back.
    @Test func oneSlowFrameMovesTheCutALittle() {
        let balance = BandBalance()
        var plan = balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 400)
        balance.learn(cuts: plan.cuts, estimates: plan.estimates, times: [400, 200])
        plan = balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 400)
        #expect(plan.cuts[1] < 200 && plan.cuts[1] > 150, "\(plan.cuts)")
        for _ in 0..<10 {
            plan = balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 400)
            balance.learn(cuts: plan.cuts, estimates: plan.estimates, times: Self.time(plan.cuts) { _ in 1 })
        }
        #expect(abs(plan.cuts[1] - 200) <= 4, "\(plan.cuts)")
    }

    /// Each pass size keeps its own learning; times that do not fit the cuts are ignored.
    @Test func sizesAreLearntApartAndBadTimesIgnored() {
        let balance = BandBalance()
        var plan = balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 400)
        balance.learn(cuts: plan.cuts, estimates: plan.estimates, times: [300, 100])
        let learnt = balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 400).cuts
        #expect(learnt != [0, 200, 400])
        #expect(balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 300).cuts == [0, 150, 300])
        #expect(balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 400).cuts == learnt)
        plan = balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 400)
        balance.learn(cuts: plan.cuts, estimates: plan.estimates, times: [1])
        balance.learn(cuts: plan.cuts, estimates: plan.estimates, times: [0, 0])
        balance.learn(cuts: [0, 10, 20], estimates: [1, 1], times: [5, 1])
        #expect(balance.cuts(rowCosts: nil, bands: 2, width: 100, height: 400).cuts == learnt)
    }
}

/// The pieces a frame's bands take in turn: every piece given once, whatever threads ask.
@Suite struct PieceQueueTests {
    @Test func everyPieceIsGivenOnceToWhicheverThreadAsks() {
        for count in [0, 1, 4, 37] {
            let queue = PieceQueue(count: count)
            let taken = ParallelSlots<[Int]>(count: 8, initial: [])
            DispatchQueue.concurrentPerform(iterations: 8) { t in
                var mine: [Int] = []
                while let i = queue.next() { mine.append(i) }
                taken[t] = mine
            }
            #expect(taken.values.flatMap { $0 }.sorted() == Array(0..<count))
            #expect(queue.next() == nil)
        }
    }
}
