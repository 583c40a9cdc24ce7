import TouchBridge
import Foundation
import TileSources
import TouchCore
import MapEngine
import Rendering

/// `[[overlays]]`, `[route]` and `[position]`: shapes, GeoJSON files and the route are read when
/// the file is loaded, so `check` and `run` refuse the same mistakes with the file, line and key.
extension ConfigReader {
    /// A file named by the configuration: absolute, or relative to the configuration's folder.
    func resolvedPath(_ path: String) -> String {
        path.hasPrefix("/") ? path : ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(path)
    }

    /// Reads a GeoJSON file named at `key` (size-checked before reading), as a JSON value.
    func geoJSONFile(_ path: String, key: String) throws -> JSONValue {
        let full = resolvedPath(path)
        do {
            return try GeoJSONFile.read(full)
        } catch let e as GeoJSONFile.ReadError {
            throw error(key, e.message)
        } catch {
            throw self.error(key, "\(full): \(error)")
        }
    }

    func color(_ v: [String: ConfigValue], _ key: String, prefix: String) throws -> UInt32? {
        guard let c = v[key]?.string else { return nil }
        guard let rgb = MarkerLook.color(c) else { throw error("\(prefix).\(key)", "'\(c)' is not a colour: write \"#RRGGBB\" in hex") }
        return rgb
    }

    func unit(_ v: [String: ConfigValue], _ key: String, prefix: String) throws -> Double? {
        guard let d = v[key]?.number else { return nil }
        guard d.isFinite, (0...1).contains(d) else { throw error("\(prefix).\(key)", "must be within 0...1 (0 transparent, 1 opaque), got \(d)") }
        return d
    }

