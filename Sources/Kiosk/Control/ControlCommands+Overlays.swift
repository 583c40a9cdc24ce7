import TouchBridge
import Foundation
import TouchCore
import MapEngine
import Rendering

/// What a client said to make an overlay, kept so that `update_overlay` can change one part
/// (the style, the z-index) and rebuild the rest from it.
struct OverlaySpec {
    var geojson: JSONValue?
    var style: JSONValue?
    var image: String?
    var bounds: [Double]?
    var bearing: Double = 0
    var opacity: Double = 1
    var zIndex: Int = 0
    var tappable: Bool = true
    var title: String?
}

/// The overlay, route, position and clustering commands of the control socket (docs/control.md).
extension Kiosk {
    /// Performs an overlay, route or clustering command (`ControlCommand.isOverlayCommand`).
    func performOverlayCommand(_ command: ControlCommand, _ a: inout ControlArguments, now: Double) throws -> [(String, JSONValue)] {
        switch command {
        case .addOverlay, .updateOverlay:
            let id = try a.requiredString("overlay")
            guard id.utf8.count <= 256 else { throw ControlError("\"overlay\": an id is at most 256 bytes") }
            let existing = overlaySpecs[id]
            if command == .addOverlay, controller.overlay(id: id) != nil {
                throw ControlError("an overlay with id '\(id)' exists already: use update_overlay, or remove_overlay first")
            }
            if command == .updateOverlay, controller.overlay(id: id) == nil {
                throw ControlError("no overlay with id '\(id)' (list_overlays shows them)")
            }
            var spec = existing ?? OverlaySpec()
            if let g = a.take("geojson") {
                guard case .object = g else { throw ControlError("\"geojson\" must be a GeoJSON object (Feature, FeatureCollection or a geometry)") }
                spec.geojson = g
                spec.image = nil
                spec.bounds = nil
            }
            if let s = a.take("style") {
                guard s.isNull || { if case .object = s { return true }; return false }() else {
                    throw ControlError("\"style\" must be an object of simplestyle keys (stroke, stroke-width, fill, ...) or null")
                }
                spec.style = s.isNull ? nil : s
            }
            if let img = try a.optionalString("image") {
                guard let path = img else { throw ControlError("\"image\" must be an absolute path to a PNG file") }
                // docs/control.md, Paths: inside [control] files_dir, no symlink followed. The
                // bytes read from that checked descriptor are what is decoded and drawn.
                let data: Data
                do { data = try filesFolder.read(path, maxBytes: GroundImageCheck.maxBytes, what: "ground overlay image") } catch let e as ControlError {
                    throw ControlError("\"image\": \(e.message)")
                }
                let image: CairoImage
                switch GroundImageCheck.decode(data, path: path) {
                case .success(let i): image = i
                case .failure(let e): throw ControlError("\"image\": \(e.message)")
                }
                if let problem = renderer.decodedImages.set(image, named: path) { throw ControlError("\"image\": \(problem)") }
                spec.image = path
                spec.geojson = nil
            }
            if let b = try a.numbers("bounds", count: 4) { spec.bounds = b }
            if let d = try a.number("bearing", in: -360...360) { spec.bearing = d }
            if let d = try a.number("opacity", in: 0...1) { spec.opacity = d }
            if let z = try a.number("z_index", in: -1_000_000...1_000_000) { spec.zIndex = Int(z) }
            if let v = a.take("tappable") {
                guard let b = v.bool else { throw ControlError("\"tappable\" must be true or false, got \(v.text)") }
                spec.tappable = b
            }
            if let t = try a.optionalString("title") { spec.title = t }
            try a.finish()
            let overlay = try makeOverlay(id: id, spec)
            do { try controller.add(overlay, at: now) } catch { throw ControlError("\(error)") }
            overlaySpecs[id] = spec
            return [("overlay", overlayJSON(overlay))]
        case .removeOverlay:
            let id = try a.requiredString("overlay")
            try a.finish()
            guard controller.overlay(id: id) != nil else { throw ControlError("no overlay with id '\(id)' (list_overlays shows them)") }
            controller.removeOverlay(id: id, at: now)
            overlaySpecs[id] = nil
            return []
        case .listOverlays:
            try a.finish()
            return [("overlays", .array(controller.overlays.map(overlayJSON)))]
        case .clearOverlays:
            try a.finish()
            controller.clearOverlays(at: now)
            overlaySpecs = [:]
            return []
        case .clearMarkers:
            try a.finish()
            controller.clearMarkers(at: now)
            return []
        case .setClusterMarkers:
            guard let v = a.take("enabled") else { throw ControlError("set_cluster_markers needs \"enabled\": true or false") }
            guard let b = v.bool else { throw ControlError("\"enabled\" must be true or false, got \(v.text)") }
            try a.finish()
            controller.configuration.clusterMarkers = b
            configuration.map.clusterMarkers = b
            return [("enabled", .bool(b))]
        case .setRoute:
            guard let v = a.take("geojson") else { throw ControlError("set_route needs \"geojson\": a LineString (or a Feature holding one), or null to clear the route") }
            try a.finish()
            if v.isNull {
                controller.setRoute([])
                return [("points", .number(0))]
            }
            let points: [Coordinate]
            do { points = try GeoJSON.lineString(json: v) } catch { throw ControlError("\"geojson\": \(error)") }
            controller.setRoute(points)
            return [("points", .number(Double(points.count)))]
        default:
            throw ControlError("'\(command.rawValue)' is not an overlay command")
        }
    }

