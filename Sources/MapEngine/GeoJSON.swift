import Foundation
import TouchCore

/// A GeoJSON (RFC 7946) reader: a document becomes an `Overlay`, a route's line becomes
/// `[Coordinate]`, a simplestyle `properties` object becomes a `ShapeStyle`.
///
/// What it makes:
/// - LineString -> one `.polyline`; MultiLineString -> one `.polyline` per line.
/// - Polygon -> one `.polygon` (the outer ring, then the holes); MultiPolygon -> one `.polygon`
///   per polygon. Rings are stored **without** the closing duplicate position (a ring of the
///   file `[a, b, c, a]` is stored `[a, b, c]`), as `Geodesy.circle`'s rings are.
/// - Point and MultiPoint -> markers `"ID/N"`, N counting from 0 over every Point position of
///   the document in order (a Point drawn as a circle uses its number too, so ids do not shift
///   when a radius is added or removed), with the title from `title`, the snippet from
///   `description` and the pin colour from `marker-color`. A Point with a radius (`radius_m` in
///   its properties, else the `circleRadius` argument) is a `.circle` shape instead.
/// - GeometryCollection -> its members' shapes (nested at most `maxCollectionDepth` deep).
///
/// Positions are [longitude, latitude] or [longitude, latitude, altitude] (the altitude is read
/// and ignored); longitudes within -180...180, latitudes within -90...90 (beyond Web Mercator's
/// ±85.05° is allowed; the renderer clamps). Lines are kept as given: a line from 179° to -179°
/// stays so. Everything is validated while reading, each error naming where
/// (`features[3].geometry.coordinates[0][2]`) and what is wrong; sizes are checked before the
/// shapes are built (`maxFeatures`, `OverlayLimits.maxVertices`, `OverlayLimits.maxShapesPerOverlay`),
/// so a hostile document costs time and memory bounded by its size, and recursion is bounded
/// by the collection depth. A key given twice: the last one counts (as `JSONValue`'s subscript).
public enum GeoJSON {
    /// Features in one FeatureCollection, at most.
    public static let maxFeatures = 100_000
    /// GeometryCollections inside one another, at most.
    public static let maxCollectionDepth = 8

    /// The overlay a GeoJSON document draws: a FeatureCollection, a Feature or a bare geometry.
    /// `style` is the look of every shape unless a feature's simplestyle properties say otherwise;
    /// `circleRadius` (metres) makes every Point a circle unless its `radius_m` says otherwise.
    /// The overlay's title is a FeatureCollection's top-level `title` (else `name`), if a string.
    public static func overlay(id: String, json: JSONValue, style: ShapeStyle? = nil, circleRadius: Double? = nil,
                               zIndex: Int = 0, tappable: Bool = true) throws -> Overlay {
        if let r = circleRadius { _ = try radius(.number(r), at: "circleRadius") }
        var reader = OverlayReader(id: id, zIndex: zIndex, baseStyle: style ?? ShapeStyle(), circleRadius: circleRadius)
        let title = try reader.document(json)
        return Overlay(id: id, shapes: reader.shapes, markers: reader.markers, zIndex: zIndex, tappable: tappable, title: title)
    }

    /// The style a simplestyle `properties` object (or the control socket's `style` object) gives,
    /// over simplestyle's defaults (`ShapeStyle()`): `stroke`, `stroke-width`, `stroke-opacity`,
    /// `fill`, `fill-opacity`, `marker-color`, plus `dash` (on/off px, at most
    /// `OverlayLimits.maxDashes` numbers; [] is solid), `casing` (a colour) and `casing-width`.
    /// Colours are "#rgb" or "#rrggbb" (any case); widths clamp to `OverlayLimits.maxStrokeWidth`;
    /// opacities are within 0...1. A key whose value is null is as if absent; other keys are ignored.
    public static func style(from properties: JSONValue) throws -> ShapeStyle {
        try style(from: properties, base: ShapeStyle(), at: "")
    }

