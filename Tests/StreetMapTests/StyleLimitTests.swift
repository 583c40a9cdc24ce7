import Foundation
import Testing
@testable import VectorTiles

/// Style numbers a renderer cannot draw (issue 31): a constant beyond `StyleLimits` is an error
/// naming the property; a value from data or a zoom function is held within the range when it
/// is evaluated; label text is cut at `StyleLimits.maxTextLength` characters.
@Suite struct StyleLimitTests {
    func style(_ layer: String) -> String {
        #"{"version": 8, "layers": ["# + layer + "]}"
    }
    func parse(_ json: String) throws -> StreetStyle { try StreetStyle.parse(Data(json.utf8), file: "hostile.json") }

    @Test(arguments: [
        (#"{"id": "c", "type": "circle", "source-layer": "poi", "paint": {"circle-radius": 1e300}}"#, "layers[0].paint.circle-radius"),
        (#"{"id": "t", "type": "symbol", "source-layer": "place", "layout": {"text-max-width": 1e300, "text-field": "x"}}"#, "layers[0].layout.text-max-width"),
        (#"{"id": "t", "type": "symbol", "source-layer": "place", "paint": {"text-halo-width": 1e20}, "layout": {"text-field": "x"}}"#, "layers[0].paint.text-halo-width"),
        (#"{"id": "l", "type": "line", "source-layer": "transportation", "paint": {"line-width": -3}}"#, "layers[0].paint.line-width"),
        (#"{"id": "l", "type": "line", "source-layer": "transportation", "paint": {"line-dasharray": [2, 1e9]}}"#, "layers[0].paint.line-dasharray"),
    ])
    func aConstantBeyondItsRangeIsAnErrorNamingIt(layer: String, path: String) throws {
        do {
            _ = try parse(style(layer))
            Issue.record("accepted \(layer)")
        } catch let e as StyleError {
            #expect(e.path == path, "\(e)")
            #expect("\(e)".contains("hostile.json") && "\(e)".contains("beyond"), "\(e)")
        }
    }

    @Test func dataDrivenValuesAreHeldWithinTheRange() throws {
        let s = try parse(style(#"{"id": "c", "type": "circle", "source-layer": "poi", "paint": {"circle-radius": ["get", "r"], "circle-stroke-width": ["interpolate", ["linear"], ["zoom"], 0, 0, 20, 1e12]}}"#))
        let layer = s.layers[0]
        func radius(_ r: Double) -> Double? {
            layer.property("circle-radius")?.evaluate(StyleContext(zoom: 14, properties: ["r": .number(r)], geometryType: .point)).number
        }
        #expect(radius(1e300) == 256)
        #expect(radius(-5) == 0)
        #expect(radius(.nan) == 0)
        #expect(radius(7.5) == 7.5)
        #expect(layer.property("circle-stroke-width")?.evaluate(StyleContext(zoom: 19)).number == 256)
        #expect(layer.property("circle-radius")?.isFeatureConstant == false)
        #expect(layer.property("circle-stroke-width")?.isFeatureConstant == true)
    }

    @Test func labelTextIsCut() throws {
        let long = String(repeating: "é", count: 5_000)
        // A constant that long is refused; one from the tile is cut.
        #expect(throws: StyleError.self) {
            _ = try parse(style(#"{"id": "t", "type": "symbol", "source-layer": "place", "layout": {"text-field": ""# + long + #""}}"#))
        }
        let s = try parse(style(#"{"id": "t", "type": "symbol", "source-layer": "place", "layout": {"text-field": "{name}"}}"#))
        let text = s.layers[0].property("text-field")?.evaluate(StyleContext(zoom: 14, properties: ["name": .string(long)], geometryType: .point)).text
        #expect(text?.count == StyleLimits.maxTextLength)
        let short = s.layers[0].property("text-field")?.evaluate(StyleContext(zoom: 14, properties: ["name": .string("Vaduz")], geometryType: .point)).text
        #expect(short == "Vaduz")
    }

    @Test func theBuiltInStyleIsWithinTheLimits() throws {
        #expect(try StreetStyle.loadStandard().layers.count > 20)
    }

    /// Found by fuzz-style's hour-long run: a feature value NaN (a vector tile may carry one) into
    /// a function of one stop indexed past the stops' end and trapped the renderer.
    @Test func aNaNInputToAOneStopFunctionHasNoValueAndDoesNotTrap() throws {
        let s = try parse(style(#"{"id": "c", "type": "circle", "source-layer": "poi", "paint": {"circle-radius": {"property": "r", "type": "exponential", "stops": [[5, 3]]}, "circle-stroke-width": {"property": "r", "type": "exponential", "stops": [[1, 1], [9, 4]]}}}"#))
        func value(_ name: String, _ r: Double) -> Double? {
            s.layers[0].property(name)?.evaluate(StyleContext(zoom: 14, properties: ["r": .number(r)], geometryType: .point)).number
        }
        #expect(value("circle-radius", 10) == 3 && value("circle-radius", 1) == 3)
        #expect(value("circle-radius", .nan) ?? 0 == 0)
        #expect(value("circle-stroke-width", .nan) ?? 0 == 0)
        #expect(value("circle-stroke-width", 9) == 4)
    }

    /// Found by fuzz-style's hour-long run (session 14): `rgba(160, 5555...5200, 240)` parsed to a
    /// green of 2e48, and printing the colour (`to-string`, a text-field) trapped in Int(); a hue
    /// of `inf` trapped in hsl().
    @Test func colourComponentsOutOfRangeAreClampedAndPrintable() throws {
        let huge = try #require(StyleColor.parse("rgba(160," + String(repeating: "5", count: 50) + "200,240)"))
        #expect(huge == StyleColor(r: 160.0 / 255, g: 1, b: 240.0 / 255, a: 1))
        #expect(StyleValue.color(huge).text == "rgba(160,255,240,1.0)")
        #expect(StyleColor.parse("rgb(-20, nan, 300)") == StyleColor(r: 0, g: 0, b: 1))
        for hue in ["inf", "-inf", "nan", "1e308"] {
            let c = try #require(StyleColor.parse("hsl(\(hue), 50%, 50%)"))
            #expect([c.r, c.g, c.b, c.a].allSatisfy { (0...1).contains($0) }, "\(hue): \(c)")
            _ = StyleValue.color(c).text
        }
        #expect(StyleColor(r: .nan, g: -.infinity, b: .infinity, a: 2) == StyleColor(r: 0, g: 0, b: 1, a: 1))
    }
}
