import Foundation

/// A style that cannot be used: the file, the JSON path (e.g. `layers[4].paint.line-width`)
/// and what is wrong.
public struct StyleError: Error, CustomStringConvertible, Equatable {
    public var file: String
    public var path: String
    public var problem: String
    public var description: String { "style \(file): \(path.isEmpty ? "" : "at \(path): ")\(problem)" }
}

/// Turns style JSON (filters, expressions, legacy functions) into `StyleExpression`s.
struct StyleParser {
    let file: String
    /// What the style's values ask for that is drawn only in part (an approximation): the JSON
    /// path and what is left out. `StreetStyle.parse` reports the first per property and layer.
    let notes = Notes()

    final class Notes {
        var items: [(path: String, problem: String)] = []
    }

    func fail(_ path: String, _ problem: String) -> StyleError { StyleError(file: file, path: path, problem: problem) }

    /// A filter: the legacy form (`["==", "class", "park"]`, `["in", "class", "a", "b"]`,
    /// `["has", "name"]`) or an expression (`["==", ["get", "class"], "park"]`).
    func filter(_ j: JSON, _ path: String) throws -> StyleExpression {
        if case let .bool(b) = j { return .literal(.bool(b)) }
        guard let a = j.array, let op = a.first?.string else { throw fail(path, "a filter must be an array starting with an operator, like [\"==\", \"class\", \"park\"]") }
        let args = Array(a.dropFirst())
        let legacyKey = args.first?.string
        // Legacy filters name a property with a plain string in second place.
        func key(_ s: String) -> StyleExpression { s == "$type" ? .geometryType : .get(s) }
        switch op {
        case "all", "any", "none":
            let parts = try args.enumerated().map { try filter($0.element, "\(path)[\($0.offset + 1)]") }
            return op == "all" ? .all(parts) : op == "any" ? .any(parts) : .not(.any(parts))
        case "==", "!=", "<", "<=", ">", ">=":
            if let k = legacyKey, args.count == 2, let v = StyleValue.json(args[1]), let cmp = Comparison(rawValue: op) {
                return .compare(cmp, key(k), .literal(v))
            }
        case "in", "!in":
            if let k = legacyKey {
                let values = try args.dropFirst().enumerated().map { i, v -> StyleValue in
                    guard let sv = StyleValue.json(v) else { throw fail("\(path)[\(i + 2)]", "a value to compare with must be a string, number or boolean") }
                    return sv
                }
                let e = StyleExpression.oneOf(key(k), values)
                return op == "in" ? e : .not(e)
            }
        case "has", "!has":
            if let k = legacyKey, args.count == 1 {
                return op == "has" ? .has(k) : .not(.has(k))
            }
        default: break
        }
        return try expression(j, path)
    }

    /// A property value: a constant, a legacy function (`{"stops": ..., "base": ...}`) or an expression.
    func value(_ j: JSON, _ path: String, color: Bool = false) throws -> StyleExpression {
        switch j {
        case let .object(o):
            guard let stopsJSON = o["stops"]?.array, !stopsJSON.isEmpty else {
                throw fail(path, "a function needs a non-empty \"stops\" array")
            }
            let base = o["base"]?.number ?? 1
            let property = o["property"]?.string
            var stops: [(JSON, StyleExpression)] = []
            for (i, s) in stopsJSON.enumerated() {
                guard let pair = s.array, pair.count == 2 else { throw fail("\(path).stops[\(i)]", "a stop is [input, output]") }
                stops.append((pair[0], try value(pair[1], "\(path).stops[\(i)][1]", color: color)))
            }
            let type = o["type"]?.string ?? (property == nil ? "exponential" : "categorical")
            let input: StyleExpression = property.map { .get($0) } ?? .zoom
            if type == "categorical" {
                let arms = stops.compactMap { s in StyleValue.json(s.0).map { ([$0], s.1) } }
                return .match(input, arms, o["default"].flatMap { try? value($0, "\(path).default", color: color) } ?? .literal(.null))
            }
            var numeric: [(Double, StyleExpression)] = []
            for (i, s) in stops.enumerated() {
                // Zoom-and-property stops ({zoom, value}) are beyond this subset: take the zoom.
                guard let x = s.0.number ?? s.0["zoom"]?.number else { throw fail("\(path).stops[\(i)][0]", "a stop's input must be a number") }
                if s.0.number == nil {
                    notes.items.append(("\(path).stops[\(i)][0]", "a zoom-and-property function is drawn by zoom only (the feature's \(property ?? "property") is not read)"))
                }
                numeric.append((x, s.1))
            }
            numeric.sort { $0.0 < $1.0 }
            if type == "interval" { return .step(input, numeric[0].1, Array(numeric.dropFirst())) }
            return .interpolate(base: base, input, numeric)
        case let .array(a):
            // [2, 1] (a dash array, a text offset) is a value; ["get", ...] an expression.
            if a.first?.string == nil, let v = StyleValue.json(j) { return .literal(v) }
            return try expression(j, path, color: color)
        case let .string(s):
            if color {
                guard let c = StyleColor.parse(s) else { throw fail(path, "'\(s)' is not a colour (use #rrggbb, rgb(), rgba(), hsl() or hsla())") }
                return .literal(.color(c))
            }
            return .literal(.string(s))
        default:
            guard let v = StyleValue.json(j) else { throw fail(path, "unexpected value") }
            return .literal(v)
        }
    }

