import Foundation
import Testing
import TouchCore
import MapEngine
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

/// Touch prediction moves the picture only: a real recording through the kiosk façade (a
/// MapView on a memory display, a frame drawn after each input frame) gives, with prediction off
/// and on, the event stream `touchbridge replay` wrote for it before prediction existed.
@Suite struct PredictionTests {
    static let fixtures = repoRoot.appendingPathComponent("Tests/TouchCoreTests/Fixtures")
    static let recording = fixtures.appendingPathComponent("evemu/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events").path
    /// `touchbridge replay <recording> --config streams/pixels-per-mm-4.toml --screen 1280x800` (replay
    /// has no prediction); regenerated when the recogniser changes the stream on purpose.
    static let golden = fixtures.appendingPathComponent("streams/Atmel 1-finger-drag-up-down.main.jsonl").path

    struct Run { var lines: [String]; var drawn: [CameraPosition]; var real: [CameraPosition] }

    func kiosk(prediction: Bool) throws -> Run {
        var cfg = try KioskConfiguration.load(path: Self.fixtures.appendingPathComponent("streams/pixels-per-mm-4.toml").path)
        var t = KioskConfiguration.TouchSettings(match: .path("/nonexistent/event99"))   // no real devices here
        t.prediction = prediction
        cfg.touch = [t]
        let view = try MapView(configuration: cfg, display: MemoryDisplay(width: 1280, height: 800), log: KioskLog(level: .error))
        var run = Run(lines: [], drawn: [], real: [])
        view.pipeline.sink = { run.lines.append($0) }
        let rec = try Replay.load(path: Self.recording, descPath: nil)
        var a = FrameAssembler(capabilities: rec.capabilities, screen: view.screen)
        view.pipeline.start()
        view.pipeline.begin(at: rec.events[0].time)
        for e in rec.events {
            guard let f = a.process(e) else { continue }
            view.feed(f, from: "recording")
            let now = f.time   // drawn as the frame arrives (replay's clock is the input's)
            view.pipeline.advance(to: now)
            if view.pipeline.takeNeedsRedraw() {
                run.drawn.append(view.pipeline.drawingScene(attribution: nil, now: now).camera)
                run.real.append(view.controller.camera)
                view.drawAndPresent(now: now)
            }
        }
        view.pipeline.finish()
        return run
    }

    @Test func predictionOffAndOnGiveTheSameEventStreamAsBefore() throws {
        let golden = try String(contentsOfFile: Self.golden, encoding: .utf8).split(separator: "\n").map(String.init)
        let off = try kiosk(prediction: false)
        let on = try kiosk(prediction: true)
        #expect(golden.count > 100)
        #expect(firstDifference(off.lines, golden) == nil)
        #expect(firstDifference(on.lines, golden) == nil)
        // Off: every frame shows the controller's camera. On: the drag's frames lead it.
        #expect(off.drawn == off.real)
        let leads = zip(on.drawn, on.real).filter { $0.0 != $0.1 }.count
        #expect(leads > on.drawn.count / 3)
    }

    /// The first line where two streams differ (short enough to read in a failure), nil when equal.
    func firstDifference(_ a: [String], _ b: [String]) -> String? {
        for i in 0..<max(a.count, b.count) where i >= a.count || i >= b.count || a[i] != b[i] {
            return "line \(i + 1): \(i < a.count ? a[i] : "(none)") != \(i < b.count ? b[i] : "(none)")"
        }
        return nil
    }

    @Test func theConfigurationTurnsItOffAndSetsTheLatency() throws {
        let cfg = try KioskConfiguration.parse(text: "[[touch]]\nmatch = \"auto\"\n[[touch]]\nprediction = false\nprediction_latency_ms = 20\n", file: "t.toml")
        #expect(cfg.touch[0].prediction && !cfg.touch[1].prediction)
        #expect(!cfg.touchPrediction)
        #expect(cfg.predictionLatency == 0.02)
        #expect(KioskConfiguration().touchPrediction && KioskConfiguration().predictionLatency == nil)
        do {
            _ = try KioskConfiguration.parse(text: "[[touch]]\nprediction_latency_ms = -4\n", file: "t.toml")
            Issue.record("a negative latency was accepted")
        } catch let e as ConfigError {
            #expect(e.description.contains("prediction_latency_ms"))
        }
    }

