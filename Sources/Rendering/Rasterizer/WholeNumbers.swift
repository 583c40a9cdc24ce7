import CCairo

/// Floor and round of doubles in pixel loops, written out: on this target (x86-64 without
/// SSE4.1) `rounded(.down)` and `rounded()` are libm calls, a call per pixel in the glyph
/// turner and the line rasterizer, and `Int(x)` checks its range before it truncates. The same
/// values as those calls within the ranges named (outside them: undefined, not a trap).
enum WholeNumbers {
    /// floor(x), for -2^62 < x < 2^62.
    @inline(__always) static func floor(_ x: Double) -> Int {
        let i = tb_trunc(x)
        return Double(i) > x ? i &- 1 : i
    }

    /// x rounded half away from zero (`x.rounded()`), for 0 <= x < 2^32 - 1 (`x - trunc(x)` is exact).
    @inline(__always) static func roundHalfUp(_ x: Double) -> UInt32 {
        let i = UInt32(truncatingIfNeeded: tb_trunc(x))
        return x - Double(i) >= 0.5 ? i &+ 1 : i
    }

    /// x truncated to a byte, for 0 <= x < 256 (a coverage times 255 plus a half): `UInt8(x)`.
    @inline(__always) static func byte(_ x: Double) -> UInt8 { tb_trunc_u8(x) }

    /// The same for a float, 0 <= x < 256: `UInt8(x)`.
    @inline(__always) static func byte(_ x: Float) -> UInt8 { tb_trunc_u8f(x) }
}
