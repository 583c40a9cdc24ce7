import Foundation

/// What an expression reads: the zoom and one feature.
public struct StyleContext {
    public var zoom: Double
    public var properties: [String: VectorTile.Value]
    public var geometryType: VectorTile.GeometryType
    public var id: UInt64?
    public init(zoom: Double, properties: [String: VectorTile.Value] = [:], geometryType: VectorTile.GeometryType = .unknown, id: UInt64? = nil) {
        self.zoom = zoom; self.properties = properties; self.geometryType = geometryType; self.id = id
    }
    func get(_ key: String) -> StyleValue {
        switch key {
        case "$type": return .string(geometryType == .point ? "Point" : geometryType == .lineString ? "LineString" : geometryType == .polygon ? "Polygon" : "Unknown")
        case "$id": return id.map { .number(Double($0)) } ?? .null
        default: return properties[key].map(StyleValue.init) ?? .null
        }
    }
}

/// A comparison operator of a filter or expression, typed once when the style is parsed (not
/// a string matched per feature and frame).
public enum Comparison: String, Sendable {
    case equal = "==", notEqual = "!=", less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
}

/// The subset of MapLibre style expressions (and legacy filters and functions, which parse
/// into the same tree) that a kiosk street map needs.
public indirect enum StyleExpression: Sendable {
    case literal(StyleValue)
    case get(String)
    case has(String)
    case not(StyleExpression)
    case compare(Comparison, StyleExpression, StyleExpression)
    /// `in`: the needle is one of the values.
    case oneOf(StyleExpression, [StyleValue])
    case all([StyleExpression])
    case any([StyleExpression])
    case match(StyleExpression, [([StyleValue], StyleExpression)], StyleExpression)
    case cases([(StyleExpression, StyleExpression)], StyleExpression)
    case coalesce([StyleExpression])
    case zoom
    case geometryType
    /// Interpolation with `base` 1 for linear; stops sorted by input.
    case interpolate(base: Double, StyleExpression, [(Double, StyleExpression)])
    case step(StyleExpression, StyleExpression, [(Double, StyleExpression)])
    case toString(StyleExpression)
    case toNumber(StyleExpression)
    case concat([StyleExpression])
    /// A legacy text template: "{name:latin}\n{name}" with each token replaced by the property.
    case template(String)
    /// A number (or each number of an array) held within lo...hi, NaN taken as lo; text cut to
    /// `maxText` characters. Wraps the properties `StyleLimits` bounds, so a data-driven value
    /// (a tile's, a zoom function's) can never ask for a 1e300 px circle.
    case limit(StyleExpression, lo: Double, hi: Double, maxText: Int)


    /// Whether the value is the same for every feature (depends on zoom at most): then it is
    /// computed once per layer and frame.
    public var isFeatureConstant: Bool {
        switch self {
        case .literal, .zoom: return true
        case .get, .has, .geometryType, .template: return false
        case let .not(e), let .toString(e), let .toNumber(e), let .limit(e, _, _, _): return e.isFeatureConstant
        case let .compare(_, a, b): return a.isFeatureConstant && b.isFeatureConstant
        case let .oneOf(e, _): return e.isFeatureConstant
        case let .all(es), let .any(es), let .coalesce(es), let .concat(es): return es.allSatisfy(\.isFeatureConstant)
        case let .match(i, arms, d): return i.isFeatureConstant && d.isFeatureConstant && arms.allSatisfy { $0.1.isFeatureConstant }
        case let .cases(arms, d): return d.isFeatureConstant && arms.allSatisfy { $0.0.isFeatureConstant && $0.1.isFeatureConstant }
        case let .interpolate(_, i, stops): return i.isFeatureConstant && stops.allSatisfy { $0.1.isFeatureConstant }
        case let .step(i, d, stops): return i.isFeatureConstant && d.isFeatureConstant && stops.allSatisfy { $0.1.isFeatureConstant }
        }
    }

    public func evaluate(_ c: StyleContext) -> StyleValue {
        switch self {
        case let .literal(v): return v
        case let .get(k): return c.get(k)
        case let .has(k): return .bool(k == "$type" || c.properties[k] != nil || (k == "$id" && c.id != nil))
        case let .not(e): return .bool(!e.evaluate(c).isTruthy)
        case let .compare(op, a, b):
            return .bool(StyleExpression.compare(op, a.evaluate(c), b.evaluate(c)))
        case let .oneOf(e, values):
            let v = e.evaluate(c)
            return .bool(values.contains { StyleExpression.compare(.equal, v, $0) })
        case let .all(es): return .bool(es.allSatisfy { $0.evaluate(c).isTruthy })
        case let .any(es): return .bool(es.contains { $0.evaluate(c).isTruthy })
        case let .match(input, arms, fallback):
            let v = input.evaluate(c)
            for (labels, out) in arms where labels.contains(where: { StyleExpression.compare(.equal, v, $0) }) { return out.evaluate(c) }
            return fallback.evaluate(c)
        case let .cases(arms, fallback):
            for (cond, out) in arms where cond.evaluate(c).isTruthy { return out.evaluate(c) }
            return fallback.evaluate(c)
        case let .coalesce(es):
            for e in es { let v = e.evaluate(c); if v != .null && v != .string("") { return v } }
            return .null
        case .zoom: return .number(c.zoom)
        case .geometryType: return c.get("$type")
        case let .interpolate(base, input, stops):
            // A NaN input (a tile may carry one) matches no stop: no value, never an index past the end.
            guard let x = input.evaluate(c).number, !x.isNaN, let first = stops.first, let last = stops.last else { return .null }
            if x <= first.0 { return first.1.evaluate(c) }
            if x >= last.0 { return last.1.evaluate(c) }
            guard let i = stops.lastIndex(where: { $0.0 <= x }), i + 1 < stops.count else { return last.1.evaluate(c) }
            let (x0, e0) = stops[i], (x1, e1) = stops[i + 1]
            let t = StyleExpression.fraction(x, x0, x1, base: base)
            return StyleExpression.mix(e0.evaluate(c), e1.evaluate(c), t)
        case let .step(input, initial, stops):
            guard let x = input.evaluate(c).number else { return initial.evaluate(c) }
            var out = initial
            for (edge, e) in stops where x >= edge { out = e }
            return out.evaluate(c)
        case let .toString(e): return .string(e.evaluate(c).text)
        case let .toNumber(e):
            let v = e.evaluate(c)
            if let n = v.number { return .number(n) }
            if let s = v.string, let n = Double(s) { return .number(n) }
            return .null
        case let .concat(es): return .string(es.map { $0.evaluate(c).text }.joined())
        case let .template(t): return .string(StyleExpression.fill(template: t, c))
        case let .limit(e, lo, hi, maxText): return StyleLimits.held(e.evaluate(c), lo: lo, hi: hi, maxText: maxText)
        }
    }

    static func fill(template t: String, _ c: StyleContext) -> String {
        var out = ""
        var rest = Substring(t)
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            out += rest[..<open]
            let key = String(rest[rest.index(after: open)..<close])
            var v = c.get(key).text
            // {name:latin} or {name:xx} falls back to the other name fields, as map styles expect;
            // {name:nonlatin} does not: OpenMapTiles styles (OSM Bright) write
            // "{name:latin}\n{name:nonlatin}", and a Latin-only name would show twice.
            if v.isEmpty && key.hasPrefix("name") && key != "name:nonlatin" {
                v = ["name:latin", "name", "name_en", "name_int"].lazy.map { c.get($0).text }.first { !$0.isEmpty } ?? ""
            }
            out += v
            rest = rest[rest.index(after: close)...]
        }
        return (out + rest).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func compare(_ op: Comparison, _ a: StyleValue, _ b: StyleValue) -> Bool {
        switch op {
        case .equal: if let x = a.number, let y = b.number { return x == y }; return a == b
        case .notEqual: if let x = a.number, let y = b.number { return x != y }; return a != b
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            if let x = a.number, let y = b.number { return ordered(op, x, y) }
            if let x = a.string, let y = b.string { return ordered(op, x, y) }
            return false
        }
    }

    @inline(__always)
    static func ordered<T: Comparable>(_ op: Comparison, _ x: T, _ y: T) -> Bool {
        switch op {
        case .less: return x < y
        case .lessOrEqual: return x <= y
        case .greater: return x > y
        case .greaterOrEqual, .equal, .notEqual: return x >= y
        }
    }

    /// Where x lies between x0 and x1, 0...1, exponentially with `base` (MapLibre's formula).
    static func fraction(_ x: Double, _ x0: Double, _ x1: Double, base: Double) -> Double {
        let d = x1 - x0
        guard d > 0 else { return 0 }
        let p = x - x0
        if abs(base - 1) < 1e-9 { return p / d }
        return (pow(base, p) - 1) / (pow(base, d) - 1)
    }

    static func mix(_ a: StyleValue, _ b: StyleValue, _ t: Double) -> StyleValue {
        if let x = a.number, let y = b.number { return .number(x + (y - x) * t) }
        if let x = a.color, let y = b.color {
            return .color(StyleColor(r: x.r + (y.r - x.r) * t, g: x.g + (y.g - x.g) * t, b: x.b + (y.b - x.b) * t, a: x.a + (y.a - x.a) * t))
        }
        if case let .array(xs) = a, case let .array(ys) = b, xs.count == ys.count {
            return .array(zip(xs, ys).map { mix($0, $1, t) })
        }
        return t < 1 ? a : b
    }
}
