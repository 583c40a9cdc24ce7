import Foundation
import Testing
@testable import VectorTiles

/// Issue 27: what a style asks for that is not drawn is reported once per property and layer,
/// never dropped silently; what is drawn is read through typed properties (issue 25).
@Suite struct StyleNoticeTests {
    func parse(_ json: String) throws -> StreetStyle { try StreetStyle.parse(Data(json.utf8), file: "user-style.json") }

    static let style = #"""
    {"version": 8, "name": "t",
     "sprite": "https://example.org/sprites/bright", "glyphs": "https://example.org/fonts/{fontstack}/{range}.pbf",
     "layers": [
      {"id": "bg", "type": "background", "paint": {"background-color": "#f8f4f0", "background-pattern": "dots"}},
      {"id": "hills", "type": "hillshade", "source": "dem"},
      {"id": "water", "type": "fill", "source-layer": "water",
       "paint": {"fill-color": "#a0c8f0", "fill-pattern": "wave", "fill-translate": [1, 1], "fill-antialias": true, "line-color": "#000"}},
      {"id": "roads", "type": "line", "source-layer": "transportation",
       "layout": {"line-cap": "round", "line-join": "miter"},
       "paint": {"line-color": "#fff", "line-width": ["interpolate", ["cubic-bezier", 0.4, 0, 0.6, 1], ["zoom"], 10, 1, 16, ["interpolate", ["cubic-bezier", 0, 0, 1, 1], ["zoom"], 10, 2, 16, 4]],
                 "line-gap-width": 2, "line-offset": 1, "line-dasharray": [2, 1]}},
      {"id": "paths", "type": "line", "source-layer": "transportation", "paint": {"line-offset": 3}},
      {"id": "names", "type": "symbol", "source-layer": "place",
       "layout": {"text-field": ["format", ["get", "name"], {"font-scale": 0.8}], "text-font": ["Noto Sans Bold"],
                  "text-letter-spacing": 0.1, "text-anchor": "top", "text-offset": [0, 0.6], "symbol-placement": "line",
                  "text-transform": "uppercase"},
       "paint": {"text-color": "#333", "text-halo-width": {"stops": [[{"zoom": 10, "value": 1}, 1], [{"zoom": 14, "value": 1}, 2]]}}}
     ]}
    """#

    @Test func eachUnsupportedPropertyIsReportedOncePerPropertyAndLayer() throws {
        let s = try parse(Self.style)
        let seen = s.notices.map { "\($0.layer ?? "-") \($0.property)" }
        #expect(seen == [
            "- sprite", "- glyphs",
            "bg background-pattern", "hills type",
            "water fill-antialias", "water fill-pattern", "water fill-translate", "water line-color",
            "roads line-gap-width", "roads line-offset", "roads line-width",
            "paths line-offset",
            "names text-halo-width", "names text-field", "names text-letter-spacing",
        ], "\(seen)")
        // Once each: the two cubic-bezier interpolations of one property make one notice.
        #expect(s.notices.filter { $0.layer == "roads" && $0.property == "line-width" }.count == 1)
        // Each names where it is and what happens instead.
        let texts = s.notices.map { s.message($0) }
        #expect(texts.contains { $0.contains("user-style.json") && $0.contains("layers[2].paint.fill-pattern") && $0.contains("fill-pattern is not drawn") })
        #expect(texts.contains { $0.contains("line-color belongs to line layers") })
        #expect(texts.contains { $0.contains("a hillshade layer is not drawn") })
        #expect(texts.contains { $0.contains("layers[3].paint.line-width[1]") && $0.contains("cubic-bezier interpolation is drawn as linear") })
        #expect(texts.contains { $0.contains("format's font-scale is not drawn") })
        #expect(texts.contains { $0.contains("zoom-and-property function is drawn by zoom only") })
        #expect(texts.contains { $0.contains("the sprite at https://example.org/sprites/bright is remote") })
        #expect(texts.contains { $0.contains("glyphs at https://example.org/fonts") && $0.contains("remote") })
        // The layers are still drawn with what is supported.
        #expect(s.layers.map(\.id) == ["bg", "water", "roads", "paths", "names"])
    }

    @Test func supportedPropertiesAreNotReported() throws {
        let s = try parse(#"""
        {"version": 8, "sprite": "sprites/local", "layers": [
          {"id": "bg", "type": "background", "layout": {"visibility": "visible"}, "paint": {"background-color": "#fff", "background-opacity": 0.9}},
          {"id": "park", "type": "fill", "source-layer": "park", "paint": {"fill-color": "#cec", "fill-opacity": 0.5, "fill-outline-color": "#9b9"}},
          {"id": "road", "type": "line", "source-layer": "transportation", "layout": {"line-cap": "butt", "line-join": "round"},
           "paint": {"line-color": "#fff", "line-width": ["interpolate", ["exponential", 1.5], ["zoom"], 10, 1, 16, 8], "line-opacity": 1, "line-dasharray": [2, 2]}},
          {"id": "dot", "type": "circle", "source-layer": "poi", "paint": {"circle-color": "#000", "circle-radius": 3, "circle-opacity": 1, "circle-stroke-color": "#fff", "circle-stroke-width": 1}},
          {"id": "name", "type": "symbol", "source-layer": "place", "layout": {"text-field": "{name}", "text-size": 12, "text-font": ["Noto Sans Regular"],
           "text-max-width": 8, "text-anchor": "left", "text-offset": [1, 0], "text-transform": "none", "symbol-placement": "point",
           "symbol-sort-key": ["get", "rank"], "symbol-spacing": 300, "text-max-angle": 30},
           "paint": {"text-color": "#333", "text-halo-color": "#fff", "text-halo-width": 1}}
        ]}
        """#)
        #expect(s.notices.isEmpty, "\(s.notices)")
        #expect(s.noticeReport == nil)
    }

    @Test func theBuiltInStyleIsDrawnInFull() throws {
        let s = try StreetStyle.loadStandard()
        #expect(s.notices.isEmpty, "\(s.notices.map { s.message($0) })")
    }

    @Test func checkListsTheNoticesAsWarnings() throws {
        let s = try parse(Self.style)
        let report = try #require(s.noticeReport)
        let lines = report.split(separator: "\n")
        #expect(lines.first == "  style: \(s.notices.count) things not drawn (warnings, not errors):")
        #expect(lines.count == s.notices.count + 1)
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("    warning: style user-style.json: ") })
    }

    @Test func anUnsupportedOperatorIsStillAnError() {
        // An expression the renderer cannot evaluate refuses the style (the kiosk draws the
        // built-in one and logs why): reported too, never dropped.
        #expect(throws: StyleError.self) {
            _ = try parse(#"{"version": 8, "layers": [{"id": "w", "type": "fill", "source-layer": "water", "paint": {"fill-color": ["distance", 1]}}]}"#)
        }
    }

    @Test func theRendererReadsTypedProperties() throws {
        let s = try parse(Self.style)
        let z = StyleContext(zoom: 13)
        let roads = try #require(s.layers.first { $0.id == "roads" })
        #expect(roads.line.cap.evaluate(z) == .round)
        #expect(roads.line.join.evaluate(z) == .miter)
        #expect(roads.line.dasharray.evaluate(z) == StyleNumbers([2, 1]))
        #expect(roads.line.color.evaluate(z) == StyleColor(r: 1, g: 1, b: 1))
        #expect(roads.line.width.evaluate(z) == 2, "halfway from 1 to the inner interpolation's 3 at zoom 13")
        #expect(roads.line.opacity.evaluate(z) == nil, "unset: the renderer's default applies")
        let names = try #require(s.layers.first { $0.id == "names" })
        #expect(names.symbol.textFont.evaluate(z)?.isBold == true)
        #expect(names.symbol.textAnchor.evaluate(z) == .top)
        #expect(names.symbol.textOffset.evaluate(z) == StyleOffset(styleValue: .array([.number(0), .number(0.6)])))
        #expect(names.symbol.symbolPlacement.evaluate(z) == .line)
        #expect(names.symbol.textTransform.evaluate(z) == .uppercase)
        #expect(names.symbol.textField.evaluate(StyleContext(zoom: 13, properties: ["name": .string("Vaduz")])) == "Vaduz")
        // A value of the wrong type gives the renderer's default, as before.
        let odd = try parse(#"{"version": 8, "layers": [{"id": "r", "type": "line", "source-layer": "t", "layout": {"line-cap": "rounded"}, "paint": {"line-width": "wide"}}]}"#)
        #expect(odd.layers[0].line.cap.evaluate(z) == nil)
        #expect(odd.layers[0].line.width.evaluate(z) == nil)
        // Resolved once for a frame when the value depends on the zoom only.
        if case .constant(let w) = roads.line.width.resolve(z) { #expect(w == 2) } else { Issue.record("zoom-only width not resolved once") }
        if case .perFeature = names.symbol.textField.resolve(z) {} else { Issue.record("a data-driven field is evaluated per feature") }
        // Changing the properties changes the typed view.
        var bg = s.layers[0]
        bg.properties["background-opacity"] = .literal(.number(0.5))
        #expect(bg.background.opacity.evaluate(z) == 0.5)
    }
}
