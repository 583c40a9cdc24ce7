import Foundation

/// The bounds on what a style may ask of the renderer (docs/limits.md lists them): a number a
/// style gives for one of these properties beyond its range is an error when it is a constant,
/// and held within the range when it comes from data or a zoom function (a tile's value, an
/// interpolation). Without them a `circle-radius` of 1e300 never finished a frame, 1e40 took
/// 1.2 GB, a `text-max-width` or `text-halo-width` of 1e300 trapped converting to an integer,
/// and a 10 MB `text-field` took 727 MB to lay out (issue 31).
public enum StyleLimits {
    /// Property -> the range of its numbers (each number of an array property).
    public static let ranges: [String: ClosedRange<Double>] = [
        "text-size": 0...256, "text-max-width": 0...100, "text-halo-width": 0...32, "text-offset": -100...100,
        "text-padding": 0...256, "text-letter-spacing": -5...5, "text-opacity": 0...1,
        "line-width": 0...512, "line-gap-width": 0...512, "line-dasharray": 0...1000, "line-opacity": 0...1,
        "circle-radius": 0...256, "circle-stroke-width": 0...256, "circle-opacity": 0...1,
        "fill-opacity": 0...1, "background-opacity": 0...1, "symbol-sort-key": -1e9...1e9,
        "icon-size": 0...10, "icon-padding": 0...256, "icon-offset": -1000...1000,
    ]
    /// The longest label text drawn, in characters (a longer one is cut).
    public static let maxTextLength = 256
    /// The most numbers in an array property (a dash pattern, an offset).
    public static let maxArrayCount = 64

    /// `value` held to `lo...hi` (numbers, or the numbers of an array), NaN as lo; text cut.
    static func held(_ value: StyleValue, lo: Double, hi: Double, maxText: Int) -> StyleValue {
        switch value {
        case let .number(n): return .number(n.isNaN ? lo : Swift.min(Swift.max(n, lo), hi))
        case let .array(a): return .array(a.prefix(maxArrayCount).map { held($0, lo: lo, hi: hi, maxText: maxText) })
        case let .string(t) where t.count > maxText: return .string(String(t.prefix(maxText)))
        default: return value
        }
    }

    /// The parsed expression of `name`, bounded: a constant out of range is an error (returned
    /// as the problem to report), anything else is wrapped in `.limit`.
    static func bound(_ name: String, _ e: StyleExpression) -> (StyleExpression, problem: String?) {
        if name == "text-field" {
            if case let .literal(.string(t)) = e, t.count > maxTextLength {
                return (e, "a text-field of \(t.count) characters: labels are at most \(maxTextLength)")
            }
            return (.limit(e, lo: -.infinity, hi: .infinity, maxText: maxTextLength), nil)
        }
        guard let r = ranges[name] else { return (e, nil) }
        if case let .literal(v) = e {
            let numbers: [Double] = switch v {
            case let .number(n): [n]
            case let .array(a): a.compactMap(\.number)
            default: []
            }
            if case let .array(a) = v, a.count > maxArrayCount {
                return (e, "\(a.count) numbers: at most \(maxArrayCount)")
            }
            if let bad = numbers.first(where: { !r.contains($0) }) {
                return (e, "\(StyleLimits.text(bad)) is beyond \(StyleLimits.text(r.lowerBound))...\(StyleLimits.text(r.upperBound)), the range this renderer draws")
            }
            return (e, nil)
        }
        return (.limit(e, lo: r.lowerBound, hi: r.upperBound, maxText: maxTextLength), nil)
    }

    static func text(_ v: Double) -> String { v == v.rounded() && abs(v) < 1e15 ? String(Int64(v)) : "\(v)" }
}
