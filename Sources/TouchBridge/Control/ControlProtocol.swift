import Foundation

/// A JSON value as the control socket carries it (docs/control.md). Objects keep their keys in
/// order, so replies read `{"id":..,"ok":..,...}` as documented.
public indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(String, JSONValue)])

    public static func == (a: JSONValue, b: JSONValue) -> Bool {
        switch (a, b) {
        case (.null, .null): return true
        case let (.bool(x), .bool(y)): return x == y
        case let (.number(x), .number(y)): return x == y
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
    public var number: Double? { if case .number(let d) = self { return d }; return nil }
    public var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    public var array: [JSONValue]? { if case .array(let a) = self { return a }; return nil }
    public var isNull: Bool { if case .null = self { return true }; return false }

    /// Compact JSON text on one line (strings escaped, so a newline never ends up in a message).
    public var text: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d):
            guard d.isFinite else { return "null" }
            if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
            return "\(d)"
        case .string(let s): return JSONLine.escape(s)
        case .array(let a): return "[" + a.map(\.text).joined(separator: ",") + "]"
        case .object(let o): return "{" + o.map { JSONLine.escape($0.0) + ":" + $0.1.text }.joined(separator: ",") + "}"
        }
    }

    /// Parses one JSON text (RFC 8259; the whole text must be one value).
    public static func parse(_ text: String) throws -> JSONValue {
        var p = JSONParser(bytes: Array(text.utf8))
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
struct JSONParser {
    let bytes: [UInt8]
    var i = 0

    mutating func skipSpace() {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    func fail(_ m: String) -> JSONParseError { JSONParseError(offset: i, message: m) }

    mutating func value(depth: Int) throws -> JSONValue {
        guard depth < 64 else { throw fail("nested too deeply") }
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
                pairs.append((k, try value(depth: depth + 1)))
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

    mutating func literal(_ word: String, _ v: JSONValue) throws -> JSONValue {
        let w = Array(word.utf8)
        guard i + w.count <= bytes.count, Array(bytes[i..<i + w.count]) == w else {
            throw fail("expected a value (an object, array, string, number, true, false or null)")
        }
        i += w.count
        return v
    }

    mutating func number() throws -> Double {
        let start = i
        if i < bytes.count, bytes[i] == UInt8(ascii: "-") { i += 1 }
        let digitsStart = i
        while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
        guard i > digitsStart else { i = start; throw fail("expected a value (a string, number, object, array, true, false or null)") }
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let f = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            guard i > f else { throw fail("expected digits after '.'") }
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            let e = i
            while i < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[i]) { i += 1 }
            guard i > e else { throw fail("expected digits in the exponent") }
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
                    var code = try hex4()
                    if (0xD800..<0xDC00).contains(code), i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "\\"), bytes[i + 2] == UInt8(ascii: "u") {
                        i += 2
                        let low = try hex4()
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    let scalar = Unicode.Scalar(code) ?? "\u{FFFD}"
                    out.append(contentsOf: Array(String(Character(scalar)).utf8))
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

    /// Reads the four hex digits after `\u`; leaves `i` on the last one.
    mutating func hex4() throws -> UInt32 {
        guard i + 4 < bytes.count, let v = UInt32(String(decoding: bytes[(i + 1)...(i + 4)], as: UTF8.self), radix: 16) else {
            throw fail("expected four hex digits after \\u")
        }
        i += 4
        return v
    }
}

/// A request that cannot be done: its message goes back as `"error"`.
public struct ControlError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One request line taken apart: `{"id": ANY, "cmd": "NAME", ...arguments}`.
public struct ControlRequest {
    public let id: JSONValue
    public let command: String
    public let arguments: [(String, JSONValue)]

    /// Parses a line; on failure returns the reply to send (with the id when it could be read).
    public static func parse(line: String) -> Result<ControlRequest, ControlReplyError> {
        let value: JSONValue
        do { value = try JSONValue.parse(line) } catch {
            return .failure(ControlReplyError(id: .null, message: "\(error); send one JSON object per line"))
        }
        guard case .object(let pairs) = value else {
            return .failure(ControlReplyError(id: .null, message: "a request is a JSON object {\"id\": ..., \"cmd\": \"NAME\", ...}"))
        }
        let id = value["id"] ?? .null
        guard let cmdValue = value["cmd"] else {
            return .failure(ControlReplyError(id: id, message: "the request has no \"cmd\" (e.g. {\"id\": 1, \"cmd\": \"get_camera\"})"))
        }
        guard let cmd = cmdValue.string else { return .failure(ControlReplyError(id: id, message: "\"cmd\" must be a string")) }
        return .success(ControlRequest(id: id, command: cmd, arguments: pairs.filter { $0.0 != "id" && $0.0 != "cmd" }))
    }
}

public struct ControlReplyError: Error {
    public let id: JSONValue
    public let message: String
}

public enum ControlReply {
    /// `{"id":ID,"ok":true,...results}`
    public static func ok(id: JSONValue, _ results: [(String, JSONValue)] = []) -> String {
        JSONValue.object([("id", id), ("ok", .bool(true))] + results).text
    }
    /// `{"id":ID,"ok":false,"error":"..."}`
    public static func error(id: JSONValue, _ message: String) -> String {
        JSONValue.object([("id", id), ("ok", .bool(false)), ("error", .string(message))]).text
    }
}
