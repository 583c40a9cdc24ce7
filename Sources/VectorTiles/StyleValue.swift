import Foundation

/// A colour with straight (not premultiplied) alpha, components 0...1.
public struct StyleColor: Sendable, Equatable, Hashable {
    public var r: Double, g: Double, b: Double, a: Double
    /// Components outside 0...1 are clamped, as CSS clamps `rgb(300, 0, 0)` to red, and NaN is 0:
    /// whatever a style writes or an expression computes, a colour is drawable and printable.
    public init(r: Double, g: Double, b: Double, a: Double = 1) {
        self.r = Self.unit(r); self.g = Self.unit(g); self.b = Self.unit(b); self.a = Self.unit(a)
    }

    @inline(__always) static func unit(_ v: Double) -> Double { v >= 0 ? min(v, 1) : 0 }

    /// CSS colours as MapLibre styles write them: #rgb, #rrggbb, #rrggbbaa, rgb(), rgba(),
    /// hsl(), hsla(), and a few names.
    public static func parse(_ s: String) -> StyleColor? {
        let t = s.trimmingCharacters(in: .whitespaces).lowercased()
        if t.hasPrefix("#") {
            let hex = Array(t.dropFirst())
            func h(_ c: Character) -> Double? { c.hexDigitValue.map(Double.init) }
            let digits = hex.compactMap(h)
            guard digits.count == hex.count else { return nil }
            switch digits.count {
            case 3:
                let v: [Double] = digits.map { $0 * 17 / 255 }
                return StyleColor(r: v[0], g: v[1], b: v[2])
            case 6, 8:
                let v: [Double] = stride(from: 0, to: digits.count, by: 2).map { i -> Double in
                    let byte: Double = digits[i] * 16 + digits[i + 1]
                    return byte / 255
                }
                return StyleColor(r: v[0], g: v[1], b: v[2], a: v.count == 4 ? v[3] : 1)
            default: return nil
            }
        }
        if let open = t.firstIndex(of: "("), t.hasSuffix(")") {
            let fn = String(t[..<open]).trimmingCharacters(in: .whitespaces)
            let args = t[t.index(after: open)..<t.index(before: t.endIndex)]
                .split(whereSeparator: { $0 == "," || $0 == " " || $0 == "/" }).map { String($0) }
            func num(_ a: String, percentOf: Double) -> Double? {
                a.hasSuffix("%") ? Double(a.dropLast()).map { $0 / 100 * percentOf } : Double(a)
            }
            switch fn {
            case "rgb", "rgba":
                guard args.count >= 3, let r = num(args[0], percentOf: 255), let g = num(args[1], percentOf: 255),
                      let b = num(args[2], percentOf: 255) else { return nil }
                let a = args.count > 3 ? num(args[3], percentOf: 1) ?? 1 : 1
                return StyleColor(r: r / 255, g: g / 255, b: b / 255, a: a)
            case "hsl", "hsla":
                guard args.count >= 3, let hue = Double(args[0].replacingOccurrences(of: "deg", with: "")),
                      let sat = num(args[1], percentOf: 1), let light = num(args[2], percentOf: 1) else { return nil }
                let a = args.count > 3 ? num(args[3], percentOf: 1) ?? 1 : 1
                return hsl(hue, sat, light, a)
            default: return nil
            }
        }
        let names: [String: StyleColor] = [
            "black": StyleColor(r: 0, g: 0, b: 0), "white": StyleColor(r: 1, g: 1, b: 1),
            "transparent": StyleColor(r: 0, g: 0, b: 0, a: 0), "red": StyleColor(r: 1, g: 0, b: 0),
            "green": StyleColor(r: 0, g: 0.5, b: 0), "blue": StyleColor(r: 0, g: 0, b: 1),
            "gray": StyleColor(r: 0.5, g: 0.5, b: 0.5), "grey": StyleColor(r: 0.5, g: 0.5, b: 0.5),
            "yellow": StyleColor(r: 1, g: 1, b: 0), "orange": StyleColor(r: 1, g: 0.647, b: 0),
        ]
        return names[t]
    }

    static func hsl(_ h: Double, _ s: Double, _ l: Double, _ a: Double) -> StyleColor {
        let s = unit(s), l = unit(l)
        let c = (1 - abs(2 * l - 1)) * s
        // A hue that is not finite (`hsl(inf, ...)`) is 0 degrees, not an Int(NaN) trap.
        let hp = h.isFinite ? (h.truncatingRemainder(dividingBy: 360) + 360).truncatingRemainder(dividingBy: 360) / 60 : 0
        let x = c * (1 - abs(hp.truncatingRemainder(dividingBy: 2) - 1))
        let (r, g, b): (Double, Double, Double) = switch Int(hp) {
        case 0: (c, x, 0); case 1: (x, c, 0); case 2: (0, c, x); case 3: (0, x, c); case 4: (x, 0, c); default: (c, 0, x)
        }
        let m = l - c / 2
        return StyleColor(r: r + m, g: g + m, b: b + m, a: a)
    }
}

/// A value as style expressions compute it.
public enum StyleValue: Sendable, Equatable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case color(StyleColor)
    case array([StyleValue])

    public var number: Double? { if case let .number(n) = self { return n }; return nil }
    public var string: String? { if case let .string(s) = self { return s }; return nil }
    public var color: StyleColor? {
        switch self {
        case let .color(c): return c
        case let .string(s): return StyleColor.parse(s)
        default: return nil
        }
    }
    public var isTruthy: Bool {
        switch self {
        case .null: return false
        case let .bool(b): return b
        default: return true
        }
    }
    /// The text of a value for text-field and to-string.
    public var text: String {
        switch self {
        case .null: return ""
        case let .bool(b): return b ? "true" : "false"
        case let .number(n): return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
        case let .string(s): return s
        case let .color(c): return "rgba(\(Int(c.r * 255)),\(Int(c.g * 255)),\(Int(c.b * 255)),\(c.a))"
        case let .array(a): return a.map(\.text).joined(separator: ",")
        }
    }

    public init(_ v: VectorTile.Value) {
        switch v {
        case let .string(s): self = .string(s)
        case let .number(n): self = .number(n)
        case let .bool(b): self = .bool(b)
        }
    }

    /// A JSON value as a style value (objects have no style value).
    static func json(_ j: JSON) -> StyleValue? {
        switch j {
        case .null: return .null
        case let .bool(b): return .bool(b)
        case let .number(n): return .number(n)
        case let .string(s): return .string(s)
        case let .array(a):
            var out: [StyleValue] = []
            for e in a { guard let v = json(e) else { return nil }; out.append(v) }
            return .array(out)
        case .object: return nil
        }
    }
}

/// A JSON document as decoded by Foundation's JSONDecoder, keeping booleans and numbers apart.
public enum JSON: Sendable, Equatable, Decodable {
    case null, bool(Bool), number(Double), string(String), array([JSON]), object([String: JSON])

    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSON].self)) }
    }

    public subscript(key: String) -> JSON? { if case let .object(o) = self { return o[key] }; return nil }
    public var string: String? { if case let .string(s) = self { return s }; return nil }
    public var number: Double? { if case let .number(n) = self { return n }; return nil }
    public var array: [JSON]? { if case let .array(a) = self { return a }; return nil }
    public var object: [String: JSON]? { if case let .object(o) = self { return o }; return nil }
}