    /// A route's line: a LineString, a MultiLineString (its lines joined in order, a line's
    /// first position dropped when it repeats the previous line's last), a Feature holding one,
    /// or a FeatureCollection holding exactly one such feature (its other features, e.g.
    /// waypoints, are ignored). At least 2 positions.
    public static func lineString(json: JSONValue) throws -> [Coordinate] {
        guard case .object = json else { throw GeoJSONError(at: "", "a route is a GeoJSON LineString, or a Feature or FeatureCollection holding one: got \(describe(json))") }
        let type = try typeName(json, at: "")
        switch type {
        case "FeatureCollection":
            let features = try featureArray(json)
            var found: (index: Int, geometry: JSONValue)? = nil
            for (i, f) in features.enumerated() {
                guard let g = f["geometry"], case .object = g, let t = g["type"]?.string, t == "LineString" || t == "MultiLineString" else { continue }
                if let first = found {
                    throw GeoJSONError(at: "features", "a route is one line: this FeatureCollection holds more than one (features[\(first.index)] and features[\(i)])")
                }
                found = (i, g)
            }
            guard let f = found else { throw GeoJSONError(at: "features", "a route is one line: this FeatureCollection holds no LineString or MultiLineString feature") }
            return try routeLine(f.geometry, at: "features[\(f.index)].geometry")
        case "Feature":
            guard let g = json["geometry"], case .object = g else {
                throw GeoJSONError(at: "geometry", "a route's Feature holds a LineString geometry: got \(json["geometry"].map(describe) ?? "none")")
            }
            return try routeLine(g, at: "geometry")
        default:
            return try routeLine(json, at: "")
        }
    }

    /// The JSON value of a GeoJSON text, its size checked first (`maxBytes`, 32 MiB by default).
    public static func parse(text: String, maxBytes: Int = 32 << 20) throws -> JSONValue {
        let n = text.utf8.count
        guard n <= maxBytes else {
            throw GeoJSONError(at: "", "the GeoJSON text is \(n) bytes (\(mib(n))), more than the limit of \(maxBytes) bytes (\(mib(maxBytes)))")
        }
        do { return try JSONValue.parse(text) } catch let e as JSONParseError {
            throw GeoJSONError(at: "", "\(e)")
        }
    }

    // MARK: - Reading

    static let geometryTypes = ["Point", "MultiPoint", "LineString", "MultiLineString", "Polygon", "MultiPolygon", "GeometryCollection"]

    static func mib(_ n: Int) -> String { String(format: "%.1f MiB", Double(n) / 1_048_576) }

    static func join(_ path: String, _ key: String) -> String { path.isEmpty ? key : path + "." + key }

