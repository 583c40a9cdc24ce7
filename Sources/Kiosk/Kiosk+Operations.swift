import TouchBridge
import Foundation
import TouchCore
import Gestures
import MapEngine
import Display
import Platform

/// An operator's side of the kiosk (docs/operations.md): screen blanking and wake, the
/// backlight, the attract tour, and the metrics textfile. All of it runs on the loop's
/// thread, driven from `beforeWait` (`operationsTick`) and from each real input frame
/// (`operationsIntercept`).
final class KioskOperations {
    var settings: KioskConfiguration.OperationsSettings
    /// When a real finger last touched (or the kiosk started): the idle clock.
    var lastTouch: Double
    var blanked = false
    /// A real touch sequence being swallowed (it woke the screen or stopped the tour) until
    /// every finger is up.
    var swallowing = false
    var attract: AttractPlayback?
    /// The tour is loaded once, at its first run.
    var tour: AttractTour?
    var tourProblem: String?
    var nextMetricsAt: Double?
    var metricsProblem: String?
    var backlight: Backlight?
    /// Each real touchscreen's contact ids down (touches are counted as they appear).
    var realDown: [String: [Int]] = [:]

    init(settings: KioskConfiguration.OperationsSettings, now: Double) {
        self.settings = settings
        lastTouch = now
        if let name = settings.backlight { backlight = Backlight(name: name) }
    }
}

/// A tour played through the pipeline: frames with times from its start, fed when due.
struct AttractPlayback {
    var startedAt: Double
    var next = 0
    /// The tour's own contact ids down (cancelled if a visitor stops it).
    var down: [Int] = []
}

/// The attract tour's contact frames, times from 0.
struct AttractTour {
    static let device = "attract"
    var frames: [ContactFrame]
    var duration: Double { frames.last?.time ?? 0 }

    init(events: [InputEvent], capabilities: DeviceCapabilities, screen: Size) {
        var assembler = FrameAssembler(capabilities: capabilities, screen: screen)
        var out: [ContactFrame] = []
        for e in events { if let f = assembler.process(e) { out.append(f) } }
        let origin = out.first?.time ?? 0
        frames = out.map { var f = $0; f.time -= origin; return f }
    }

    /// The demo's tour of every gesture, made for the demo's screen and scaled to this one.
    static func demo(screen: Size) -> AttractTour {
        let script = DemoTour().script
        var tour = AttractTour(events: script.events, capabilities: script.device, screen: DemoTour.screen)
        let sx = screen.width / DemoTour.screen.width, sy = screen.height / DemoTour.screen.height
        tour.frames = tour.frames.map { f in
            var g = f
            g.contacts = f.contacts.map { c in var d = c; d.position = Point(x: c.position.x * sx, y: c.position.y * sy); return d }
            return g
        }
        return tour
    }

    /// An evemu recording (a tour recorded on the kiosk's own panel with `touchbridge record`).
    static func recording(path: String, screen: Size) throws -> AttractTour {
        let r = try Replay.load(path: path, descPath: nil)
        let tour = AttractTour(events: r.events, capabilities: r.capabilities, screen: screen)
        guard !tour.frames.isEmpty else { throw Replay.ReplayError(description: "\(path): the recording has no touch frames to play") }
        return tour
    }
}

extension Kiosk {
    /// Pause between the camera going home and the tour's first touch, and between two tours.
    static let attractLead = 1.0, attractPause = 3.0

    /// A real touchscreen's frame, before the pipeline sees it. True: swallowed (it woke the
    /// screen, or stopped the tour: the first touch of a visitor is not a gesture).
    func operationsIntercept(_ f: ContactFrame, from path: String) -> Bool {
        let ops = operations
        // Any real input restarts the idle clock (a lift too: idle counts from the last finger up).
        ops.lastTouch = max(ops.lastTouch, f.time)
        if ops.swallowing {
            if f.contacts.isEmpty { ops.swallowing = false }
            return true
        }
        guard !f.contacts.isEmpty else { return false }
        if ops.blanked {
            wake(at: f.time)
            ops.swallowing = true
            return true
        }
        if ops.attract != nil {
            stopAttract(at: f.time, why: "a touch (that touch is not a gesture)")
            ops.swallowing = true
            return true
        }
        return false
    }

