import Foundation
import TouchCore
import Gestures
import MapEngine

/// One JSON object with its keys in a fixed order (t and type first), numbers at a stated
/// precision: the line format of the event stream (docs/event-stream.md) that `replay`,
/// `demo`, `run` and the e2e tests share.
public struct JSONLine {
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
public struct EventStreamEncoder {
    public private(set) var origin: Double?
    public init(origin: Double? = nil) { self.origin = origin }

    /// Fix t = 0 at the first input event's time.
    public mutating func setOrigin(_ time: Double) { if origin == nil { origin = time } }

    public func relative(_ time: Double) -> Double { max(0, time - (origin ?? time)) }

    /// The camera object, exactly as in the map events (`MapEvent.cameraJSON`).
    public static func camera(_ c: CameraPosition) -> String { MapEvent.cameraJSON(c) }

    func head(_ time: Double, _ type: String) -> JSONLine {
        var o = JSONLine()
        o.number("t", relative(time), 3)
        o.string("type", type)
        return o
    }

    public func start(screen: Size, camera: CameraPosition) -> String {
        var o = JSONLine()
        o.number("t", 0, 3)
        o.string("type", "start")
        o.raw("screen", "[\(Int(screen.width)),\(Int(screen.height))]")
        o.raw("camera", Self.camera(camera))
        return o.text
    }

    public func contacts(_ frame: ContactFrame) -> String {
        var o = head(frame.time, "contacts")
        let list = frame.contacts.map { c -> String in
            var j = JSONLine()
            j.int("id", c.id)
            j.number("x", c.position.x, 1)
            j.number("y", c.position.y, 1)
            if let p = c.pressure { j.number("pressure", p, 3) }
            if let m = c.touchMajor { j.number("major", m, 2) }
            if c.toolType != .finger { j.string("tool", c.toolType.rawValue) }
            return j.text
        }
        o.raw("contacts", "[" + list.joined(separator: ",") + "]")
        if !frame.cancelled.isEmpty { o.raw("cancelled", "[" + frame.cancelled.map(String.init).joined(separator: ",") + "]") }
        return o.text
    }

    public func gesture(_ e: GestureEvent) -> String {
        var o = head(e.time, "gesture")
        o.string("gesture", e.kind.rawValue)
        o.string("phase", e.phase.rawValue)
        o.number("x", e.position.x, 1)
        o.number("y", e.position.y, 1)
        if e.fingers != 1 { o.int("fingers", e.fingers) }
        if e.scale != 1 { o.number("scale", e.scale, 5) }
        if e.rotation != 0 { o.number("rotation", e.rotation, 3) }
        if e.tilt != 0 { o.number("tilt", e.tilt, 3) }
        if e.velocity != .zero { o.raw("velocity", "[\(JSONLine.number(e.velocity.x, 1)),\(JSONLine.number(e.velocity.y, 1))]") }
        if let r = e.reason { o.string("reason", r) }
        return o.text
    }

    public func end(time: Double, contacts: Int, camera: CameraPosition) -> String {
        var o = head(time, "end")
        o.int("contacts", contacts)
        o.raw("camera", Self.camera(camera))
        return o.text
    }
}
