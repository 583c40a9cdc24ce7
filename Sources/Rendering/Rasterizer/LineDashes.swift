import CCairo
import Foundation

/// Dashes drawn along a line's whole pieces instead of cut into a piece each.
///
/// A dashed path cut into its dashes is a capsule a dash: at 1080p the street map's paths
/// (`[2, 1.5]` line widths) and boundaries made half of a frame's pieces, most under 2 px long,
/// and each piece pays its set-up, its rows' runs and its place in the chunks' buckets (the
/// street frames took 9 to 10 % less CPU with the paths undashed). Drawn along, each piece of
/// the line is one capsule and each pixel works out where its foot on the piece falls in the
/// pattern: its distance along the line to the nearest dash's core (the dash less `trim` at
/// each end, as `dashed` cuts it), taken with its distance past the piece's ends and its
/// distance across. Along a straight piece that is the distance to the dash's capsule, as the
/// cut dash gives; where a dash turns a corner the two pieces each draw their part with a
/// round end at the vertex, as the cut dash's two pieces do.
///
/// Where a line really ends (not where the view cut it), a dash the end cuts short keeps what
/// lies within the line trimmed by `trim`: `dashed` made a dash cut shorter than twice the
/// trim a dot at its middle, so a path's end may differ from the cut dashes by such a dot.
///
/// Only a pattern of one dash and one gap is drawn so (`drawsAlong`); a longer pattern is cut.
extension LineRasterizer {
    /// The pattern of a layer drawn along, and where each piece starts in it.
    struct Dashes {
        /// Four numbers a piece: where its start falls in the pattern (pattern px, 0 ..< period,
        /// 0 where a dash starts), how many pattern px it spans, and screen px per pattern px at
        /// its start and at its end (1 flat; a tilted view's dashes shorten with distance).
        var pieces: [Float]
        /// One dash `on` px long then a gap, `period` px in all, each dash's ends trimmed by
        /// `trim` (pattern px: screen px where the scale is 1).
        let period: Double, on: Double, trim: Double

        /// The pixel loops' constants: the period, its inverse, a dash's middle and half its
        /// core's length (0: a dot).
        var step: SIMD4<Float> {
            SIMD4(Float(period), Float(1 / period), Float(on / 2), Float(max(on / 2 - trim, 0)))
        }
    }

    /// Pattern px over a straight stretch `length` screen px long whose scale goes from s0 to
    /// s1 (the scale is affine in screen y, so along the stretch too): the integral of 1 / scale.
    static func patternLength(_ length: Double, _ s0: Double, _ s1: Double) -> Double {
        guard s0 > 0, s1 > 0 else { return length }
        let d = s1 - s0
        if abs(d) < 1e-9 * s0 { return length / s0 }
        return length * log(s1 / s0) / d
    }

    /// A line among segments (`dashed`, `along`): its segments `first..<end`, each starting
    /// where the last ended (or as `runs` cut them: the run it starts), each segment's length
    /// into `lengths[j]` and their sum, and whether its ends are open: cut by the view, or
    /// going on into the next line (a road's ways one after the other), so not trimmed.
    struct LineSpan {
        let end: Int
        let run: Run
        let total: Double
        let openStart: Bool, openEnd: Bool

