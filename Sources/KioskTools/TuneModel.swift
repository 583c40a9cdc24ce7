import Foundation
import TouchCore
import Gestures
import TouchBridge

/// What the `tune` screen shows, kept as a pure model: each contact with its slot id and trail,
/// pressure and size when known, the last gesture the recogniser reported and why, the
/// device's report rate and the frame rate.
public struct TuneModel {
    public struct Track: Equatable {
        public var id: Int
        public var trail: [Point]
        public var last: Contact
    }
    public var maxTrail = 120
    public private(set) var tracks: [Int: Track] = [:]
    /// Ended contacts keep their trail, faded, until the next touch-down.
    public private(set) var ended: [Track] = []
    public private(set) var gestureLine = "no gesture yet"
    public private(set) var gestureReason = ""
    public private(set) var reportTimes: [Double] = []
    public private(set) var frameTimes: [Double] = []
    /// Input-to-screen latency samples (s): from a frame's kernel timestamp to its frame being shown.
    public private(set) var latencies: [Double] = []

    public init() {}

    public mutating func add(_ frame: ContactFrame) {
        reportTimes.append(frame.time)
        if reportTimes.count > 120 { reportTimes.removeFirst(reportTimes.count - 120) }
        let ids = Set(frame.contacts.map(\.id))
        if tracks.isEmpty && !frame.contacts.isEmpty { ended.removeAll() }
        for (id, t) in tracks where !ids.contains(id) { ended.append(t); tracks[id] = nil }
        for c in frame.contacts {
            var t = tracks[c.id] ?? Track(id: c.id, trail: [], last: c)
            t.trail.append(c.position)
            if t.trail.count > maxTrail { t.trail.removeFirst(t.trail.count - maxTrail) }
            t.last = c
            tracks[c.id] = t
        }
    }

    public mutating func add(_ e: GestureEvent) {
        gestureLine = "\(e.kind.rawValue) \(e.phase.rawValue)"
        if e.fingers > 1 { gestureLine += " (\(e.fingers) fingers)" }
        if let r = e.reason { gestureReason = r }
    }

    public mutating func frameShown(at time: Double, inputTime: Double?) {
        frameTimes.append(time)
        if frameTimes.count > 120 { frameTimes.removeFirst(frameTimes.count - 120) }
        if let t = inputTime {
            latencies.append(time - t)
            if latencies.count > 240 { latencies.removeFirst(latencies.count - 240) }
        }
    }

    static func rate(_ times: [Double]) -> Double? {
        guard times.count >= 2, let a = times.first, let b = times.last, b > a else { return nil }
        return Double(times.count - 1) / (b - a)
    }

    /// Reports per second over the recent reports (only while a finger is down is it meaningful).
    public var reportRate: Double? { TuneModel.rate(reportTimes) }
    public var frameRate: Double? { TuneModel.rate(frameTimes) }
    public var latencyMedianMS: Double? {
        latencies.isEmpty ? nil : BenchSupport.median(latencies.map { $0 * 1000 })
    }

    /// The status lines shown at the top of the screen (also printed with --verbose).
    public var statusLines: [String] {
        var l = ["gesture: \(gestureLine)"]
        if !gestureReason.isEmpty { l.append("why: \(gestureReason)") }
        var rates: [String] = []
        if let r = reportRate { rates.append(String(format: "device %.0f Hz", r)) }
        if let r = frameRate { rates.append(String(format: "screen %.0f fps", r)) }
        if let m = latencyMedianMS { rates.append(String(format: "input-to-screen %.1f ms", m)) }
        if !rates.isEmpty { l.append(rates.joined(separator: "   ")) }
        for t in tracks.values.sorted(by: { $0.id < $1.id }) {
            var s = String(format: "contact %d at (%.0f, %.0f)", t.id, t.last.position.x, t.last.position.y)
            if let p = t.last.pressure { s += String(format: " pressure %.2f", p) }
            if let m = t.last.touchMajor { s += String(format: " size %.1f", m) }
            if t.last.toolType != .finger { s += " \(t.last.toolType.rawValue)" }
            l.append(s)
        }
        return l
    }
}
