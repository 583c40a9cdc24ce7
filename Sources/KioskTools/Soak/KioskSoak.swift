import Foundation
import TouchBridge
import Kiosk
import TouchDevices
import TouchCore
import Gestures
import MapEngine
import Rendering
import Display
import Platform

/// A day of uptime, compressed: the whole kiosk (`MapView.run`, its one event loop, the real
/// control socket) at 1080p with the street map and overlays, while a driver thread plays what
/// a day brings: visitors' gestures (through the kiosk's own touch path, at their real times),
/// socket clients that connect, add and remove markers and overlays, subscribe, and vanish
/// mid-stream, reloads (`reload` over the socket, as SIGHUP does), touchscreen unplugs, and a
/// display that is taken away (another DRM master) or fails, then comes back. Per interval
/// (10 minutes by default) it reports RSS, open descriptors and frame times; the run fails when
/// they grow (`touchbridge soak --hours N`).
public final class KioskSoak: @unchecked Sendable {
    public struct Settings: Sendable {
        public var seconds: Double
        /// Seconds per reported interval.
        public var interval: Double = 600
        public var width = 1920, height = 1080
        /// A vector tile set (MBTiles or PMTiles) for the street map; nil: the built-in world only.
        public var tiles: String?
        public var seed: UInt64 = 1
        public init(seconds: Double) { self.seconds = seconds }
    }

    /// One interval's figures.
    public struct Interval: Sendable {
        public var end: Double
        public var frames = 0
        public var frameP50: Double = 0, frameP99: Double = 0, frameMax: Double = 0   // ms
        public var rssMiB: Double = 0
        public var descriptors = 0
        public var gestures = 0, clients = 0, requests = 0, reloads = 0, unplugs = 0, displayLosses = 0

        public var line: String {
            String(format: "%6.0f s  %6d frames  frame p50 %6.1f ms  p99 %6.1f ms  max %7.1f ms  RSS %6.1f MiB  fds %3d  gestures %4d  clients %4d  requests %5d  reloads %3d  unplugs %3d  display losses %3d",
                   end, frames, frameP50, frameP99, frameMax, rssMiB, descriptors, gestures, clients, requests, reloads, unplugs, displayLosses)
        }
    }

    public struct Report: CustomStringConvertible, Sendable {
        public var intervals: [Interval] = []
        public var violations: [String] = []
        public var passed: Bool { violations.isEmpty }
        public var description: String {
            "soak (kiosk): \(intervals.count) intervals\n" + intervals.map { "  " + $0.line }.joined(separator: "\n") + "\n"
                + (violations.isEmpty ? "RSS, descriptors and frame times flat" : "\(violations.count) violations:\n  " + violations.joined(separator: "\n  "))
        }
    }

    /// RSS may end this much above the first interval after the warm-up; more is a leak.
    public var rssGrowthLimitMiB = 32.0
    /// In a run of six or more intervals after the warm-up, RSS may grow this much over the later
    /// half: caches fill early, so growth that goes on in the second half is a leak (a slow one
    /// stays under `rssGrowthLimitMiB` for an hour or two and shows only as a trend).
    public var rssLateGrowthLimitMiB = 8.0
    /// Descriptors may end this many above (a client connected at the moment of the sample).
    public var descriptorGrowthLimit = 6
    /// The p99 frame time may end at most this factor (plus 5 ms) above the first interval's.
    public var frameTimeGrowthFactor = 2.0

    let settings: Settings
    let folder: String
    let display: SoakDisplay
    let kiosk: Kiosk
    let view: MapView
    let touchPath = "/soak/touchscreen"
    /// Driver thread -> loop: frames and commands, with a pipe byte to wake the loop.
    private let lock = NSLock()
    private var queue: [Command] = []
    private var waker: LoopWaker?
    private var stopping = false
    private var frameTimes: [Double] = []
    private var current = Interval(end: 0)
    private var report = Report()
    private var startedAt = 0.0

    enum Command { case frame(ContactFrame), unplug(Double), replug, displayLoss(lost: Bool, seconds: Double) }

    public init(settings: Settings) throws {
        self.settings = settings
        folder = NSTemporaryDirectory() + "touchbridge-soak-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: folder)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let configPath = folder + "/kiosk.toml"
        try KioskSoak.config(tiles: settings.tiles, folder: folder).write(toFile: configPath, atomically: true, encoding: .utf8)
        display = SoakDisplay(width: settings.width, height: settings.height)
        let cfg = try KioskConfiguration.load(path: configPath, checkFiles: false)
        kiosk = try Kiosk(configuration: cfg, configPath: configPath, display: display, log: KioskLog.journal(level: .error))
        view = kiosk.view
    }

    deinit { try? FileManager.default.removeItem(atPath: folder) }

