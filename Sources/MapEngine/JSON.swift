import Foundation

/// A JSON value as the control socket carries it (docs/control.md) and GeoJSON files are read
/// (`GeoJSON`). Objects keep their keys in order, so replies read `{"id":..,"ok":..,...}` as
/// documented; a key given twice keeps both pairs and the subscript reads the last.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])
    /// A number kept as the text it was written in, written back unchanged: a control request's
    /// `id` is echoed exactly (a 20-digit id is not a double). `number` reads its value.
    case numberText(String)

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
        case let (.numberText(x), .numberText(y)): return x == y
        case let (.numberText(x), .number(y)), let (.number(y), .numberText(x)): return Double(x) == y
        case let (.string(x), .string(y)): return x == y
        case let (.array(x), .array(y)): return x == y
        case let (.object(x), .object(y)): return x.count == y.count && zip(x, y).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let pairs) = self { return pairs.last { $0.0 == key }?.1 }
        return nil
    }

    public var string: String? { if case .string(let s) = self { return s }; return nil }
    public var number: Double? {
        switch self {
        case .number(let d): return d
        case .numberText(let t): return Double(t)
        default: return nil
        }
    }
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// Compact JSON text on one line (strings escaped as the event stream escapes them,
    /// `MapEvent.string`, so a newline never ends up in a message).
    public var text: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d):
            guard d.isFinite else { return "null" }
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return "\(d)"
        case .string(let s): return MapEvent.string(s)
        case .numberText(let t): return t
        case .array(let a): return "[" + a.map(\.text).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { MapEvent.string($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    /// Parses one JSON text (RFC 8259; the whole text must be one value). Nesting deeper than
    /// `JSONParser.maxDepth` and lone UTF-16 surrogate escapes are errors.
    /// `keepingNumberText`: a number under this key of the top object stays the text it was
    /// written in (`.numberText`), so that it is written back exactly (a request's `id`).
    public static func parse(_ text: String, keepingNumberText key: String? = nil) throws -> JSONValue {
        var p = JSONParser(bytes: Array(text.utf8))
        p.keepNumberText = key
        p.skipSpace()
        let v = try p.value(depth: 0)
        p.skipSpace()
        guard p.i == p.bytes.count else { throw JSONParseError(offset: p.i, message: "unexpected text after the JSON value") }
        return v
    }
}

public struct JSONParseError: Error, CustomStringConvertible {
    public let offset: Int
    public let message: String
    public var description: String { "not valid JSON at byte \(offset + 1): \(message)" }
}

/// A small recursive-descent JSON reader: strict, with the byte offset of the first mistake.
/// Recursion is bounded by `maxDepth`, so hostile nesting is an error, never a stack overflow.
struct JSONParser {
    static let maxDepth = 64
    let bytes: [UInt8]
    var i = 0
    /// A key of the top object whose number value is kept as its text.
    var keepNumberText: String? = nil

    mutating func skipSpace() {
        while i < bytes.count {
            switch bytes[i] {
            case 0x20, 0x09, 0x0A, 0x0D: i += 1
            default: return
            }
        }
    }

    func fail(_ m: String) -> JSONParseError { JSONParseError(offset: i, message: m) }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth < Self.maxDepth else { throw fail("nested too deeply") }
        guard i < bytes.count else { throw fail("the text ends where a value should be") }
        switch bytes[i] {
        case UInt8(ascii: "{"):
            i += 1
            var pairs: [(String, JSONValue)] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(pairs) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { throw fail("expected a key in double quotes") }
                let k = try string()
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { throw fail("expected ':' after the key") }
                i += 1
                skipSpace()
                if depth == 0, k == keepNumberText, i < bytes.count, bytes[i] == UInt8(ascii: "-") || Self.isDigit(bytes[i]) {
                    let start = i
                    // Its text is what counts: a valid number beyond a double's range is kept too.
                    do { _ = try number() } catch let e as JSONParseError where e.message == "number out of range" {}
                    pairs.append((k, .numberText(String(decoding: bytes[start..<i], as: UTF8.self))))
                } else {
                    pairs.append((k, try value(depth: depth + 1)))
                }
                skipSpace()
                guard i < bytes.count else { throw fail("the object is not closed with '}'") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(pairs) }
                throw fail("expected ',' or '}'")
            }
        case UInt8(ascii: "["):
            i += 1
            var items: [JSONValue] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
            while true {
                skipSpace()
                items.append(try value(depth: depth + 1))
                skipSpace()
                guard i < bytes.count else { throw fail("the array is not closed with ']'") }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(items) }
                throw fail("expected ',' or ']'")
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default:
            return .number(try number())
        }
    }

    mutating func literal(_ word: StaticString, _ v: JSONValue) throws -> JSONValue {
        let n = word.utf8CodeUnitCount
        let matches = i + n <= bytes.count && word.withUTF8Buffer { w in (0..<n).allSatisfy { bytes[i + $0] == w[$0] } }
        guard matches else { throw fail("expected a value (an object, array, string, number, true, false or null)") }
        i += n
        return v
    }

    static func isDigit(_ c: UInt8) -> Bool { c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") }

    /// Exact powers of ten as doubles (10^0 ... 10^22).
    static let powersOfTen: [Double] = (0...22).map { k in (0..<k).reduce(1.0) { r, _ in r * 10 } }

    mutating func number() throws -> Double {
        let start = i
        var negative = false
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { negative = true; i += 1 }
        // The digits as one integer (while it is exact), for the fast path below.
        var mantissa: UInt64 = 0, digits = 0, fractionDigits = 0
        let digitsStart = i
        while i < bytes.count, Self.isDigit(bytes[i]) {
            if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[i] - UInt8(ascii: "0")) }
            digits += 1; i += 1
        }
        guard i > digitsStart else { i = start; throw fail("expected a value (a string, number, object, array, true, false or null)") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let f = i
            while i < bytes.count, Self.isDigit(bytes[i]) {
                if digits < 19 { mantissa = mantissa * 10 + UInt64(bytes[i] - UInt8(ascii: "0")) }
                digits += 1; fractionDigits += 1; i += 1
            }
            guard i > f else { throw fail("expected digits after '.'") }
        }
        var exponent = 0, exponentDigits = 0
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            var exponentNegative = false
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { exponentNegative = bytes[i] == UInt8(ascii: "-"); i += 1 }
            let e = i
            while i < bytes.count, Self.isDigit(bytes[i]) {
                if exponentDigits < 6 { exponent = exponent * 10 + Int(bytes[i] - UInt8(ascii: "0")) }
                exponentDigits += 1; i += 1
            }
            guard i > e else { throw fail("expected digits in the exponent") }
            if exponentNegative { exponent = -exponent }
        }
        // Fast path (Clinger): at most 15 digits are exact in a double, and so is 10^k for
        // k <= 22, so one multiplication or division is correctly rounded, as strtod would be.
        let scale = exponent - fractionDigits
        if digits <= 15, exponentDigits <= 6, scale >= -22, scale <= 22 {
            let m = Double(mantissa)
            let d = scale < 0 ? m / Self.powersOfTen[-scale] : m * Self.powersOfTen[scale]
            return negative ? -d : d
        }
        guard let d = Double(String(decoding: bytes[start..<i], as: UTF8.self)), d.isFinite else { throw fail("number out of range") }
        return d
    }

    mutating func string() throws -> String {
        i += 1 // opening quote
        var out = [UInt8]()
        while i < bytes.count {
            let c = bytes[i]
            if c == UInt8(ascii: "\"") { i += 1; return String(decoding: out, as: UTF8.self) }
            if c < 0x20 { throw fail("control character in a string (escape it)") }
            if c == UInt8(ascii: "\\") {
                i += 1
                guard i < bytes.count else { break }
                switch bytes[i] {
                case UInt8(ascii: "\""): out.append(0x22)
                case UInt8(ascii: "\\"): out.append(0x5C)
                case UInt8(ascii: "/"): out.append(0x2F)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    let escape = i - 1
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code) {
                        // A high surrogate must be followed by a \u low surrogate (RFC 8259 section 7):
                        // anything else is an error, not a guess.
                        guard i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "\\"), bytes[i + 2] == UInt8(ascii: "u") else {
                            throw JSONParseError(offset: escape, message: String(format: "the high surrogate \\u%04X is not followed by a low surrogate \\uDC00...\\uDFFF", code))
                        }
                        i += 2
                        let low = try hex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw JSONParseError(offset: escape, message: String(format: "the high surrogate \\u%04X is followed by \\u%04X, not by a low surrogate \\uDC00...\\uDFFF", code, low))
                        }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(code) {
                        throw JSONParseError(offset: escape, message: String(format: "a lone low surrogate \\u%04X (it must follow a high surrogate \\uD800...\\uDBFF)", code))
                    }
                    // Every code outside the surrogates is a scalar.
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    UTF8.encode(scalar) { out.append($0) }
                default: throw fail("unknown escape in a string")
                }
                i += 1
                continue
            }
            out.append(c)
            i += 1
        }
        throw fail("the string is not closed with '\"'")
    }

    /// Reads the four hex digits after `\u` (digits only: no sign); leaves `i` on the last one.
    mutating func hex4() throws -> UInt32 {
        guard i + 4 < bytes.count else { throw fail("expected four hex digits after \\u") }
        var v: UInt32 = 0
        for k in 1...4 {
            let c = bytes[i + k]
            let d: UInt32
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(c - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(c - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(c - UInt8(ascii: "A")) + 10
            default: throw fail("expected four hex digits after \\u")
            }
            v = v << 4 | d
        }
        i += 4
        return v
    }
}
