import Foundation

/// A value a style property can have, made from what its expression computes (nil when the
/// value is not of the property's type: the renderer's default applies then).
public protocol StylePropertyValue: Sendable {
    init?(styleValue: StyleValue)
}

extension Double: StylePropertyValue {
    public init?(styleValue v: StyleValue) { guard let n = v.number else { return nil }; self = n }
}

extension StyleColor: StylePropertyValue {
    public init?(styleValue v: StyleValue) { guard let c = v.color else { return nil }; self = c }
}

/// Text (a label's `text-field`): any value as its text.
extension String: StylePropertyValue {
    public init?(styleValue v: StyleValue) { self = v.text }
}

/// A list of numbers (`line-dasharray`): the numbers of an array value.
public struct StyleNumbers: StylePropertyValue, Equatable {
    public var values: [Double]
    public init(_ values: [Double]) { self.values = values }
    public init?(styleValue v: StyleValue) {
        guard case let .array(a) = v else { return nil }
        values = a.compactMap(\.number)
    }
}

/// `text-offset`: two numbers, in ems (a missing number is 0).
public struct StyleOffset: StylePropertyValue, Equatable {
    public var x: Double, y: Double
    public init?(styleValue v: StyleValue) {
        guard case let .array(a) = v, a.count == 2 else { return nil }
        x = a[0].number ?? 0; y = a[1].number ?? 0
    }
}

/// `text-font`: a font stack. Labels are drawn in the system's sans-serif (pango); a font
/// name containing "Bold" makes them bold.
public struct FontStack: StylePropertyValue, Equatable {
    public var names: [String]
    public init?(styleValue v: StyleValue) {
        switch v {
        case .null: names = []
        case let .array(a): names = a.map(\.text)
        default: names = [v.text]
        }
    }
    public var isBold: Bool { names.contains { $0.contains("Bold") } }
}

/// The enumerated properties, by their style names.
public enum LineCap: String, StylePropertyValue { case butt, round, square }
public enum LineJoin: String, StylePropertyValue { case bevel, round, miter }
public enum SymbolPlacement: String, StylePropertyValue { case point, line, lineCenter = "line-center" }
public enum TextTransform: String, StylePropertyValue { case none, uppercase, lowercase }
public enum TextAnchor: String, StylePropertyValue {
    case center, left, right, top, bottom, topLeft = "top-left", topRight = "top-right", bottomLeft = "bottom-left", bottomRight = "bottom-right"
}

extension StylePropertyValue where Self: RawRepresentable, RawValue == String {
    public init?(styleValue v: StyleValue) {
        guard let s = v.string, let e = Self(rawValue: s) else { return nil }
        self = e
    }
}

/// One paint or layout property of a layer: unset (the renderer's default applies) or the
/// expression (a constant, a zoom function, a data expression) its value comes from.
public struct StyleProperty<Value: StylePropertyValue>: Sendable {
    public let expression: StyleExpression?
    public init(_ expression: StyleExpression?) { self.expression = expression }

    /// The value for one feature (nil when unset or not of the property's type).
    @inline(__always)
    public func evaluate(_ c: StyleContext) -> Value? {
        guard let e = expression else { return nil }
        return Value(styleValue: e.evaluate(c))
    }

    /// For one layer and frame: the value computed once when it depends on the zoom only,
    /// else the expression to evaluate per feature.
    public func resolve(_ constant: StyleContext) -> Resolved {
        guard let e = expression else { return .unset }
        return e.isFeatureConstant ? .constant(Value(styleValue: e.evaluate(constant))) : .perFeature(e)
    }

    public enum Resolved: Sendable {
        case unset
        case constant(Value?)
        case perFeature(StyleExpression)

        @inline(__always)
        public func value(_ c: StyleContext) -> Value? {
            switch self {
            case .unset: return nil
            case let .constant(v): return v
            case let .perFeature(e): return Value(styleValue: e.evaluate(c))
            }
        }
    }
}

/// The properties this renderer draws, by layer type, made from a layer's parsed properties.
/// The renderer reads these named fields; `StyleSpec` lists the same names for the parser.
public struct BackgroundProperties: Sendable {
    public var color: StyleProperty<StyleColor>
    public var opacity: StyleProperty<Double>
}

public struct FillProperties: Sendable {
    public var color: StyleProperty<StyleColor>
    public var opacity: StyleProperty<Double>
    public var outlineColor: StyleProperty<StyleColor>
}

public struct LineProperties: Sendable {
    public var color: StyleProperty<StyleColor>
    public var width: StyleProperty<Double>
    public var opacity: StyleProperty<Double>
    public var dasharray: StyleProperty<StyleNumbers>
    public var cap: StyleProperty<LineCap>
    public var join: StyleProperty<LineJoin>
}

public struct CircleProperties: Sendable {
    public var color: StyleProperty<StyleColor>
    public var radius: StyleProperty<Double>
    public var opacity: StyleProperty<Double>
    public var strokeColor: StyleProperty<StyleColor>
    public var strokeWidth: StyleProperty<Double>
}

public struct SymbolProperties: Sendable {
    // Layout.
    public var textField: StyleProperty<String>
    public var textSize: StyleProperty<Double>
    public var textFont: StyleProperty<FontStack>
    public var textTransform: StyleProperty<TextTransform>
    public var textMaxWidth: StyleProperty<Double>
    public var textOffset: StyleProperty<StyleOffset>
    public var textAnchor: StyleProperty<TextAnchor>
    public var textMaxAngle: StyleProperty<Double>
    public var symbolPlacement: StyleProperty<SymbolPlacement>
    public var symbolSortKey: StyleProperty<Double>
    public var symbolSpacing: StyleProperty<Double>
    // Paint.
    public var textColor: StyleProperty<StyleColor>
    public var textHaloColor: StyleProperty<StyleColor>
    public var textHaloWidth: StyleProperty<Double>
}