    static func config(tiles: String?, folder: String) -> String {
        var text = """
        [map]
        latitude = 47.14
        longitude = 9.52
        zoom = 13

        """
        if let tiles { text += "tiles = \"\(tiles)\"\n" }
        text += """
        [control]
        socket = "\(folder)/control.sock"
        [[touch]]
        match = "/nonexistent/soak-event99"
        [[markers]]
        id = "home"
        latitude = 47.14
        longitude = 9.52
        title = "You are here"

        """
        return text
    }

    /// Runs the kiosk for `settings.seconds`; `progress` hears each interval as it ends.
    public func run(progress: ((Interval) -> Void)? = nil) throws -> Report {
        let waker = try LoopWaker(loop: view.eventLoop, name: "the soak driver's wake-up pipe") { [unowned self] in
            self.lock.lock(); let todo = self.queue; self.queue = []; self.lock.unlock()
            for c in todo { self.perform(c) }
        }
        self.waker = waker
        defer { waker.close() }
        let loop = view.eventLoop
        view.onFrameTime = { [unowned self] s in self.frameTimes.append(s * 1000) }
        startedAt = MonotonicClock.now()
        scheduleSample(loop)
        _ = loop.schedule(after: settings.seconds) { [unowned self] in
            self.lock.lock(); self.stopping = true; self.lock.unlock()
            self.view.stop()
        }
        let socketPath = view.configuration.control.socket
        let seed = settings.seed, width = settings.width, height = settings.height
        let driverDone = DispatchSemaphore(value: 0)
        let driver = Thread { [unowned self] in
            self.drive(socket: socketPath, seed: seed, screen: Size(width: Double(width), height: Double(height)))
            driverDone.signal()
        }
        driver.name = "soak-driver"
        driver.start()
        self.progress = progress
        try view.run()
        lock.lock(); stopping = true; lock.unlock()
        driverDone.wait()
        judge()
        return report
    }

    private var progress: ((Interval) -> Void)?

    // MARK: the loop's side

    func perform(_ c: Command) {
        switch c {
        case .frame(let f):
            view.feed(f, from: touchPath)
        case .unplug(let t):
            current.unplugs += 1
            view.feed(ContactFrame(time: t, contacts: []), from: touchPath)
            view.handle([.closed(path: touchPath, reason: .gone)])
        case .replug:
            view.handle([.opened(path: touchPath, name: "soak panel", kind: .protocolB(slots: 10), foundBy: "soak")])
        case .displayLoss(let lost, let seconds):
            current.displayLosses += 1
            display.fail(until: MonotonicClock.now() + seconds, lost: lost)
            view.pipeline.setNeedsRedraw()
        }
    }

    func scheduleSample(_ loop: EventLoop) {
        _ = loop.schedule(after: settings.interval) { [weak self, weak loop] in
            guard let self, let loop else { return }
            self.sample()
            self.scheduleSample(loop)
        }
    }

    func sample() {
        current.end = MonotonicClock.now() - startedAt
        current.frames = frameTimes.count
        if let slowest = frameTimes.max() {
            current.frameP50 = Statistics.percentile(frameTimes, 50)
            current.frameP99 = Statistics.percentile(frameTimes, 99)
            current.frameMax = slowest
        }
        current.rssMiB = Double(ProcessMemory.residentBytes() ?? 0) / 1_048_576
        current.descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
        lock.lock()
        current.gestures += counters.gestures; current.clients += counters.clients
        current.requests += counters.requests; current.reloads += counters.reloads
        counters = (0, 0, 0, 0)
        lock.unlock()
        report.intervals.append(current)
        progress?(current)
        current = Interval(end: 0)
        frameTimes.removeAll(keepingCapacity: true)
    }

    /// Flat or not (`violations`), into the report.
    func judge() {
        report.violations += KioskSoak.violations(report.intervals, rssGrowthLimitMiB: rssGrowthLimitMiB,
                                                  rssLateGrowthLimitMiB: rssLateGrowthLimitMiB,
                                                  descriptorGrowthLimit: descriptorGrowthLimit, frameTimeGrowthFactor: frameTimeGrowthFactor)
    }