        /// The line starting at segment k of the n at `s`; `r` is the next run to look at.
        init(at k: Int, in s: UnsafePointer<Double>, count n: Int, runs: [Run]?, next r: inout Int,
             lengths: UnsafeMutablePointer<Double>) {
            var e = k + 1
            var run = Run(first: k, along: 0, startCut: false)
            if let runs {
                while r < runs.count && runs[r].first <= k { run = runs[r]; r += 1 }
                e = r < runs.count ? min(max(runs[r].first, k + 1), n) : n
            } else {
                while e < n && s[4 * e] == s[4 * e - 2] && s[4 * e + 1] == s[4 * e - 1] { e += 1 }
            }
            var total = 0.0
            for j in k..<e {
                let dx = s[4 * j + 2] - s[4 * j], dy = s[4 * j + 3] - s[4 * j + 1]
                let l = (dx * dx + dy * dy).squareRoot()
                lengths[j] = l.isFinite ? l : 0
                total += lengths[j]
            }
            self.end = e
            self.run = run
            self.total = total
            openStart = run.startCut || (runs != nil && k > 0 && s[4 * k] == s[4 * k - 2] && s[4 * k + 1] == s[4 * k - 1])
            openEnd = run.endCut || (runs != nil && e < n && s[4 * e] == s[4 * e - 2] && s[4 * e + 1] == s[4 * e - 1])
        }
    }

    /// Runs `body` for each line among the segments (`LineSpan`), in order: its first segment,
    /// the line, the segments' numbers and each segment's length (`lengths[j]`).
    static func eachLine(_ seg: [Double], runs: [Run]?,
                         _ body: (_ first: Int, _ line: LineSpan, _ s: UnsafePointer<Double>, _ lengths: UnsafePointer<Double>) -> Void) {
        let n = seg.count / 4
        guard n > 0 else { return }
        let lengths = UnsafeMutablePointer<Double>.allocate(capacity: n)
        defer { lengths.deallocate() }
        seg.withUnsafeBufferPointer { sp in
            guard let s = sp.baseAddress else { return }
            var k = 0, r = 0
            while k < n {
                let line = LineSpan(at: k, in: s, count: n, runs: runs, next: &r, lengths: lengths)
                body(k, line, s, lengths)
                k = line.end
            }
        }
    }

    /// Whether `along` draws this pattern: one dash (longer than 0: `dashed` draws none of
    /// length 0) and one gap.
    static func drawsAlong(_ pattern: [Double]) -> Bool {
        pattern.count == 2 && pattern.allSatisfy { $0 >= 0 && $0.isFinite } && pattern[0] > 0
    }

