import Foundation
import Testing
@testable import Rendering

/// `LineRasterizer.dashed` writes its pieces through a pointer (session 18); this is the
/// implementation it replaced, kept as the oracle: the pieces must be the same numbers, bit for
/// bit, on lines joined and broken, dashed or only trimmed, flat or with a perspective scale.
@Suite struct DashedPiecesTests {
    static func reference(_ seg: [Double], pattern: [Double], trim: Double, scale: PerspectiveScale? = nil) -> [Double] {
        let n = seg.count / 4
        guard n > 0 else { return [] }
        let period = pattern.reduce(0, +)
        let dashing = !pattern.isEmpty && period > 0 && pattern.allSatisfy { $0 >= 0 && $0.isFinite }
        if !dashing && trim <= 0 { return seg }
        var out: [Double] = []
        out.reserveCapacity(seg.count)
        var lengths: [Double] = []
        let scale = scale?.atLeast(0.05)
        let minScale = scale?.minimum ?? 1
        @inline(__always) func scaleAt(_ y: Double) -> Double {
            guard let scale else { return 1 }
            let v = scale(y)
            return v.isFinite ? v : 1
        }
        var k = 0
        while k < n {
            // One line: segments k..<e, each starting where the last ended.
            var e = k + 1
            while e < n && seg[4 * e] == seg[4 * e - 2] && seg[4 * e + 1] == seg[4 * e - 1] { e += 1 }
            lengths.removeAll(keepingCapacity: true)
            var total = 0.0
            for j in k..<e {
                let dx = seg[4 * j + 2] - seg[4 * j], dy = seg[4 * j + 3] - seg[4 * j + 1]
                let l = (dx * dx + dy * dy).squareRoot()
                lengths.append(l.isFinite ? l : 0)
                total += lengths.last!
            }
            // Walks the line once: `j` is the segment holding arc length `at`, `start` its start's.
            var j = k, start = 0.0
            func point(_ at: Double) -> (Double, Double) {
                while j < e - 1 && start + lengths[j - k] < at { start += lengths[j - k]; j += 1 }
                let l = lengths[j - k]
                let t = l > 0 ? min(max((at - start) / l, 0), 1) : 0
                return (seg[4 * j] + t * (seg[4 * j + 2] - seg[4 * j]), seg[4 * j + 1] + t * (seg[4 * j + 3] - seg[4 * j + 1]))
            }
            func emit(_ a: Double, _ b: Double, trimStart: Double, trimEnd: Double) {
                var a = a + trimStart, b = b - trimEnd
                if a >= b { a = (a + b) / 2; b = a }
                var p = point(a)
                // The vertices between a and b, then b.
                while j < e - 1 && start + lengths[j - k] < b {
                    start += lengths[j - k]; j += 1
                    let q = (seg[4 * j], seg[4 * j + 1])
                    out.append(p.0); out.append(p.1); out.append(q.0); out.append(q.1)
                    p = q
                }
                let q = point(b)
                out.append(p.0); out.append(p.1); out.append(q.0); out.append(q.1)
            }
            if !dashing {
                emit(0, total, trimStart: trim * scaleAt(seg[4 * k + 1]), trimEnd: trim * scaleAt(seg[4 * e - 1]))
            } else if total / (period * minScale) < 1_000_000 {
                var at = 0.0, i = 0, on = true
                while at < total {
                    let sc = scale == nil ? 1 : scaleAt(point(at).1)
                    let len = pattern[i] * sc
                    if on && len > 0 { emit(at, min(at + len, total), trimStart: trim * sc, trimEnd: trim * sc) }
                    at += len
                    i = (i + 1) % pattern.count
                    on.toggle()
                }
            }
            k = e
        }
        return out
    }