    /// The overlay a spec describes: a GeoJSON object styled by `style` (simplestyle keys, plus
    /// `radius_m` that makes Points circles), or a ground image over `bounds`.
    func makeOverlay(id: String, _ spec: OverlaySpec) throws -> Overlay {
        if let path = spec.image {
            guard let b = spec.bounds else { throw ControlError("a ground overlay needs \"bounds\": [west, south, east, north]") }
            guard (-180...180).contains(b[0]), (-180...180).contains(b[2]), (-90...90).contains(b[1]), (-90...90).contains(b[3]),
                  b[0] < b[2], b[1] < b[3] else {
                throw ControlError("\"bounds\" are [west, south, east, north] in degrees, west below east and south below north")
            }
            // Decoded when the client named it (`DecodedImages`): never opened again by path.
            guard renderer.decodedImages.contains(path) else { throw ControlError("\"image\": \(path) is not read: give \"image\" again") }
            let shape = OverlayShape(geometry: .groundImage(path: path, bounds: CoordinateBounds(west: b[0], south: b[1], east: b[2], north: b[3]),
                                                            bearing: spec.bearing, opacity: spec.opacity), title: spec.title)
            return Overlay(id: id, shapes: [shape], zIndex: spec.zIndex, tappable: spec.tappable, title: spec.title)
        }
        guard let json = spec.geojson else {
            throw ControlError("an overlay needs \"geojson\" (a GeoJSON object), or \"image\" and \"bounds\" for a ground overlay")
        }
        if spec.bounds != nil { throw ControlError("\"bounds\" belongs to a ground overlay (with \"image\"), not to a GeoJSON one") }
        var style = ShapeStyle()
        var radius: Double? = nil
        if let s = spec.style {
            guard case .object(var pairs) = s else { throw ControlError("\"style\" must be an object") }
            if let i = pairs.lastIndex(where: { $0.0 == "radius_m" }) {
                guard let r = pairs[i].1.number, r.isFinite, r > 0, r <= OverlayLimits.maxCircleRadius else {
                    throw ControlError("\"style\".\"radius_m\" must be a radius in metres above 0 and at most \(Int(OverlayLimits.maxCircleRadius))")
                }
                radius = r
                pairs.removeAll { $0.0 == "radius_m" }
            }
            do { style = try GeoJSON.style(from: .object(pairs)) } catch { throw ControlError("\"style\": \(error)") }
        }
        do {
            var o = try GeoJSON.overlay(id: id, json: json, style: style, circleRadius: radius, zIndex: spec.zIndex, tappable: spec.tappable)
            if let t = spec.title { o.title = t }
            // One feature: its title names the overlay too.
            if o.title == nil, o.shapes.count == 1 { o.title = o.shapes[0].title }
            return o
        } catch {
            throw ControlError("\"geojson\": \(error)")
        }
    }

    func overlayJSON(_ o: Overlay) -> JSONValue {
        var kinds: [String] = []
        for s in o.shapes {
            let k: String
            switch s.geometry {
            case .polyline: k = "polyline"
            case .polygon: k = "polygon"
            case .circle: k = "circle"
            case .groundImage: k = "ground"
            }
            if !kinds.contains(k) { kinds.append(k) }
        }
        return .object([("overlay", .string(o.id)), ("title", o.title.map { .string($0) } ?? .null),
                        ("shapes", .number(Double(o.shapes.count))), ("kinds", .array(kinds.map { .string($0) })),
                        ("markers", .number(Double(o.markers.count))), ("vertices", .number(Double(o.vertexCount))),
                        ("z_index", .number(Double(o.zIndex))), ("tappable", .bool(o.tappable))])
    }
}
