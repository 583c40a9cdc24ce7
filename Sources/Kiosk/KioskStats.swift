import TouchBridge
import Foundation
import Gestures
import MapEngine

/// What an operator watches (`stats` on the control socket, `touchbridge ctl stats`, and the
/// `[metrics] textfile` for node_exporter): counters since start, kept across reloads (a reload
/// re-reads the file, never this). Only the loop's thread touches it.
package final class KioskStats: @unchecked Sendable {
    public struct Touchscreen: Sendable, Equatable {
        public var name: String
        public var open: Bool
        /// CLOCK_MONOTONIC seconds when it went away (nil while open).
        public var goneSince: Double?
        /// Times it went away, and errors reading it.
        public var disconnects = 0
        public var readErrors = 0
    }
    public struct Problem: Sendable, Equatable {
        public var time: Double
        public var text: String
    }

    public let startedAt: Double
    public private(set) var framesDrawn = 0
    /// Render + present of each frame drawn.
    public private(set) var frameTime = LatencyHistogram()
    /// Touch-downs (each new contact), and gestures recognised by kind (each counted once, when
    /// it is recognised or begins).
    public private(set) var touches = 0
    public private(set) var gestures: [GestureKind: Int] = [:]
    public private(set) var touchscreens: [String: Touchscreen] = [:]
    public private(set) var lastWarning: Problem?
    public private(set) var lastError: Problem?
    public private(set) var warnings = 0, errors = 0
    /// Blanked by `[display] blank_after_s`; times blanked; attract tours started.
    public var displayBlanked = false
    public private(set) var blanks = 0
    public private(set) var attractRuns = 0
    public var attractPlaying = false
    public private(set) var reloads = 0

    public init(startedAt: Double) { self.startedAt = startedAt }

    // MARK: counting (called by the map view)

    public func frameDrawn(seconds: Double) { framesDrawn += 1; frameTime.record(seconds: seconds) }
    public func touchesDown(_ n: Int) { touches += n }
    public func gesture(_ e: GestureEvent) {
        if e.phase == .recognized || e.phase == .began { gestures[e.kind, default: 0] += 1 }
    }
    public func opened(_ path: String, name: String) {
        var t = touchscreens[path] ?? Touchscreen(name: name, open: true)
        t.name = name; t.open = true; t.goneSince = nil
        touchscreens[path] = t
    }
    public func closed(_ path: String, at time: Double, error: Bool) {
        var t = touchscreens[path] ?? Touchscreen(name: path, open: false)
        t.open = false
        if t.goneSince == nil { t.goneSince = time }
        t.disconnects += 1
        if error { t.readErrors += 1 }
        touchscreens[path] = t
    }
    public func problem(_ level: KioskLog.Level, _ text: String, at time: Double) {
        if level == .error { errors += 1; lastError = Problem(time: time, text: text) } else { warnings += 1; lastWarning = Problem(time: time, text: text) }
    }
    public func blanked() { displayBlanked = true; blanks += 1 }
    public func attractStarted() { attractRuns += 1; attractPlaying = true }
    public func reloaded() { reloads += 1 }

    // MARK: reading

    /// The figures of one moment (with what the map view measures itself).
    public struct Snapshot: Sendable {
        public var now: Double
        public var touchToFlip: LatencyHistogram
        public var displayName: String
        public var displayProblem: String?
        public var residentBytes: Int?
        public var peakResidentBytes: Int?
        public var cacheBytes: Int
        public var tileHits: Int, tileMisses: Int
        public var markers: Int, overlays: Int
        public var cameraMode: String
        /// The touchscreens the configuration asks for that are not open, one line each
        /// (`MapView.missingTouchscreens`: the table, its match and why): the kiosk waits for
        /// them. A panel dead since boot is never "gone", only waited for.
        public var touchscreensWaiting: [String] = []
    }

    func r(_ v: Double, _ d: Double = 1000) -> Double { (v * d).rounded() / d }

    /// The `stats` reply.
    public func json(_ s: Snapshot) -> [(String, JSONValue)] {
        func num(_ v: Double) -> JSONValue { .number(v) }
        func latency(_ h: LatencyHistogram) -> JSONValue {
            .object([("count", num(Double(h.count))), ("p50_ms", h.isEmpty ? .null : num(r(h.milliseconds(at: 50)))),
                     ("p99_ms", h.isEmpty ? .null : num(r(h.milliseconds(at: 99)))), ("max_ms", h.isEmpty ? .null : num(r(h.maxMilliseconds)))])
        }
        func problem(_ p: Problem?) -> JSONValue {
            guard let p else { return .null }
            return .object([("ago_s", num(r(s.now - p.time, 10))), ("text", .string(p.text))])
        }
        let screens = touchscreens.keys.sorted().map { path -> JSONValue in
            let t = touchscreens[path]!
            return .object([("path", .string(path)), ("name", .string(t.name)), ("state", .string(t.open ? "open" : "gone")),
                            ("gone_for_s", t.goneSince.map { num(r(s.now - $0, 10)) } ?? .null),
                            ("disconnects", num(Double(t.disconnects))), ("read_errors", num(Double(t.readErrors)))])
        }
        let kinds = GestureKind.allCases.map { ($0.rawValue, num(Double(gestures[$0] ?? 0))) }
        return [
            ("uptime_s", num(r(s.now - startedAt, 10))),
            ("frames", num(Double(framesDrawn))),
            ("frame_time", latency(frameTime)),
            ("touch_to_flip", latency(s.touchToFlip)),
            ("touches", num(Double(touches))),
            ("gestures", .object(kinds)),
            ("touchscreens", .array(screens)),
            ("touchscreens_waiting", .array(s.touchscreensWaiting.map { .string($0) })),
            ("display", .object([("name", .string(s.displayName)),
                                 ("state", .string(s.displayProblem != nil ? "lost" : displayBlanked ? "blanked" : "on")),
                                 ("problem", s.displayProblem.map { .string($0) } ?? .null),
                                 ("blanks", num(Double(blanks)))])),
            ("attract", .object([("playing", .bool(attractPlaying)), ("runs", num(Double(attractRuns)))])),
            ("memory", .object([("rss_mib", s.residentBytes.map { num(r(Double($0) / 1_048_576, 10)) } ?? .null),
                                ("peak_rss_mib", s.peakResidentBytes.map { num(r(Double($0) / 1_048_576, 10)) } ?? .null),
                                ("caches_mib", num(r(Double(s.cacheBytes) / 1_048_576, 10)))])),
            ("tiles", .object([("hits", num(Double(s.tileHits))), ("misses", num(Double(s.tileMisses)))])),
            ("markers", num(Double(s.markers))), ("overlays", num(Double(s.overlays))),
            ("camera_mode", .string(s.cameraMode)),
            ("reloads", num(Double(reloads))),
            ("warnings", num(Double(warnings))), ("errors", num(Double(errors))),
            ("last_warning", problem(lastWarning)), ("last_error", problem(lastError)),
        ]
    }

    /// The same figures in Prometheus' text exposition format (version 0.0.4), names prefixed
    /// `touchbridge_`, for node_exporter's textfile collector.
    public func prometheus(_ s: Snapshot) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(String, Double)]) {
            out += "# HELP touchbridge_\(name) \(help)\n# TYPE touchbridge_\(name) \(type)\n"
            for (labels, v) in samples { out += "touchbridge_\(name)\(labels) \(Self.value(v))\n" }
        }
        func quantiles(_ h: LatencyHistogram) -> [(String, Double)] {
            h.isEmpty ? [] : [("{quantile=\"0.5\"}", h.milliseconds(at: 50) / 1000), ("{quantile=\"0.99\"}", h.milliseconds(at: 99) / 1000),
                              ("{quantile=\"1\"}", h.maxMilliseconds / 1000)]
        }
        metric("uptime_seconds", "gauge", "Seconds since the kiosk started.", [("", s.now - startedAt)])
        metric("frames_drawn_total", "counter", "Frames drawn and presented.", [("", Double(framesDrawn))])
        metric("frame_time_seconds", "gauge", "Render and present time of frames drawn since start.", quantiles(frameTime))
        metric("touch_to_flip_seconds", "gauge", "Kernel input timestamp to page flip, frames that showed new input.", quantiles(s.touchToFlip))
        metric("touches_total", "counter", "Fingers put down.", [("", Double(touches))])
        metric("gestures_total", "counter", "Gestures recognised, by kind.",
               GestureKind.allCases.map { ("{kind=\"\($0.rawValue)\"}", Double(gestures[$0] ?? 0)) })
        metric("touchscreen_up", "gauge", "1 while the touchscreen is open, 0 while it is gone.",
               touchscreens.keys.sorted().map { ("{path=\"\(Self.label($0))\"}", touchscreens[$0]!.open ? 1 : 0) })
        metric("touchscreen_disconnects_total", "counter", "Times the touchscreen went away.",
               touchscreens.keys.sorted().map { ("{path=\"\(Self.label($0))\"}", Double(touchscreens[$0]!.disconnects)) })
        metric("touchscreens_waiting", "gauge", "Touchscreens the configuration asks for that are not open (the kiosk waits for them).",
               [("", Double(s.touchscreensWaiting.count))])
        metric("display_up", "gauge", "1 while the kiosk holds the display, 0 while it is lost.", [("", s.displayProblem == nil ? 1 : 0)])
        metric("display_blanked", "gauge", "1 while the display is blanked after idle.", [("", displayBlanked ? 1 : 0)])
        metric("attract_playing", "gauge", "1 while the attract tour plays.", [("", attractPlaying ? 1 : 0)])
        metric("resident_memory_bytes", "gauge", "Resident set size.", s.residentBytes.map { [("", Double($0))] } ?? [])
        metric("cache_bytes", "gauge", "Bytes held by the renderer's frame caches.", [("", Double(s.cacheBytes))])
        metric("tile_cache_hits_total", "counter", "Tiles drawn from the decoded-tile cache.", [("", Double(s.tileHits))])
        metric("tile_cache_misses_total", "counter", "Tiles decoded to be drawn.", [("", Double(s.tileMisses))])
        metric("reloads_total", "counter", "Configuration reloads (SIGHUP or reload).", [("", Double(reloads))])
        metric("warnings_total", "counter", "Warnings logged.", [("", Double(warnings))])
        metric("errors_total", "counter", "Errors logged.", [("", Double(errors))])
        return out
    }

    static func value(_ v: Double) -> String {
        guard v.isFinite else { return v.isNaN ? "NaN" : (v > 0 ? "+Inf" : "-Inf") }
        if v == v.rounded(), abs(v) < 1e15 { return String(Int64(v)) }
        return String(format: "%.6g", v)
    }

    /// A label value escaped as the text format asks (backslash, quote, newline).
    static func label(_ s: String) -> String {
        s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"").replacingOccurrences(of: "\n", with: "\\n")
    }
}
