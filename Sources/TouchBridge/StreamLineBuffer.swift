import MapEngine
import TouchCore

/// One line of the event stream, built as UTF-8 bytes in a buffer the pipeline reuses from line
/// to line. Its numbers are byte-identical to `MapEvent.number` (Foundation's
/// `String(format: "%.Nf")`, which the stream format and its outside readers are defined by),
/// without Foundation's format parsing, the intermediate Strings and their mallocs: a kiosk
/// with a stream reader writes a line per gesture and map event of every frame.
public struct StreamLineBuffer {
    public private(set) var bytes: [UInt8] = []

    public init() { bytes.reserveCapacity(256) }

    /// Empties the line, keeping the memory.
    public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    /// The line as a String (one allocation).
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    /// Text written as is (keys, punctuation, fixed names).
    @inline(__always)
    public mutating func literal(_ s: StaticString) {
        s.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A String written as is (no escaping: for names known to need none).
    public mutating func raw(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// `String(v)`.
    public mutating func int(_ v: Int) {
        if v < 0 { bytes.append(UInt8(ascii: "-")) }
        unsigned(UInt64(v.magnitude))
    }

    /// `String(v)` of an unsigned value.
    public mutating func unsigned(_ v: UInt64) { digits(v, minimumCount: 1) }

    /// `true` / `false`.
    public mutating func bool(_ v: Bool) { if v { literal("true") } else { literal("false") } }

    /// A JSON string literal, as `MapEvent.string` writes it: quote, backslash, \n, \r and \t
    /// escaped, other control characters as \u00XX (lower-case hex), everything else as is.
    public mutating func string(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
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
                bytes.append(StreamLineBuffer.hex[Int(b >> 4)])
                bytes.append(StreamLineBuffer.hex[Int(b & 15)])
            default: bytes.append(b)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// The decimal digits of `v`, zero-padded on the left to `minimumCount`.
    private mutating func digits(_ v: UInt64, minimumCount: Int) {
        var count = 1
        var rest = v / 10
        while rest > 0 { count += 1; rest /= 10 }
        count = max(count, minimumCount)
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: count))
        var x = v
        var i = start + count - 1
        while x > 0 {
            bytes[i] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: x % 10)
            x /= 10
            i -= 1
        }
    }

    /// `MapEvent.number(v, decimals)`: `%.{decimals}f` ("null" when not finite; never "-0.000"),
    /// by `FixedDecimal`; magnitudes of 2^53 and more (no event carries such a number) and more
    /// than 9 decimals take Foundation's path, so every input gives the same bytes.
    public mutating func number(_ v: Double, _ decimals: Int) {
        guard v.isFinite else { literal("null"); return }
        let start = bytes.count
        bytes.append(contentsOf: repeatElement(0, count: FixedDecimal.maxLength))
        let n = bytes.withUnsafeMutableBufferPointer { all in
            FixedDecimal.write(v, decimals: decimals, signedZero: false,
                               into: UnsafeMutableBufferPointer(rebasing: all[start...]))
        }
        if let n {
            bytes.removeLast(FixedDecimal.maxLength - n)
        } else {
            bytes.removeLast(FixedDecimal.maxLength)
            bytes.append(contentsOf: MapEvent.number(v, decimals).utf8)
        }
    }
}