extension StreetStyle.Layer {
    /// The typed properties of every layer type, from `properties` (a layer uses those of its type).
    struct Typed: Sendable {
        var background: BackgroundProperties
        var fill: FillProperties
        var line: LineProperties
        var circle: CircleProperties
        var symbol: SymbolProperties

        init(_ p: [String: StyleExpression]) {
            func v<T: StylePropertyValue>(_ name: String) -> StyleProperty<T> { StyleProperty(p[name]) }
            background = BackgroundProperties(color: v("background-color"), opacity: v("background-opacity"))
            fill = FillProperties(color: v("fill-color"), opacity: v("fill-opacity"), outlineColor: v("fill-outline-color"))
            line = LineProperties(color: v("line-color"), width: v("line-width"), opacity: v("line-opacity"),
                                  dasharray: v("line-dasharray"), cap: v("line-cap"), join: v("line-join"))
            circle = CircleProperties(color: v("circle-color"), radius: v("circle-radius"), opacity: v("circle-opacity"),
                                      strokeColor: v("circle-stroke-color"), strokeWidth: v("circle-stroke-width"))
            symbol = SymbolProperties(textField: v("text-field"), textSize: v("text-size"), textFont: v("text-font"),
                                      textTransform: v("text-transform"), textMaxWidth: v("text-max-width"),
                                      textOffset: v("text-offset"), textAnchor: v("text-anchor"), textMaxAngle: v("text-max-angle"),
                                      symbolPlacement: v("symbol-placement"), symbolSortKey: v("symbol-sort-key"),
                                      symbolSpacing: v("symbol-spacing"),
                                      textColor: v("text-color"), textHaloColor: v("text-halo-color"), textHaloWidth: v("text-halo-width"))
        }
    }
}

/// What this renderer draws of the MapLibre style specification: per layer type, the paint
/// and layout properties it reads (and which are colours). Everything else a style sets is
/// reported (`StyleNotice`), never dropped silently.
public enum StyleSpec {
    public struct Property: Sendable {
        public let name: String
        public let layout: Bool
        public let color: Bool
    }

    static func paint(_ name: String, color: Bool = false) -> Property { Property(name: name, layout: false, color: color) }
    static func layout(_ name: String) -> Property { Property(name: name, layout: true, color: false) }

    /// The properties drawn, by layer type (`visibility`, a layout property of every type, too).
    public static let supported: [StreetStyle.LayerType: [Property]] = [
        .background: [paint("background-color", color: true), paint("background-opacity")],
        .fill: [paint("fill-color", color: true), paint("fill-opacity"), paint("fill-outline-color", color: true)],
        .line: [paint("line-color", color: true), paint("line-width"), paint("line-opacity"), paint("line-dasharray"),
                layout("line-cap"), layout("line-join")],
        .circle: [paint("circle-color", color: true), paint("circle-radius"), paint("circle-opacity"),
                  paint("circle-stroke-color", color: true), paint("circle-stroke-width")],
        .symbol: [layout("text-field"), layout("text-size"), layout("text-font"), layout("text-transform"),
                  layout("text-max-width"), layout("text-offset"), layout("text-anchor"), layout("text-max-angle"),
                  layout("symbol-placement"), layout("symbol-sort-key"), layout("symbol-spacing"),
                  paint("text-color", color: true), paint("text-halo-color", color: true), paint("text-halo-width"),
                  // Icons from the sprite (StyleSprite.swift; Rendering's StreetIcons reads them).
                  layout("icon-image"), layout("icon-size"), layout("icon-allow-overlap"), layout("icon-ignore-placement"),
                  layout("icon-optional"), layout("icon-padding"), layout("icon-offset"), layout("icon-anchor"),
                  layout("text-optional"), layout("text-ignore-placement"), layout("text-allow-overlap")],
    ]

    static let byType: [StreetStyle.LayerType: [String: Property]] = supported.mapValues { props in
        Dictionary(uniqueKeysWithValues: props.map { ($0.name, $0) })
    }

    /// The property `name` of a `type` layer as drawn, or nil when it is not.
    public static func property(_ name: String, of type: StreetStyle.LayerType) -> Property? { byType[type]?[name] }

    /// Layer types a style may have that are not drawn (reported; an unknown type is an error).
    public static let undrawnLayerTypes: Set<String> = ["raster", "hillshade", "fill-extrusion", "heatmap", "sky", "color-relief"]
}

/// Something a style asks for that this renderer does not draw, or draws only in part: an
/// unsupported paint or layout property, layer type or expression form, a remote sprite or
/// glyphs URL. Reported once per property and layer, when the style is loaded (a warning in
/// the log) and by `touchbridge check`.
public struct StyleNotice: Sendable, Equatable, CustomStringConvertible {
    /// The layer's id, nil for the style itself (`sprite`, `glyphs`).
    public var layer: String?
    /// The property (e.g. "fill-pattern"), or what is reported ("type", "sprite", "glyphs").
    public var property: String
    /// The JSON path (e.g. `layers[4].paint.fill-pattern`).
    public var path: String
    /// What happens instead.
    public var problem: String

    public var description: String {
        (layer.map { "layer '\($0)' " } ?? "") + "(\(path)): \(problem)"
    }
}
