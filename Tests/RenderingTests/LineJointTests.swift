import Foundation
import Testing
@testable import Rendering

/// A line's joints: the round join is drawn once, by one of the two segments, the other leaving
/// out its round end there (`LineRasterizer.draw`'s flat ends). The union of the capsules is
/// the same, so the frame must be too: a polyline drawn with its segments in order (joints
/// found) against the same segments in an order that puts no two neighbours side by side (no
/// joint found: every end round, as before).
@Suite struct LineJointTests {
    typealias Canvas = LineRasterizerTests.Canvas

    /// A random walk of `n` segments from the middle of a w x h canvas: lengths 0 to 14 px
    /// (some zero: repeated vertices), turns of any angle.
    static func walk(_ n: Int, seed: UInt64, w: Double, h: Double) -> [Double] {
        var rng = SplitMix(seed: seed)
        var x = w / 2 + rng.unit() * 10, y = h / 2 + rng.unit() * 10
        var angle = rng.unit() * 2 * .pi
        var out: [Double] = []
        for _ in 0..<n {
            angle += (rng.unit() - 0.5) * 2.6
            let len = rng.unit() < 0.05 ? 0 : rng.unit() * 14
            let nx = min(max(x + len * cos(angle), -8), w + 8), ny = min(max(y + len * sin(angle), -8), h + 8)
            out += [x, y, nx, ny]
            x = nx; y = ny
        }
        return out
    }

    /// The segments in the order 0, 2, 4, ..., 1, 3, 5, ...: no segment follows its neighbour.
    static func apart(_ seg: [Double], widths: [Double]?) -> ([Double], [Double]?) {
        let n = seg.count / 4
        let order = Array(stride(from: 0, to: n, by: 2)) + Array(stride(from: 1, to: n, by: 2))
        return (order.flatMap { seg[4 * $0..<4 * $0 + 4] }, widths.map { w in order.flatMap { w[2 * $0..<2 * $0 + 2] } })
    }

    static func drawn(_ seg: [Double], endWidths: [Double]?, width lw: Double, antialias: Bool, w: Int, h: Int, rows: [Range<Int>]) -> Canvas {
        let c = Canvas(w, h)
        let layer = LineRasterizer.Layer(segments: seg, endWidths: endWidths, lineWidth: lw, color: LineRasterizerTests.color, alpha: 0.9)
        for r in rows {
            LineRasterizer.stroke(layers: [layer], antialias: antialias, pixels: UnsafeMutableRawPointer(c.pixels), stride: w * 4, width: w, rows: r)
        }
        return c
    }

    @Test(arguments: [0.6, 1.0, 1.1, 2.5, 4.72, 7.9])
    func joinsDrawnOnceGiveTheSamePixels(width lw: Double) {
        let w = 150, h = 110
        var differing = 0, joints = 0
        for seed in 0..<12 as Range<UInt64> {
            let seg = Self.walk(60, seed: seed &* 7919 &+ UInt64(lw * 100), w: Double(w), h: Double(h))
            joints += seg.count / 4 - 1
            for antialias in [true, false] {
                let rows = seed % 3 == 0 ? [0..<37, 37..<h] : [0..<h]
                let inOrder = Self.drawn(seg, endWidths: nil, width: lw, antialias: antialias, w: w, h: h, rows: rows)
                let (shuffled, _) = Self.apart(seg, widths: nil)
                let rounds = Self.drawn(shuffled, endWidths: nil, width: lw, antialias: antialias, w: w, h: h, rows: rows)
                for i in 0..<w * h where inOrder.pixels[i] != rounds.pixels[i] { differing += 1 }
            }
        }
        #expect(joints > 600)
        #expect(differing == 0, "\(differing) pixels differ at width \(lw)")
    }

    /// A tilted view's widths: each segment's own, changing slowly along the line (as the
    /// ground's scale does), so most are drawn at their mean and the wider side of each joint
    /// draws the join.
    @Test func taperedJoinsDrawnOnceGiveTheSamePixels() {
        let w = 150, h = 110
        var differing = 0, joints = 0
        for seed in 0..<16 as Range<UInt64> {
            let seg = Self.walk(60, seed: seed &+ 4242, w: Double(w), h: Double(h))
            // Width from the screen row (the far ground at the top thinner), 0.4 to 6 px.
            let widths = seg.indices.filter { $0 % 2 == 1 }.map { i in 0.4 + 5.6 * min(max(seg[i] / Double(h), 0), 1) * (seed % 2 == 0 ? 1 : 0.5) }
            joints += seg.count / 4 - 1
            let inOrder = Self.drawn(seg, endWidths: widths, width: 1, antialias: true, w: w, h: h, rows: [0..<h])
            let (shuffled, sw) = Self.apart(seg, widths: widths)
            let rounds = Self.drawn(shuffled, endWidths: sw, width: 1, antialias: true, w: w, h: h, rows: [0..<h])
            for i in 0..<w * h where inOrder.pixels[i] != rounds.pixels[i] { differing += 1 }
        }
        #expect(joints > 900)
        #expect(differing == 0, "\(differing) pixels differ")
    }

    /// A joint whose round end was left out is still drawn: a two-segment corner has the full
    /// round join (the pixel on the far side of the corner's vertex, within the width, is inked).
    @Test func aCornerKeepsItsRoundJoin() {
        let w = 40, h = 40
        // Right, then straight down from (20.5, 10.5): the join's outer round lies up-right of it.
        let seg = [5.5, 10.5, 20.5, 10.5, 20.5, 10.5, 20.5, 30.5]
        let c = Self.drawn(seg, endWidths: nil, width: 6, antialias: true, w: w, h: h, rows: [0..<h])
        // (22, 8): 2 px right of and 2 px above the vertex, 2.8 px from it: inside the width's 3.
        #expect(c.coverage(22, 8) > 0.5)
        // Past the round (4.2 px from the vertex): nothing.
        #expect(c.coverage(23, 7) < 0.05)
    }
}

/// A small deterministic generator (SplitMix64) for the walks.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