    /// A value as an error message shows it (long strings cut).
    static func describe(_ v: JSONValue) -> String {
        switch v {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let d): return "the number \(number(d))"
        case .numberText(let t): return "the number \(t)"
        case .string(let s): return "the string " + quoted(s)
        case .array(let a): return "an array of \(a.count) item\(a.count == 1 ? "" : "s")"
        case .object: return "an object"
        }
    }

    /// A number as JSON text writes it (181, not 181.0).
    static func number(_ d: Double) -> String { JSONValue.number(d).text }

    static func quoted(_ s: String) -> String {
        let cut = s.unicodeScalars.count > 40 ? String(String.UnicodeScalarView(s.unicodeScalars.prefix(40))) + "..." : s
        return MapEvent.string(cut)
    }

    static func typeName(_ v: JSONValue, at path: String) throws -> String {
        guard let t = v["type"] else { throw GeoJSONError(at: join(path, "type"), "missing: a GeoJSON object names its \"type\"") }
        guard let s = t.string else { throw GeoJSONError(at: join(path, "type"), "a type name is a string: got \(describe(t))") }
        return s
    }

    static func unknownType(_ t: String, at path: String, expected: String) -> GeoJSONError {
        let all = geometryTypes + ["Feature", "FeatureCollection"]
        // (Only a name as short as a type name is compared, so a huge one costs nothing here.)
        if t.utf8.count <= 18, let m = all.first(where: { $0.lowercased() == t.lowercased() }) {
            return GeoJSONError(at: join(path, "type"), "\(quoted(t)) is not a GeoJSON type: type names are case-sensitive, did you mean \"\(m)\"?")
        }
        return GeoJSONError(at: join(path, "type"), "\(quoted(t)) is not \(expected)")
    }

    static func featureArray(_ json: JSONValue) throws -> [JSONValue] {
        guard let fv = json["features"] else { throw GeoJSONError(at: "features", "missing: a FeatureCollection has a \"features\" array") }
        guard case .array(let features) = fv else { throw GeoJSONError(at: "features", "a FeatureCollection's \"features\" is an array: got \(describe(fv))") }
        guard features.count <= maxFeatures else {
            throw GeoJSONError(at: "features", "\(features.count) features, more than the limit of \(maxFeatures)")
        }
        return features
    }

    /// A position: [longitude, latitude] or [longitude, latitude, altitude], finite, in range.
    /// `at` builds the path only when there is an error.
    static func position(_ v: JSONValue, _ at: () -> String) throws -> Coordinate {
        guard case .array(let a) = v else {
            throw GeoJSONError(at: at(), "a position is [longitude, latitude] (or [longitude, latitude, altitude]): got \(describe(v))")
        }
        guard a.count == 2 || a.count == 3 else {
            throw GeoJSONError(at: at(), "a position is [longitude, latitude] (or [longitude, latitude, altitude]): got \(a.count) item\(a.count == 1 ? "" : "s")")
        }
        func component(_ k: Int) throws -> Double {
            guard case .number(let d) = a[k], d.isFinite else {
                let name = k == 0 ? "longitude" : k == 1 ? "latitude" : "altitude"
                throw GeoJSONError(at: at() + "[\(k)]", "a position's \(name) is a finite number: got \(describe(a[k]))")
            }
            return d
        }
        let lon = try component(0), lat = try component(1)
        if a.count == 3 { _ = try component(2) }
        guard lon >= -180 && lon <= 180 else {
            throw GeoJSONError(at: at() + "[0]", "longitude \(number(lon)) is outside -180...180")
        }
        guard lat >= -90 && lat <= 90 else {
            let hint = abs(lon) <= 90 && abs(lat) <= 180 ? " (positions are [longitude, latitude]: are these the other way round?)" : ""
            throw GeoJSONError(at: at() + "[1]", "latitude \(number(lat)) is outside -90...90" + hint)
        }
        return Coordinate(latitude: lat, longitude: lon)
    }

    static func array(_ v: JSONValue, of what: String, _ at: () -> String) throws -> [JSONValue] {
        guard case .array(let a) = v else { throw GeoJSONError(at: at(), "\(what): got \(describe(v))") }
        return a
    }

    /// A LineString's positions (at least 2).
    static func line(_ v: JSONValue, _ at: () -> String) throws -> [Coordinate] {
        let a = try array(v, of: "a LineString's coordinates are an array of positions", at)
        guard a.count >= 2 else { throw GeoJSONError(at: at(), "a LineString has at least 2 positions: got \(a.count)") }
        var out: [Coordinate] = []
        out.reserveCapacity(a.count)
        for (i, p) in a.enumerated() { out.append(try position(p) { at() + "[\(i)]" }) }
        return out
    }

    /// A linear ring's positions without the closing one (at least 4 in the file, closed).
    static func ring(_ v: JSONValue, _ at: () -> String) throws -> [Coordinate] {
        let a = try array(v, of: "a linear ring is an array of positions", at)
        guard a.count >= 4 else {
            throw GeoJSONError(at: at(), "a linear ring has at least 4 positions (the first repeated at the end): got \(a.count)")
        }
        var out: [Coordinate] = []
        out.reserveCapacity(a.count)
        for (i, p) in a.enumerated() { out.append(try position(p) { at() + "[\(i)]" }) }
        guard out[0] == out[out.count - 1] else {
            throw GeoJSONError(at: at() + "[\(a.count - 1)]", "a linear ring is closed: its last position \(text(out[out.count - 1])) must equal its first \(text(out[0]))")
        }
        out.removeLast()
        return out
    }

    static func text(_ c: Coordinate) -> String { "[\(number(c.longitude)), \(number(c.latitude))]" }

    /// A Polygon's rings: the outer one, then the holes (at least the outer one).
    static func polygon(_ v: JSONValue, _ at: () -> String) throws -> [[Coordinate]] {
        let a = try array(v, of: "a Polygon's coordinates are an array of linear rings", at)
        guard !a.isEmpty else { throw GeoJSONError(at: at(), "a Polygon has at least one linear ring (its outline): got none") }
        return try a.enumerated().map { i, r in try ring(r) { at() + "[\(i)]" } }
    }

    /// Positions a geometry's coordinates hold, counted from the array sizes only (nothing is
    /// built): `levels` is the nesting above the positions (0 for a Point). Malformed parts count
    /// as nothing here; reading them reports the mistake.
    static func positionCount(_ v: JSONValue, levels: Int) -> Int {
        guard levels > 0 else { return 1 }
        guard case .array(let a) = v else { return 0 }
        if levels == 1 { return a.count }
        var n = 0
        for x in a { n += positionCount(x, levels: levels - 1) }
        return n
    }

    static func radius(_ v: JSONValue, at path: @autoclosure () -> String) throws -> Double {
        guard case .number(let r) = v, r.isFinite, r > 0, r <= OverlayLimits.maxCircleRadius else {
            throw GeoJSONError(at: path(), "a circle's radius is a number of metres above 0 and at most \(Int(OverlayLimits.maxCircleRadius)): got \(describe(v))")
        }
        return r
    }

    /// The route readers' geometry: a LineString or MultiLineString.
    static func routeLine(_ g: JSONValue, at path: String) throws -> [Coordinate] {
        let type = try typeName(g, at: path)
        guard type == "LineString" || type == "MultiLineString" else {
            if geometryTypes.contains(type) || type == "Feature" || type == "FeatureCollection" {
                throw GeoJSONError(at: join(path, "type"), "a route is a LineString or MultiLineString: got a \(type)")
            }
            throw unknownType(type, at: path, expected: "a GeoJSON type (a route is a LineString or MultiLineString)")
        }
        let cpath = join(path, "coordinates")
        guard let coords = g["coordinates"] else { throw GeoJSONError(at: cpath, "missing: a \(type) has \"coordinates\"") }
        switch type {
        case "LineString":
            let n = positionCount(coords, levels: 1)
            guard n <= OverlayLimits.maxVertices else { throw tooManyVertices(n, at: cpath) }
            return try line(coords) { cpath }
        default: // MultiLineString
            let n = positionCount(coords, levels: 2)
            guard n <= OverlayLimits.maxVertices else { throw tooManyVertices(n, at: cpath) }
            let lines = try array(coords, of: "a MultiLineString's coordinates are an array of lines") { cpath }
            var out: [Coordinate] = []
            out.reserveCapacity(n)
            for (i, l) in lines.enumerated() {
                let pts = try line(l) { cpath + "[\(i)]" }
                out.append(contentsOf: out.last == pts[0] ? pts.dropFirst() : pts[...])
            }
            guard out.count >= 2 else { throw GeoJSONError(at: cpath, "a route has at least 2 positions: got \(out.count)") }
            return out
        }
    }

    static func tooManyVertices(_ n: Int, at path: String) -> GeoJSONError {
        GeoJSONError(at: path, "\(n) coordinates, more than the limit of \(OverlayLimits.maxVertices) (OverlayLimits.maxVertices)")
    }

    // MARK: - Style

    /// "#rgb" or "#rrggbb", any case.
    static func colour(_ v: JSONValue, at path: @autoclosure () -> String) throws -> UInt32 {
        var bad: GeoJSONError { GeoJSONError(at: path(), "a colour is \"#rgb\" or \"#rrggbb\": got \(describe(v))") }
        guard case .string(let s) = v else { throw bad }
        guard s.utf8.count == 4 || s.utf8.count == 7 else { throw bad }
        let u = Array(s.utf8)
        guard u[0] == UInt8(ascii: "#") else { throw bad }
        var digits: [UInt32] = []
        for c in u.dropFirst() {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(UInt32(c - UInt8(ascii: "0")))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digits.append(UInt32(c - UInt8(ascii: "a")) + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digits.append(UInt32(c - UInt8(ascii: "A")) + 10)
            default: throw bad
            }
        }
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        return digits.reduce(0) { $0 << 4 | $1 }
    }

    static func width(_ v: JSONValue, at path: @autoclosure () -> String) throws -> Double {
        guard case .number(let w) = v, w.isFinite, w >= 0 else {
            throw GeoJSONError(at: path(), "a width is a number of px, 0 or more: got \(describe(v))")
        }
        return min(w, OverlayLimits.maxStrokeWidth)
    }

    static func opacity(_ v: JSONValue, at path: @autoclosure () -> String) throws -> Double {
        guard case .number(let o) = v, o >= 0, o <= 1 else {
            throw GeoJSONError(at: path(), "an opacity is a number within 0...1: got \(describe(v))")
        }
        return o
    }

    static func dash(_ v: JSONValue, at path: @autoclosure () -> String) throws -> [Double]? {
        let bad = "a dash pattern is an array of at most \(OverlayLimits.maxDashes) on/off lengths in px (numbers, 0 or more, not all 0)"
        guard case .array(let a) = v else { throw GeoJSONError(at: path(), "\(bad): got \(describe(v))") }
        if a.isEmpty { return nil }
        guard a.count <= OverlayLimits.maxDashes else { throw GeoJSONError(at: path(), "\(bad): got \(a.count) numbers") }
        var out: [Double] = []
        for (i, x) in a.enumerated() {
            guard case .number(let d) = x, d.isFinite, d >= 0 else { throw GeoJSONError(at: path() + "[\(i)]", "\(bad): got \(describe(x))") }
            out.append(min(d, 10_000))
        }
        guard out.contains(where: { $0 > 0 }) else { throw GeoJSONError(at: path(), "\(bad): got only zeros") }
        return out
    }

    /// `base` with the simplestyle keys of `properties` applied (null or absent: `base`).
    static func style(from properties: JSONValue, base: ShapeStyle, at path: String) throws -> ShapeStyle {
        guard case .object(let pairs) = properties else {
            if properties.isNull { return base }
            throw GeoJSONError(at: path.isEmpty ? "properties" : path, "properties are an object (or null): got \(describe(properties))")
        }
        var s = base
        // Keys in document order: a key given twice, the last one counts.
        for (k, v) in pairs where !v.isNull {
            func at() -> String { path.isEmpty ? k : path + "." + k }
            switch k {
            case "stroke": s.stroke = try colour(v, at: at())
            case "stroke-width": s.strokeWidth = try width(v, at: at())
            case "stroke-opacity": s.strokeOpacity = try opacity(v, at: at())
            case "fill": s.fill = try colour(v, at: at())
            case "fill-opacity": s.fillOpacity = try opacity(v, at: at())
            case "marker-color": s.markerColor = try colour(v, at: at())
            case "dash": s.dash = try dash(v, at: at())
            case "casing": s.casing = try colour(v, at: at())
            case "casing-width": s.casingWidth = try width(v, at: at())
            default: continue
            }
        }
        return s
    }
}