    /// Blanking, the tour and the metrics at `now`; returns when to be called again.
    func operationsTick(now: Double) -> Double? {
        let ops = operations
        var next: Double?
        func soon(_ t: Double) { next = min(next ?? t, t) }
        let s = ops.settings
        let idle = pipeline.contactsDown == 0 && !ops.swallowing
        if s.blankAfter > 0, !ops.blanked, idle {
            let at = ops.lastTouch + s.blankAfter
            if now >= at { blank(at: now) } else { soon(at) }
        }
        if ops.attract != nil { if let t = playAttract(now: now) { soon(t) } }
        // A tour that would not load is not tried again until a reload.
        if s.attractAfter > 0, !ops.blanked, ops.attract == nil, idle, ops.tourProblem == nil {
            let at = ops.lastTouch + s.attractAfter
            if now >= at {
                startAttract(at: now)
                if ops.attract != nil, let t = playAttract(now: now) { soon(t) }
            } else { soon(at) }
        }
        if let path = s.metricsTextfile {
            let due = ops.nextMetricsAt ?? now
            if now >= due {
                writeMetrics(to: path, now: now)
                ops.nextMetricsAt = now + s.metricsInterval
            }
            soon(ops.nextMetricsAt ?? now + s.metricsInterval)
        }
        return next
    }

    static func seconds(_ s: Double) -> String { String(format: "%g s", s) }

    // MARK: blanking

    func blank(at now: Double) {
        let ops = operations
        if ops.attract != nil { stopAttract(at: now, why: "the display blanks") }
        do {
            if try display.setPowered(false) {
                log(.info, "display blanked after \(Self.seconds(ops.settings.blankAfter)) without a touch; the next touch wakes it")
            } else {
                log(.info, "no touch for \(Self.seconds(ops.settings.blankAfter)); \(display.name) cannot be turned off (no DPMS): only the backlight dims")
            }
        } catch {
            log(.warning, "display: cannot blank: \(error)")
        }
        ops.backlight?.set(ops.settings.backlightDim, log: log)
        ops.blanked = true
        stats.blanked()
    }

    func wake(at now: Double) {
        let ops = operations
        ops.blanked = false
        stats.displayBlanked = false
        ops.backlight?.set(ops.settings.backlightActive, log: log)
        do { _ = try display.setPowered(true) } catch { log(.warning, "display: cannot turn it back on: \(error)") }
        log(.info, "display woken by a touch (that touch is not a gesture)")
        pipeline.setNeedsRedraw()
    }

    // MARK: the attract tour

    func startAttract(at now: Double) {
        let ops = operations
        if ops.tour == nil, ops.tourProblem == nil {
            do {
                ops.tour = ops.settings.attract == "demo" ? AttractTour.demo(screen: screen)
                    : try AttractTour.recording(path: ops.settings.attract, screen: screen)
            } catch {
                ops.tourProblem = "\(error)"
                log(.error, "attract: cannot play \(ops.settings.attract): \(error); the kiosk stays still instead")
            }
        }
        guard ops.tour != nil else { return }
        beginTourRun(at: now)
        pipeline.lineMark = ",\"attract\":true"
        log(.info, "attract: no touch for \(Self.seconds(ops.settings.attractAfter)); playing the tour until someone touches")
        pipeline.setNeedsRedraw()
    }

    /// One run of the tour: the camera heads home, the first touch comes `attractLead` later.
    private func beginTourRun(at now: Double) {
        controller.goHome(at: now)
        pipeline.advance(to: now)
        operations.attract = AttractPlayback(startedAt: now + Kiosk.attractLead)
        stats.attractStarted()
    }

    /// Feeds the tour's frames that are due; returns when the next one is.
    func playAttract(now: Double) -> Double? {
        let ops = operations
        guard var play = ops.attract, let tour = ops.tour else { return nil }
        while play.next < tour.frames.count, play.startedAt + tour.frames[play.next].time <= now {
            var f = tour.frames[play.next]
            f.time += play.startedAt
            play.down = f.contacts.map(\.id)
            pipeline.handle(view.merger.merge(f, from: AttractTour.device))
            play.next += 1
        }
        if play.next < tour.frames.count {
            ops.attract = play
            return play.startedAt + tour.frames[play.next].time
        }
        // Done: the next run after a pause (and the camera's trip home).
        let again = play.startedAt + tour.duration + Kiosk.attractPause
        if now >= again {
            beginTourRun(at: now)
            return now + Kiosk.attractLead
        }
        ops.attract = play
        return again
    }

