import MapEngine
import TouchCore

/// One line of the event stream, built as UTF-8 bytes in a buffer the pipeline reuses from line
/// to line. Its numbers are byte-identical to `MapEvent.number` (Foundation's
/// `String(format: "%.Nf")`, which the stream format and its outside readers are defined by),
/// without Foundation's format parsing, the intermediate Strings and their mallocs: a kiosk
/// with a stream reader writes a line per gesture and map event of every frame.
package struct StreamLineBuffer {
    /// The bytes written so far are `storage[..<count]`; the rest is room, kept from line to
    /// line (appending to an Array element by element cost more than the formatting).
    private var storage: [UInt8]
    public private(set) var count = 0

    public init() { storage = [UInt8](repeating: 0, count: 512) }

    /// The line's bytes.
    public var bytes: [UInt8] { Array(storage[..<count]) }

    /// Empties the line, keeping the memory.
    public mutating func reset() { count = 0 }

    /// The line as a String (one allocation).
    public var string: String { String(decoding: storage[..<count], as: UTF8.self) }

    /// Room for `n` more bytes.
    @inline(__always)
    private mutating func reserve(_ n: Int) {
        if count + n > storage.count { storage.append(contentsOf: repeatElement(0, count: max(storage.count, n))) }
    }

    /// Copies `n` bytes from `source` to the end.
    @inline(__always)
    private mutating func copy(_ source: UnsafeRawPointer, _ n: Int) {
        reserve(n)
        let at = count
        storage.withUnsafeMutableBytes { $0.baseAddress!.advanced(by: at).copyMemory(from: source, byteCount: n) }
        count += n
    }

    @inline(__always)
    private mutating func byte(_ b: UInt8) {
        reserve(1)
        storage[count] = b
        count += 1
    }

    /// Text written as is (keys, punctuation, fixed names).
    @inline(__always)
    public mutating func literal(_ s: StaticString) {
        // (withUTF8Buffer: a one-character literal may be held as a scalar, without a pointer.)
        s.withUTF8Buffer { if let p = $0.baseAddress { copy(UnsafeRawPointer(p), $0.count) } }
    }

    /// A String written as is (no escaping: for names known to need none).
    public mutating func raw(_ s: String) {
        var s = s
        s.withUTF8 { if let p = $0.baseAddress { copy(UnsafeRawPointer(p), $0.count) } }
    }

    /// `String(v)`.
    public mutating func int(_ v: Int) {
        if v < 0 { byte(UInt8(ascii: "-")) }
        unsigned(UInt64(v.magnitude))
    }

    /// `String(v)` of an unsigned value.
    public mutating func unsigned(_ v: UInt64) {
        var count = 1
        var rest = v / 10
        while rest > 0 { count += 1; rest /= 10 }
        reserve(count)
        var x = v
        var i = self.count + count - 1
        while i >= self.count {
            storage[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: x % 10)
            x /= 10
            i -= 1
        }
        self.count += count
    }

    /// `true` / `false`.
    public mutating func bool(_ v: Bool) { if v { literal("true") } else { literal("false") } }

    /// A JSON string literal, as `MapEvent.string` writes it: quote, backslash, \n, \r and \t
    /// escaped, other control characters as \u00XX (lower-case hex), everything else as is.
    public mutating func string(_ s: String) {
        byte(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): literal("\\\"")
            case UInt8(ascii: "\\"): literal("\\\\")
            case 0x0A: literal("\\n")
            case 0x0D: literal("\\r")
            case 0x09: literal("\\t")
            case 0..<0x20:
                // Only ASCII control characters are below 0x20 in UTF-8, so bytes suffice here.
                literal("\\u00")
                byte(StreamLineBuffer.hex[Int(b >> 4)])
                byte(StreamLineBuffer.hex[Int(b & 15)])
            default: byte(b)
            }
        }
        byte(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// `MapEvent.number(v, decimals)`: `%.{decimals}f` ("null" when not finite; never "-0.000"),
    /// by `FixedDecimal`; magnitudes of 2^53 and more (no event carries such a number) and more
    /// than 9 decimals take Foundation's path, so every input gives the same bytes.
    public mutating func number(_ v: Double, _ decimals: Int) {
        guard v.isFinite else { literal("null"); return }
        reserve(FixedDecimal.maxLength)
        let at = count
        let n = storage.withUnsafeMutableBufferPointer { all in
            FixedDecimal.write(v, decimals: decimals, signedZero: false,
                               into: UnsafeMutableBufferPointer(rebasing: all[at...]))
        }
        if let n {
            count += n
        } else {
            raw(MapEvent.number(v, decimals))
        }
    }
}