    /// What is not flat in a run's intervals: the last interval against the first after the
    /// warm-up (the first interval is the warm-up when there are three or more: caches fill,
    /// fonts load), RSS still growing over the later half of a long run, descriptors, frame times.
    static func violations(_ all: [Interval], rssGrowthLimitMiB: Double = 32, rssLateGrowthLimitMiB: Double = 8,
                           descriptorGrowthLimit: Int = 6, frameTimeGrowthFactor: Double = 2) -> [String] {
        var out: [String] = []
        guard all.count >= 2 else {
            return ["fewer than two intervals (\(all.count)): run longer or give a shorter --interval"]
        }
        let base = all.count >= 3 ? all[1] : all[0]
        let last = all[all.count - 1]
        let afterWarmUp = Array(all.dropFirst(all.count >= 3 ? 1 : 0))
        out += RSSTrend(growthLimitMiB: rssGrowthLimitMiB, lateGrowthLimitMiB: rssLateGrowthLimitMiB)
            .violations(afterWarmUp.map { ($0.end, $0.rssMiB) })
        if last.descriptors - base.descriptors > descriptorGrowthLimit {
            out.append("open descriptors grew from \(base.descriptors) to \(last.descriptors)")
        }
        // Frame times: the median p99 of the later half of the intervals against the earlier
        // half's (after the warm-up), counting intervals of at least 50 frames: one interval's
        // p99 depends on which frames it drew (a reload's full redraws, an idle minute).
        let steady = afterWarmUp.filter { $0.frames >= 50 }
        if steady.count >= 2 {
            func median(_ xs: [Double]) -> Double { Statistics.percentile(xs, 50) }
            let half = steady.count / 2
            let early = median(steady.prefix(half).map(\.frameP99)), late = median(steady.suffix(steady.count - half).map(\.frameP99))
            if late > early * frameTimeGrowthFactor + 5 {
                out.append(String(format: "p99 frame time grew from %.1f ms to %.1f ms (median of the earlier and later intervals)", early, late))
            }
        }
        for (i, iv) in all.enumerated() where iv.frames == 0 {
            out.append("interval \(i + 1) drew no frame")
        }
        return out
    }

    // MARK: the driver thread

    private var counters = (gestures: 0, clients: 0, requests: 0, reloads: 0)

    func send(_ c: Command) {
        lock.lock(); queue.append(c); lock.unlock()
        waker?.wake()
    }

    var isStopping: Bool { lock.lock(); defer { lock.unlock() }; return stopping }

    func count(_ body: (inout (gestures: Int, clients: Int, requests: Int, reloads: Int)) -> Void) {
        lock.lock(); body(&counters); lock.unlock()
    }

    func sleep(until t: Double) {
        let d = t - MonotonicClock.now()
        if d > 0 { Thread.sleep(forTimeInterval: min(d, 1)) }
    }

    func drive(socket: String, seed: UInt64, screen: Size) {
        var random = SplitMix64(seed: seed)
        let device = TouchScript.virtualPanel(screen: screen)
        var assembler = FrameAssembler(capabilities: device, screen: screen)
        var markers = 0, overlays = 0
        Thread.sleep(forTimeInterval: 0.3) // the loop starts and draws its first frame
        while !isStopping {
            let dice = random.int(100)
            switch dice {
            case 0..<55:   // a visitor's gesture
                let frames = gesture(&random, &assembler, device: device, screen: screen)
                for f in frames {
                    if isStopping { break }
                    sleep(until: f.time)
                    send(.frame(f))
                }
                count { $0.gestures += 1 }
            case 55..<85:  // an app connects, does a few things, goes
                clientSession(socket: socket, &random, markers: &markers, overlays: &overlays)
            case 85..<90:
                if let c = try? ControlClient(path: socket, timeout: 30) {
                    _ = try? c.request("reload")
                    count { $0.clients += 1; $0.requests += 1; $0.reloads += 1 }
                }
            case 90..<94:
                let t = MonotonicClock.now()
                send(.unplug(t))
                assembler = FrameAssembler(capabilities: device, screen: screen)
                Thread.sleep(forTimeInterval: random.range(0.2, 1.5))
                send(.replug)
            case 94..<97:
                send(.displayLoss(lost: random.int(2) == 0, seconds: random.range(0.5, 3)))
            default:
                break
            }
            Thread.sleep(forTimeInterval: random.range(0.05, 0.6))
        }
    }

    func gesture(_ random: inout SplitMix64, _ assembler: inout FrameAssembler, device: DeviceCapabilities, screen: Size) -> [ContactFrame] {
        var s = TouchScript(screen: screen, start: MonotonicClock.now() + 0.02, device: device)
        func point(_ m: Double = 80) -> Point { Point(x: random.range(m, screen.width - m), y: random.range(m, screen.height - m)) }
        let c = point(300)
        switch random.int(6) {
        case 0: s.tap(point())
        case 1: s.move([0: c], [0: point()], duration: random.range(0.2, 0.8))
        case 2: s.fling(from: c, to: c + Point(x: random.range(-300, 300), y: random.range(-300, 300)), duration: 0.08)
        case 3:
            let d = random.range(40, 150), f = random.range(0.5, 1.8)
            s.move([0: c - Point(x: d, y: 0), 1: c + Point(x: d, y: 0)], [0: c - Point(x: d * f, y: 0), 1: c + Point(x: d * f, y: 0)],
                   duration: random.range(0.3, 0.7))
        case 4:
            let r = 100.0, a = random.range(-1, 1)
            s.move([0: c - Point(x: r, y: 0), 1: c + Point(x: r, y: 0)],
                   [0: c - Point(x: r * cos(a), y: r * sin(a)), 1: c + Point(x: r * cos(a), y: r * sin(a))], duration: 0.5)
        default: s.hold(point(), duration: random.range(0.6, 1.0))
        }
        var frames: [ContactFrame] = []
        for e in [InputEvent(time: s.events.first?.time ?? MonotonicClock.now(), type: EV.ABS, code: ABS.MT_SLOT, value: 0)] + s.events {
            if let f = assembler.process(e) { frames.append(f) }
        }
        return frames
    }