    @Test func predictionShortensTheLagOnARealDrag() throws {
        let rec = try Replay.load(path: Self.recording, descPath: nil)
        var model = LagModel()
        let off = model.run(rec)
        model.prediction = true
        let on = model.run(rec)
        #expect(off.lags.count > 30 && on.lags.count == off.lags.count)
        #expect(BenchSupport.median(on.lags) < 0.5 * BenchSupport.median(off.lags))
        #expect((on.overshoots.max() ?? 0) < BenchSupport.median(off.lags))
    }

    /// A 1280x800 map view on a memory display with touch prediction for a fixed 30 ms
    /// draw-to-flip time.
    static func predictingView() throws -> MapView {
        var cfg = KioskConfiguration()
        var t = KioskConfiguration.TouchSettings(match: .path("/nonexistent/event99"))
        t.predictionLatencyMS = 30
        cfg.touch = [t]
        return try MapView(configuration: cfg, display: MemoryDisplay(width: 1280, height: 800), log: KioskLog(level: .error))
    }

    /// A pinch that stops with the fingers still down: the predicted frames lead in scale (the
    /// focal point stays put), and a still finger sends no input, so the kiosk must ask for a
    /// frame of its own that shows the real camera once the fingers have gone quiet.
    @Test func aStillPinchIsRedrawnWithoutItsPredictedScale() throws {
        let view = try Self.predictingView()
        var script = TouchScript(screen: view.screen)
        var a = FrameAssembler(capabilities: script.device, screen: view.screen)
        // Spread at a constant speed about the screen's centre, then hold.
        for i in 0...40 {
            let d = 100 + Double(i) * 5
            script.frame([0: Point(x: 640 - d, y: 400), 1: Point(x: 640 + d, y: 400)])
            if i < 40 { script.wait(1.0 / 120) }
        }
        var lastDrawn: CameraPosition?
        var lastTime = 0.0
        for e in script.events {
            guard let f = a.process(e) else { continue }
            view.feed(f, from: "script")
            lastDrawn = view.pipeline.drawingScene(attribution: nil, now: f.time).camera
            view.pipeline.prediction?.didDraw(at: f.time)
            lastTime = f.time
        }
        let real = view.controller.camera
        let drawn = try #require(lastDrawn)
        // The last frame led the fingers in zoom only.
        #expect(drawn.zoom > real.zoom + 0.01)
        #expect(abs(drawn.target.latitude - real.target.latitude) < 1e-3)
        // ... and a redraw is due, which shows the real camera.
        let settle = try #require(view.pipeline.prediction?.settleAt)
        #expect(settle > lastTime && settle < lastTime + 0.1)
        let atSettle = view.pipeline.drawingScene(attribution: nil, now: settle).camera
        #expect(abs(atSettle.zoom - real.zoom) < 1e-9)
    }

