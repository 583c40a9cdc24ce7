import Foundation
import VectorTiles

/// libFuzzer target: any bytes as a MapLibre style document (`StreetStyle.parse`), then every
/// filter and property of every layer evaluated (`StyleExpression.evaluate`) at zooms 0 to 24
/// and beyond, against features with and without properties, of each geometry type. Parsing
/// gives a style or throws a `StyleError` naming the file; evaluation never traps; a property
/// `StyleLimits` bounds comes out within its range whatever a feature or a zoom says (a
/// number, or each number of an array), and a label's text within `StyleLimits.maxTextLength`.
let zooms: [Double] = [-1, 0, 3.5, 7, 10.25, 14, 16.9, 22, 24, 30, .nan, .infinity]
let features: [(VectorTile.GeometryType, [String: VectorTile.Value])] = [
    (.point, [:]),
    (.lineString, ["class": .string("primary"), "name": .string("Städtle"), "rank": .number(3), "oneway": .number(1)]),
    (.polygon, ["class": .string("residential"), "name": .string(String(repeating: "x", count: 400)), "render_height": .number(1e300)]),
    (.unknown, ["class": .number(-.infinity), "name": .bool(true), "rank": .number(.nan), "name:latin": .string("")]),
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStyle(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let style: StreetStyle
    do { style = try StreetStyle.parse(Data(bytes: data, count: size), file: "fuzz.json") } catch let e as StyleError {
        require(e.description.contains("fuzz.json"), "a style error not naming the file: \(e)")
        return 0
    } catch {
        fatalError("StreetStyle.parse threw something other than a StyleError: \(error)")
    }
    for layer in style.layers {
        for z in zooms {
            _ = layer.shows(zoom: z)
            for (id, (type, props)) in features.enumerated() {
                let c = StyleContext(zoom: z, properties: props, geometryType: type, id: UInt64(id))
                if let f = layer.filter { _ = f.evaluate(c).isTruthy }
                for (name, e) in layer.properties {
                    let v = e.evaluate(c)
                    _ = v.text
                    _ = v.color
                    if let range = StyleLimits.ranges[name] { within(v, range, "\(layer.id).\(name) at zoom \(z)") }
                    if name == "text-field", case let .string(t) = v {
                        require(t.count <= StyleLimits.maxTextLength, "\(layer.id).text-field of \(t.count) characters")
                    }
                }
            }
        }
    }
    return 0
}

func within(_ v: StyleValue, _ range: ClosedRange<Double>, _ what: String) {
    switch v {
    case let .number(n): require(range.contains(n), "\(what): \(n) beyond \(range)")
    case let .array(a):
        require(a.count <= StyleLimits.maxArrayCount, "\(what): \(a.count) numbers")
        for x in a { within(x, range, what) }
    default: break
    }
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
