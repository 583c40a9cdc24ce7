import Foundation
import MapEngine
import TouchCore

/// Writes the JSON-lines event stream of design.md: one object per line, keys in a fixed order,
/// numbers with fixed decimals so that two runs compare as text.
enum JSONLines {
    /// A JSON value already encoded.
    struct Value { let text: String }

    static func number(_ v: Double, decimals: Int = 1) -> Value {
        Value(text: v.isFinite ? String(format: "%.\(decimals)f", v) : "null")
    }
    static func int(_ v: Int) -> Value { Value(text: String(v)) }
    static func string(_ s: String) -> Value {
        var out = "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
            default: out.unicodeScalars.append(u)
            }
        }
        return Value(text: out + "\"")
    }
    static func array(_ values: [Value]) -> Value { Value(text: "[" + values.map(\.text).joined(separator: ",") + "]") }
    static func object(_ pairs: KeyValuePairs<String, Value>) -> Value { object(Array(pairs)) }
    static func object(_ pairs: [(key: String, value: Value)]) -> Value {
        Value(text: "{" + pairs.map { string($0.key).text + ":" + $0.value.text }.joined(separator: ",") + "}")
    }

    /// A line: `{"t":…,"type":…, rest…}` with t in seconds, 3 decimals.
    static func line(t: Double, type: String, _ rest: KeyValuePairs<String, Value> = [:]) -> String {
        object([("t", number(t, decimals: 3)), ("type", string(type))] + Array(rest)).text
    }

    static func camera(_ c: CameraPosition) -> Value {
        object(["lat": number(c.target.latitude, decimals: 6), "lon": number(c.target.longitude, decimals: 6),
                "zoom": number(c.zoom, decimals: 3), "bearing": number(c.bearing, decimals: 1),
                "tilt": number(c.tilt, decimals: 1)])
    }

    static func contact(_ c: Contact) -> Value {
        object(["id": int(c.id), "x": number(c.position.x), "y": number(c.position.y)])
    }
}
