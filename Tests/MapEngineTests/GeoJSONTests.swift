import Foundation
import Testing
import TouchCore
@testable import MapEngine

/// The GeoJSON (RFC 7946) reader: every geometry, features and collections, simplestyle, and a
/// clear error with its path for every kind of mistake, hostile documents included.
@Suite struct GeoJSONTests {
    func json(_ text: String) throws -> JSONValue { try GeoJSON.parse(text: text) }

    func overlay(_ text: String, style: ShapeStyle? = nil, circleRadius: Double? = nil) throws -> Overlay {
        try GeoJSON.overlay(id: "o", json: try json(text), style: style, circleRadius: circleRadius)
    }

    /// The error reading `text` gives (nil: it read).
    func error(_ text: String) -> GeoJSONError? {
        do { _ = try overlay(text); return nil } catch let e as GeoJSONError { return e } catch {
            Issue.record("not a GeoJSONError: \(error)"); return nil
        }
    }

    func routeError(_ text: String) -> GeoJSONError? {
        do { _ = try GeoJSON.lineString(json: try json(text)); return nil } catch let e as GeoJSONError { return e } catch {
            Issue.record("not a GeoJSONError: \(error)"); return nil
        }
    }

    func c(_ lon: Double, _ lat: Double) -> Coordinate { Coordinate(latitude: lat, longitude: lon) }

    func feature(_ geometry: String, _ properties: String = "{}") -> String {
        #"{"type": "Feature", "properties": \#(properties), "geometry": \#(geometry)}"#
    }

    func collection(_ features: [String], extra: String = "") -> String {
        #"{"type": "FeatureCollection"\#(extra), "features": [\#(features.joined(separator: ","))]}"#
    }

    // MARK: geometries