    /// A visitor touched (or the screen blanks): the tour's fingers are cancelled (no tap or
    /// fling comes of them) and the camera goes home.
    func stopAttract(at now: Double, why: String) {
        let ops = operations
        guard let play = ops.attract else { return }
        if !play.down.isEmpty {
            let cancel = ContactFrame(time: max(now, pipeline.lastTime ?? now), contacts: [], cancelled: play.down)
            pipeline.handle(view.merger.merge(cancel, from: AttractTour.device))
        }
        view.merger.remove(device: AttractTour.device)
        // A gesture of the tour still pending (its last tap waiting for doubleTapTimeout) is the
        // tour's, not the visitor's: dropped while the lines are still marked.
        pipeline.interruptGesture(at: now, reason: "the attract tour stopped")
        ops.attract = nil
        stats.attractPlaying = false
        pipeline.lineMark = nil
        controller.goHome(at: now)
        pipeline.advance(to: now)
        log(.info, "attract: stopped by \(why); the camera goes home")
        pipeline.setNeedsRedraw()
    }

    // MARK: metrics

    func statsSnapshot(now: Double) -> KioskStats.Snapshot {
        let v = renderer.vector?.cacheCounts ?? (0, 0), r = renderer.raster?.cacheCounts ?? (0, 0)
        return KioskStats.Snapshot(now: now, touchToFlip: view.touchToFlip, displayName: display.name, displayProblem: view.displayProblem,
                                   residentBytes: ProcessMemory.residentBytes(), peakResidentBytes: ProcessMemory.peakResidentBytes(),
                                   cacheBytes: renderer.cacheSizes.reduce(0) { $0 + $1.bytes },
                                   tileHits: retiredTileCounts.hits + v.0 + r.0, tileMisses: retiredTileCounts.misses + v.1 + r.1,
                                   markers: controller.markers.count, overlays: controller.overlays.count,
                                   cameraMode: controller.cameraMode.rawValue,
                                   touchscreensWaiting: MapView.missingTouchscreens(
                                       configuration, found: stats.touchscreens.filter { $0.value.open }.map { $0.key }))
    }

    /// Writes the Prometheus text to a temporary file beside `path`, then renames it over
    /// `path` (node_exporter never reads half a file). A failure is logged once per outage.
    func writeMetrics(to path: String, now: Double) {
        let text = stats.prometheus(statsSnapshot(now: now))
        do {
            try MetricsTextfile.write(text, to: path)
            if operations.metricsProblem != nil { log(.info, "metrics: writing \(path) again") }
            operations.metricsProblem = nil
        } catch {
            let problem = "\(error)"
            if operations.metricsProblem != problem { log(.warning, "metrics: \(problem)") }
            operations.metricsProblem = problem
        }
    }
}

/// The textfile collector's contract: the whole file appears at once (node_exporter never reads
/// a half-written file). Not fsync'd: it is rewritten every few seconds, and a crash may lose the
/// last one but never tears it.
enum MetricsTextfile {
    struct WriteError: Error, CustomStringConvertible { let description: String }

    static func write(_ text: String, to path: String) throws {
        do {
            try AtomicFile.replace(path, with: Array(text.utf8), durable: false)
        } catch {
            throw WriteError(description: "\(error) (does the folder exist, and may the kiosk's user write there? a full disk?)")
        }
    }
}

/// `/sys/class/backlight/NAME`: brightness written on blank and wake.
struct Backlight {
    let folder: String
    init(name: String, root: String = "/sys/class/backlight") { folder = (root as NSString).appendingPathComponent(name) }

    var maxBrightness: Int? {
        (try? String(contentsOfFile: folder + "/max_brightness", encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    /// Sets the brightness (nil: the maximum), clamped to the device's range; failures logged.
    func set(_ level: Int?, log: KioskLog) {
        guard let max = maxBrightness else {
            log(.warning, "backlight: cannot read \(folder)/max_brightness (is [display] backlight the name of a folder in /sys/class/backlight?)")
            return
        }
        let value = Swift.min(Swift.max(level ?? max, 0), max)
        do { try OwnedDescriptor.overwrite(path: folder + "/brightness", with: Array("\(value)\n".utf8)) } catch {
            log(.warning, "backlight: cannot set \(folder)/brightness to \(value): \(error) (the kiosk's user needs write access: a udev rule, docs/operations.md)")
        }
    }
}
