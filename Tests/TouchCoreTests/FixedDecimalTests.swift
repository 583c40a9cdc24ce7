import Foundation
import Testing
import TouchCore

/// FixedDecimal is printf's `%.Nf` (the recogniser's reasons use it with one decimal, the event
/// stream with 1 to 7): the same bytes as String(format:) wherever it answers, and it answers
/// for every finite value below 2^53 with up to 9 decimals.
@Suite struct FixedDecimalTests {
    func check(_ values: [Double]) -> [String] {
        var bad: [String] = []
        for v in values {
            for d in 0...9 {
                let want = String(format: "%.\(d)f", v)
                let got = FixedDecimal.string(v, decimals: d)
                if v.isFinite && v.magnitude < 9_007_199_254_740_992 {
                    if got != want { bad.append("\(v.debugDescription) %.\(d)f: want \(want), got \(got ?? "nil")") }
                } else if got != nil {
                    bad.append("\(v.debugDescription) %.\(d)f: answered \(got!) for a value it must leave to Foundation")
                }
            }
        }
        return bad
    }

    @Test func matchesPrintfOverRandomValues() {
        var rng = SplitMix64(seed: 1)
        var values: [Double] = []
        for _ in 0..<10_000 { values.append(pow(10, rng.range(-10, 17)) * (rng.next() & 1 == 0 ? 1 : -1)) }
        for _ in 0..<2_000 { values.append(Double(bitPattern: rng.next())) }
        for _ in 0..<5_000 { values.append(rng.range(-100, 100)) }
        let bad = check(values)
        #expect(bad.isEmpty, "\(bad.count) mismatches, e.g. \(bad.prefix(5))")
    }

    @Test func matchesPrintfAtTiesZerosAndLimits() {
        var values: [Double] = [0, -0.0, 0.05, -0.05, 0.25, -0.25, 0.35, 2.5, 3.5, -2.5, 0.04, -0.04, -0.049999, 0.95, 9.95, 99.95,
                                .leastNonzeroMagnitude, -.leastNonzeroMagnitude, 9007199254740991, -9007199254740991,
                                9007199254740992, .infinity, -.infinity, .nan, .greatestFiniteMagnitude]
        for k in 0..<300 {
            for j in 0..<10 { values.append((Double(k) + 0.5) / Double(1 << j)) }
            for d in 0...5 { values.append((Double(k) + 0.5) / pow(10, Double(d))) }
        }
        values += values.flatMap { [$0.nextUp, $0.nextDown, -$0] }
        let bad = check(values)
        #expect(bad.isEmpty, "\(bad.count) mismatches, e.g. \(bad.prefix(5))")
    }

    @Test func aNegativeValueThatRoundsToZeroKeepsItsSignUnlessAsked() {
        #expect(FixedDecimal.string(-0.04, decimals: 1) == "-0.0")
        #expect(FixedDecimal.string(-0.0, decimals: 1) == "-0.0")
        #expect(FixedDecimal.string(-0.04, decimals: 1, signedZero: false) == "0.0")
        #expect(FixedDecimal.string(-0.06, decimals: 1, signedZero: false) == "-0.1")
        #expect(FixedDecimal.string(.nan, decimals: 1) == nil)
        #expect(FixedDecimal.string(1, decimals: 10) == nil)
    }
}
