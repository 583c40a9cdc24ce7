import Foundation

/// An estimate of how a frame's drawing work falls on its rows, to split the rows into bands of
/// about equal work for the cores (`MapRenderer.paintBaseInBands`): lines and land crowd into
/// parts of a view (a town, the far ground of a tilted view), and with equal rows one band
/// waits for the other. Any split gives the same bytes. Used for the street map and the
/// overlays' shapes over a flat view (`ShapePainter.bandWork`); for the
/// built-in world (its land's edges weighed at 0.5 to 8 a row they cross) it measured no better
/// than equal rows.
///
/// Units: one pixel the line rasterizer visits (about 14 ns on the development VM at 1080p); a
/// pixel of the frame costs 0.2 of that besides (background, fills, blending: about 3 ns).
struct BandWork {
    let width: Int, height: Int
    /// A difference array over the rows: cost per row, added at a range's top, taken off below it.
    private var density: [Double]

    init(width: Int, height: Int) {
        self.width = width
        self.height = max(0, height)
        density = [Double](repeating: 0, count: max(0, height) + 1)
    }

    private mutating func spread(_ cost: Double, from top: Double, to bottom: Double) {
        guard height > 0, top.isFinite, bottom.isFinite, cost > 0 else { return }
        let t = Int(max(0, min(Double(height - 1), top.rounded(.down))))
        let b = Int(max(0, min(Double(height - 1), bottom.rounded(.down))))
        guard b >= t, bottom >= 0, top < Double(height) else { return }
        let perRow = cost / Double(b - t + 1)
        density[t] += perRow
        density[b + 1] -= perRow
    }

    /// Line segments (x0, y0, x1, y1, ...) drawn `w` px wide (or tapered between the two
    /// `endWidths` of each): (length + w + 1) x (w + 1) pixels.
    mutating func addLines(_ seg: [Double], endWidths: [Double]? = nil, width: Double) {
        for k in 0..<seg.count / 4 {
            let w = endWidths.map { ($0[2 * k] + $0[2 * k + 1]) / 2 } ?? width
            let x0 = seg[4 * k], y0 = seg[4 * k + 1], x1 = seg[4 * k + 2], y1 = seg[4 * k + 3]
            let len = ((x1 - x0) * (x1 - x0) + (y1 - y0) * (y1 - y0)).squareRoot()
            spread((len + w + 1) * (w + 1), from: min(y0, y1) - w, to: max(y0, y1) + w)
        }
    }

    /// Adds another estimate of the same rows' work.
    mutating func add(_ other: BandWork) {
        guard other.height == height else { return }
        for y in density.indices { density[y] += other.density[y] }
    }

    /// Work spread evenly over the rows a screen box spans (top to bottom, px).
    mutating func addBox(top: Double, bottom: Double, cost: Double) {
        spread(cost, from: top, to: bottom)
    }

    /// Row boundaries, 0 first and `height` last, of `bands` bands of about equal work.
    func cuts(bands n: Int, pixelCost: Double = 0.2) -> [Int] {
        guard n > 1, height > 0 else { return [0, height] }
        return BandWork.cuts(rowCosts: rowCosts(pixelCost: pixelCost), bands: n)
    }

    /// The estimated work of each row, a pixel of the frame counted at `pixelCost`.
    func rowCosts(pixelCost: Double = 0.2) -> [Double] {
        var rowCost = [Double](repeating: 0, count: height)
        var run = 0.0
        for y in 0..<height {
            run += density[y]
            rowCost[y] = max(0, run) + pixelCost * Double(width)
        }
        return rowCost
    }