/// A GeoJSON document that cannot be read: where (a path into the document such as
/// `features[3].geometry.coordinates[0][2]`, empty for the whole document) and what is wrong.
public struct GeoJSONError: Error, CustomStringConvertible, Equatable {
    public let path: String
    public let message: String
    public init(at path: String, _ message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { path.isEmpty ? "GeoJSON: \(message)" : "GeoJSON \(path): \(message)" }
}

/// One document's shapes and markers, with the limits counted as they are read.
struct OverlayReader {
    let id: String
    let zIndex: Int
    let baseStyle: ShapeStyle
    let circleRadius: Double?
    var shapes: [OverlayShape] = []
    var markers: [Marker] = []
    /// Coordinates so far (a marker or a circle is one, as `Overlay.vertexCount` counts).
    var vertices = 0
    /// Point positions so far: the next marker's number.
    var pointNumber = 0

    init(id: String, zIndex: Int, baseStyle: ShapeStyle, circleRadius: Double?) {
        self.id = id
        self.zIndex = zIndex
        self.baseStyle = baseStyle
        self.circleRadius = circleRadius
    }

    /// What a feature gives its shapes.
    struct Look {
        var style: ShapeStyle
        var title: String?
        var description: String?
        var radius: Double?
    }

    /// Reads the document; returns the overlay's title.
    mutating func document(_ json: JSONValue) throws -> String? {
        guard case .object = json else {
            throw GeoJSONError(at: "", "a GeoJSON document is an object with a \"type\" (FeatureCollection, Feature or a geometry): got \(GeoJSON.describe(json))")
        }
        let type = try GeoJSON.typeName(json, at: "")
        switch type {
        case "FeatureCollection":
            let features = try GeoJSON.featureArray(json)
            for (i, f) in features.enumerated() { try feature(f, at: "features[\(i)]") }
            return json["title"]?.string ?? json["name"]?.string
        case "Feature":
            try feature(json, at: "")
            return nil
        default:
            try geometry(json, at: "", look: Look(style: baseStyle, radius: circleRadius), depth: 0)
            return nil
        }
    }