    /// A text-field: a template string ("{name:latin}"), or an expression.
    func textField(_ j: JSON, _ path: String) throws -> StyleExpression {
        if let s = j.string { return s.contains("{") ? .template(s) : .literal(.string(s)) }
        return try value(j, path)
    }

    func expression(_ j: JSON, _ path: String, color: Bool = false) throws -> StyleExpression {
        guard case let .array(a) = j else {
            if color, let s = j.string {
                guard let c = StyleColor.parse(s) else { throw fail(path, "'\(s)' is not a colour") }
                return .literal(.color(c))
            }
            guard let v = StyleValue.json(j) else { throw fail(path, "unexpected object") }
            return .literal(v)
        }
        guard let op = a.first?.string else {
            throw fail(path, "an expression starts with its operator name, like [\"get\", \"name\"]")
        }
        let args = Array(a.dropFirst())
        func sub(_ i: Int, color c: Bool = false) throws -> StyleExpression {
            guard i < args.count else { throw fail(path, "'\(op)' needs at least \(i + 1) argument(s)") }
            return try expression(args[i], "\(path)[\(i + 1)]", color: c)
        }
        func subs(from: Int = 0, color c: Bool = false) throws -> [StyleExpression] {
            try (from..<args.count).map { try expression(args[$0], "\(path)[\($0 + 1)]", color: c) }
        }
        switch op {
        case "literal":
            guard args.count == 1, let v = StyleValue.json(args[0]) else { throw fail(path, "'literal' takes one value") }
            return .literal(v)
        case "get":
            guard args.count == 1, let k = args[0].string else { throw fail(path, "only [\"get\", \"key\"] is supported") }
            return .get(k)
        case "has", "!has":
            guard args.count == 1, let k = args[0].string else { throw fail(path, "only [\"has\", \"key\"] is supported") }
            return op == "has" ? .has(k) : .not(.has(k))
        case "!": return .not(try sub(0))
        case "==", "!=", "<", "<=", ">", ">=":
            guard args.count >= 2, let cmp = Comparison(rawValue: op) else { throw fail(path, "'\(op)' compares two values") }
            return .compare(cmp, try sub(0), try sub(1))
        case "in", "!in":
            guard args.count == 2 else { throw fail(path, "'\(op)' takes a value and a list: [\"in\", [\"get\", \"class\"], [\"literal\", [\"a\", \"b\"]]]") }
            let hay = try sub(1)
            guard case let .literal(.array(values)) = hay else { throw fail("\(path)[2]", "the list must be a literal array") }
            return op == "in" ? .oneOf(try sub(0), values) : .not(.oneOf(try sub(0), values))
        case "all": return .all(try args.indices.map { try filter(args[$0], "\(path)[\($0 + 1)]") })
        case "any": return .any(try args.indices.map { try filter(args[$0], "\(path)[\($0 + 1)]") })
        case "none": return .not(.any(try args.indices.map { try filter(args[$0], "\(path)[\($0 + 1)]") }))
        case "zoom": return .zoom
        case "geometry-type": return .geometryType
        case "image": return try sub(0)   // the icon's name; StyleSprite resolves it against the sprite
        case "to-string": return .toString(try sub(0))
        case "to-number": return .toNumber(try sub(0))
        case "concat": return .concat(try subs())
        case "coalesce": return .coalesce(try subs(color: color))
        case "match":
            guard args.count >= 4, args.count % 2 == 0 else { throw fail(path, "'match' is [\"match\", input, label, output, ..., fallback]") }
            var arms: [([StyleValue], StyleExpression)] = []
            var i = 1
            while i + 1 < args.count {
                let labels: [StyleValue]
                if case let .array(ls) = args[i] { labels = ls.compactMap(StyleValue.json) } else if let l = StyleValue.json(args[i]) { labels = [l] } else {
                    throw fail("\(path)[\(i + 1)]", "a match label must be a string, number or an array of them")
                }
                arms.append((labels, try expression(args[i + 1], "\(path)[\(i + 2)]", color: color)))
                i += 2
            }
            return .match(try sub(0), arms, try sub(args.count - 1, color: color))
        case "case":
            guard args.count >= 3, args.count % 2 == 1 else { throw fail(path, "'case' is [\"case\", condition, output, ..., fallback]") }
            var arms: [(StyleExpression, StyleExpression)] = []
            var i = 0
            while i + 1 < args.count {
                arms.append((try filter(args[i], "\(path)[\(i + 1)]"), try sub(i + 1, color: color)))
                i += 2
            }
            return .cases(arms, try sub(args.count - 1, color: color))
        case "interpolate":
            guard args.count >= 4, args.count % 2 == 0, let kind = args[0].array, let name = kind.first?.string else {
                throw fail(path, "'interpolate' is [\"interpolate\", [\"linear\"], [\"zoom\"], z0, v0, z1, v1, ...]")
            }
            let base: Double
            switch name {
            case "linear": base = 1
            case "exponential": base = kind.count > 1 ? kind[1].number ?? 1 : 1
            case "cubic-bezier":
                base = 1   // approximated as linear
                notes.items.append(("\(path)[1]", "cubic-bezier interpolation is drawn as linear"))
            default: throw fail("\(path)[1]", "unknown interpolation '\(name)' (use linear or exponential)")
            }
            return .interpolate(base: base, try sub(1), try stops(args, from: 2, path: path, color: color))
        case "step":
            guard args.count >= 2, args.count % 2 == 0 else { throw fail(path, "'step' is [\"step\", input, v0, z1, v1, ...]") }
            return .step(try sub(0), try sub(1, color: color), try stops(args, from: 2, path: path, color: color))
        case "rgb", "rgba":
            let n = args.compactMap(\.number)
            guard n.count == args.count, n.count >= 3 else { throw fail(path, "'\(op)' takes numbers") }
            return .literal(.color(StyleColor(r: n[0] / 255, g: n[1] / 255, b: n[2] / 255, a: n.count > 3 ? n[3] : 1)))
        case "to-color":
            return try sub(0, color: true)
        case "format":
            // Only the text parts are kept (formatting options are beyond this subset).
            var parts: [StyleExpression] = []
            for (i, x) in args.enumerated() {
                guard x.object == nil else {
                    if let keys = x.object?.keys.sorted(), !keys.isEmpty {
                        notes.items.append(("\(path)[\(i + 1)]", "format's \(keys.joined(separator: ", ")) is not drawn (only the text is)"))
                    }
                    continue
                }
                parts.append(try expression(x, "\(path)[\(i + 1)]"))
            }
            return .concat(parts)
        default:
            throw fail(path, "the expression '\(op)' is not supported (supported: get, has, ==, !=, <, >, in, !in, all, any, none, !, match, case, coalesce, interpolate, step, zoom, concat, to-string, literal)")
        }
    }

    private func stops(_ args: [JSON], from: Int, path: String, color: Bool) throws -> [(Double, StyleExpression)] {
        var out: [(Double, StyleExpression)] = []
        var i = from
        while i + 1 < args.count {
            guard let x = args[i].number else { throw fail("\(path)[\(i + 1)]", "a stop input must be a number") }
            if let last = out.last, x <= last.0 { throw fail("\(path)[\(i + 1)]", "stop inputs must increase") }
            out.append((x, try expression(args[i + 1], "\(path)[\(i + 2)]", color: color)))
            i += 2
        }
        return out
    }
}
