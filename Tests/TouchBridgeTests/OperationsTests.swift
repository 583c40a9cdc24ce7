import Foundation
import Testing
import TouchCore
import Gestures
import MapEngine
@testable import TouchBridge
@testable import Kiosk

/// An operator's kiosk (issue 30): blanking and wake, the attract tour, stats and the metrics
/// textfile, driven with explicit times through the map view's own entry points (`feed`, as
/// each touchscreen frame arrives, and `operationsTick`, as the loop calls it before sleeping).
@Suite struct OperationsTests {
    final class Recorder: MapViewDelegate {
        var calls: [String] = []
        func willMove(gesture: Bool) { calls.append("willMove") }
        func didTapAt(_ c: Coordinate) { calls.append("didTapAt") }
        func idleAt(_ camera: CameraPosition) { calls.append("idleAt") }
    }

    static let home = CameraPosition(target: Coordinate(latitude: 47, longitude: 6), zoom: 5)

    func makeView(_ edit: (inout KioskConfiguration) -> Void = { _ in }) throws -> (Kiosk, MemoryDisplay, Recorder) {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))] // no real devices on this host
        cfg.map.camera = Self.home
        edit(&cfg)
        let display = MemoryDisplay(width: 1280, height: 800)
        let view = try Kiosk(configuration: cfg, display: display, log: KioskLog(level: .error))
        let rec = Recorder()
        view.delegate = rec
        view.operations.lastTouch = 0   // the idle clock starts at t = 0 (explicit times below)
        view.pipeline.begin(at: 0)
        return (view, display, rec)
    }

    /// A tap's frames (down, lift) at `time`, as a touchscreen reports them.
    func tapFrames(_ view: Kiosk, at time: Double, _ p: Point = Point(x: 500, y: 300)) -> [ContactFrame] {
        var s = TouchScript(screen: view.screen, start: time)
        s.tap(p)
        var asm = FrameAssembler(capabilities: s.device, screen: view.screen)
        return s.events.compactMap { asm.process($0) }
    }

    /// Draws as the loop does when the map view says it needs to.
    func drawIfNeeded(_ view: Kiosk, now: Double) {
        view.pipeline.advance(to: now)
        if view.pipeline.takeNeedsRedraw() { view.drawAndPresent(now: now) }
    }

    @Test func theDisplayBlanksAfterIdleAndTheWakingTouchIsNotAGesture() throws {
        let (view, display, rec) = try makeView { $0.operations.blankAfter = 30 }
        drawIfNeeded(view, now: 1)
        let drawn = display.presented
        #expect(drawn == 1)
        // Not yet: the loop is told to come back at 30 s.
        #expect(view.operationsTick(now: 29) == 30)
        #expect(display.powered && !view.isBlanked)
        #expect(view.operationsTick(now: 30) == nil)
        #expect(!display.powered && view.isBlanked)
        #expect(view.stats.displayBlanked && view.stats.blanks == 1)
        // A blanked kiosk draws nothing, even when asked to.
        view.pipeline.setNeedsRedraw()
        drawIfNeeded(view, now: 31)
        #expect(display.presented == drawn)
        // The waking tap: the screen comes on and shows a frame; no tap reaches the app.
        for f in tapFrames(view, at: 40) { view.feed(f, from: "/dev/input/event3") }
        #expect(display.powered && !view.isBlanked)
        view.pipeline.advance(to: 41)
        #expect(rec.calls.isEmpty)
        #expect(view.pipeline.contactsDown == 0)
        drawIfNeeded(view, now: 41)
        #expect(display.presented == drawn + 1)
        // The next tap is a tap; the idle clock restarted at the waking touch.
        for f in tapFrames(view, at: 50) { view.feed(f, from: "/dev/input/event3") }
        view.pipeline.advance(to: 51)
        #expect(rec.calls == ["didTapAt"])
        #expect(view.operationsTick(now: 51).map { abs($0 - 80.06) < 0.01 } == true)
        #expect(view.stats.touches == 2)
        #expect(view.stats.gestures[.tap] == 1)
    }

    @Test func theAttractTourPlaysWhenIdleAndAVisitorsTouchStopsIt() throws {
        let (view, _, rec) = try makeView { $0.operations.attractAfter = 60 }
        var lines: [String] = []
        view.pipeline.sink = { lines.append($0) }
        view.pipeline.sinkHasReader = { true }
        #expect(view.operationsTick(now: 59) == 60)
        #expect(view.operationsTick(now: 60) == 60 + Kiosk.attractLead)
        #expect(view.isAttractPlaying && view.stats.attractRuns == 1)
        // Play 8 s of the tour, as the loop would, waking when the next frame is due.
        #expect(playTour(view, from: 60, until: 69))
        let tour = lines.filter { $0.contains("\"type\":\"gesture\"") }
        #expect(!tour.isEmpty)
        #expect(tour.allSatisfy { $0.hasSuffix(",\"attract\":true}") })
        #expect(view.stats.gestures.values.reduce(0, +) == 0)   // the tour is not visitors' use
        #expect(rec.calls.contains("didTapAt"))                 // the app sees it as it would be seen
        // A visitor's finger comes down (held, then lifted): the tour's fingers are cancelled,
        // the camera heads home, and the visitor's touch is no tap.
        rec.calls = []
        lines = []
        let frames = tapFrames(view, at: 69.5, Point(x: 300, y: 300))
        view.feed(frames[0], from: "/dev/input/event3")
        #expect(!view.isAttractPlaying && view.pipeline.lineMark == nil)
        #expect(view.pipeline.contactsDown == 0)
        #expect(view.controller.animationTarget == Self.home || view.controller.camera == Self.home)
        for f in frames.dropFirst() { view.feed(f, from: "/dev/input/event3") }
        view.pipeline.advance(to: 75)
        #expect(!rec.calls.contains("didTapAt"))
        #expect(view.controller.camera == Self.home)
        #expect(!lines.contains { $0.contains("attract") && $0.contains("\"type\":\"gesture\"") && $0.contains("began") })
        // Idle again: the next tour starts 60 s after that touch.
        #expect(view.operationsTick(now: 80).map { abs($0 - 129.56) < 0.01 } == true)
    }

    /// The tour's last gesture is a tap, confirmed doubleTapTimeout after its lift: a visitor
    /// who touches in between stops the tour, and that pending tap is dropped with it, not
    /// reported (unmarked) or counted as the visitor's (a VM run under load caught it).
    @Test func aTourTapStillPendingWhenAVisitorTouchesIsDroppedWithTheTour() throws {
        let (view, _, rec) = try makeView { $0.operations.attractAfter = 60 }
        var lines: [String] = []
        view.pipeline.sink = { lines.append($0) }
        view.pipeline.sinkHasReader = { true }
        _ = view.operationsTick(now: 60)
        let tour = try #require(view.operations.tour)
        let start = try #require(view.operations.attract?.startedAt)
        let lastLift = start + tour.duration
        #expect(tour.frames.last?.contacts.isEmpty == true)
        // Play up to 50 ms after the tour's last lift: its tap is pending.
        _ = playTour(view, from: 60, until: lastLift + 0.05)
        #expect(view.isAttractPlaying)
        rec.calls = []
        lines = []
        let frames = tapFrames(view, at: lastLift + 0.1, Point(x: 300, y: 300))
        for f in frames { view.feed(f, from: "/dev/input/event3") }
        #expect(!view.isAttractPlaying)
        view.pipeline.advance(to: lastLift + 2)
        let taps = lines.filter { $0.contains("\"type\":\"gesture\"") && $0.contains("\"tap\"") }
        #expect(taps.isEmpty, "\(taps)")
        #expect(!rec.calls.contains("didTapAt"))
        #expect(view.stats.gestures.values.reduce(0, +) == 0)
    }

    /// Plays the attract tour from `start` to `end` as the loop would (waking when the next
    /// frame is due); whether the camera left home on the way.
    func playTour(_ view: Kiosk, from start: Double, until end: Double) -> Bool {
        var t = start
        var moved = false
        while t < end {
            let next = view.operationsTick(now: t) ?? t + 0.5
            t = min(max(next, t + 0.001), end)
            view.pipeline.advance(to: t)
            if view.controller.camera != Self.home { moved = true }
        }
        return moved
    }

    /// `attract = "PATH"`: a recording made with `touchbridge record` (evemu) plays as the tour,
    /// through the same pipeline, its lines marked.
    @Test func anEvemuRecordingPlaysAsTheTour() throws {
        let rec = repoRoot.appendingPathComponent("Tests/TouchCoreTests/Fixtures/evemu/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events").path
        let (view, _, _) = try makeView { $0.operations.attractAfter = 30; $0.operations.attract = rec }
        var lines: [String] = []
        view.pipeline.sink = { lines.append($0) }
        view.pipeline.sinkHasReader = { true }
        _ = view.operationsTick(now: 30)
        #expect(view.isAttractPlaying)
        #expect(playTour(view, from: 30, until: 45))
        let gestures = lines.filter { $0.contains("\"type\":\"gesture\"") }
        #expect(gestures.contains { $0.contains("\"gesture\":\"pan\"") }, "\(gestures)")
        #expect(gestures.allSatisfy { $0.hasSuffix(",\"attract\":true}") })
        #expect(view.stats.gestures.values.reduce(0, +) == 0)
    }

    @Test func blankingStopsTheTourAndDimsTheBacklight() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("tb-backlight-\(getpid())").path
        try FileManager.default.createDirectory(atPath: root + "/panel", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        try "255\n".write(toFile: root + "/panel/max_brightness", atomically: true, encoding: .utf8)
        try "255\n".write(toFile: root + "/panel/brightness", atomically: true, encoding: .utf8)
        let (view, display, _) = try makeView { $0.operations.attractAfter = 10; $0.operations.blankAfter = 20; $0.operations.backlightDim = 3 }
        view.operations.backlight = Backlight(name: "panel", root: root)
        _ = view.operationsTick(now: 10)
        #expect(view.isAttractPlaying)
        var t = 10.0
        while t < 20 { t = min(max(view.operationsTick(now: t) ?? 20, t + 0.001), 20); view.pipeline.advance(to: t) }
        _ = view.operationsTick(now: 20)
        #expect(view.isBlanked && !view.isAttractPlaying && !display.powered)
        #expect(view.pipeline.contactsDown == 0)
        #expect(try String(contentsOfFile: root + "/panel/brightness", encoding: .utf8) == "3\n")
        // Blanked, the tour does not start again.
        #expect(view.operationsTick(now: 100) == nil)
        #expect(!view.isAttractPlaying)
        for f in tapFrames(view, at: 101) { view.feed(f, from: "/dev/input/event3") }
        #expect(try String(contentsOfFile: root + "/panel/brightness", encoding: .utf8) == "255\n")
        #expect(display.powered)
    }

    @Test func statsCountTouchscreensProblemsAndFrames() throws {
        let observed = ProblemBox()
        var log = KioskLog(level: .error)
        log.problemObserver = { l, t in observed.add(l, t) }
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        let view = try Kiosk(configuration: cfg, display: MemoryDisplay(width: 640, height: 400), log: log)
        view.handle([.opened(path: "/dev/input/event3", name: "ILITEK panel", kind: .protocolB(slots: 10), foundBy: "test")])
        view.handle([.closed(path: "/dev/input/event3", reason: .gone)])
        view.drawAndPresent(now: MonotonicClock.now())
        let reply = view.stats.json(view.statsSnapshot(now: MonotonicClock.now()))
        let o = JSONValue.object(reply)
        #expect(o["frames"]?.number == 1)
        #expect(o["frame_time"]?["count"]?.number == 1)
        guard let screens = o["touchscreens"]?.array, screens.count == 1 else { Issue.record("touchscreens: \(String(describing: o["touchscreens"]))"); return }
        #expect(screens[0]["path"]?.string == "/dev/input/event3")
        #expect(screens[0]["state"]?.string == "gone")
        #expect(screens[0]["disconnects"]?.number == 1)
        #expect(screens[0]["gone_for_s"]?.number != nil)
        #expect(o["last_warning"]?["text"]?.string?.contains("/dev/input/event3 disappeared") == true)
        #expect(o["warnings"]?.number ?? 0 >= 1)
        // The app's own observer still hears the problems.
        #expect(observed.texts.contains { $0.contains("disappeared") })
        // The same device back: open again, the disconnect remembered.
        view.handle([.opened(path: "/dev/input/event3", name: "ILITEK panel", kind: .protocolB(slots: 10), foundBy: "test")])
        let again = JSONValue.object(view.stats.json(view.statsSnapshot(now: MonotonicClock.now())))
        #expect(again["touchscreens"]?.array?.first?["state"]?.string == "open")
        #expect(again["touchscreens"]?.array?.first?["disconnects"]?.number == 1)
    }

    /// A configured panel that is not there (dead since boot, so never "gone") is listed as
    /// waited for in `stats` and counted in the metrics, until it opens; gone again, again.
    @Test func aConfiguredTouchscreenThatIsNotThereIsListedAsWaitedFor() throws {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        let view = try Kiosk(configuration: cfg, display: MemoryDisplay(width: 640, height: 400), log: KioskLog(level: .error))
        func waiting() -> [String] {
            JSONValue.object(view.stats.json(view.statsSnapshot(now: MonotonicClock.now())))["touchscreens_waiting"]?.array?.compactMap(\.string) ?? []
        }
        let before = waiting()
        #expect(before.count == 1 && before[0].contains("match = \"/nonexistent/event99\"") && before[0].contains("does not exist"), "\(before)")
        #expect(view.stats.prometheus(view.statsSnapshot(now: MonotonicClock.now())).contains("touchbridge_touchscreens_waiting 1\n"))
        view.handle([.opened(path: "/nonexistent/event99", name: "ILITEK panel", kind: .protocolB(slots: 10), foundBy: "test")])
        #expect(waiting().isEmpty)
        #expect(view.stats.prometheus(view.statsSnapshot(now: MonotonicClock.now())).contains("touchbridge_touchscreens_waiting 0\n"))
        view.handle([.closed(path: "/nonexistent/event99", reason: .gone)])
        #expect(waiting().count == 1)
    }

    final class ProblemBox: @unchecked Sendable {
        var texts: [String] = []
        func add(_ l: KioskLog.Level, _ t: String) { texts.append(t) }
    }

    @Test func theMetricsTextfileIsPrometheusTextWrittenWhole() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-metrics-\(getpid())").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/touchbridge.prom"
        let (view, _, _) = try makeView { $0.operations.metricsTextfile = path; $0.operations.metricsInterval = 15 }
        for f in tapFrames(view, at: 2) { view.feed(f, from: "/dev/input/event3") }
        view.pipeline.advance(to: 3)
        #expect(view.operationsTick(now: 3) == 18)
        let text = try String(contentsOfFile: path, encoding: .utf8)
        // Every sample line is `name{labels} value` of a metric declared by HELP and TYPE above it.
        var declared: Set<String> = []
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE ") { declared.insert(String(line.split(separator: " ")[2])) ; continue }
            if line.hasPrefix("#") { continue }
            let parts = line.split(separator: " ")
            #expect(parts.count == 2, "\(line)")
            let name = String(parts[0].prefix { $0 != "{" })
            #expect(declared.contains(name), "\(line)")
            #expect(Double(parts[1]) != nil, "\(line)")
        }
        #expect(text.contains("touchbridge_touches_total 1\n"))
        #expect(text.contains("touchbridge_gestures_total{kind=\"tap\"} 1\n"))
        #expect(text.contains("touchbridge_display_blanked 0\n"))
        // Nothing else left in the folder (the temporary file was renamed over the file).
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["touchbridge.prom"])
        // Not before the interval; then again.
        #expect(view.operationsTick(now: 10) == 18)
        try "stale".write(toFile: path, atomically: true, encoding: .utf8)
        _ = view.operationsTick(now: 18)
        #expect(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("# HELP touchbridge_uptime_seconds"))
    }

    @Test func countersSurviveAReloadAndItsNewOperationsSettingsApply() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-ops-reload-\(getpid()).toml").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try "[display]\nbackend = \"png\"\n".write(toFile: path, atomically: true, encoding: .utf8)
        let cfg = try KioskConfiguration.load(path: path)
        let display = MemoryDisplay(width: 640, height: 400)
        let view = try Kiosk(configuration: cfg, configPath: path, display: display, log: KioskLog(level: .error))
        view.operations.lastTouch = 0
        view.pipeline.begin(at: 0)
        for f in tapFrames(view, at: 1) { view.feed(f, from: "/dev/input/event3") }
        view.pipeline.advance(to: 2)
        view.drawAndPresent(now: 2)
        #expect(view.stats.touches == 1 && view.stats.gestures[.tap] == 1 && view.stats.framesDrawn == 1)
        #expect(view.operationsTick(now: 3) == nil)          // no blanking configured
        try "[display]\nbackend = \"png\"\nblank_after_s = 60\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(view.reload().error == nil)
        #expect(view.stats.touches == 1 && view.stats.gestures[.tap] == 1 && view.stats.framesDrawn == 1)
        #expect(view.stats.reloads == 1)
        #expect(view.operationsTick(now: 3).map { abs($0 - 61.06) < 0.01 } == true)
    }

    @Test func labelValuesAreEscaped() {
        #expect(KioskStats.label("a\"b\\c\nd") == "a\\\"b\\\\c\\nd")
        #expect(KioskStats.value(3) == "3" && KioskStats.value(0.25) == "0.25" && KioskStats.value(.infinity) == "+Inf")
    }

    @Test func operationsKeysAreReadAndChecked() throws {
        func load(_ toml: String) throws -> KioskConfiguration {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-ops-\(getpid())-\(UUID().uuidString).toml").path
            try toml.write(toFile: path, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(atPath: path) }
            return try KioskConfiguration.load(path: path)
        }
        let tmp = FileManager.default.temporaryDirectory.path
        let c = try load("""
            [display]
            blank_after_s = 300
            backlight = "intel_backlight"
            backlight_dim = 5
            [kiosk]
            attract_after_s = 90.5
            attract = "demo"
            [metrics]
            textfile = "\(tmp)/tb.prom"
            interval_s = 30
            """)
        #expect(c.operations.blankAfter == 300 && c.operations.backlight == "intel_backlight" && c.operations.backlightDim == 5)
        #expect(c.operations.attractAfter == 90.5 && c.operations.attract == "demo")
        #expect(c.operations.metricsTextfile == "\(tmp)/tb.prom" && c.operations.metricsInterval == 30)
        func refused(_ toml: String, key: String, saying words: String) {
            do { _ = try load(toml); Issue.record("accepted: \(toml)") } catch let e as ConfigError {
                #expect(e.key == key, "\(e)")
                #expect(e.description.contains(words), "\(e)")
            } catch { Issue.record("\(error)") }
        }
        refused("[display]\nblank_after_s = -1", key: "display.blank_after_s", saying: "0 (never)")
        refused("[display]\nbacklight = \"../../etc\"", key: "display.backlight", saying: "/sys/class/backlight")
        refused("[kiosk]\nattract = \"tour.events\"", key: "kiosk.attract", saying: "absolute path")
        refused("[kiosk]\nattract = \"/nonexistent/tour.events\"", key: "kiosk.attract", saying: "cannot read")
        refused("[metrics]\ntextfile = \"/nonexistent-folder/tb.prom\"", key: "metrics.textfile", saying: "does not exist")
        refused("[metrics]\ntextfile = \"tb.prom\"", key: "metrics.textfile", saying: "absolute")
        refused("[metrics]\ninterval_s = 0", key: "metrics.interval_s", saying: "1 to 3600")
        refused("[kiosk]\nattract_aftr_s = 3", key: "kiosk.attract_aftr_s", saying: "attract_after_s")
    }
}