    mutating func feature(_ f: JSONValue, at path: String) throws {
        guard case .object = f else { throw GeoJSONError(at: path, "a feature is an object {\"type\": \"Feature\", ...}: got \(GeoJSON.describe(f))") }
        let type = try GeoJSON.typeName(f, at: path)
        guard type == "Feature" else {
            if GeoJSON.geometryTypes.contains(type) || type == "FeatureCollection" {
                throw GeoJSONError(at: GeoJSON.join(path, "type"), "a FeatureCollection's features are Features: got a \(type)")
            }
            throw GeoJSON.unknownType(type, at: path, expected: "\"Feature\"")
        }
        let props = f["properties"] ?? .null
        let ppath = GeoJSON.join(path, "properties")
        var look = Look(style: try GeoJSON.style(from: props, base: baseStyle, at: ppath), radius: circleRadius)
        if case .object = props {
            look.title = try text(props["title"], at: ppath + ".title", maxBytes: MarkerLimits.maxTitleBytes)
            look.description = try text(props["description"], at: ppath + ".description", maxBytes: MarkerLimits.maxSnippetBytes)
            if let r = props["radius_m"], !r.isNull { look.radius = try GeoJSON.radius(r, at: ppath + ".radius_m") }
        }
        guard let g = f["geometry"] else {
            throw GeoJSONError(at: GeoJSON.join(path, "geometry"), "missing: a Feature has a \"geometry\" (a geometry object, or null)")
        }
        if g.isNull { return } // an unlocated feature (RFC 7946 section 3.2): nothing to draw
        try geometry(g, at: GeoJSON.join(path, "geometry"), look: look, depth: 0)
    }

