import Testing
@testable import Rendering

/// The three-lane blend of the rasterizers gives, channel by channel, the bytes of the scalar
/// mix it replaced (pixman's rounding of a solid source through an A8 mask).
@Suite struct SolidBlendTests {
    /// One channel: t = s a + d (255 - a) + 128, (t + t >> 8) >> 8.
    static func mix(_ s: UInt32, _ d: UInt32, _ a: UInt32) -> UInt32 {
        let t = s * a + d * (255 - a) + 128
        return (t + (t >> 8)) >> 8
    }

    static func scalar(_ s: (UInt32, UInt32, UInt32), over d: UInt32, _ a: UInt32) -> UInt32 {
        0xff00_0000 | mix(s.0, (d >> 16) & 0xff, a) << 16 | mix(s.1, (d >> 8) & 0xff, a) << 8 | mix(s.2, d & 0xff, a)
    }

    /// Every source value against every destination value in each lane at once (the three
    /// channels given different values, so a carry between lanes would show), at every coverage,
    /// blended per pixel and through `at`.
    @Test func everyValueAndCoverageGivesTheScalarBytes() {
        var wrong = 0
        for s in UInt32(0)...255 {
            let src = (s, 255 - s, s ^ 0x5a)
            let blend = SolidBlend(r: src.0, g: src.1, b: src.2)
            for dv in UInt32(0)...255 {
                // The destination's unused top byte is ignored.
                let d = (dv ^ 0xa5) << 24 | dv << 16 | (dv &* 37 & 0xff) << 8 | (255 - dv)
                for a in UInt32(0)...255 {
                    let want = Self.scalar(src, over: d, a)
                    // Both forms: per pixel, and with the colour's share worked out once (`at`).
                    if blend.over(d, a) != want { wrong += 1 }
                    if blend.at(a).over(d) != want { wrong += 1 }
                }
            }
        }
        #expect(wrong == 0)
    }

    @Test func fullCoverageIsTheSolidColourAndNoneLeavesThePixel() {
        let blend = SolidBlend(r: 0x12, g: 0x34, b: 0x56)
        #expect(blend.solid == 0xff12_3456)
        #expect(blend.over(0x00ab_cdef, 255) == 0xff12_3456)
        #expect(blend.over(0x00ab_cdef, 0) == 0xffab_cdef)
    }

    /// Eight pixels at once (`overEight`, the line rasterizer's mask words) give `over` of
    /// each at its own coverage, every coverage in every position, and leave a pixel at
    /// coverage 0 as it was, its unused top byte too.
    @Test func eightPixelsAtOnceAreEachPixelsBlend() {
        var x: UInt64 = 0x2545_F491_4F6C_DD1D
        func next() -> UInt64 { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return x }
        var wrong = 0, cases = 0
        for round in 0..<4_000 {
            let c = next()
            let blend = SolidBlend(r: UInt32(c & 0xff), g: UInt32(c >> 8 & 0xff), b: UInt32(c >> 16 & 0xff))
            var coverage: UInt64 = 0
            for j in 0..<8 {
                // Each coverage 0...255 in each position over the rounds; zeros and 255s often.
                let v: UInt64 = j == round % 8 ? UInt64(round / 8 % 256) : [0, 255, next() & 0xff][Int(next() % 3)]
                coverage |= v << UInt64(8 * j)
            }
            var row = (0..<8).map { _ in UInt32(truncatingIfNeeded: next()) }
            let before = row
            row.withUnsafeMutableBufferPointer { blend.overEight($0.baseAddress!, coverage) }
            for j in 0..<8 {
                let a = UInt32(coverage >> UInt64(8 * j) & 0xff)
                if row[j] != (a == 0 ? before[j] : blend.over(before[j], a)) { wrong += 1 }
                cases += 1
            }
        }
        #expect(wrong == 0 && cases == 32_000)
    }
}
