/// A solid colour blended over XRGB8888 pixels at a coverage of a/255, as cairo and pixman blend
/// a solid source through an A8 mask: per channel t = s a + d (255 - a) + 128, then
/// (t + t >> 8) >> 8. The three channels are worked at once in 16-bit lanes of one 64-bit word
/// (blue in bits 0-15, red 16-31, green 32-47): each lane's t is at most 255 * 255 + 128 and
/// t + t >> 8 at most 65,407, under 65,536, so no lane carries into the next and the bytes are
/// those of three separate mixes (`SolidBlendTests` checks every channel value and coverage).
/// Two multiplications a pixel instead of six, and no overflow checks.
struct SolidBlend {
    /// The colour's channels in their lanes.
    let lanes: UInt64
    /// The colour as an opaque pixel (a coverage of 255).
    let solid: UInt32

    init(r: UInt32, g: UInt32, b: UInt32) {
        solid = 0xff00_0000 | (r & 0xff) << 16 | (g & 0xff) << 8 | (b & 0xff)
        lanes = SolidBlend.lanes(solid)
    }

    @inline(__always)
    static func lanes(_ p: UInt32) -> UInt64 {
        UInt64(p & 0x00ff_00ff) | UInt64(p & 0xff00) << 24
    }

    /// The colour over pixel d at coverage a (1...254; 0 leaves d, 255 gives `solid`, and both
    /// come out right here too).
    @inline(__always)
    func over(_ d: UInt32, _ a: UInt32) -> UInt32 { at(a).over(d) }

    /// The blend at one coverage, the colour's share (s a + 128 in each lane) worked out once:
    /// for a run of pixels at that coverage (a polygon's inside), and for `over(_:_:)`.
    struct At {
        let share: UInt64, rest: UInt64
        @inline(__always)
        func over(_ d: UInt32) -> UInt32 {
            let mask: UInt64 = 0x00ff_00ff_00ff
            var t = share &+ SolidBlend.lanes(d) &* rest
            t = ((t &+ ((t >> 8) & mask)) >> 8) & mask
            return 0xff00_0000 | UInt32(truncatingIfNeeded: t & 0x00ff_00ff) | UInt32(truncatingIfNeeded: t >> 24) & 0xff00
        }
    }

    @inline(__always)
    func at(_ a: UInt32) -> At {
        At(share: lanes &* UInt64(a) &+ 0x0080_0080_0080, rest: UInt64(255 &- a))
    }
}
