import Foundation
import TouchBridge
import Kiosk
import TouchDevices
import Platform
import TouchCore
import Gestures
import MapEngine
import Rendering

/// A soak of the whole pure pipeline with rendering: random gestures (taps, double taps, long
/// presses, pans and flings, pinches, rotations, tilts, three fingers, unplugs and SYN_DROPPED
/// mid-gesture) from a virtual 120 Hz protocol-B panel through FrameAssembler -> MapPipeline,
/// each 60 Hz frame drawn by MapRenderer into memory. After every step the camera must be
/// finite and within its limits; after every gesture no contact may be down and, once the
/// recogniser's timeouts have run, it must be idle. RSS is sampled from /proc/self/statm.
/// Time inside the pipeline is simulated (120 input frames per simulated second); the run
/// length is wall-clock time or a number of gestures.
package final class Soak {
    public struct Report: CustomStringConvertible {
        public var wallSeconds = 0.0
        public var simulatedSeconds = 0.0
        public var gestures = 0
        public var inputFrames = 0
        public var renderedFrames = 0
        public var unplugs = 0
        public var streamLines = 0
        /// Resident set size (bytes): after the warm-up, at the end, the largest after the warm-up.
        public var rssAfterWarmUp = 0
        public var rssEnd = 0
        public var rssMax = 0
        /// RSS samples (seconds since start, bytes).
        public var rssSamples: [(Double, Int)] = []
        /// Every invariant that failed (empty: the soak passed).
        public var violations: [String] = []

        /// RSS growth after the warm-up, bytes.
        public var rssGrowth: Int { rssMax - rssAfterWarmUp }
        public var passed: Bool { violations.isEmpty }

        public var description: String {
            let mb = { (b: Int) in String(format: "%.1f MB", Double(b) / 1_048_576) }
            return String(format: "soak: %.0f s wall, %.0f s simulated at 120 Hz: %d gestures, %d input frames, %d frames drawn (%.0f frames/s), %d unplugs, %d event-stream lines; ",
                          wallSeconds, simulatedSeconds, gestures, inputFrames, renderedFrames,
                          Double(renderedFrames) / max(wallSeconds, 1e-9), unplugs, streamLines)
                + "RSS after warm-up \(mb(rssAfterWarmUp)), max \(mb(rssMax)), end \(mb(rssEnd)), growth \(mb(rssGrowth)); "
                + (violations.isEmpty ? "no stuck contact, camera within its limits throughout" : "\(violations.count) violations: " + violations.prefix(5).joined(separator: "; "))
        }
    }

    public let screen: Size
    let pipeline: MapPipeline
    let renderer: MapRenderer?
    let frame: OwnedFrameBuffer?
    let device: DeviceCapabilities
    var assembler: FrameAssembler
    var random: SplitMix64
    var time = 100.0
    var nextDraw = 100.0
    var report = Report()
    /// How RSS after the warm-up is judged: caches may fill up to a limit, but growth that goes on
    /// through the later half of the run is a leak. The warm-up is wall-clock time, so on a loaded
    /// machine (the fuzzers beside it in CI) fewer gestures have filled the caches by then.
    var memory = RSSTrend()

    /// - Parameter render: draw every frame (false: the pure pipeline only, for quick tests).
    public init(screen: Size = Size(width: 800, height: 480), seed: UInt64 = 1, render: Bool = true) {
        self.screen = screen
        random = SplitMix64(seed: seed)
        device = TouchScript.virtualPanel(screen: screen)
        var cfg = KioskConfiguration()
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47.14, longitude: 9.52), zoom: 6)
        let density = Replay.density(for: device, screen: screen)
        pipeline = MapPipeline(configuration: cfg, screen: screen, density: density)
        assembler = FrameAssembler(capabilities: device, screen: screen)
        if render {
            let r = MapRenderer()
            renderer = r
            frame = OwnedFrameBuffer(width: Int(screen.width), height: Int(screen.height))
            pipeline.measureInfoWindows(with: r)
        } else {
            renderer = nil
            frame = nil
        }
        // Markers to tap on and a sink that counts the event stream's lines.
        for i in 0..<200 {
            pipeline.controller.add(Marker(id: "m\(i)", position: Coordinate(latitude: 40 + Double(i % 20) * 0.8,
                                                                              longitude: Double(i / 20) * 2),
                                           title: "Marker \(i)", snippet: i % 3 == 0 ? "snippet \(i)" : nil))
        }
        pipeline.sink = { [unowned self] _ in self.report.streamLines += 1 }
        pipeline.start()
        pipeline.begin(at: time)
    }

    /// Runs until `seconds` of wall-clock time have passed or `gestures` gestures were made.
    public func run(seconds: Double = .infinity, gestures: Int = .max, progress: ((Report) -> Void)? = nil) -> Report {
        let start = MonotonicClock.now()
        let warmUp = min(max(10, seconds * 0.1), 60)
        var nextSample = 0.0
        var warmedUp = false
        while report.gestures < gestures {
            let elapsed = MonotonicClock.now() - start
            if elapsed >= seconds { break }
            if elapsed >= nextSample {
                let rss = Soak.residentBytes()
                report.rssSamples.append((elapsed, rss))
                if !warmedUp && elapsed >= warmUp { warmedUp = true; report.rssAfterWarmUp = rss; report.rssMax = rss }
                if warmedUp { report.rssMax = max(report.rssMax, rss) }
                nextSample = elapsed + 1
                report.wallSeconds = elapsed
                progress?(report)
            }
            gesture()
            report.gestures += 1
        }
        report.wallSeconds = MonotonicClock.now() - start
        report.simulatedSeconds = time - 100
        report.rssEnd = Soak.residentBytes()
        if !warmedUp { report.rssAfterWarmUp = report.rssSamples.first?.1 ?? report.rssEnd }
        report.rssMax = max(report.rssMax, report.rssEnd)
        if warmedUp {
            let mib = { (b: Int) in Double(b) / 1_048_576 }
            let after = report.rssSamples.filter { $0.0 >= warmUp }.map { (seconds: $0.0, mib: mib($0.1)) }
            report.violations += memory.violations(after + [(report.wallSeconds, mib(report.rssEnd))])
        }
        return report
    }

    // MARK: gestures

    func point(margin: Double = 40) -> Point {
        Point(x: random.range(margin, screen.width - margin), y: random.range(margin, screen.height - margin))
    }

    /// One random gesture, then a random pause; checks that nothing is left down.
    func gesture() {
        var s = TouchScript(screen: screen, start: time, device: device)
        let c = point(margin: 120)
        let kind = random.int(11)
        switch kind {
        case 0: s.tap(point())
        case 1: let p = point(); s.tap(p); s.wait(0.12); s.tap(p + Point(x: 3, y: -2))
        case 2: s.hold(point(), duration: random.range(0.6, 1.2))
        case 3: s.move([0: c], [0: point()], duration: random.range(0.1, 0.8))
        case 4: s.fling(from: c, to: c + Point(x: random.range(-200, 200), y: random.range(-200, 200)), duration: 0.08)
        case 5:   // pinch in or out
            let d = random.range(30, 110), f = random.range(0.4, 2.2)
            s.move([0: c - Point(x: d, y: 0), 1: c + Point(x: d, y: 0)], [0: c - Point(x: d * f, y: 0), 1: c + Point(x: d * f, y: 0)],
                   duration: random.range(0.2, 0.6))
        case 6:   // rotate
            let r = random.range(40, 100), a = random.range(-1.2, 1.2)
            s.move([0: c - Point(x: r, y: 0), 1: c + Point(x: r, y: 0)],
                   [0: c - Point(x: r * cos(a), y: r * sin(a)), 1: c + Point(x: r * cos(a), y: r * sin(a))], duration: 0.5)
        case 7:   // tilt: two side-by-side fingers moving vertically together
            let dy = random.range(-150, 150)
            s.move([0: c - Point(x: 60, y: 0), 1: c + Point(x: 60, y: 0)], [0: c + Point(x: -60, y: dy), 1: c + Point(x: 60, y: dy)], duration: 0.4)
        case 8:   // double tap and drag (quick zoom)
            s.tap(c); s.wait(0.1); s.move([0: c], [0: c + Point(x: 0, y: random.range(-120, 120))], duration: 0.4)
        case 9:   // three fingers
            s.move([0: c, 1: c + Point(x: 80, y: 0), 2: c + Point(x: 0, y: 80)], [0: c + Point(x: 30, y: 30), 1: c + Point(x: 110, y: 30), 2: c + Point(x: 30, y: 110)], duration: 0.3)
        default:  // a two-finger tap
            s.twoFingerTap(c, c + Point(x: 70, y: 10))
        }
        // A TouchScript starts on slot 0 and says MT_SLOT only when it changes slot: put the
        // panel there too (the last gesture may have ended on another slot).
        var events = [InputEvent(time: time, type: EV.ABS, code: ABS.MT_SLOT, value: 0)] + s.events
        // Now and then the panel goes away mid-gesture (unplug) or the kernel drops events.
        let fault = random.int(20)
        if fault < 2, events.count > 4 {
            let cut = random.int(events.count - 1) + 1
            events = Array(events[..<cut])
            feed(events)
            if fault == 0 {
                report.unplugs += 1
                handle(assembler.cancelAll(time: time))
                assembler = FrameAssembler(capabilities: device, screen: screen)   // plugged in again
            } else {
                feed([InputEvent(time: time, type: EV.SYN, code: SYN.DROPPED, value: 0)])
                handle(assembler.resync(to: DeviceState(slots: Array(repeating: SlotState(), count: 10)), time: time))
            }
        } else {
            feed(events)
        }
        if assembler.contactsDown != 0 || pipeline.contactsDown != 0 {
            violation("contacts still down after gesture \(Soak.gestureNames[kind])\(fault < 2 ? " cut short" : "") ended (assembler \(assembler.contactsDown), pipeline \(pipeline.contactsDown))")
        }
        idle(random.range(0.35, 1.5))
        if pipeline.recognizer.state != .idle || pipeline.recognizer.nextDeadline != nil {
            violation("recogniser \(pipeline.recognizer.state) with every finger up and its timeouts run")
        }
    }

    static let gestureNames = ["tap", "double tap", "long press", "pan", "fling", "pinch", "rotate", "tilt",
                               "quick zoom", "three fingers", "two-finger tap"]

    func feed(_ events: [InputEvent]) {
        for e in events {
            time = max(time, e.time)
            drawIfDue()
            if let f = assembler.process(e) { handle(f) }
        }
    }

    func handle(_ f: ContactFrame) {
        report.inputFrames += 1
        pipeline.handle(f)
        check()
    }

    /// No input for `seconds`: timeouts, momentum and animations run, frames are drawn.
    func idle(_ seconds: Double) {
        let end = time + seconds
        while time < end {
            time = min(end, time + 1.0 / 60)
            pipeline.advance(to: time)
            check()
            drawIfDue()
        }
    }

    func drawIfDue() {
        guard time >= nextDraw else { return }
        nextDraw = time + 1.0 / 60
        pipeline.advance(to: time)
        guard pipeline.takeNeedsRedraw(), let renderer, let frame else { return }
        let moving = pipeline.controller.isMoving || pipeline.contactsDown > 0
        renderer.render(pipeline.scene(attribution: nil), into: frame.buffer, quality: moving ? .interactive : .final)
        pipeline.usePlaces(renderer.drawnPlaces, streetLabels: renderer.streetLabels)
        report.renderedFrames += 1
    }

    func check() {
        let c = pipeline.controller.camera
        let limits = pipeline.controller.configuration.limits
        guard c.target.latitude.isFinite, c.target.longitude.isFinite, c.zoom.isFinite, c.bearing.isFinite, c.tilt.isFinite else {
            return violation("camera not finite: \(c)")
        }
        if c.zoom < limits.minZoom - 1e-9 || c.zoom > limits.maxZoom + 1e-9 { violation("zoom outside its limits: \(c)") }
        if c.tilt < -1e-9 || c.tilt > limits.maxTilt(atZoom: c.zoom) + 1e-6 { violation("tilt outside its limits: \(c)") }
        if abs(c.target.latitude) > WebMercator.maxLatitude + 1e-9 || c.target.longitude < -180 || c.target.longitude >= 180 {
            violation("target outside the map: \(c)")
        }
        if c.bearing < 0 || c.bearing >= 360 { violation("bearing not in 0..<360: \(c)") }
    }

    func violation(_ text: String) {
        if report.violations.count < 100 { report.violations.append(String(format: "t=%.3f: ", time - 100) + text) }
    }

    // MARK: measuring


    /// Resident set size, bytes (`ProcessMemory`); 0 where there is no /proc.
    public static func residentBytes() -> Int { ProcessMemory.residentBytes() ?? 0 }
}