    /// Row boundaries, 0 first and the row count last, of `bands` bands of about equal
    /// `rowCosts`, each cut on a multiple of `step` rows (a band may be empty). With `shares`
    /// (one a band, positive), band i gets about shares[i] / (their sum) of the work instead.
    static func cuts(rowCosts rowCost: [Double], bands n: Int, step: Int = 1, shares: [Double]? = nil) -> [Int] {
        let height = rowCost.count
        guard n > 1, height > 0 else { return [0, height] }
        let total = rowCost.reduce(0, +)
        let step = max(1, step)
        // The work above each cut, as a fraction of the whole: k / n, or the shares summed.
        var above = (0...n).map { Double($0) / Double(n) }
        if let shares, shares.count == n, shares.allSatisfy({ $0 > 0 && $0.isFinite }) {
            let sum = shares.reduce(0, +)
            var run = 0.0
            for i in 0..<n { above[i] = run / sum; run += shares[i] }
            above[n] = 1
        }
        var cuts = [0]
        var acc = 0.0
        for y in 0..<height where cuts.count < n {
            acc += rowCost[y]
            if acc >= total * above[cuts.count] {
                // Rounded to the nearer multiple of `step` (halfway: up).
                cuts.append(min(height, (y + 1 + step / 2) / step * step))
            }
        }
        while cuts.count < n { cuts.append(height) }
        cuts.append(height)
        for i in 1..<cuts.count { cuts[i] = max(cuts[i], cuts[i - 1]) }
        return cuts
    }
}

/// Band cuts that learn from the bands' own times: an estimate (`BandWork`) puts a pass's work
/// on the rows, but its error is far from even (a 1080p street frame's two bands, cut by the
/// estimate, waited 2.4 ms of 18 for each other; the overlays' shapes up to 0.6 ms). After each
/// pass the CPU time each band took, over the (corrected) work estimated for its rows, moves
/// that band's rows' correction factor halfway towards what it measured (so one slow band
/// moves the cut only a little); the next pass of the same kind and size cuts the corrected
/// estimate.
/// Any cut gives the same bytes: only the wait changes.
final class BandBalance {
    /// Rows' correction factors per pass size (width, height): a frame's and the cached base
    /// map's passes differ; a few sizes kept.
    private var factorsBySize: [Int: [Double]] = [:]
    private var factors: [Double] = []
    private var size = -1

    /// Cuts for `bands` bands of `rowCosts` (or equal rows' work, when nil) over `height` rows,
    /// corrected by what the last passes measured, and each band's corrected work (for `learn`).
    func cuts(rowCosts: [Double]?, bands n: Int, width: Int, height: Int, step: Int = 1,
              shares: [Double]? = nil) -> (cuts: [Int], estimates: [Double]) {
        let key = width << 20 | height
        if key != size {
            if size >= 0 { factorsBySize[size] = factors }
            if factorsBySize.count > 4 { factorsBySize = [:] }
            factors = factorsBySize[key] ?? [Double](repeating: 1, count: height)
            size = key
        }
        let costs = rowCosts?.count == height ? rowCosts! : [Double](repeating: 1, count: height)
        var corrected = costs
        for y in 0..<height { corrected[y] *= factors[y] }
        let cuts = BandWork.cuts(rowCosts: corrected, bands: n, step: step, shares: shares)
        var estimates = [Double](repeating: 0, count: max(0, cuts.count - 1))
        for b in estimates.indices where cuts[b] < cuts[b + 1] {
            for y in cuts[b]..<cuts[b + 1] { estimates[b] += corrected[y] }
        }
        return (cuts, estimates)
    }

    /// Takes the CPU time (any unit) each band of `cuts` took for its `estimates`.
    func learn(cuts: [Int], estimates: [Double], times: [Double]) {
        guard cuts.count == times.count + 1, estimates.count == times.count, cuts.last == factors.count else { return }
        let totalTime = times.reduce(0, +), totalWork = estimates.reduce(0, +)
        guard totalTime > 0, totalWork > 0 else { return }
        for b in times.indices where cuts[b] < cuts[b + 1] && estimates[b] > 0 && times[b] > 0 {
            // Time per unit of corrected work in this band, against the pass's mean (1 when the
            // correction was right); a step kept within 4x.
            let f = min(4, max(0.25, (times[b] / estimates[b]) / (totalTime / totalWork)))
            for y in cuts[b]..<cuts[b + 1] { factors[y] = min(8, max(0.125, factors[y] * (0.5 + 0.5 * f))) }
        }
    }
}
