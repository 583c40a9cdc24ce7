import Foundation
import TouchBridge
import TouchCore
import MapEngine

/// The lag a person sees while dragging the map: a real recording played at its own timing into
/// the pipeline, drawn by a modelled kiosk loop (a frame is drawn when input arrives and no flip
/// is pending, takes `frameTime` to draw and is shown at the next vertical blank of a 60 Hz
/// display), and at each flip the distance between where the finger really is then (the
/// recording, interpolated) and where the map point that was under it at touch-down is drawn.
/// Run with and without touch prediction, it gives `lag_*` and `prediction_lag_*`; the
/// overshoot is how far the drawn map runs ahead of a finger that is stopping.
public struct LagModel {
    public struct Result {
        /// Finger-to-map distance at each flip (px), for every finger down while the camera followed.
        public var lags: [Double] = []
        /// At flips where the finger was stopping: how far the map point was drawn beyond the
        /// finger along its direction of travel (px, 0 when behind it).
        public var overshoots: [Double] = []
        public var frames = 0
        /// One line per finger per flip (time from the recording's start, stroke, lag, ahead,
        /// stopping): filled only when `trace` is set (TOUCHBRIDGE_LAG_TRACE, for studying a recording).
        public var trace: [String] = []

        public mutating func append(_ o: Result) {
            lags += o.lags; overshoots += o.overshoots; frames += o.frames
        }
    }

    /// One finger from touch-down to lift, as the recording has it.
    struct Stroke {
        var id: Int
        var samples: [(t: Double, p: Point)]
        var end: Double = .infinity
        /// The map point under the finger at touch-down.
        var start: Coordinate?

        /// Where the finger is at `t` (linear between reports; held after the last one).
        func position(at t: Double) -> Point {
            guard let last = samples.last else { return .zero }
            if t >= last.t { return last.p }
            if t <= samples[0].t { return samples[0].p }
            var lo = 0, hi = samples.count - 1
            while hi - lo > 1 { let m = (lo + hi) / 2; if samples[m].t <= t { lo = m } else { hi = m } }
            let a = samples[lo], b = samples[hi]
            let k = (t - a.t) / (b.t - a.t)
            return a.p + (b.p - a.p) * k
        }
    }

    public var screen = Size(width: 1920, height: 1080)
    public var refreshHz = 60.0
    /// Time to draw one frame (s): the measured pan frame.
    public var frameTime = 0.003
    public var prediction = false
    /// Predictor settings to try instead of the kiosk's (scaled from the device's density).
    public var settings: TouchPredictor.Settings?
    /// Fill `Result.trace`.
    public var trace = false
    /// Where the finger is at a flip: the recording interpolated between the reports before and
    /// after the flip (true), or, as measured before issue 29, the newest report received by the
    /// flip held (false: a finger between two reports counted as standing still, so a
    /// prediction that was right counted as running ahead of it, and a report gap as a stop).
    public var interpolatedTruth = true

    public init() {}

    /// TOUCHBRIDGE_PREDICT="uncertainty=0.2,quietIntervals=1.25,quietFade=0.5,maxLead=0.05,window=0.06"
    /// overrides predictor settings for the lag figures (for tuning; the kiosk does not read it);
    /// also `minSpeed` (px/s) or `minSpeedMM` (mm/s), `maxDistance`, `newestStepSlack`,
    /// `noiseMultiple`, `fullSpeed`, and `grid=0` (predict for the median draw-to-flip time, not
    /// for the vertical blank each frame makes).
    static func adjust(_ s: inout TouchPredictor.Settings, _ prediction: FramePrediction? = nil, pixelsPerMillimetre ppm: Double = 1) {
        guard let text = ProcessInfo.processInfo.environment["TOUCHBRIDGE_PREDICT"] else { return }
        for part in text.split(separator: ",") {
            let kv = part.split(separator: "=")
            guard kv.count == 2, let v = Double(kv[1]) else { continue }
            switch kv[0] {
            case "uncertainty": s.uncertainty = v
            case "quietIntervals": s.quietIntervals = v
            case "quietFade": s.quietFade = v
            case "maxLead": s.maxLead = v
            case "window": s.window = v
            case "minSpeed": s.minSpeed = v
            case "minSpeedMM": s.minSpeed = v * ppm
            case "newestStepSlack": s.newestStepSlack = v
            case "noiseMultiple": s.noiseMultiple = v
            case "fullSpeed": s.fullSpeed = v
            case "maxDistance": s.maxDistance = v
            case "grid": prediction?.usesFlipGrid = v != 0
            default: break
            }
        }
    }