    /// The simplestyle keys of an `[[overlays]]` table over simplestyle's defaults.
    func shapeStyle(_ v: [String: ConfigValue], prefix: String) throws -> ShapeStyle {
        var s = ShapeStyle()
        if let c = try color(v, "stroke", prefix: prefix) { s.stroke = c }
        if let d = v["stroke_width"]?.number {
            guard d.isFinite, d >= 0, d <= OverlayLimits.maxStrokeWidth else {
                throw error("\(prefix).stroke_width", "must be within 0...\(Int(OverlayLimits.maxStrokeWidth)) px, got \(d)")
            }
            s.strokeWidth = d
        }
        if let d = try unit(v, "stroke_opacity", prefix: prefix) { s.strokeOpacity = d }
        if let c = try color(v, "fill", prefix: prefix) { s.fill = c }
        if let d = try unit(v, "fill_opacity", prefix: prefix) { s.fillOpacity = d }
        if let a = v["dash"]?.numbers {
            guard !a.isEmpty, a.count <= OverlayLimits.maxDashes, a.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1000 }), a.contains(where: { $0 > 0 }) else {
                throw error("\(prefix).dash", "write [on, off, ...] in px (1 to \(OverlayLimits.maxDashes) lengths within 0...1000, not all 0)")
            }
            s.dash = a
        }
        if let c = try color(v, "casing", prefix: prefix) { s.casing = c }
        if let d = v["casing_width"]?.number {
            guard d.isFinite, d >= 0, d <= OverlayLimits.maxStrokeWidth else {
                throw error("\(prefix).casing_width", "must be within 0...\(Int(OverlayLimits.maxStrokeWidth)) px, got \(d)")
            }
            s.casingWidth = d
            if s.casing == nil { s.casing = 0x333333 }
        }
        return s
    }

    func overlay(_ v: [String: ConfigValue], prefix: String) throws -> Overlay {
        guard let id = v["id"]?.string, !id.isEmpty else { throw error(prefix, "an overlay needs an id = \"NAME\"") }
        let style = try shapeStyle(v, prefix: prefix)
        let zIndex = v["z_index"]?.integer ?? 0
        guard (-1_000_000...1_000_000).contains(zIndex) else { throw error("\(prefix).z_index", "must be within -1000000...1000000") }
        let tappable = v["tappable"]?.boolean ?? true
        let title = v["title"]?.string
        let inlineKeys = ["type", "coordinates", "center", "radius_m", "image", "bounds", "bearing", "opacity"].filter { v[$0] != nil }
        if let path = v["geojson"]?.string {
            if let k = inlineKeys.first {
                throw error("\(prefix).\(k)", "an overlay is either geojson = \"FILE\" or an inline shape (type = ...), not both")
            }
            let json = try geoJSONFile(path, key: "\(prefix).geojson")
            // Only the keys the table sets are defaults for the file's features (their own
            // simplestyle properties win); the rest keep simplestyle's defaults.
            do {
                var o = try GeoJSON.overlay(id: id, json: json, style: style, zIndex: zIndex, tappable: tappable)
                if let title { o.title = title }
                return o
            } catch {
                throw self.error("\(prefix).geojson", "\(resolvedPath(path)): \(error)")
            }
        }
        guard let type = v["type"]?.string else {
            throw error(prefix, "an overlay needs geojson = \"FILE\", or an inline shape: type = \"polyline\", \"polygon\", \"circle\" or \"ground\"")
        }
        let geometry: ShapeGeometry
        switch type {
        case "polyline", "polygon":
            guard let pts = v["coordinates"]?.points else { throw error("\(prefix).coordinates", "a \(type) needs coordinates = [[longitude, latitude], ...]") }
            if type == "polyline" {
                guard pts.count >= 2 else { throw error("\(prefix).coordinates", "a polyline needs at least 2 points, got \(pts.count)") }
                geometry = .polyline(v["geodesic"]?.boolean == true ? Geodesy.densified(pts) : pts)
            } else {
                var ring = pts
                if ring.count > 1, ring.first == ring.last { ring.removeLast() }
                guard ring.count >= 3 else { throw error("\(prefix).coordinates", "a polygon needs at least 3 distinct points, got \(ring.count)") }
                geometry = .polygon([ring])
            }
        case "circle":
            guard let c = v["center"]?.numbers, c.count == 2, (-180...180).contains(c[0]), (-90...90).contains(c[1]) else {
                throw error("\(prefix).center", "a circle needs center = [longitude, latitude] in degrees")
            }
            guard let r = v["radius_m"]?.number, r.isFinite, r > 0, r <= OverlayLimits.maxCircleRadius else {
                throw error("\(prefix).radius_m", "a circle needs radius_m, in metres (above 0, at most \(Int(OverlayLimits.maxCircleRadius)))")
            }
            geometry = .circle(center: Coordinate(latitude: c[1], longitude: c[0]), radius: r)
        case "ground":
            guard let path = v["image"]?.string else { throw error("\(prefix).image", "a ground overlay needs image = \"FILE.png\"") }
            let full = resolvedPath(path)
            if let problem = GroundImageCheck.problem(path: full) { throw error("\(prefix).image", problem) }
            guard let b = v["bounds"]?.numbers, b.count == 4, (-180...180).contains(b[0]), (-180...180).contains(b[2]),
                  (-90...90).contains(b[1]), (-90...90).contains(b[3]), b[0] < b[2], b[1] < b[3] else {
                throw error("\(prefix).bounds", "a ground overlay needs bounds = [west, south, east, north] in degrees (west below east, south below north)")
            }
            let bearing = v["bearing"]?.number ?? 0
            guard bearing.isFinite, (-360...360).contains(bearing) else { throw error("\(prefix).bearing", "must be within -360...360 degrees") }
            let opacity = try unit(v, "opacity", prefix: prefix) ?? 1
            geometry = .groundImage(path: full, bounds: CoordinateBounds(west: b[0], south: b[1], east: b[2], north: b[3]),
                                    bearing: bearing, opacity: opacity)
        default:
            var msg = "'\(type)' is not a shape type: polyline, polygon, circle or ground"
            if let s = suggestion(for: type, among: ["polyline", "polygon", "circle", "ground"]) { msg += " (did you mean '\(s)'?)" }
            throw error("\(prefix).type", msg)
        }
        let extra = ["polyline": ["center", "radius_m", "image", "bounds", "bearing", "opacity"],
                     "polygon": ["center", "radius_m", "image", "bounds", "bearing", "opacity", "geodesic"],
                     "circle": ["coordinates", "image", "bounds", "bearing", "opacity", "geodesic"],
                     "ground": ["coordinates", "center", "radius_m", "geodesic"]][type] ?? []
        if let k = extra.first(where: { v[$0] != nil }) { throw error("\(prefix).\(k)", "a \(type) overlay takes no \(k)") }
        return Overlay(id: id, shapes: [OverlayShape(geometry: geometry, style: style, title: title)], zIndex: zIndex,
                       tappable: tappable, title: title)
    }

    func route(_ v: [String: ConfigValue], prefix: String) throws -> [Coordinate]? {
        guard let path = v["geojson"]?.string else { return nil }
        if path.isEmpty { return nil }
        let json = try geoJSONFile(path, key: "\(prefix).geojson")
        do {
            return try GeoJSON.lineString(json: json)
        } catch {
            throw self.error("\(prefix).geojson", "\(resolvedPath(path)): \(error)")
        }
    }

    func position(_ v: [String: ConfigValue], prefix: String) throws -> KioskConfiguration.PositionSettings {
        var p = KioskConfiguration.PositionSettings()
        if let b = v["show"]?.boolean { p.show = b }
        if let d = v["accuracy_m"]?.number {
            guard d.isFinite, d >= 0, d <= 100_000 else { throw error("\(prefix).accuracy_m", "must be within 0...100000 metres, got \(d)") }
            p.accuracyMeters = d > 0 ? d : nil
        }
        return p
    }
}

