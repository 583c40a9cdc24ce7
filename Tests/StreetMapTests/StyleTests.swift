import Foundation
import Testing
@testable import VectorTiles

@Suite struct StyleTests {
    func parse(_ json: String) throws -> StreetStyle { try StreetStyle.parse(Data(json.utf8), file: "my-style.json") }

    @Test func theBuiltInStyleLoads() throws {
        let s = try StreetStyle.loadStandard()
        #expect(s.layers.count > 20, "\(s.file)")
        #expect(s.layers.first?.type == .background)
        #expect(Set(s.layers.map(\.type)) == [.background, .fill, .line, .symbol, .circle])
        #expect(s.attribution?.contains("© OpenStreetMap contributors") == true)
    }

    func ctx(_ zoom: Double, _ props: [String: VectorTile.Value] = [:], _ type: VectorTile.GeometryType = .polygon) -> StyleContext {
        StyleContext(zoom: zoom, properties: props, geometryType: type)
    }

    @Test func legacyAndExpressionFiltersAgree() throws {
        let p = StyleParser(file: "f.json")
        let park: [String: VectorTile.Value] = ["class": .string("park"), "rank": .number(3)]
        let road: [String: VectorTile.Value] = ["class": .string("primary")]
        let pairs: [(String, String)] = [
            (#"["==", "class", "park"]"#, #"["==", ["get", "class"], "park"]"#),
            (#"["!=", "class", "park"]"#, #"["!=", ["get", "class"], "park"]"#),
            (#"["in", "class", "park", "wood"]"#, #"["in", ["get", "class"], ["literal", ["park", "wood"]]]"#),
            (#"["!in", "class", "park", "wood"]"#, #"["!", ["in", ["get", "class"], ["literal", ["park", "wood"]]]]"#),
            (#"["has", "rank"]"#, #"["has", "rank"]"#),
            (#"["!has", "rank"]"#, #"["!", ["has", "rank"]]"#),
            (#"["all", ["==", "class", "park"], ["<=", "rank", 3]]"#, #"["all", ["==", ["get", "class"], "park"], ["<=", ["get", "rank"], 3]]"#),
            (#"["any", ["==", "class", "wood"], ["==", "$type", "Polygon"]]"#, #"["any", ["==", ["get", "class"], "wood"], ["==", ["geometry-type"], "Polygon"]]"#),
        ]
        for (legacy, expr) in pairs {
            let a = try p.filter(JSONDecoder().decode(JSON.self, from: Data(legacy.utf8)), "filter")
            let b = try p.filter(JSONDecoder().decode(JSON.self, from: Data(expr.utf8)), "filter")
            for props in [park, road] {
                #expect(a.evaluate(ctx(14, props)).isTruthy == b.evaluate(ctx(14, props)).isTruthy, "\(legacy) vs \(expr)")
            }
        }
        let isPark = try p.filter(JSONDecoder().decode(JSON.self, from: Data(#"["==", "class", "park"]"#.utf8)), "f")
        #expect(isPark.evaluate(ctx(14, park)).isTruthy && !isPark.evaluate(ctx(14, road)).isTruthy)
    }

    @Test func zoomFunctionsInterpolate() throws {
        let p = StyleParser(file: "f.json")
        let legacy = try p.value(JSONDecoder().decode(JSON.self, from: Data(#"{"base": 1, "stops": [[10, 2], [14, 10]]}"#.utf8)), "w")
        #expect(legacy.evaluate(ctx(12)).number == 6)
        #expect(legacy.evaluate(ctx(8)).number == 2 && legacy.evaluate(ctx(20)).number == 10)
        let expo = try p.value(JSONDecoder().decode(JSON.self, from: Data(#"["interpolate", ["exponential", 2], ["zoom"], 10, 0, 12, 3]"#.utf8)), "w")
        #expect(expo.evaluate(ctx(11)).number == 1)   // (2^1 - 1) / (2^2 - 1) * 3
        let colour = try p.value(JSONDecoder().decode(JSON.self, from: Data(##"["interpolate", ["linear"], ["zoom"], 0, "#000000", 10, "#ffffff"]"##.utf8)), "c", color: true)
        #expect(colour.evaluate(ctx(5)).color == StyleColor(r: 0.5, g: 0.5, b: 0.5))
        let step = try p.value(JSONDecoder().decode(JSON.self, from: Data(#"["step", ["zoom"], 1, 13, 2, 15, 3]"#.utf8)), "s")
        #expect(step.evaluate(ctx(12)).number == 1 && step.evaluate(ctx(14)).number == 2 && step.evaluate(ctx(16)).number == 3)
    }

    @Test func textFieldTemplatesFallBack() throws {
        let p = StyleParser(file: "f.json")
        let field = try p.textField(.string("{name:latin}"), "t")
        #expect(field.evaluate(ctx(14, ["name:latin": .string("Vaduz")])).text == "Vaduz")
        #expect(field.evaluate(ctx(14, ["name": .string("Schaan")])).text == "Schaan", "falls back to name")
        let two = try p.textField(.string("{name}"), "t")
        #expect(two.evaluate(ctx(14, ["name:latin": .string("Triesen")])).text == "Triesen")
        #expect(two.evaluate(ctx(14, [:])).text == "")
    }

    @Test func styleErrorsNameTheFileThePathAndTheProblem() {
        func error(_ json: String) -> String {
            do { _ = try parse(json); return "no error" } catch { return "\(error)" }
        }
        let bad = error(#"{"version": 8, "layers": [{"id": "bg", "type": "background"}, {"id": "roads", "type": "line", "source-layer": "transportation", "paint": {"line-width": ["interpolate", ["linear"], ["zoom"], 10, 1, 8, 2]}}]}"#)
        #expect(bad.contains("my-style.json") && bad.contains("layers[1].paint.line-width[5]") && bad.contains("stop inputs must increase"), "\(bad)")
        let colour = error(#"{"version": 8, "layers": [{"id": "w", "type": "fill", "source-layer": "water", "paint": {"fill-color": "bluish"}}]}"#)
        #expect(colour.contains("layers[0].paint.fill-color") && colour.contains("'bluish' is not a colour"), "\(colour)")
        let missing = error(#"{"version": 8, "layers": [{"id": "w", "type": "fill"}]}"#)
        #expect(missing.contains("layers[0].source-layer") && missing.contains("missing"), "\(missing)")
        let json = error("{ not json")
        #expect(json.contains("my-style.json") && json.contains("not valid JSON"), "\(json)")
        let filter = error(#"{"version": 8, "layers": [{"id": "w", "type": "fill", "source-layer": "water", "filter": ["within", 1]}]}"#)
        #expect(filter.contains("layers[0].filter") && filter.contains("'within' is not supported"), "\(filter)")
    }
}
