import Foundation

/// What the controller tells the app: the delegate calls, recorded as values so the JSON event
/// stream (docs in shared design notes) can be written from them.
public enum MapEvent: Sendable, Hashable {
    case willMove(gesture: Bool)
    case didChange(CameraPosition)
    case idleAt(CameraPosition)
    case didTapAt(Coordinate)
    case didLongPressAt(Coordinate)
    case didTapMarker(String)
    case didTapInfoWindow(String)
    case didLongPressInfoWindow(String)
    case didCloseInfoWindow(String)
    /// `featureClass` and `id` as the data names them (nil when the base map does not say).
    case didTapPOI(name: String, coordinate: Coordinate, featureClass: String? = nil, id: UInt64? = nil)
    case cameraMode(CameraMode)
    /// A tap on a tappable overlay (the topmost under the finger): its id and the coordinate tapped.
    case didTapOverlay(id: String, coordinate: Coordinate)

    /// The `type` of the JSON line.
    public var typeName: String {
        switch self {
        case .willMove: return "willMove"
        case .didChange: return "didChange"
        case .idleAt: return "idleAt"
        case .didTapAt: return "didTapAt"
        case .didLongPressAt: return "didLongPressAt"
        case .didTapMarker: return "didTapMarker"
        case .didTapInfoWindow: return "didTapInfoWindow"
        case .didLongPressInfoWindow: return "didLongPressInfoWindow"
        case .didCloseInfoWindow: return "didCloseInfoWindow"
        case .didTapPOI: return "didTapPOI"
        case .cameraMode: return "cameraMode"
        case .didTapOverlay: return "didTapOverlay"
        }
    }

    /// One line of the JSON event stream, without the newline, e.g.
    /// `{"t":0.316,"type":"didChange","camera":{"lat":..,"lon":..,"zoom":..,"bearing":..,"tilt":..}}`.
    /// `t` is seconds since the stream's start.
    public func jsonLine(t: Double) -> String {
        var s = "{\"t\":\(MapEvent.number(t, 3)),\"type\":\"\(typeName)\""
        switch self {
        case .willMove(let g): s += ",\"gesture\":\(g)"
        case .didChange(let c), .idleAt(let c): s += ",\"camera\":\(MapEvent.cameraJSON(c))"
        case .didTapAt(let c), .didLongPressAt(let c): s += MapEvent.latLon(c)
        case .didTapMarker(let id), .didTapInfoWindow(let id), .didLongPressInfoWindow(let id),
             .didCloseInfoWindow(let id):
            s += ",\"marker\":\(MapEvent.string(id))"
        case .didTapPOI(let name, let c, let cls, let id):
            // class and id always present (null when unknown), after the original fields.
            s += ",\"name\":\(MapEvent.string(name))" + MapEvent.latLon(c)
                + ",\"class\":\(cls.map(MapEvent.string) ?? "null"),\"id\":\(id.map { String($0) } ?? "null")"
        case .cameraMode(let m): s += ",\"mode\":\"\(m.rawValue)\""
        case .didTapOverlay(let id, let c): s += ",\"overlay\":\(MapEvent.string(id))" + MapEvent.latLon(c)
        }
        return s + "}"
    }

    /// `{"lat":..,"lon":..,"zoom":..,"bearing":..,"tilt":..}` as in the `start` and `end` lines.
    public static func cameraJSON(_ c: CameraPosition) -> String {
        "{\"lat\":\(number(c.target.latitude, 7)),\"lon\":\(number(c.target.longitude, 7)),"
            + "\"zoom\":\(number(c.zoom, 4)),\"bearing\":\(number(c.bearing, 2)),\"tilt\":\(number(c.tilt, 2))}"
    }

    static func latLon(_ c: Coordinate) -> String {
        ",\"lat\":\(number(c.latitude, 7)),\"lon\":\(number(c.longitude, 7))"
    }

    /// A JSON number with a fixed number of decimals ("null" when not finite; never "-0.000").
    public static func number(_ v: Double, _ decimals: Int) -> String {
        guard v.isFinite else { return "null" }
        let s = String(format: "%.\(decimals)f", v)
        return s == "-0" || s.allSatisfy({ "-0.".contains($0) }) ? String(format: "%.\(decimals)f", 0.0) : s
    }

    /// A JSON string literal.
    public static func string(_ v: String) -> String {
        var out = "\""
        for u in v.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        return out + "\""
    }
}

/// A map event with the time (seconds, the controller's clock) it happened.
public struct TimedMapEvent: Sendable, Hashable {
    public var time: Double
    public var event: MapEvent
    public init(time: Double, event: MapEvent) { self.time = time; self.event = event }
}