    /// A pinch slowing to a stop while the panel still reports: the frames drawn then lead the
    /// fingers by well under a pixel, which is enough to change the zoom or the whole-pixel
    /// offset of the picture. Each such frame asks for a redraw, so the last frame on the glass
    /// is never a predicted one (the kiosk VM's screenshot after the tour's pinch was once a
    /// pixel off the camera the stream reported).
    @Test(arguments: [30.0, 35.0])
    func aFrameLeadingByLessThanAPixelStillAsksForARedraw(speed: Double) throws {
        let view = try Self.predictingView()
        var script = TouchScript(screen: view.screen)
        var a = FrameAssembler(capabilities: script.device, screen: view.screen)
        // Both fingers move apart at `speed` px/s (6 to 7 mm/s at this panel's 5 px/mm; 12 to
        // 14 mm/s before issue 29's session 12 halved the tremor speed), reported at 120 Hz.
        for i in 0...60 {
            let d = 100 + Double(i) * speed / 120
            script.frame([0: Point(x: 640 - d, y: 400), 1: Point(x: 640 + d, y: 400)])
            if i < 60 { script.wait(1.0 / 120) }
        }
        var smallLeads = 0
        for e in script.events {
            guard let f = a.process(e) else { continue }
            view.feed(f, from: "script")
            let drawn = view.pipeline.drawingScene(attribution: nil, now: f.time).camera
            view.pipeline.prediction?.didDraw(at: f.time)
            guard let p = view.pipeline.prediction else { continue }
            if drawn != view.controller.camera {
                #expect(p.settleAt != nil, "a frame drawn \(p.lastLead) px ahead asks for no redraw")
                if p.lastLead <= 0.25 { smallLeads += 1 }
            }
        }
        // At these speeds (just above the tremor speed, where the lead fades in) the frames
        // lead by 0.01 to 0.25 px: the case this test is about.
        #expect(smallLeads > 0)
    }


    // MARK: issue 29: the camera a person sees, frame by frame, at 60 and 120 Hz with jitter

    /// Deterministic noise in -1...1.
    static func noise(_ i: Int) -> Double {
        var x = UInt64(i + 1) &* 0x9E3779B97F4A7C15
        x = (x ^ (x >> 30)) &* 0xBF58476D1CE4E5B9
        x = (x ^ (x >> 27)) &* 0x94D049BB133111EB
        x ^= x >> 31
        return Double(x % 20_001) / 10_000 - 1
    }

    /// A 1280x800 pipeline at 5 px/mm predicting for a fixed 30 ms draw-to-flip time.
    static func predictingPipeline() -> (MapPipeline, Double) {
        let pipeline = MapPipeline(configuration: KioskConfiguration(), screen: Size(width: 1280, height: 800),
                                   density: PixelDensity(pixelsPerMillimetre: 5, source: .deviceResolution))
        let latency = 0.03
        pipeline.prediction = FramePrediction(settings: .init(pixelsPerMillimetre: 5), fixedLatency: latency)
        return (pipeline, latency)
    }

