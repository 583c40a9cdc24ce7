import Foundation
import TouchCore
import Gestures
import MapEngine

/// One JSON object with its keys in a fixed order (t and type first), numbers at a stated
/// precision: the line format of the event stream (docs/event-stream.md) that `replay`,
/// `demo`, `run` and the e2e tests share.
package struct JSONLine {
    private var parts: [String] = []
    public init() {}

    /// The event stream's one JSON string and number format (MapEngine writes the map events).
    public static func escape(_ s: String) -> String { MapEvent.string(s) }
    public static func number(_ v: Double, _ decimals: Int) -> String { MapEvent.number(v, decimals) }

    public mutating func raw(_ key: String, _ json: String) { parts.append("\(JSONLine.escape(key)):\(json)") }
    public mutating func string(_ key: String, _ v: String) { raw(key, JSONLine.escape(v)) }
    public mutating func number(_ key: String, _ v: Double, _ decimals: Int) { raw(key, JSONLine.number(v, decimals)) }
    public mutating func int(_ key: String, _ v: Int) { raw(key, String(v)) }
    public mutating func bool(_ key: String, _ v: Bool) { raw(key, v ? "true" : "false") }
    public var text: String { "{" + parts.joined(separator: ",") + "}" }
}

/// Writes the event stream. `t` is seconds since the first input event (the `start` line has 0).
/// Each line is built in a `StreamLineBuffer` (the `into:` forms, which the pipeline uses with
/// one reused buffer); the String forms are the same bytes as a String.
package struct EventStreamEncoder {
    public private(set) var origin: Double?
    public init(origin: Double? = nil) { self.origin = origin }

    /// Fix t = 0 at the first input event's time.
    public mutating func setOrigin(_ time: Double) { if origin == nil { origin = time } }

    public func relative(_ time: Double) -> Double { max(0, time - (origin ?? time)) }

    /// The camera object, exactly as in the map events (`MapEvent.cameraJSON`).
    public static func camera(_ c: CameraPosition) -> String { MapEvent.cameraJSON(c) }

    /// `{"lat":..,"lon":..,"zoom":..,"bearing":..,"tilt":..}`, as `MapEvent.cameraJSON`.
    static func camera(_ c: CameraPosition, into o: inout StreamLineBuffer) {
        o.literal("{\"lat\":"); o.number(c.target.latitude, 7)
        o.literal(",\"lon\":"); o.number(c.target.longitude, 7)
        o.literal(",\"zoom\":"); o.number(c.zoom, 4)
        o.literal(",\"bearing\":"); o.number(c.bearing, 2)
        o.literal(",\"tilt\":"); o.number(c.tilt, 2)
        o.literal("}")
    }

    /// `{"t":..,"type":"<type>"`, the start of every line but `start`.
    func head(_ time: Double, _ type: StaticString, into o: inout StreamLineBuffer) {
        o.literal("{\"t\":"); o.number(relative(time), 3)
        o.literal(",\"type\":\""); o.literal(type); o.literal("\"")
    }

    private static func line(_ build: (inout StreamLineBuffer) -> Void) -> String {
        var o = StreamLineBuffer()
        build(&o)
        return o.string
    }

    public func start(screen: Size, camera: CameraPosition, mode: CameraMode? = nil) -> String {
        Self.line { start(screen: screen, camera: camera, mode: mode, into: &$0) }
    }

    /// The first line; `mode` (added in issue 30) is the camera mode the camera is in.
    public func start(screen: Size, camera: CameraPosition, mode: CameraMode? = nil, into o: inout StreamLineBuffer) {
        o.literal("{\"t\":"); o.number(0, 3)
        o.literal(",\"type\":\"start\",\"screen\":[")
        o.int(Int(screen.width)); o.literal(","); o.int(Int(screen.height))
        o.literal("],\"camera\":"); Self.camera(camera, into: &o)
        if let mode { o.literal(",\"mode\":"); o.string(mode.rawValue) }
        o.literal("}")
    }

    public func contacts(_ frame: ContactFrame) -> String {
        Self.line { contacts(frame, into: &$0) }
    }

    public func contacts(_ frame: ContactFrame, into o: inout StreamLineBuffer) {
        head(frame.time, "contacts", into: &o)
        o.literal(",\"contacts\":[")
        for (i, c) in frame.contacts.enumerated() {
            if i > 0 { o.literal(",") }
            o.literal("{\"id\":"); o.int(c.id)
            o.literal(",\"x\":"); o.number(c.position.x, 1)
            o.literal(",\"y\":"); o.number(c.position.y, 1)
            if let p = c.pressure { o.literal(",\"pressure\":"); o.number(p, 3) }
            if let m = c.touchMajor { o.literal(",\"major\":"); o.number(m, 2) }
            if c.toolType != .finger { o.literal(",\"tool\":"); o.string(c.toolType.rawValue) }
            o.literal("}")
        }
        o.literal("]")
        if !frame.cancelled.isEmpty {
            o.literal(",\"cancelled\":[")
            for (i, id) in frame.cancelled.enumerated() {
                if i > 0 { o.literal(",") }
                o.int(id)
            }
            o.literal("]")
        }
        o.literal("}")
    }

    public func gesture(_ e: GestureEvent) -> String {
        Self.line { gesture(e, into: &$0) }
    }

    public func gesture(_ e: GestureEvent, into o: inout StreamLineBuffer) {
        head(e.time, "gesture", into: &o)
        o.literal(",\"gesture\":"); o.string(e.kind.rawValue)
        o.literal(",\"phase\":"); o.string(e.phase.rawValue)
        o.literal(",\"x\":"); o.number(e.position.x, 1)
        o.literal(",\"y\":"); o.number(e.position.y, 1)
        if e.fingers != 1 { o.literal(",\"fingers\":"); o.int(e.fingers) }
        if e.scale != 1 { o.literal(",\"scale\":"); o.number(e.scale, 5) }
        if e.rotation != 0 { o.literal(",\"rotation\":"); o.number(e.rotation, 3) }
        if e.tilt != 0 { o.literal(",\"tilt\":"); o.number(e.tilt, 3) }
        if e.velocity != .zero {
            o.literal(",\"velocity\":["); o.number(e.velocity.x, 1)
            o.literal(","); o.number(e.velocity.y, 1); o.literal("]")
        }
        if let r = e.reason { o.literal(",\"reason\":"); o.string(r) }
        o.literal("}")
    }

    /// A map event's line, byte for byte `event.jsonLine(t: relative(time))`.
    public func mapEvent(_ event: MapEvent, time: Double, into o: inout StreamLineBuffer) {
        o.literal("{\"t\":"); o.number(relative(time), 3)
        o.literal(",\"type\":\""); o.raw(event.typeName); o.literal("\"")
        switch event {
        case .willMove(let g): o.literal(",\"gesture\":"); o.bool(g)
        case .didChange(let c), .idleAt(let c): o.literal(",\"camera\":"); Self.camera(c, into: &o)
        case .didTapAt(let c), .didLongPressAt(let c): Self.latLon(c, into: &o)
        case .didTapMarker(let id), .didTapInfoWindow(let id), .didLongPressInfoWindow(let id),
             .didCloseInfoWindow(let id):
            o.literal(",\"marker\":"); o.string(id)
        case .didTapPOI(let name, let c, let cls, let id):
            o.literal(",\"name\":"); o.string(name)
            Self.latLon(c, into: &o)
            o.literal(",\"class\":")
            if let cls { o.string(cls) } else { o.literal("null") }
            o.literal(",\"id\":")
            if let id { o.unsigned(id) } else { o.literal("null") }
        case .cameraMode(let m): o.literal(",\"mode\":\""); o.raw(m.rawValue); o.literal("\"")
        case .didTapOverlay(let id, let c): o.literal(",\"overlay\":"); o.string(id); Self.latLon(c, into: &o)
        }
        o.literal("}")
    }

    static func latLon(_ c: Coordinate, into o: inout StreamLineBuffer) {
        o.literal(",\"lat\":"); o.number(c.latitude, 7)
        o.literal(",\"lon\":"); o.number(c.longitude, 7)
    }

    public func end(time: Double, contacts: Int, camera: CameraPosition) -> String {
        Self.line { end(time: time, contacts: contacts, camera: camera, into: &$0) }
    }

    public func end(time: Double, contacts: Int, camera: CameraPosition, into o: inout StreamLineBuffer) {
        head(time, "end", into: &o)
        o.literal(",\"contacts\":"); o.int(contacts)
        o.literal(",\"camera\":"); Self.camera(camera, into: &o)
        o.literal("}")
    }
}