    public func run(_ recording: Evemu.Recording) -> Result {
        let density = Replay.density(for: recording.capabilities, screen: screen)
        // A city-scale view, so that no drag reaches the edge of the world (where the camera
        // stops and the finger goes on).
        var cfg = KioskConfiguration()
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47.14, longitude: 9.52), zoom: 12)
        let pipeline = MapPipeline(configuration: cfg, screen: screen, density: density)
        var ps = settings ?? .init(pixelsPerMillimetre: density.pixelsPerMillimetre)
        Self.adjust(&ps, pixelsPerMillimetre: density.pixelsPerMillimetre)
        let predict = prediction ? FramePrediction(settings: ps, refreshHz: refreshHz) : nil
        Self.adjust(&ps, predict)
        pipeline.prediction = predict
        var assembler = FrameAssembler(capabilities: recording.capabilities, screen: screen)
        var frames: [ContactFrame] = []
        for e in recording.events { if let f = assembler.process(e) { frames.append(f) } }
        guard let t0 = recording.events.first?.time, !frames.isEmpty else { return Result() }

        var strokes: [Stroke] = []
        var open: [Int: Int] = [:]          // contact id -> stroke index
        // Each stroke's whole path, in the order the strokes start (the loop below opens them in
        // the same order): where the finger really is at a flip between two reports.
        var paths: [[(t: Double, p: Point)]] = []
        do {
            var ids: [Int: Int] = [:]
            for f in frames {
                for id in ids.keys where f.contact(id: id) == nil { ids[id] = nil }
                for c in f.contacts {
                    if let k = ids[c.id] { paths[k].append((f.time, c.position)) } else {
                        ids[c.id] = paths.count
                        paths.append([(f.time, c.position)])
                    }
                }
            }
        }
        let period = 1 / refreshHz
        var result = Result()
        var pending: (flip: Double, camera: CameraPosition, drawTime: Double, following: Bool)? = nil
        var i = 0

        func draw(at t: Double) {
            pipeline.advance(to: t)
            _ = pipeline.takeNeedsRedraw()
            let camera = predict?.camera(for: pipeline.controller, now: t) ?? pipeline.controller.camera
            predict?.didDraw(at: t)
            let ready = t + frameTime
            let flip = t0 + (((ready - t0) / period).rounded(.down) + 1) * period
            pending = (flip, camera, t, pipeline.controller.followsFingers)
        }

        func measure(flip v: Double, camera: CameraPosition) {
            result.frames += 1
            let proj = Projection(camera: camera, screen: screen)
            for (k, received) in strokes.enumerated() where received.samples[0].t <= v && v < received.end {
                var s = received
                if interpolatedTruth, k < paths.count { s.samples = paths[k] }
                guard let c = s.start, let drawn = proj.point(for: c) else { continue }
                let finger = s.position(at: v)
                result.lags.append(drawn.distance(to: finger))
                // Stopping: the last 20 ms much slower than the 100 ms before them.
                let recent = s.position(at: v).distance(to: s.position(at: v - 0.02)) / 0.02
                let before = s.position(at: v - 0.02).distance(to: s.position(at: v - 0.12)) / 0.1
                let travel = finger - s.position(at: v - 0.12)
                var stopAhead: Double? = nil
                if before > 100, recent < 0.25 * before, travel.length > 3 {
                    let u = travel / travel.length
                    let ahead = (drawn.x - finger.x) * u.x + (drawn.y - finger.y) * u.y
                    result.overshoots.append(max(0, ahead))
                    stopAhead = ahead
                }
                if trace {
                    result.trace.append(String(format: "%.4f %d lag %.1f finger %.1f %.1f drawn %.1f %.1f speed %.0f %@",
                                               v - t0, s.id, drawn.distance(to: finger), finger.x, finger.y, drawn.x, drawn.y,
                                               recent, stopAhead.map { String(format: "STOP ahead %.1f", $0) } ?? ""))
                }
            }
        }

        pipeline.begin(at: t0)
        let end = frames.last!.time + 0.5
        var guardCount = 0
        while guardCount < 1_000_000 {
            guardCount += 1
            let nextInput = i < frames.count ? frames[i].time : Double.infinity
            let nextFlip = pending?.flip ?? .infinity
            var nextWake = pipeline.nextDeadline ?? .infinity
            if pending == nil, let s = predict?.settleAt { nextWake = min(nextWake, s) }
            let t = min(nextInput, nextFlip, nextWake)
            if t == .infinity || t > end { break }
            if t == nextFlip, let p = pending {
                if p.following { measure(flip: p.flip, camera: p.camera) }
                predict?.frameFlipped(drawnAt: p.drawTime, flippedAt: p.flip)
                pending = nil
                if pipeline.takeNeedsRedraw() { draw(at: t) }
            } else if t == nextInput {
                let f = frames[i]
                i += 1
                for s in open.keys where f.contact(id: s) == nil {
                    strokes[open[s]!].end = f.time
                    open[s] = nil
                }
                pipeline.handle(f)
                for c in f.contacts {
                    if let k = open[c.id] { strokes[k].samples.append((f.time, c.position)) } else {
                        open[c.id] = strokes.count
                        strokes.append(Stroke(id: c.id, samples: [(f.time, c.position)],
                                              start: pipeline.controller.projection.coordinate(at: c.position)))
                    }
                }
                if pending == nil, pipeline.takeNeedsRedraw() { draw(at: t) }
            } else {
                if pending == nil, let s = predict?.settleAt, s <= t { predict?.settleAt = nil; pipeline.setNeedsRedraw() }
                pipeline.advance(to: t)
                if pending == nil, pipeline.takeNeedsRedraw() { draw(at: t) }
            }
        }
        return result
    }
}