    /// A drag that comes to rest the way a hand does (minimum jerk: 360 px in 0.4 s, then held
    /// with the panel still reporting), drawn once per report: no frame shows the map point
    /// that started under the finger past where the finger is when that frame reaches the glass
    /// (4 px at most, the issue's bound), nor past where the finger comes to rest; and while it
    /// moves, prediction at least halves the mean lag.
    @Test(arguments: [60.0, 120.0])
    func aDragComingToRestIsNeverDrawnPastTheFinger(hz: Double) throws {
        let (pipeline, latency) = Self.predictingPipeline()
        let screen = Size(width: 1280, height: 800)
        let t0 = 1.0, duration = 0.4, distance = 360.0
        func x(_ t: Double) -> Double {
            let u = min(max((t - t0) / duration, 0), 1)
            return 300 + distance * (10 * u * u * u - 15 * u * u * u * u + 6 * u * u * u * u * u)
        }
        let rest = x(t0 + 1)
        pipeline.begin(at: 0)
        var start: Coordinate?
        var worstAhead = -Double.infinity, worstPastRest = -Double.infinity
        var lagOn = 0.0, lagOff = 0.0, moving = 0
        let n = Int((duration + 0.3) * hz)
        for k in 0...n {
            let t = t0 + (Double(k) + 0.1 * Self.noise(3 * k + 2)) / hz      // reports +-10 % off the period
            let p = Point(x: x(t) + 0.3 * Self.noise(3 * k), y: 400 + 0.3 * Self.noise(3 * k + 1))
            pipeline.handle(ContactFrame(time: t, contacts: [Contact(id: 1, position: p)]))
            if start == nil { start = pipeline.controller.projection.coordinate(at: p) }
            pipeline.advance(to: t)
            let drawnCamera = pipeline.drawingScene(attribution: nil, now: t).camera
            pipeline.prediction?.didDraw(at: t)
            guard pipeline.controller.followsFingers else { continue }
            let drawn = try #require(Projection(camera: drawnCamera, screen: screen).point(for: start!))
            let real = try #require(Projection(camera: pipeline.controller.camera, screen: screen).point(for: start!))
            let glass = x(t + latency)          // where the finger is when this frame is seen
            worstAhead = max(worstAhead, drawn.x - glass)
            worstPastRest = max(worstPastRest, drawn.x - rest)
            if t + latency < t0 + duration * 0.8 && t > t0 + 0.1 {
                lagOn += abs(glass - drawn.x); lagOff += abs(glass - real.x); moving += 1
            }
        }
        print("feel: drag coming to rest @ \(Int(hz)) Hz: drawn at most \(String(format: "%.2f", worstAhead)) px ahead of the finger, "
              + "\(String(format: "%.2f", worstPastRest)) px past its rest; mean lag \(String(format: "%.1f", lagOff / Double(max(moving, 1)))) -> "
              + "\(String(format: "%.1f", lagOn / Double(max(moving, 1)))) px")
        #expect(moving > 5)
        #expect(worstAhead <= 4, "a frame drawn \(worstAhead) px ahead of the finger")
        #expect(worstPastRest <= 1, "a frame drawn \(worstPastRest) px past where the finger comes to rest")
        #expect(lagOn < 0.5 * lagOff, "mean lag \(lagOff / Double(moving)) -> \(lagOn / Double(moving)) px")
    }

    /// A pinch with the thumb resting, drawn with prediction once per report: the predicted
    /// frames, too, keep the thumb's touch-down map point under it (within 1 px) on every frame
    /// from the pinch's recognition.
    @Test(arguments: [60.0, 120.0])
    func predictedFramesOfAPinchAboutARestingFingerKeepItsMapPoint(hz: Double) throws {
        let (pipeline, _) = Self.predictingPipeline()
        let screen = Size(width: 1280, height: 800)
        pipeline.begin(at: 0)
        let thumb = Point(x: 450, y: 400)
        var thumb0: Coordinate?
        var worst = 0.0, checked = 0
        let n = Int(0.7 * hz)
        for k in 0...n {
            let t = 1 + (Double(k) + 0.1 * Self.noise(5 * k + 4)) / hz
            let u = min(1, max(0, (t - 1.05) / 0.5))
            let index = Point(x: 650 + 180 * u, y: 400)
            let a = thumb + Point(x: 0.3 * Self.noise(5 * k), y: 0.3 * Self.noise(5 * k + 1))
            let b = index + Point(x: 0.3 * Self.noise(5 * k + 2), y: 0.3 * Self.noise(5 * k + 3))
            pipeline.handle(ContactFrame(time: t, contacts: [Contact(id: 1, position: a), Contact(id: 2, position: b)]))
            if thumb0 == nil { thumb0 = pipeline.controller.projection.coordinate(at: a) }
            pipeline.advance(to: t)
            let drawnCamera = pipeline.drawingScene(attribution: nil, now: t).camera
            pipeline.prediction?.didDraw(at: t)
            guard pipeline.controller.followsFingers else { continue }   // from the frame the pinch is recognised
            let drawn = try #require(Projection(camera: drawnCamera, screen: screen).point(for: thumb0!))
            worst = max(worst, drawn.distance(to: a))
            checked += 1
        }
        print("feel: predicted resting-finger pinch @ \(Int(hz)) Hz: thumb's map point at most \(String(format: "%.2f", worst)) px from it over \(checked) frames")
        #expect(checked > 10)
        #expect(worst <= 1, "the thumb's map point was drawn \(worst) px from it")
    }
}