    /// A title or description: a string within the marker limits (they feed info windows).
    func text(_ v: JSONValue?, at path: @autoclosure () -> String, maxBytes: Int) throws -> String? {
        guard let v, !v.isNull else { return nil }
        guard let s = v.string else { throw GeoJSONError(at: path(), "a string: got \(GeoJSON.describe(v))") }
        let p = path()
        if let problem = MarkerLimits.problem(s, key: String(p.split(separator: ".").last ?? ""), maxBytes: maxBytes) {
            throw GeoJSONError(at: p, problem)
        }
        return s
    }

    /// Counts `n` more coordinates before they are built.
    mutating func reserve(_ n: Int, at path: String) throws {
        vertices += n
        guard vertices <= OverlayLimits.maxVertices else {
            throw GeoJSONError(at: path, "the overlay would hold more than \(OverlayLimits.maxVertices) coordinates (OverlayLimits.maxVertices): \(vertices) so far")
        }
    }

    mutating func add(_ g: ShapeGeometry, _ look: Look, at path: String) throws {
        guard shapes.count < OverlayLimits.maxShapesPerOverlay else {
            throw GeoJSONError(at: path, "the overlay would hold more than \(OverlayLimits.maxShapesPerOverlay) shapes (OverlayLimits.maxShapesPerOverlay)")
        }
        shapes.append(OverlayShape(geometry: g, style: look.style, title: look.title, description: look.description))
    }