    /// The pieces without those equal, bit for bit, to one before (what `dashed` gives since
    /// session 28).
    static func distinct(_ pieces: [Double]) -> [Double] {
        var seen = Set<[UInt64]>(), out: [Double] = []
        for k in 0..<(pieces.count / 4) {
            let p = Array(pieces[(4 * k)..<(4 * k + 4)])
            if seen.insert(p.map(\.bitPattern)).inserted { out += p }
        }
        return out
    }

    /// Two boundaries that leave the point where they meet along the same ways (as two
    /// municipalities' do) cut the same dashes there: each comes out once, the pieces after the
    /// lines part all kept, and the lines drawn from the pieces are the same bytes as drawn
    /// from every piece of each line dashed alone.
    @Test func dashesTwoLinesCutAlikeComeOutOnce() {
        let shared: [Double] = [10, 10, 40, 13, 40, 13, 71, 30]
        let a = shared + [71, 30, 90, 60], b = shared + [71, 30, 100, 20]
        let pattern: [Double] = [3, 2]
        let alone = LineRasterizer.dashed(a, pattern: pattern, trim: 0) + LineRasterizer.dashed(b, pattern: pattern, trim: 0)
        let together = LineRasterizer.dashed(a + b, pattern: pattern, trim: 0)
        let sharedPieces = LineRasterizer.dashed(shared, pattern: pattern, trim: 0).count / 4
        #expect(sharedPieces > 10)
        #expect(together.count / 4 == alone.count / 4 - sharedPieces)
        #expect(Self.distinct(alone).map(\.bitPattern) == together.map(\.bitPattern))
        func drawn(_ pieces: [Double]) -> [UInt32] {
            var px = [UInt32](repeating: 0xFFF3_EFE7, count: 120 * 80)
            px.withUnsafeMutableBytes { m in
                LineRasterizer.stroke(pieces, lineWidth: 1, color: RGBColor(r: 0.72, g: 0.68, b: 0.75), antialias: true,
                                      pixels: m.baseAddress!, stride: 120 * 4, width: 120, rows: 0..<80)
            }
            return px
        }
        let picture = drawn(together)
        #expect(picture == drawn(alone))
        #expect(picture.filter { $0 != 0xFFF3_EFE7 }.count > 150)
    }

    @Test func thePiecesAreThoseOfTheFormerImplementation() {
        var x: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> Double { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return Double(x % 1_000_000) / 1_000_000 }
        var pieces = 0
        for round in 0..<400 {
            // A few lines of joined segments, some zero-length, some lines broken off.
            var seg: [Double] = []
            var px = next() * 500, py = next() * 500
            for _ in 0..<(1 + Int(next() * 40)) {
                if next() < 0.1 { px = next() * 500; py = next() * 500 }
                let qx = next() < 0.05 ? px : px + (next() - 0.5) * 60, qy = next() < 0.05 ? py : py + (next() - 0.5) * 60
                seg += [px, py, qx, qy]
                px = qx; py = qy
            }
            let pattern: [Double] = round % 5 == 0 ? [] : (0..<(2 * (1 + Int(next() * 2)))).map { _ in next() < 0.1 ? 0 : 0.5 + next() * 12 }
            let trim = round % 3 == 0 ? 0 : next() * 4
            let scale: PerspectiveScale? = round % 2 == 0 ? nil
                : PerspectiveScale(base: 0.2 + next(), slope: (next() - 0.3) * 0.01, minimum: 0.05 + next() * 0.3, maximum: 1 + next())
            let got = LineRasterizer.dashed(seg, pattern: pattern, trim: trim, scale: scale)
            let dashing = !pattern.isEmpty && pattern.reduce(0, +) > 0
            let want = dashing ? Self.distinct(Self.reference(seg, pattern: pattern, trim: trim, scale: scale))
                : Self.reference(seg, pattern: pattern, trim: trim, scale: scale)
            #expect(got.map(\.bitPattern) == want.map(\.bitPattern), "round \(round): \(got.count) against \(want.count) numbers")
            pieces += want.count / 4
        }
        #expect(pieces > 5_000)
    }
}