/// A GeoJSON file read with its size checked first (a file larger than `maxBytes` is refused
/// before it is read).
package enum GeoJSONFile {
    /// 16 MiB: a hostile document of that size costs a few hundred MiB as a JSON tree while it is read.
    public static let maxBytes = 16 << 20

    public struct ReadError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    public static func read(_ path: String) throws -> JSONValue {
        let data: Data
        do { data = try BoundedFile.read(path, maxBytes: maxBytes, what: "GeoJSON file") } catch let e as BoundedFile.ReadError {
            throw ReadError(message: e.message)
        }
        guard let text = String(data: data, encoding: .utf8) else { throw ReadError(message: "\(path) is not UTF-8 text") }
        do {
            return try GeoJSON.parse(text: text, maxBytes: maxBytes)
        } catch {
            throw ReadError(message: "\(path): \(error)")
        }
    }
}

/// What a ground overlay's image must be: a readable PNG the renderer can decode, at most
/// `maxSide` px a side and 32 MiB (decoded only after `PNGFileCheck` read its header).
package enum GroundImageCheck {
    public static let maxSide = 4096
    public static let maxBytes = 32 << 20

    public static func problem(path: String) -> String? {
        guard path.hasPrefix("/") else { return "\(path): give an absolute path to a PNG file" }
        if let p = PNGFileCheck.problem(path: path, maxSide: maxSide, maxBytes: maxBytes, what: "ground overlay image") { return p }
        guard let img = CairoImage.pngFile(path), img.width > 0, img.height > 0 else {
            return "\(path) is not a PNG image the kiosk can decode"
        }
        return nil
    }

    /// A client's image decoded from the bytes read through its checked descriptor (no second
    /// open by path); the header is checked before anything is decoded.
    public static func decode(_ data: Data, path: String) -> Result<CairoImage, MarkerLookError> {
        if let p = PNGFileCheck.problem(header: data, path: path, maxSide: maxSide, what: "ground overlay image") {
            return .failure(MarkerLookError(message: p))
        }
        guard let img = CairoImage.png(data), img.width > 0, img.height > 0, img.width <= maxSide, img.height <= maxSide else {
            return .failure(MarkerLookError(message: "\(path) is not a PNG image the kiosk can decode"))
        }
        return .success(img)
    }
}