    mutating func point(_ c: Coordinate, _ look: Look, at path: String) throws {
        defer { pointNumber += 1 }
        if let r = look.radius {
            try add(.circle(center: c, radius: r), look, at: path)
            return
        }
        var m = Marker(id: "\(id)/\(pointNumber)", position: c, title: look.title, snippet: look.description, zIndex: zIndex)
        m.pinColorRGB = look.style.markerColor
        markers.append(m)
    }

    mutating func geometry(_ g: JSONValue, at path: String, look: Look, depth: Int) throws {
        guard case .object = g else {
            throw GeoJSONError(at: path, "a geometry is an object {\"type\": ..., \"coordinates\": ...}: got \(GeoJSON.describe(g))")
        }
        let type = try GeoJSON.typeName(g, at: path)
        if type == "GeometryCollection" {
            guard depth < GeoJSON.maxCollectionDepth else {
                throw GeoJSONError(at: path, "GeometryCollections nested more than \(GeoJSON.maxCollectionDepth) deep")
            }
            let gpath = GeoJSON.join(path, "geometries")
            guard let gv = g["geometries"] else { throw GeoJSONError(at: gpath, "missing: a GeometryCollection has a \"geometries\" array") }
            let members = try GeoJSON.array(gv, of: "a GeometryCollection's \"geometries\" is an array of geometries") { gpath }
            for (i, m) in members.enumerated() { try geometry(m, at: gpath + "[\(i)]", look: look, depth: depth + 1) }
            return
        }
        let levels: Int
        switch type {
        case "Point": levels = 0
        case "MultiPoint", "LineString": levels = 1
        case "MultiLineString", "Polygon": levels = 2
        case "MultiPolygon": levels = 3
        case "Feature", "FeatureCollection":
            throw GeoJSONError(at: GeoJSON.join(path, "type"), "a \(type) is not a geometry (a geometry is one of \(GeoJSON.geometryTypes.joined(separator: ", ")))")
        default:
            throw GeoJSON.unknownType(type, at: path, expected: "a geometry type (one of \(GeoJSON.geometryTypes.joined(separator: ", ")))")
        }
        let cpath = GeoJSON.join(path, "coordinates")
        guard let coords = g["coordinates"] else { throw GeoJSONError(at: cpath, "missing: a \(type) has \"coordinates\"") }
        try reserve(GeoJSON.positionCount(coords, levels: levels), at: cpath)
        switch type {
        case "Point":
            try point(try GeoJSON.position(coords) { cpath }, look, at: cpath)
        case "MultiPoint":
            let a = try GeoJSON.array(coords, of: "a MultiPoint's coordinates are an array of positions") { cpath }
            for (i, p) in a.enumerated() { try point(try GeoJSON.position(p) { cpath + "[\(i)]" }, look, at: cpath) }
        case "LineString":
            try add(.polyline(try GeoJSON.line(coords) { cpath }), look, at: cpath)
        case "MultiLineString":
            let a = try GeoJSON.array(coords, of: "a MultiLineString's coordinates are an array of lines") { cpath }
            for (i, l) in a.enumerated() { try add(.polyline(try GeoJSON.line(l) { cpath + "[\(i)]" }), look, at: cpath) }
        case "Polygon":
            try add(.polygon(try GeoJSON.polygon(coords) { cpath }), look, at: cpath)
        default: // MultiPolygon
            let a = try GeoJSON.array(coords, of: "a MultiPolygon's coordinates are an array of polygons") { cpath }
            for (i, p) in a.enumerated() { try add(.polygon(try GeoJSON.polygon(p) { cpath + "[\(i)]" }), look, at: cpath) }
        }
    }
}
