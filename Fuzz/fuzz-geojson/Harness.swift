import MapEngine

/// libFuzzer target: any bytes as a GeoJSON text, through `GeoJSON.parse`, `GeoJSON.overlay`,
/// `GeoJSON.lineString` and `GeoJSON.style`. Each reads or throws a `GeoJSONError` with a
/// message; what reads is within the limits (`OverlayLimits`), every coordinate is finite and on
/// the globe, lines have 2 points or more, rings 3 or more (the closing one dropped), styles
/// keep widths and opacities in range; a parsed value's JSON text parses back to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzGeoJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let json: JSONValue
    do {
        json = try GeoJSON.parse(text: text)
    } catch {
        expectGeoJSONError(error)
        return 0
    }
    // The value's text is JSON that reads back to the same value.
    do {
        require(try JSONValue.parse(json.text) == json, "text does not round-trip: \(json.text.prefix(200))")
    } catch { fatalError("the value's own text does not parse: \(error)") }

    do {
        let o = try GeoJSON.overlay(id: "fuzz", json: json, circleRadius: size % 3 == 0 ? 50 : nil)
        check(o)
    } catch { expectGeoJSONError(error) }

    do {
        let line = try GeoJSON.lineString(json: json)
        require(line.count >= 2 && line.count <= OverlayLimits.maxVertices, "route of \(line.count) points")
        line.forEach(checkCoordinate)
    } catch { expectGeoJSONError(error) }

    for props in [json, json["properties"] ?? .null, json["style"] ?? .null] {
        do { checkStyle(try GeoJSON.style(from: props)) } catch { expectGeoJSONError(error) }
    }
    return 0
}

func expectGeoJSONError(_ error: Error) {
    guard let e = error as? GeoJSONError else { fatalError("threw something other than a GeoJSONError: \(error)") }
    require(!e.message.isEmpty && e.description.utf8.count < 4_096, "error message empty or unbounded: \(e.description.prefix(200))")
}

func check(_ o: Overlay) {
    require(o.id == "fuzz")
    require(o.vertexCount <= OverlayLimits.maxVertices, "\(o.vertexCount) vertices")
    require(o.shapes.count <= OverlayLimits.maxShapesPerOverlay, "\(o.shapes.count) shapes")
    for s in o.shapes {
        checkStyle(s.style)
        switch s.geometry {
        case .polyline(let p):
            require(p.count >= 2, "polyline of \(p.count) points")
            p.forEach(checkCoordinate)
        case .polygon(let rings):
            require(!rings.isEmpty, "polygon without rings")
            for r in rings {
                require(r.count >= 3, "ring of \(r.count) points")
                r.forEach(checkCoordinate)
            }
        case .circle(let c, let r):
            checkCoordinate(c)
            require(r > 0 && r <= OverlayLimits.maxCircleRadius, "radius \(r)")
        case .groundImage:
            fatalError("GeoJSON made a ground image")
        }
    }
    for (n, m) in o.markers.enumerated() {
        checkCoordinate(m.position)
        require(m.id.hasPrefix("fuzz/"), "marker id \(m.id)")
        if n > 0, let a = Int(o.markers[n - 1].id.dropFirst(5)), let b = Int(m.id.dropFirst(5)) { require(a < b, "marker ids out of order") }
    }
}

func checkCoordinate(_ c: Coordinate) {
    require(c.latitude.isFinite && c.longitude.isFinite && abs(c.latitude) <= 90 && abs(c.longitude) <= 180, "coordinate \(c)")
}

func checkStyle(_ s: ShapeStyle) {
    require(s.strokeWidth >= 0 && s.strokeWidth <= OverlayLimits.maxStrokeWidth, "stroke width \(s.strokeWidth)")
    require(s.casingWidth >= 0 && s.casingWidth <= OverlayLimits.maxStrokeWidth, "casing width \(s.casingWidth)")
    require((0...1).contains(s.strokeOpacity) && (0...1).contains(s.fillOpacity), "opacity")
    for c in [s.stroke, s.fill, s.casing, s.markerColor] { if let c { require(c <= 0xFFFFFF, "colour \(c)") } }
    if let d = s.dash { require(!d.isEmpty && d.count <= OverlayLimits.maxDashes && d.allSatisfy { $0.isFinite && $0 >= 0 }, "dash \(d)") }
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