    func clientSession(socket: String, _ random: inout SplitMix64, markers: inout Int, overlays: inout Int) {
        guard let c = try? ControlClient(path: socket, timeout: 30) else { return }
        var requests = 0
        func call(_ cmd: String, _ args: [(String, JSONValue)] = []) { _ = try? c.request(cmd, args); requests += 1 }
        let lat = 47.14 + random.range(-0.05, 0.05), lon = 9.52 + random.range(-0.05, 0.05)
        call("get_camera")
        switch random.int(5) {
        case 0:
            call("add_marker", [("marker", .string("m\(markers)")), ("latitude", .number(lat)), ("longitude", .number(lon)),
                                ("title", .string("Marker \(markers)")), ("snippet", .string("added by a client"))])
            markers += 1
            if markers > 40 { call("remove_marker", [("marker", .string("m\(markers - 41)"))]) }
            if random.int(3) == 0 { call("select_marker", [("marker", .string("m\(markers - 1)"))]) }
        case 1:
            let d = random.range(0.005, 0.03)
            let ring: JSONValue = .array([[lon - d, lat - d], [lon + d, lat - d], [lon + d, lat + d], [lon - d, lat + d], [lon - d, lat - d]]
                .map { .array($0.map { .number($0) }) })
            call("add_overlay", [("overlay", .string("o\(overlays)")),
                                 ("geojson", .object([("type", .string("Polygon")), ("coordinates", .array([ring]))])),
                                 ("style", .object([("stroke", .string("#c00")), ("stroke-width", .number(3)), ("fill-opacity", .number(0.25))]))])
            overlays += 1
            if overlays > 8 { call("remove_overlay", [("overlay", .string("o\(overlays - 9)"))]) }
        case 2:
            call("move_camera", [("latitude", .number(lat)), ("longitude", .number(lon)), ("zoom", .number(random.range(11, 16.5))),
                                 ("bearing", .number(random.range(-40, 40))), ("tilt", .number(random.range(0, 50))), ("animate", .number(0.6))])
        case 3:
            // A subscriber that reads a little and then vanishes mid-stream.
            call("subscribe")
            c.setTimeout(0.5) // an idle kiosk sends no events: the subscriber waits briefly, not for ever
            for _ in 0..<random.int(20) { guard (try? c.readLine()) != nil else { break } }
        default:
            call("set_route", [("geojson", .object([("type", .string("LineString")), ("coordinates", .array(
                (0..<20).map { i in .array([.number(lon + Double(i) * 0.002), .number(lat + sin(Double(i) / 3) * 0.004)]) }))]))])
            call("list_markers")
            call("stats")
        }
        count { $0.clients += 1; $0.requests += requests }
    }
}

/// A 1080p display in memory that can be taken away (another DRM master: presents refused until
/// it lets go) or fail (`DisplayError.lost`) for a while.
final class SoakDisplay: DisplayBackend, @unchecked Sendable {
    let width: Int, height: Int
    var physicalSizeMM: (width: Int, height: Int)? { (527, 296) }
    let refreshHz = 60.0
    var name: String { "soak \(width)x\(height)" }
    var isFlipPending: Bool { false }
    var eventFileDescriptor: Int32? { nil }
    var backBufferIsDrawable: Bool { true }
    private let memory: UnsafeMutableRawPointer
    private var failUntil = 0.0, failLost = false

    init(width: Int, height: Int) {
        self.width = width; self.height = height
        memory = UnsafeMutableRawPointer.allocate(byteCount: width * height * 4, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: width * height * 4)
    }
    deinit { memory.deallocate() }

    func fail(until t: Double, lost: Bool) { failUntil = t; failLost = lost }
    func backBuffer() -> FrameBuffer { FrameBuffer(width: width, height: height, stride: width * 4, pixels: memory) }
    func present() throws -> Bool {
        if MonotonicClock.now() < failUntil {
            if failLost { throw DisplayError.lost(path: "/dev/dri/soak", reason: "the soak took the display away") }
            throw DisplayError.masterHeld(path: "/dev/dri/soak")
        }
        return true
    }
    func handleEvents() throws {}
    func close() {}
}
