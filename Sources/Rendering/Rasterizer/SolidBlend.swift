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

    /// The colour over the eight pixels at `row` at the eight coverages of `coverage` (byte j
    /// for pixel j), in place: `over` of each, four pixels at a time in 16-bit lanes with no
    /// branch per pixel, a pixel at coverage 0 left as it was (its 8th byte too). A line's edge
    /// crosses an 8-pixel word of its mask at a few pixels of coverage between 0 and 255, each
    /// of which took the one-pixel path's walk to the next set byte.
    @inline(__always)
    func overEight(_ row: UnsafeMutablePointer<UInt32>, _ coverage: UInt64) {
        overFour(row, UInt32(truncatingIfNeeded: coverage))
        overFour(row + 4, UInt32(truncatingIfNeeded: coverage >> 32))
    }

    /// Each 16-bit lane's t (a product of two bytes plus 128) over 255 as pixman rounds it:
    /// (t + t >> 8) >> 8, which stays under 65,536 for such t.
    @inline(__always)
    static func divide255(_ t: SIMD8<UInt16>) -> SIMD8<UInt16> { (t &+ (t &>> 8)) &>> 8 }

    /// `overEight`'s four pixels: the even bytes of each pixel (blue, red) and the odd ones
    /// (green, the 8th) in separate 16-bit lanes, so that only same-width vector operations
    /// are used (the standard library's widening conversions of SIMD vectors are calls that
    /// go element by element).
    @inline(__always)
    private func overFour(_ row: UnsafeMutablePointer<UInt32>, _ c: UInt32) {
        guard c != 0 else { return }
        let a = SIMD4<UInt32>(c & 0xff, (c >> 8) & 0xff, (c >> 16) & 0xff, c >> 24)
        let share = unsafeBitCast(a | a &<< 16, to: SIMD8<UInt16>.self), rest = 255 &- share
        let old = UnsafeRawPointer(row).loadUnaligned(as: SIMD4<UInt32>.self)
        let d = unsafeBitCast(old, to: SIMD8<UInt16>.self)
        let s = unsafeBitCast(SIMD4<UInt32>(repeating: solid), to: SIMD8<UInt16>.self)
        let even = Self.divide255((s & 0xff) &* share &+ (d & 0xff) &* rest &+ 0x80)
        let odd = Self.divide255((s &>> 8) &* share &+ (d &>> 8) &* rest &+ 0x80)
        let mixed = unsafeBitCast(even | odd &<< 8, to: SIMD4<UInt32>.self) | 0xff00_0000
        UnsafeMutableRawPointer(row).storeBytes(of: mixed.replacing(with: old, where: a .== 0), as: SIMD4<UInt32>.self)
    }
}