extension Benchmarks {
    /// The recordings the lag figures play: every evemu recording beside `--recording` (the
    /// repository's fixtures by default) that has a device description.
    func lagRecordings() -> [String] {
        guard let path = options.recording else { return [] }
        let dir = URL(fileURLWithPath: path).deletingLastPathComponent()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []
        return names.filter { $0.hasSuffix(".events") }.sorted().map { dir.appendingPathComponent($0).path }
    }

    /// `lag_*` and `prediction_*`: finger-to-map distance at each flip on the real recordings,
    /// with the measured 1080p pan frame as the frame time and a 60 Hz display.
    /// Set TOUCHBRIDGE_BENCH_ONLY=lag to run only `lag` (deterministic: pure arithmetic on the
    /// recordings), with a fixed frame time (TOUCHBRIDGE_BENCH_FRAME_MS, default 0.6 ms, the
    /// quiet machine's `render_pan_1080p_ms`) instead of the measured one.
    static var onlyLag: Bool { ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_ONLY"] == "lag" }
    static var lagOnlyFrameMS: Double {
        ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_FRAME_MS"].flatMap(Double.init) ?? 0.6
    }

    /// A key-safe short name of a recording: "N-Trig MultiTouch.1-finger-drag-NW-SE" ->
    /// "n_trig_multitouch_1_finger_drag_nw_se".
    static func recordingSlug(_ name: String) -> String {
        var out = ""
        for ch in name.lowercased() {
            if ch.isLetter || ch.isNumber { out.append(ch) } else if !out.hasSuffix("_") { out.append("_") }
        }
        while out.hasSuffix("_") { out.removeLast() }
        return out
    }

    mutating func lag() throws {
        let frameMS = Self.onlyLag ? Self.lagOnlyFrameMS : figures.first { $0.key == "render_pan_1080p_ms" }?.value ?? 3
        var plain = LagModel(), predicted = LagModel()
        let tracePath = ProcessInfo.processInfo.environment["TOUCHBRIDGE_LAG_TRACE"]
        plain.trace = tracePath != nil
        predicted.trace = tracePath != nil
        if ProcessInfo.processInfo.environment["TOUCHBRIDGE_LAG_HELD"] == "1" {
            plain.interpolatedTruth = false
            predicted.interpolatedTruth = false
        }
        var traceText = ""
        plain.frameTime = frameMS / 1000
        predicted.frameTime = frameMS / 1000
        predicted.prediction = true
        var off = LagModel.Result(), on = LagModel.Result()
        var perRecording: [(slug: String, off: LagModel.Result, on: LagModel.Result)] = []
        for path in lagRecordings() {
            guard let rec = try? Replay.load(path: path, descPath: nil) else { continue }
            let a = plain.run(rec), b = predicted.run(rec)
            guard !a.lags.isEmpty else { continue }
            let name = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
            progress(String(format: "    %@: %d flips, lag p50 %.1f px, p95 %.1f px; predicted p50 %.1f, p95 %.1f, overshoot max %.1f px",
                            name, a.lags.count, BenchSupport.percentile(a.lags, 50), BenchSupport.percentile(a.lags, 95),
                            BenchSupport.percentile(b.lags, 50), BenchSupport.percentile(b.lags, 95), b.overshoots.max() ?? 0))
            off.append(a)
            on.append(b)
            perRecording.append((Self.recordingSlug(name), a, b))
            if tracePath != nil {
                traceText += "# \(name) off\n" + a.trace.joined(separator: "\n") + "\n# \(name) on\n" + b.trace.joined(separator: "\n") + "\n"
            }
        }
        if let tracePath { try traceText.write(toFile: tracePath, atomically: true, encoding: .utf8) }
        guard !off.lags.isEmpty else { return }
        add("lag_p50_px", BenchSupport.percentile(off.lags, 50), "px", "finger to map point at flip, no prediction, p50 (\(off.lags.count) samples)")
        add("lag_p95_px", BenchSupport.percentile(off.lags, 95), "px", "  p95")
        add("prediction_lag_p50_px", BenchSupport.percentile(on.lags, 50), "px", "finger to map point at flip, touch prediction, p50")
        add("prediction_lag_p95_px", BenchSupport.percentile(on.lags, 95), "px", "  p95")
        add("prediction_overshoot_px", on.overshoots.max() ?? 0, "px", "map drawn past a stopping finger, max (\(on.overshoots.count) stop frames)")
        // Per recording (issue 29): the worst stop of each, and its lag with and without prediction.
        var worst = 0.0
        for r in perRecording {
            let o = r.on.overshoots.max() ?? 0
            worst = max(worst, o)
            add("prediction_overshoot_px_\(r.slug)", o, "px", "  \(r.slug): overshoot max (\(r.on.overshoots.count) stop frames)")
            add("lag_p95_px_\(r.slug)", BenchSupport.percentile(r.off.lags, 95), "px", "  \(r.slug): lag p95, no prediction")
            add("prediction_lag_p95_px_\(r.slug)", BenchSupport.percentile(r.on.lags, 95), "px", "  \(r.slug): lag p95, prediction")
        }
        add("prediction_overshoot_max_recording", worst, "px", "largest per-recording overshoot max (\(perRecording.count) recordings)")
    }
}
