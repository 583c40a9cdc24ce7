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
}
