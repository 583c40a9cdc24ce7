/// `String(format: "%.Nf", v)` without Foundation: the exact binary value rounded to N
/// decimals, the halfway case to even as glibc's printf rounds it. The event stream's numbers
/// and the recogniser's reasons are defined by that format; formatting them through
/// Foundation (a format string parsed, a CFString built, a String bridged back) cost more than
/// the recogniser's whole frame.
///
/// v = m * 2^e exactly (m < 2^53), so v * 10^N = m * 10^N / 2^-e: one 128-bit product and a
/// shift give the rounded scaled integer with its exact remainder.
public enum FixedDecimal {
    /// The most bytes `write` produces: a sign, 16 integer digits, the point and 9 decimals.
    public static let maxLength = 27

    private static let powersOfTen: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
                                                100_000_000, 1_000_000_000]

    /// Writes `%.{decimals}f` of `v` into `out` (at least `maxLength` bytes) and returns the
    /// byte count; nil when this cannot (not finite, a magnitude of 2^53 or more, more than 9
    /// decimals: the caller formats those another way). A negative value that rounds to zero
    /// keeps its sign ("-0.0", as printf) unless `signedZero` is false ("0.0").
    public static func write(_ v: Double, decimals: Int, signedZero: Bool = true,
                             into out: UnsafeMutableBufferPointer<UInt8>) -> Int? {
        let magnitude = v.magnitude
        guard v.isFinite, magnitude < 9_007_199_254_740_992, decimals >= 0, decimals <= 9,
              out.count >= maxLength else { return nil }
        let p = powersOfTen[decimals]
        let pattern = magnitude.bitPattern
        let exponentField = Int(pattern >> 52)
        let fraction = pattern & 0x000F_FFFF_FFFF_FFFF
        let m = exponentField == 0 ? fraction : fraction | (1 << 52)
        let shift = 1075 - max(exponentField, 1) // e = -shift; >= 0 because magnitude < 2^53
        let product = UInt128(m) * UInt128(p)    // < 2^53 * 10^9 < 2^83
        var q: UInt128
        if shift == 0 {
            q = product
        } else if shift >= 100 {
            q = 0 // product / 2^shift < 2^-17: rounds to zero
        } else {
            q = product >> shift
            let remainder = product & ((UInt128(1) << shift) - 1)
            let half = UInt128(1) << (shift - 1)
            if remainder > half || (remainder == half && q & 1 == 1) { q += 1 }
        }
        var n = 0
        if v.sign == .minus && (q != 0 || signedZero) { out[0] = UInt8(ascii: "-"); n = 1 }
        let whole: UInt64, part: UInt64
        if q >> 64 == 0 {
            // Below 2^64 (every value under 1.8e12 at 7 decimals): a 64-bit division, not 128.
            (whole, part) = UInt64(truncatingIfNeeded: q).quotientAndRemainder(dividingBy: p)
        } else {
            (whole, part) = (UInt64(truncatingIfNeeded: q / UInt128(p)), UInt64(truncatingIfNeeded: q % UInt128(p)))
        }
        n += digits(whole, count: digitCount(whole), into: out, at: n)
        if decimals > 0 {
            out[n] = UInt8(ascii: ".")
            n += 1
            n += digits(part, count: decimals, into: out, at: n)
        }
        return n
    }

    /// The same as a String; nil when `write` cannot.
    public static func string(_ v: Double, decimals: Int, signedZero: Bool = true) -> String? {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxLength) { buffer in
            write(v, decimals: decimals, signedZero: signedZero, into: buffer).map {
                String(decoding: UnsafeBufferPointer(rebasing: buffer[..<$0]), as: UTF8.self)
            }
        }
    }

    private static func digitCount(_ v: UInt64) -> Int {
        var count = 1
        var rest = v / 10
        while rest > 0 { count += 1; rest /= 10 }
        return count
    }

    /// `v`'s last `count` decimal digits (zero-padded on the left) at `at`.
    private static func digits(_ v: UInt64, count: Int, into out: UnsafeMutableBufferPointer<UInt8>, at: Int) -> Int {
        var x = v
        var i = at + count - 1
        while i >= at {
            out[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: x % 10)
            x /= 10
            i -= 1
        }
        return count
    }
}