    /// The pieces of lines to draw with a pattern along them (`drawsAlong`): the segments with
    /// each line's ends trimmed by `trim` where it ends (as `dashed` trims them), and where each
    /// piece falls in the pattern. The lines, `runs` and `scale` are `dashed`'s: a line's
    /// pattern starts where the whole line does (`Run.along`, ground px), and with a `scale`
    /// (held at 0.05 at least) a dash's length and trim are their lengths times the scale where
    /// it is drawn. A piece equal to one before it, and falling at the same place in the
    /// pattern, is left out (boundaries share their ways).
    static func along(_ seg: [Double], pattern: [Double], trim: Double, scale: PerspectiveScale? = nil,
                      runs: [Run]? = nil) -> (segments: [Double], dashes: Dashes) {
        let period = pattern[0] + pattern[1]
        let n = seg.count / 4
        var out: [Double] = [], marks: [Float] = []
        out.reserveCapacity(seg.count + 16)
        marks.reserveCapacity(seg.count + 16)
        let scale = scale?.atLeast(0.05)
        @inline(__always) func scaleAt(_ y: Double) -> Double {
            guard let scale else { return 1 }
            let v = scale(y)
            return v.isFinite && v > 0 ? v : 1
        }
        // The pieces already in, by their numbers' bits (open addressing on piece numbers,
        // at most one piece a segment): a `Set` of them hashed each piece's five numbers
        // through `Hasher`, the longest part of the layer's build.
        var bits = 4
        while 1 << bits < 2 * n { bits += 1 }
        let slots = 1 << bits
        let seen = UnsafeMutablePointer<Int32>.allocate(capacity: slots)
        seen.initialize(repeating: -1, count: slots)
        defer { seen.deallocate() }
        /// Whether the piece (with its place) is new; if so it is noted as piece `count`.
        func isNew(_ x0: Double, _ y0: Double, _ x1: Double, _ y1: Double, _ place: Float, count: Int) -> Bool {
            var h = x0.bitPattern &* 0x9E37_79B9_7F4A_7C15
            h = (h ^ y0.bitPattern) &* 0x9E37_79B9_7F4A_7C15
            h = (h ^ x1.bitPattern) &* 0x9E37_79B9_7F4A_7C15
            h = (h ^ y1.bitPattern) &* 0x9E37_79B9_7F4A_7C15
            h = (h ^ UInt64(place.bitPattern)) &* 0x9E37_79B9_7F4A_7C15
            var i = Int(truncatingIfNeeded: h >> UInt64(64 - bits))
            while seen[i] >= 0 {
                let k = Int(seen[i])
                if out[4 * k].bitPattern == x0.bitPattern && out[4 * k + 1].bitPattern == y0.bitPattern
                    && out[4 * k + 2].bitPattern == x1.bitPattern && out[4 * k + 3].bitPattern == y1.bitPattern
                    && marks[4 * k].bitPattern == place.bitPattern { return false }
                i = (i + 1) & (slots - 1)
            }
            seen[i] = Int32(count)
            return true
        }
        /// x less the whole periods in it: 0 ..< period (`truncatingRemainder`, a libm `fmod`
        /// call, then taken up; in range for |x| < 2^62 periods, else 0).
        func wrapped(_ x: Double) -> Double {
            let q = x / period
            guard abs(q) < 0x1p62 else { return 0 }
            let w = x - Double(WholeNumbers.floor(q)) * period
            return w >= 0 && w < period ? w : 0
        }
        eachLine(seg, runs: runs) { k, line, s, lengths in
            let e = line.end, run = line.run, total = line.total
            let openStart = line.openStart, openEnd = line.openEnd
            var a = openStart ? 0 : trim * scaleAt(s[4 * k + 1]), b = total - (openEnd ? 0 : trim * scaleAt(s[4 * e - 1]))
            if a >= b { a = (a + b) / 2; b = a }
            // The pattern at the line's start: the part of the whole line before this run
            // skipped (`along`, ground px: pattern px at the scale of 1).
            var at = run.along.isFinite ? wrapped(run.along) : 0
            var start = 0.0
            for j in k..<e {
                let l = lengths[j]
                let x0 = s[4 * j], y0 = s[4 * j + 1], x1 = s[4 * j + 2], y1 = s[4 * j + 3]
                let u0 = max(a, start), u1 = min(b, start + l)
                // The piece of segment j inside [a, b] (a point when the line is one).
                if u0 < u1 || (a == b && u0 == u1) {
                    let t0 = l > 0 ? min(max((u0 - start) / l, 0), 1) : 0, t1 = l > 0 ? min(max((u1 - start) / l, 0), 1) : 0
                    let p = (x0 + t0 * (x1 - x0), y0 + t0 * (y1 - y0)), q = (x0 + t1 * (x1 - x0), y0 + t1 * (y1 - y0))
                    let sy = scaleAt(y0), s0 = scaleAt(p.1), s1 = scaleAt(q.1)
                    // Pattern px from the segment's start to the piece's.
                    let before = patternLength(u0 - start, sy, s0)
                    // Where the piece starts in the pattern; left out if the same piece
                    // starting at the same place is already in.
                    let place = Float(wrapped(at + before))
                    if isNew(p.0, p.1, q.0, q.1, place, count: out.count / 4) {
                        let span = patternLength(u1 - u0, s0, s1)
                        out.append(p.0); out.append(p.1); out.append(q.0); out.append(q.1)
                        marks.append(place); marks.append(span.isFinite ? Float(span) : 0)
                        marks.append(Float(s0)); marks.append(Float(s1))
                    }
                    if a == b { break }
                }
                at += patternLength(l, scaleAt(y0), scaleAt(y1))
                start += l
                if start >= b { break }
            }
        }
        return (out, Dashes(pieces: marks, period: period, on: pattern[0], trim: trim))
    }
}