    @Test func lineStringIsAPolylineInLongitudeLatitudeOrder() throws {
        let o = try overlay(#"{"type": "LineString", "coordinates": [[9.5, 47.1], [9.52, 47.14, 455.5], [9.53, 47.16]]}"#)
        #expect(o.shapes.map(\.geometry) == [.polyline([c(9.5, 47.1), c(9.52, 47.14), c(9.53, 47.16)])])
        #expect(o.markers.isEmpty)
        #expect(o.shapes[0].style == ShapeStyle())
        #expect(o.id == "o" && o.zIndex == 0 && o.tappable && o.title == nil)
    }

    @Test func multiLineStringIsOnePolylinePerLine() throws {
        let o = try overlay(#"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[2, 2], [3, 3], [4, 4]]]}"#)
        #expect(o.shapes.map(\.geometry) == [.polyline([c(0, 0), c(1, 1)]), .polyline([c(2, 2), c(3, 3), c(4, 4)])])
    }

    @Test func polygonKeepsOuterRingThenHolesWithoutTheClosingPosition() throws {
        let o = try overlay(#"""
            {"type": "Polygon", "coordinates": [
              [[0, 0], [10, 0], [10, 10], [0, 10], [0, 0]],
              [[2, 2], [2, 4], [4, 4], [2, 2]]]}
            """#)
        #expect(o.shapes.map(\.geometry) == [.polygon([[c(0, 0), c(10, 0), c(10, 10), c(0, 10)], [c(2, 2), c(2, 4), c(4, 4)]])])
        #expect(o.vertexCount == 7)
    }

    @Test func multiPolygonIsOneShapePerPolygon() throws {
        let o = try overlay(#"""
            {"type": "MultiPolygon", "coordinates": [
              [[[0, 0], [1, 0], [1, 1], [0, 0]]],
              [[[5, 5], [6, 5], [6, 6], [5, 5]], [[5.1, 5.1], [5.2, 5.1], [5.2, 5.2], [5.1, 5.1]]]]}
            """#)
        #expect(o.shapes.count == 2)
        #expect(o.shapes[0].geometry == .polygon([[c(0, 0), c(1, 0), c(1, 1)]]))
        #expect(o.shapes[1].rings.count == 2)
    }

    @Test func pointsAreMarkersNumberedInDocumentOrder() throws {
        let o = try GeoJSON.overlay(id: "shops", json: try json(collection([
            feature(##"{"type": "Point", "coordinates": [9.52, 47.14]}"##, ##"{"title": "Bakery", "description": "open 7-12", "marker-color": "#f00"}"##),
            feature(#"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#),
            feature(#"{"type": "MultiPoint", "coordinates": [[1, 2], [3, 4]]}"#, #"{"title": "Pair"}"#),
        ])), zIndex: 3, tappable: false)
        #expect(o.markers.map(\.id) == ["shops/0", "shops/1", "shops/2"])
        #expect(o.markers.map(\.position) == [c(9.52, 47.14), c(1, 2), c(3, 4)])
        #expect(o.markers[0].title == "Bakery" && o.markers[0].snippet == "open 7-12")
        #expect(o.markers[0].pinColorRGB == 0xFF0000)
        #expect(o.markers[1].title == "Pair" && o.markers[1].snippet == nil && o.markers[1].pinColorRGB == nil)
        #expect(o.markers.allSatisfy { $0.zIndex == 3 })
        #expect(o.zIndex == 3 && !o.tappable)
        #expect(o.shapes.count == 1)
    }

    @Test func geometryCollectionGivesItsMembersShapes() throws {
        let o = try overlay(#"""
            {"type": "GeometryCollection", "geometries": [
              {"type": "Point", "coordinates": [1, 1]},
              {"type": "GeometryCollection", "geometries": [{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}]},
              {"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}]}
            """#)
        #expect(o.markers.map(\.id) == ["o/0"])
        #expect(o.shapes.map(\.geometry) == [.polyline([c(0, 0), c(1, 1)]), .polygon([[c(0, 0), c(1, 0), c(1, 1)]])])
    }

    @Test func aFeatureAndAnUnlocatedFeature() throws {
        let o = try overlay(feature(#"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#, #"{"title": "Path", "description": "a walk"}"#))
        #expect(o.shapes.count == 1 && o.shapes[0].title == "Path" && o.shapes[0].description == "a walk")
        #expect(try overlay(feature("null")).shapes.isEmpty)
        // properties may be null or absent.
        #expect(try overlay(#"{"type": "Feature", "properties": null, "geometry": {"type": "Point", "coordinates": [0, 0]}}"#).markers.count == 1)
        #expect(try overlay(#"{"type": "Feature", "geometry": {"type": "Point", "coordinates": [0, 0]}}"#).markers.count == 1)
    }

    @Test func featureCollectionTitleFromTitleElseName() throws {
        #expect(try overlay(collection([], extra: #", "name": "Trails""#)).title == "Trails")
        #expect(try overlay(collection([], extra: #", "name": "Trails", "title": "Walks""#)).title == "Walks")
        #expect(try overlay(collection([])).title == nil)
        #expect(try overlay(collection([])).shapes.isEmpty)
    }

    @Test func theAntimeridianIsKeptAsGiven() throws {
        let o = try overlay(#"{"type": "LineString", "coordinates": [[179, -17], [-179, -17.5], [180, -18], [-180, -18.5]]}"#)
        #expect(o.shapes[0].geometry == .polyline([c(179, -17), c(-179, -17.5), c(180, -18), c(-180, -18.5)]))
        #expect(try GeoJSON.lineString(json: try json(#"{"type": "LineString", "coordinates": [[179, 0], [-179, 0]]}"#)) == [c(179, 0), c(-179, 0)])
    }

    @Test func latitudesBeyondWebMercatorAreAllowed() throws {
        let o = try overlay(#"{"type": "Polygon", "coordinates": [[[-180, 90], [180, 90], [180, 89], [-180, 90]]]}"#)
        #expect(o.shapes[0].rings[0][0] == c(-180, 90))
    }

    // MARK: style

    @Test func theStyleArgumentIsTheDefaultAndFeaturePropertiesOverrideIt() throws {
        let base = ShapeStyle(stroke: 0x00FF00, strokeWidth: 5, strokeOpacity: 0.5, fill: nil, fillOpacity: 0.1, markerColor: 0x0000FF)
        let o = try overlay(collection([
            feature(#"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#),
            feature(#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"#,
                    ##"{"stroke": "#ABCDEF", "stroke-width": 3, "stroke-opacity": 0.25, "fill": "#abc", "fill-opacity": 0, "other": [1]}"##),
            feature(#"{"type": "Point", "coordinates": [0, 0]}"#),
            feature(##"{"type": "Point", "coordinates": [0, 0]}"##, ##"{"marker-color": "#102030", "stroke": null}"##),
        ]), style: base)
        #expect(o.shapes[0].style == base)
        #expect(o.shapes[1].style == ShapeStyle(stroke: 0xABCDEF, strokeWidth: 3, strokeOpacity: 0.25, fill: 0xAABBCC, fillOpacity: 0, markerColor: 0x0000FF))
        #expect(o.markers.map(\.pinColorRGB) == [0x0000FF, 0x102030])
    }

    @Test func withoutAStyleArgumentSimplestyleDefaultsApply() throws {
        let o = try overlay(feature(#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"#, #"{"fill-opacity": 0.2}"#))
        #expect(o.shapes[0].style.stroke == 0x555555 && o.shapes[0].style.strokeWidth == 2 && o.shapes[0].style.fill == 0x555555)
        #expect(o.shapes[0].style.fillOpacity == 0.2)
    }

    @Test func styleFromPropertiesReadsDashAndCasingAndClampsWidths() throws {
        let s = try GeoJSON.style(from: try json(##"{"stroke": "#FFF", "stroke-width": 500, "dash": [4, 2.5], "casing": "#000000", "casing-width": 1.5}"##))
        #expect(s == ShapeStyle(stroke: 0xFFFFFF, strokeWidth: OverlayLimits.maxStrokeWidth, dash: [4, 2.5], casing: 0, casingWidth: 1.5))
        #expect(try GeoJSON.style(from: try json(#"{"dash": []}"#)).dash == nil)
        #expect(try GeoJSON.style(from: .null) == ShapeStyle())
        #expect(try GeoJSON.style(from: try json(#"{"casing-width": 1000}"#)).casingWidth == OverlayLimits.maxStrokeWidth)
    }

    @Test func badStyleValuesNameTheFeatureAndKey() {
        func styleError(_ props: String) -> String? {
            error(collection([feature(#"{"type": "Point", "coordinates": [0, 0]}"#), feature(#"{"type": "Point", "coordinates": [0, 0]}"#, props)]))?.description
        }
        #expect(styleError(##"{"stroke": "red"}"##) == ##"GeoJSON features[1].properties.stroke: a colour is "#rgb" or "#rrggbb": got the string "red""##)
        #expect(styleError(##"{"fill": "#12345g"}"##)?.contains("features[1].properties.fill: a colour") == true)
        #expect(styleError(##"{"marker-color": "#1234"}"##)?.contains("features[1].properties.marker-color") == true)
        #expect(styleError(#"{"marker-color": 255}"#)?.contains("got the number 255") == true)
        #expect(styleError(#"{"casing": "123456"}"#)?.contains("properties.casing: a colour") == true)
        #expect(styleError(#"{"stroke-opacity": 1.5}"#)?.contains("properties.stroke-opacity: an opacity is a number within 0...1") == true)
        #expect(styleError(#"{"fill-opacity": -0.1}"#)?.contains("properties.fill-opacity") == true)
        #expect(styleError(#"{"fill-opacity": "0.5"}"#)?.contains("properties.fill-opacity") == true)
        #expect(styleError(#"{"stroke-width": -1}"#)?.contains("properties.stroke-width: a width") == true)
        #expect(styleError(#"{"casing-width": true}"#)?.contains("properties.casing-width") == true)
        #expect(styleError(#"{"dash": [1, "x"]}"#)?.contains("properties.dash[1]") == true)
        #expect(styleError(#"{"dash": [0, 0]}"#)?.contains("only zeros") == true)
        #expect(styleError(#"{"dash": 4}"#)?.contains("properties.dash: a dash pattern") == true)
        #expect(styleError("[" + Array(repeating: "1", count: 17).joined(separator: ",") + "]")?.contains("features[1].properties: properties are an object") == true)
        #expect(styleError(#"{"dash": [\#(Array(repeating: "1", count: 17).joined(separator: ","))]}"#)?.contains("got 17 numbers") == true)
        #expect(styleError(#"{"title": 5}"#)?.contains("features[1].properties.title: a string") == true)
        #expect(styleError(#"{"description": ["a"]}"#)?.contains("features[1].properties.description: a string") == true)
        #expect(styleError(#"{"radius_m": -5}"#)?.contains("features[1].properties.radius_m: a circle's radius") == true)
        #expect(throws: GeoJSONError.self) { try GeoJSON.style(from: .string("x")) }
        #expect(throws: GeoJSONError(at: "stroke", ##"a colour is "#rgb" or "#rrggbb": got the string "#ggg""##)) {
            try GeoJSON.style(from: .object([("stroke", .string("#ggg"))]))
        }
    }

    // MARK: circles

    @Test func pointsWithARadiusAreCircles() throws {
        let o = try overlay(collection([
            feature(##"{"type": "Point", "coordinates": [9.5, 47.1]}"##, ##"{"radius_m": 250, "title": "Zone", "fill": "#f00"}"##),
            feature(#"{"type": "Point", "coordinates": [9.6, 47.2]}"#),
        ]))
        #expect(o.shapes.map(\.geometry) == [.circle(center: c(9.5, 47.1), radius: 250)])
        #expect(o.shapes[0].title == "Zone" && o.shapes[0].style.fill == 0xFF0000)
        // The circle used number 0: the marker keeps number 1.
        #expect(o.markers.map(\.id) == ["o/1"])
    }

    @Test func theCircleRadiusArgumentMakesEveryPointACircleUnlessItsPropertiesSayOtherwise() throws {
        let o = try overlay(collection([
            feature(#"{"type": "MultiPoint", "coordinates": [[0, 0], [1, 1]]}"#),
            feature(#"{"type": "Point", "coordinates": [2, 2]}"#, #"{"radius_m": 10}"#),
        ]), circleRadius: 100)
        #expect(o.markers.isEmpty)
        #expect(o.shapes.map(\.geometry) == [.circle(center: c(0, 0), radius: 100), .circle(center: c(1, 1), radius: 100), .circle(center: c(2, 2), radius: 10)])
        #expect(throws: GeoJSONError.self) { try overlay(#"{"type": "Point", "coordinates": [0, 0]}"#, circleRadius: 0) }
        #expect(throws: GeoJSONError.self) { try overlay(#"{"type": "Point", "coordinates": [0, 0]}"#, circleRadius: 2e7) }
    }

    // MARK: routes

    @Test func routeLinesFromEveryContainer() throws {
        let line = #"{"type": "LineString", "coordinates": [[0, 0], [1, 1], [2, 1]]}"#
        let expected = [c(0, 0), c(1, 1), c(2, 1)]
        #expect(try GeoJSON.lineString(json: try json(line)) == expected)
        #expect(try GeoJSON.lineString(json: try json(feature(line))) == expected)
        #expect(try GeoJSON.lineString(json: try json(collection([feature(#"{"type": "Point", "coordinates": [5, 5]}"#), feature(line)]))) == expected)
        // A MultiLineString's lines joined in order; a repeated joint position once.
        #expect(try GeoJSON.lineString(json: try json(#"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], [[1, 1], [2, 1]], [[3, 3], [4, 4]]]}"#))
                == [c(0, 0), c(1, 1), c(2, 1), c(3, 3), c(4, 4)])
    }

    @Test func routeErrorsSayWhatARouteIs() {
        #expect(routeError(#"{"type": "Point", "coordinates": [0, 0]}"#)?.description.contains("a route is a LineString or MultiLineString: got a Point") == true)
        #expect(routeError(#"{"type": "LineString", "coordinates": [[0, 0]]}"#)?.description == "GeoJSON coordinates: a LineString has at least 2 positions: got 1")
        #expect(routeError(collection([]))?.description.contains("holds no LineString") == true)
        let line = feature(#"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#)
        #expect(routeError(collection([line, feature("null"), line]))?.description.contains("features[0] and features[2]") == true)
        #expect(routeError(feature("null"))?.path == "geometry")
        #expect(routeError("[1, 2]")?.description.contains("a route is a GeoJSON LineString") == true)
        #expect(routeError(#"{"type": "Feature", "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 91]]}}"#)?.path == "geometry.coordinates[1][1]")
        #expect(routeError(#"{"type": "linestring", "coordinates": [[0, 0], [1, 1]]}"#)?.description.contains("did you mean \"LineString\"") == true)
    }

    // MARK: validation, each error with its path

    @Test func positionErrorsNameThePosition() {
        let fc = { (g: String) in self.collection([self.feature(#"{"type": "Point", "coordinates": [0, 0]}"#), self.feature(g)]) }
        #expect(error(fc(#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1, 2, 3], [0, 0]]]}"#))?.description
                == "GeoJSON features[1].geometry.coordinates[0][2]: a position is [longitude, latitude] (or [longitude, latitude, altitude]): got 4 items")
        #expect(error(fc(#"{"type": "LineString", "coordinates": [[0, 0], [1]]}"#))?.path == "features[1].geometry.coordinates[1]")
        #expect(error(fc(#"{"type": "LineString", "coordinates": [[0, 0], "1,1"]}"#))?.message.contains("got the string \"1,1\"") == true)
        #expect(error(fc(#"{"type": "LineString", "coordinates": [[0, 0], [1, "1"]]}"#))?.path == "features[1].geometry.coordinates[1][1]")
        #expect(error(fc(#"{"type": "LineString", "coordinates": [[0, 0], [1, 1, null]]}"#))?.message.contains("altitude is a finite number") == true)
        #expect(error(fc(#"{"type": "Point", "coordinates": [181, 0]}"#))?.description == "GeoJSON features[1].geometry.coordinates[0]: longitude 181 is outside -180...180")
        #expect(error(fc(#"{"type": "Point", "coordinates": [-180.0001, 0]}"#))?.path == "features[1].geometry.coordinates[0]")
        let swapped = error(fc(#"{"type": "Point", "coordinates": [47.1, 120.5]}"#))
        #expect(swapped?.path == "features[1].geometry.coordinates[1]")
        #expect(swapped?.message.contains("latitude 120.5 is outside -90...90 (positions are [longitude, latitude]") == true)
        #expect(error(fc(#"{"type": "MultiPoint", "coordinates": [[0, 0], [0, -90.5]]}"#))?.path == "features[1].geometry.coordinates[1][1]")
        #expect(error(fc(#"{"type": "MultiPoint", "coordinates": [0, 0]}"#))?.path == "features[1].geometry.coordinates[0]")
        #expect(error(fc(#"{"type": "Point", "coordinates": [[0, 0]]}"#))?.description
                == "GeoJSON features[1].geometry.coordinates: a position is [longitude, latitude] (or [longitude, latitude, altitude]): got 1 item")
    }

    @Test func lineAndRingErrors() {
        #expect(error(#"{"type": "LineString", "coordinates": [[0, 0]]}"#)?.description == "GeoJSON coordinates: a LineString has at least 2 positions: got 1")
        #expect(error(#"{"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]], []]}"#)?.path == "coordinates[1]")
        #expect(error(#"{"type": "LineString", "coordinates": {"a": 1}}"#)?.message.contains("an array of positions: got an object") == true)
        #expect(error(#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [0, 0]]]}"#)?.description
                == "GeoJSON coordinates[0]: a linear ring has at least 4 positions (the first repeated at the end): got 3")
        #expect(error(#"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}"#)?.description
                == "GeoJSON coordinates[0][3]: a linear ring is closed: its last position [0, 1] must equal its first [0, 0]")
        #expect(error(#"{"type": "Polygon", "coordinates": []}"#)?.message.contains("at least one linear ring") == true)
        #expect(error(#"{"type": "Polygon", "coordinates": [[0, 0], [1, 0], [1, 1], [0, 0]]}"#)?.path == "coordinates[0]")
        #expect(error(#"{"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]], [[[0, 0], [1, 0], [1, 1], [0, 0]], [[0, 0], [1, 0], [1, 1]]]]}"#)?.path
                == "coordinates[1][1]")
        #expect(error(#"{"type": "MultiPolygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"#)?.path == "coordinates[0][0]")
    }

    @Test func typeAndStructureErrors() {
        #expect(error("[]")?.description == "GeoJSON: a GeoJSON document is an object with a \"type\" (FeatureCollection, Feature or a geometry): got an array of 0 items")
        #expect(error("{}")?.description == "GeoJSON type: missing: a GeoJSON object names its \"type\"")
        #expect(error(#"{"type": 7}"#)?.description == "GeoJSON type: a type name is a string: got the number 7")
        #expect(error(#"{"type": "Circle", "coordinates": [0, 0]}"#)?.message.contains("\"Circle\" is not a geometry type") == true)
        #expect(error(#"{"type": "point", "coordinates": [0, 0]}"#)?.message.contains("case-sensitive, did you mean \"Point\"?") == true)
        #expect(error(#"{"type": "Point"}"#)?.description == "GeoJSON coordinates: missing: a Point has \"coordinates\"")
        #expect(error(#"{"type": "FeatureCollection"}"#)?.path == "features")
        #expect(error(#"{"type": "FeatureCollection", "features": {}}"#)?.message.contains("is an array: got an object") == true)
        #expect(error(collection(["1"]))?.description == "GeoJSON features[0]: a feature is an object {\"type\": \"Feature\", ...}: got the number 1")
        #expect(error(collection([#"{"type": "Point", "coordinates": [0, 0]}"#]))?.description == "GeoJSON features[0].type: a FeatureCollection's features are Features: got a Point")
        #expect(error(collection([#"{"type": "Feature"}"#]))?.path == "features[0].geometry")
        #expect(error(collection([#"{"type": "Feature", "geometry": [0, 0]}"#]))?.path == "features[0].geometry")
        #expect(error(collection([feature(#"{"type": "Feature", "geometry": null}"#)]))?.message.contains("a Feature is not a geometry") == true)
        #expect(error(collection([feature(#"{"coordinates": [0, 0]}"#)]))?.path == "features[0].geometry.type")
        #expect(error(feature(#"{"type": "Point", "coordinates": [0, 0]}"#, "\"p\""))?.description.contains("properties: properties are an object (or null): got the string \"p\"") == true)
        #expect(error(#"{"type": "GeometryCollection"}"#)?.path == "geometries")
        #expect(error(#"{"type": "GeometryCollection", "geometries": [{"type": "Point", "coordinates": [0, 0]}, 5]}"#)?.path == "geometries[1]")
        #expect(error(#"{"type": "GeometryCollection", "geometries": [{"type": "LineString", "coordinates": [[0, 0], [0, 100]]}]}"#)?.path
                == "geometries[0].coordinates[1][1]")
    }

    @Test func geometryCollectionsNestAtMostEightDeep() throws {
        func nested(_ n: Int) -> String {
            String(repeating: #"{"type": "GeometryCollection", "geometries": ["#, count: n) + #"{"type": "Point", "coordinates": [0, 0]}"#
                + String(repeating: "]}", count: n)
        }
        #expect(try overlay(nested(8)).markers.count == 1)
        let e = error(nested(9))
        #expect(e?.message == "GeometryCollections nested more than 8 deep")
        #expect(e?.path == Array(repeating: "geometries[0]", count: 8).joined(separator: "."))
    }

    // MARK: hostile documents

    @Test func deepNestingIsAnErrorNotACrash() {
        for text in [String(repeating: "[", count: 10_000), String(repeating: "{\"a\":", count: 10_000),
                     #"{"type": "LineString", "coordinates": "# + String(repeating: "[", count: 10_000)] {
            #expect(throws: GeoJSONError.self) { try json(text) }
            do { _ = try json(text) } catch { #expect("\(error)".contains("nested too deeply")) }
        }
    }

    @Test func hugeAndNonNumbersAreRefused() {
        #expect(error(#"{"type": "Point", "coordinates": [1e308, 0]}"#)?.description.contains("coordinates[0]: longitude 1e+308 is outside") == true)
        #expect(error(#"{"type": "Point", "coordinates": [0, -1e308]}"#)?.path == "coordinates[1]")
        for text in [#"[NaN, 0]"#, #"[Infinity, 0]"#, #"[-Infinity, 0]"#, #"[1e999, 0]"#, #"["NaN", 0]"#, #"[0x10, 0]"#, #"[+1, 0]"#, #"[.5, 0]"#] {
            #expect(error(#"{"type": "Point", "coordinates": \#(text)}"#) != nil, "\(text)")
        }
        // NaN and infinities built directly (not through the parser) are refused too.
        for bad in [Double.nan, .infinity, -.infinity] {
            #expect(throws: GeoJSONError.self) {
                try GeoJSON.overlay(id: "x", json: .object([("type", .string("Point")), ("coordinates", .array([.number(bad), .number(0)]))]))
            }
            #expect(throws: GeoJSONError.self) { try GeoJSON.style(from: .object([("stroke-width", .number(bad))])) }
            #expect(throws: GeoJSONError.self) { try GeoJSON.style(from: .object([("fill-opacity", .number(bad))])) }
        }
    }

    @Test func threeMillionCoordinatesAreRefusedBeforeTheyAreBuilt() throws {
        // Built as a value (sharing one position), so the test does not pay for 3 million parses.
        let positions = JSONValue.array(Array(repeating: .array([.number(1), .number(2)]), count: 3_000_000))
        let clock = ContinuousClock()
        var message = ""
        let took = clock.measure {
            do {
                _ = try GeoJSON.overlay(id: "x", json: .object([("type", .string("LineString")), ("coordinates", positions)]))
            } catch { message = "\(error)" }
        }
        #expect(message == "GeoJSON coordinates: the overlay would hold more than 2000000 coordinates (OverlayLimits.maxVertices): 3000000 so far")
        // Refused from the array's size: far quicker than reading 3 million positions (generous, for a loaded machine).
        #expect(took < .seconds(1), "\(took)")
        #expect(throws: GeoJSONError.self) {
            try GeoJSON.lineString(json: .object([("type", .string("LineString")), ("coordinates", positions)]))
        }
        // Spread over many features, the count stops the reading at the limit.
        let feature = JSONValue.object([("type", .string("Feature")), ("geometry", .object([
            ("type", .string("LineString")), ("coordinates", .array(Array(repeating: .array([.number(1), .number(2)]), count: 300_000)))]))])
        let e = #expect(throws: GeoJSONError.self) {
            try GeoJSON.overlay(id: "x", json: .object([("type", .string("FeatureCollection")), ("features", .array(Array(repeating: feature, count: 10)))]))
        }
        #expect(e?.path == "features[6].geometry.coordinates")
    }

    @Test func tooManyFeaturesAreRefused() {
        let f = JSONValue.object([("type", .string("Feature")), ("geometry", .null)])
        #expect(throws: Never.self) { try GeoJSON.overlay(id: "x", json: .object([("type", .string("FeatureCollection")), ("features", .array(Array(repeating: f, count: 100_000)))])) }
        let e = #expect(throws: GeoJSONError.self) {
            try GeoJSON.overlay(id: "x", json: .object([("type", .string("FeatureCollection")), ("features", .array(Array(repeating: f, count: 100_001)))]))
        }
        #expect(e?.description == "GeoJSON features: 100001 features, more than the limit of 100000")
    }

    @Test func tooLargeATextIsRefusedBeforeParsing() {
        let text = String(repeating: " ", count: 2_000) + "{}"
        let e = #expect(throws: GeoJSONError.self) { try GeoJSON.parse(text: text, maxBytes: 1_000) }
        #expect(e?.description == "GeoJSON: the GeoJSON text is 2002 bytes (0.0 MiB), more than the limit of 1000 bytes (0.0 MiB)")
        let big = #expect(throws: GeoJSONError.self) { try GeoJSON.parse(text: String(repeating: "[", count: (32 << 20) + 1)) }
        #expect(big?.message.contains("33554433 bytes (32.0 MiB), more than the limit of 33554432 bytes (32.0 MiB)") == true)
        #expect(throws: GeoJSONError.self) { try GeoJSON.parse(text: "{\"type\": ") }
    }

    /// Regression (fuzz-geojson's first finding): a route whose unknown type name was long and
    /// that had no "coordinates" got an error quoting the whole name ("missing: a <name> has
    /// coordinates"); the type is now checked first and quoted cut.
    @Test func aRouteWithALongUnknownTypeAndNoCoordinatesGetsAShortError() throws {
        let name = String(repeating: "\u{7f}_o\u{ff}", count: 5_000)
        let e = routeError(#"{"type": "\#(name)"}"#)
        #expect(e?.path == "type")
        #expect(e.map { $0.description.utf8.count < 300 } == true, "\(e?.description.utf8.count ?? 0) bytes")
        // The input itself (Fuzz/corpus/fuzz-geojson/crash-route-long-type-without-coordinates.json) begins so.
        let bytes: [UInt8] = Array(#"{"type":""#.utf8) + Array(repeating: 0x7F, count: 26) + [0x5F, 0x7F, 0x6F, 0x7F, 0xFF, 0xFF, 0xFF]
        let fuzzInput = String(decoding: bytes + Array(repeating: 0xFF, count: 1_500) + Array("\"}".utf8), as: UTF8.self)
        #expect((routeError(fuzzInput)?.description.utf8.count ?? 1_000) < 300)
    }

    @Test func hugeStringsAreCutInMessagesAndTitlesHeldToTheMarkerLimits() throws {
        let long = String(repeating: "x", count: 1_000_000)
        let e = error(#"{"type": "\#(long)", "coordinates": [0, 0]}"#)
        #expect(e != nil && e!.description.count < 300)
        #expect(e?.message.hasPrefix("\"" + String(repeating: "x", count: 40) + "...\" is not") == true)
        // A point's title feeds an info window: at most MarkerLimits.maxTitleBytes (issue 31).
        let t = error(feature(#"{"type": "Point", "coordinates": [0, 0]}"#, #"{"title": "\#(long)"}"#))
        #expect(t?.path == "properties.title", "\(String(describing: t))")
        #expect(t.map { $0.description.count < 300 && $0.message.contains("at most \(MarkerLimits.maxTitleBytes) bytes") } == true)
        let o = try overlay(feature(#"{"type": "Point", "coordinates": [0, 0]}"#, #"{"title": "\#(String(long.prefix(MarkerLimits.maxTitleBytes)))"}"#))
        #expect(o.markers[0].title?.count == MarkerLimits.maxTitleBytes)
        #expect((error(feature(#"{"type": "Point", "coordinates": [0, 0]}"#, #"{"stroke": "\#(long)"}"#))?.description.count ?? 1_000) < 300)
    }

    @Test func duplicateKeysTheLastCounts() throws {
        let o = try overlay(#"{"type": "Point", "type": "LineString", "coordinates": [0, 0], "coordinates": [[0, 0], [1, 1]]}"#)
        #expect(o.shapes.map(\.geometry) == [.polyline([c(0, 0), c(1, 1)])])
        let s = try GeoJSON.style(from: try json(##"{"stroke": "#000", "stroke": "#fff"}"##))
        #expect(s.stroke == 0xFFFFFF)
    }

    @Test func wrongTypesEverywhereAreErrorsNeverTraps() throws {
        // Every value of a valid document replaced in turn by each wrong kind of value: each
        // replacement reads or throws a GeoJSONError with a path into the document.
        let doc = try json(collection([
            feature(##"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 0]]]}"##, ##"{"stroke": "#fff", "fill-opacity": 0.5, "title": "t", "radius_m": 5}"##),
            feature(#"{"type": "GeometryCollection", "geometries": [{"type": "MultiPoint", "coordinates": [[0, 0]]}, {"type": "MultiLineString", "coordinates": [[[0, 0], [1, 1]]]}]}"#),
            feature(#"{"type": "MultiPolygon", "coordinates": [[[[0, 0], [1, 0], [1, 1], [0, 0]]]]}"#, #"{"dash": [1, 2]}"#),
        ]))
        let wrong: [JSONValue] = [.null, .bool(true), .number(-1e300), .string("#fff"), .array([]), .array([.number(0), .number(0)]), .object([])]
        var read = 0, refused = 0
        func visit(_ v: JSONValue, _ replace: (JSONValue) -> JSONValue) {
            for w in wrong {
                let candidate = replace(w)
                do { _ = try GeoJSON.overlay(id: "x", json: candidate); read += 1 } catch let e as GeoJSONError {
                    refused += 1
                    #expect(!e.message.isEmpty)
                } catch { Issue.record("\(error)") }
                _ = try? GeoJSON.lineString(json: candidate)
            }
            switch v {
            case .array(let a):
                for i in a.indices { visit(a[i]) { var b = a; b[i] = $0; return replace(.array(b)) } }
            case .object(let o):
                for i in o.indices { visit(o[i].1) { var b = o; b[i].1 = $0; return replace(.object(b)) } }
            default: break
            }
        }
        visit(doc) { $0 }
        #expect(refused > 100 && read > 10, "read \(read), refused \(refused)")
    }
}
