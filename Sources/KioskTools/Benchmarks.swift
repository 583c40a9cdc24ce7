import Platform
import Foundation
import TouchCore
import Gestures
import MapEngine
import Rendering
import Display
import TouchBridge
import Kiosk

/// `touchbridge bench`: speed, latency and memory of every stage, as a table and as one JSON
/// object (keys documented in docs/benchmarks.md; tools outside the project read them).
public struct Benchmarks {
    /// A kiosk probe that could not run or report (named binary, and what to do).
    public struct ProbeFailed: Error, CustomStringConvertible { public let description: String }

    public struct Options {
        public var quick = false
        public var mbtiles: String?
        /// A vector tile set over Vaduz (the street-map figures).
        public var streetTiles: String?
        public var recording: String?
        public var executable: String?
        /// The same program built as the Debian package builds it (the Swift runtime linked in,
        /// `make static-build`): the kiosk memory runs are repeated with it (`*_static_mib`).
        public var staticExecutable: String?
        /// Run the recogniser and controller figures in this process (no spread).
        public var inProcessMicro = false
        public init() {}
    }

    public var options: Options
    public private(set) var figures: [(key: String, value: Double, unit: String, label: String)] = []
    public var progress: (String) -> Void = { _ in }

    public init(options: Options) { self.options = options }

    mutating func add(_ key: String, _ value: Double, _ unit: String, _ label: String) {
        figures.append((key, value, unit, label))
        let padded = label.count < 60 ? label + String(repeating: " ", count: 60 - label.count) : label
        progress("  " + padded + String(format: " %12.3f ", value) + unit)
    }

    var minSeconds: Double { options.quick ? 0.05 : 0.6 }

    public mutating func runAll() throws {
        // A section's title is printed with its first line: a stage that has nothing to measure
        // (no --recording, no street tiles, --quick) leaves no empty section (issue 30).
        let sections = SectionPrinter(out: progress)
        let saved = progress
        progress = sections.line
        defer { progress = saved }
        if Self.onlyOverlays { sections.header("Overlay shapes (1920x1080) only"); overlayShapes(); return }
        if ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_ONLY"] == "street" {
            sections.header("Street map 1920x1080 (vector tiles, Vaduz) only")
            streetMap()
            return
        }
        if ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_ONLY"] == "world" {
            // For a profiler: the built-in world's full redraws at 3840x2160 (as render_full_2160p_ms),
            // TOUCHBRIDGE_BENCH_PROFILE of them (default 100), and nothing else.
            let n = ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_PROFILE"].flatMap { Int($0) } ?? 100
            sections.header("Built-in world 3840x2160, \(n) full redraws only")
            worldFull(width: 3840, height: 2160, frames: n)
            return
        }
        if ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_ONLY"] == "street2160" {
            // For a profiler: the street map's full redraws at 3840x2160 (as street_full_2160p_ms),
            // TOUCHBRIDGE_BENCH_PROFILE of them (default 50), and nothing else.
            let n = ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_PROFILE"].flatMap { Int($0) } ?? 50
            guard let path = options.streetTiles, let vector = MapRenderer.openTiles(path: path).vector else { return }
            sections.header("Street map 3840x2160, \(n) full redraws only")
            streetFull(vector: vector, vaduz: Self.vaduz, width: 3840, height: 2160, frames: n)
            return
        }
        if ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_ONLY"] == "control", let exe = options.executable {
            sections.header("Control socket only: get_camera polled against a 1080p kiosk with 300 markers")
            try controlRoundTrip(executable: exe)
            return
        }
        if Self.onlyLag {
            sections.header("Finger-to-map lag at each flip, real recordings, 60 Hz display (1920x1080), frame time \(Self.lagOnlyFrameMS) ms")
            try lag()
            return
        }
        sections.header("Frame assembly and calibration")
        try assembly()
        if let exe = options.executable, !options.inProcessMicro {
            sections.header("Gesture recogniser and map controller, each in \(options.quick ? 2 : 5) fresh processes")
            if !microInFreshProcesses(executable: exe, runs: options.quick ? 2 : 5) { recogniser(); controller() }
        } else {
            sections.header("Gesture recogniser")
            recogniser()
            sections.header("Map controller")
            controller()
        }
        sections.header("Feel: touch-down map points at lift, largest step per frame")
        feel()
        for (w, h) in [(1280, 800), (1920, 1080)] {
            sections.header("Renderer \(w)x\(h)")
            try render(width: w, height: h)
        }
        sections.header("Street map 1920x1080 (vector tiles, Vaduz), and its full frame at 3840x2160")
        streetMap()
        sections.header("Renderer 3840x2160")
        worldFull(width: 3840, height: 2160)
        if let exe = options.executable, CPUAffinity.usableCount() > 1 {
            sections.header("One core: the frames above in a fresh process pinned to one CPU, one band (bench --probe-frames --cores 1)")
            try oneCoreFrames(executable: exe)
        }
        sections.header("End to end, a recording replayed at real timing (1920x1080)")
        try endToEnd()
        sections.header("End to end, every real recording of the repo one after the other, at real timing (1920x1080)")
        try endToEndAll()
        sections.header("Markers at scale (1920x1080)")
        markerScale()
        sections.header("GeoJSON overlay")
        try geoJSONLoad()
        sections.header("Overlay shapes, route and pins (1920x1080)")
        overlayShapes()
        sections.header("Finger-to-map lag at each flip, real recordings, 60 Hz display (1920x1080)")
        try lag()
        if let exe = options.executable {
            sections.header("Control socket: get_camera polled against a 1080p kiosk with 300 markers, in a fresh process")
            try controlRoundTrip(executable: exe)
            sections.header("A 1080p kiosk run with a tile set, in a fresh process")
            try kioskProbe(executable: exe)
            if options.streetTiles != nil {
                sections.header("The same on the street map (vector tiles, Vaduz), in a fresh process")
                try kioskProbe(executable: exe, street: true)
                sections.header("The street map kiosk run on a 3840x2160 screen, in a fresh process")
                try kioskProbe(executable: exe, street: true, size: (3840, 2160))
            }
        }
        if let exe = options.staticExecutable {
            sections.header("The same runs with the kiosk as the Debian package ships it (Swift runtime linked in): \(exe)")
            try kioskProbe(executable: exe, linkedStatic: true)
            if options.streetTiles != nil { try kioskProbe(executable: exe, street: true, linkedStatic: true) }
        }
    }

    // MARK: stages

    mutating func assembly() throws {
        guard let path = options.recording else { return }
        let rec = try Replay.load(path: path, descPath: nil)
        let screen = Size(width: 1920, height: 1080)
        var count = 0
        let runs = BenchSupport.timeRuns(warmup: 1, minRuns: 3, minSeconds: minSeconds) {
            var a = FrameAssembler(capabilities: rec.capabilities, calibration: Calibration(matrix: [0.98, 0.01, 0.01, -0.01, 1.02, -0.01]), screen: screen)
            for e in rec.events { if a.process(e) != nil { count += 1 } }
        }
        let perRun = BenchSupport.median(runs) / 1000
        add("assembly_events_per_s", Double(rec.events.count) / perRun, "events/s", "frame assembly + calibration")
    }

    static func scriptedFrames(fingers: Int, count: Int) -> [ContactFrame] {
        (0..<count).map { i in
            let t = Double(i) / 120
            let phase = Double(i % 240) / 240
            let contacts = (0..<fingers).map { f -> Contact in
                let angle = Double(f) * 2 * .pi / Double(max(fingers, 1)) + phase * 0.5
                let r = 150 + 80 * phase
                return Contact(id: f + 1, position: Point(x: 960 + r * cos(angle) + 200 * phase, y: 540 + r * sin(angle)))
            }
            return ContactFrame(time: t, contacts: i % 240 == 239 ? [] : contacts)
        }
    }

    /// Pinch and rotate stay glued to the fingers (issue 14): scripted gestures at 60 and
    /// 120 Hz and the multi-finger recordings, if `--recording`'s folder holds them.
    mutating func feel() {
        let screen = Size(width: 1280, height: 800)
        var all: [FeelFigures] = []
        for hz in [60.0, 120.0] {
            for g in FeelMeasurement.scriptedGestures(screen: screen, hz: hz) {
                all.append(FeelMeasurement.measure(g.name, frames: g.frames, screen: screen,
                                                   density: PixelDensity(pixelsPerMillimetre: 5, source: .deviceResolution)))
            }
        }
        let dir = options.recording.map { ($0 as NSString).deletingLastPathComponent } ?? "Tests/TouchCoreTests/Fixtures/evemu"
        for r in FeelMeasurement.recordings(in: dir, screen: screen) {
            all.append(FeelMeasurement.measure(r.name, frames: r.frames, screen: screen, density: r.density))
        }
        for f in all { progress("    " + f.description) }
        // The glue figure is for pinch and rotate; resting fingers (no gesture) and the pair-led
        // four-finger drag are printed above but not folded in.
        let transforms = all.filter { $0.gestures.contains(.pinch) || $0.gestures.contains(.rotate) }
        add("feel_lift_error_px_max", transforms.map(\.liftErrorPx).max() ?? 0, "px",
            "pinch/rotate: touch-down map point to finger at lift, worst")
        add("feel_zoom_step_max", all.map(\.maxZoomStep).max() ?? 0, "levels", "largest zoom change in one frame")
        add("feel_bearing_step_max_deg", all.map(\.maxBearingStep).max() ?? 0, "deg", "largest bearing change in one frame")
    }

    mutating func recogniser() {
        let n = options.quick ? 2_000 : 50_000
        var results: [Int: Double] = [:]
        for fingers in [1, 2, 5, 10] {
            let frames = Self.scriptedFrames(fingers: fingers, count: n)
            var sink = 0
            let runs = BenchSupport.timeRuns(warmup: 1, minRuns: 3, minSeconds: minSeconds) {
                var r = GestureRecognizer(screen: Size(width: 1920, height: 1080))
                for f in frames { sink &+= r.process(f).count }
            }
            precondition(sink >= 0)
            let ns = BenchSupport.median(runs) * 1e6 / Double(n)
            results[fingers] = ns
            add("recognizer_ns_per_frame_\(fingers)f", ns, "ns", "recogniser, \(fingers) finger\(fingers > 1 ? "s" : "") per frame")
        }
        add("recognizer_ns_per_frame", results[2]!, "ns", "recogniser per frame (two fingers: pinch + rotate)")
        inputPath()
    }

    mutating func controller() {
        let n = options.quick ? 2_000 : 50_000
        let events: [GestureEvent] = (0..<n).map { i in
            let t = 1 + Double(i) / 120
            if i % 500 == 0 { return GestureEvent(kind: .pan, phase: .began, time: t, position: Point(x: 960, y: 540)) }
            let p = Point(x: 960 + Double(i % 500), y: 540 + Double(i % 500) / 2)
            if i % 500 == 499 { return GestureEvent(kind: .pan, phase: .ended, time: t, position: p, anchor: p - Point(x: 1, y: 0.5)) }
            return GestureEvent(kind: .pan, phase: .changed, time: t, position: p, anchor: p - Point(x: 1, y: 0.5))
        }
        let runs = BenchSupport.timeRuns(warmup: 1, minRuns: 3, minSeconds: minSeconds) {
            let c = MapController(camera: CameraPosition(target: Coordinate(latitude: 48, longitude: 2), zoom: 6, bearing: 20),
                                  screenSize: Size(width: 1920, height: 1080))
            c.recordsEvents = false
            for e in events { c.handle(e); c.advance(to: e.time) }
        }
        add("controller_ns_per_update", BenchSupport.median(runs) * 1e6 / Double(n), "ns", "map controller per gesture update")
    }

    mutating func render(width: Int, height: Int) throws {
        let tag = height == 1080 ? "1080p" : "800p"
        let screen = Size(width: Double(width), height: Double(height))
        let frame = OwnedFrameBuffer(width: width, height: height)
        let camera = CameraPosition(target: Coordinate(latitude: 48.5, longitude: 9.0), zoom: 5)
        let markers = DemoTour.markers.map { MarkerSprite(id: $0.id, coordinate: $0.coordinate) }
        let scene = MapScene(camera: camera, markers: markers)
        let renderer = MapRenderer()

        let copy = BenchSupport.frameCopyMS(width: width, height: height)
        let copyMS = BenchSupport.median(copy)
        add("frame_copy_\(tag)_ms", copyMS, "ms", "plain copy of one frame's bytes, buffers in cache")
        let coldMS = BenchSupport.median(BenchSupport.coldFrameCopyMS(width: width, height: height))
        add("frame_copy_cold_\(tag)_ms", coldMS, "ms", "plain copy of one frame's bytes, buffers not in cache")

        renderer.usesBaseMapCache = false
        let full = BenchSupport.timeRuns(minRuns: 5, minSeconds: minSeconds) { renderer.render(scene, into: frame.buffer) }
        add("render_full_\(tag)_ms", BenchSupport.median(full), "ms", "full redraw, built-in map")
        renderer.usesBaseMapCache = true

        renderer.render(scene, into: frame.buffer)
        var i = 0
        var pan = scene
        let proj = Projection(camera: camera, screen: screen)
        let pans = BenchSupport.timeRuns(minRuns: 20, minSeconds: minSeconds) {
            i += 1
            let off = Double(i % 60) * 2
            if let c = proj.coordinate(at: Point(x: screen.width / 2 + off, y: screen.height / 2 + off / 3)) { pan.camera.target = c }
            renderer.render(pan, into: frame.buffer, quality: .interactive)
        }
        let panMS = BenchSupport.median(pans)
        add("render_pan_\(tag)_ms", panMS, "ms", "pan frame (cached base map)")
        add("render_pan_\(tag)_copy_ratio", panMS / copyMS, "x", "pan frame / frame copy (in cache)")
        add("render_pan_\(tag)_cold_copy_ratio", panMS / coldMS, "x", "pan frame / frame copy (not in cache)")

        var tilted = scene
        tilted.camera.tilt = 60
        tilted.camera.bearing = 30
        var k = 0
        let tilts = BenchSupport.timeRuns(minRuns: 5, minSeconds: minSeconds) {
            k += 1
            tilted.camera.tilt = 55 + Double(k % 10)
            renderer.render(tilted, into: frame.buffer)
        }
        add("render_tilted_\(tag)_ms", BenchSupport.median(tilts), "ms", "tilted frame (60 deg, bearing 30), final quality")
        let tiltsI = BenchSupport.timeRuns(minRuns: 5, minSeconds: minSeconds) {
            k += 1
            tilted.camera.tilt = 55 + Double(k % 10)
            renderer.render(tilted, into: frame.buffer, quality: .interactive)
        }
        add("render_tilted_interactive_\(tag)_ms", BenchSupport.median(tiltsI), "ms", "tilted frame while the tilt gesture runs")

        // Zoom steps as a person causes them (double taps in, two-finger taps out): each frame
        // of the controller's animation at 60 Hz, drawn as the kiosk draws it.
        let steps = Self.zoomStepFrames(width: width, height: height, steps: options.quick ? 4 : 12)
        add("render_zoom_step_\(tag)_p50_ms", BenchSupport.median(steps), "ms", "zoom step (double tap) animation frame, p50 of \(steps.count)")
        add("render_zoom_step_\(tag)_max_ms", steps.max() ?? 0, "ms", "  slowest")

        if let path = options.mbtiles {
            let opened = MapRenderer.openRaster(path: path)
            if let raster = opened.source {
                let r = MapRenderer(raster: raster)
                var s = MapScene(camera: CameraPosition(target: Coordinate(latitude: 20, longitude: 0), zoom: 3))
                var j = 0
                let mb = BenchSupport.timeRuns(minRuns: 5, minSeconds: minSeconds) {
                    j += 1
                    s.camera.target.longitude = Double(j % 20)
                    r.render(s, into: frame.buffer)
                }
                add("render_mbtiles_\(tag)_ms", BenchSupport.median(mb), "ms", "MBTiles frame (decoded tiles cached)")
                // A palette tile (most raster tile sets): decoded keeping its indices, expanded
                // into 4-byte pixels when drawn; beside it, cairo's decode of the same tile.
                if height == 1080, let data = (0..<16).lazy.compactMap({ try? raster.tiles.tileData(z: 4, x: $0, y: 6) }).first,
                   let tile = try? PalettedTile.decode(png: data) {
                    let image = tile.expanded()
                    let expand = BenchSupport.timeRuns(minSeconds: minSeconds) { tile.expand(into: image) }
                    add("tile_expand_us", BenchSupport.median(expand) * 1000, "us",
                        "palette tile \(tile.width)x\(tile.height) at \(tile.depth) bits expanded into 4-byte pixels")
                    let palette = BenchSupport.timeRuns(minSeconds: minSeconds) { _ = try? PalettedTile.decode(png: data) }
                    add("tile_decode_palette_us", BenchSupport.median(palette) * 1000, "us", "the same tile decoded, indices kept (libpng)")
                    let cairo = BenchSupport.timeRuns(minSeconds: minSeconds) { _ = CairoImage.png(data) }
                    add("tile_decode_cairo_us", BenchSupport.median(cairo) * 1000, "us", "the same tile decoded into 4-byte pixels by cairo")
                }
            } else if let w = opened.warning {
                progress("  (no MBTiles frame: \(w))")
            }
        }
        add("render_full_\(tag)_copy_ratio", BenchSupport.median(full) / copyMS, "x", "full redraw / frame copy")
    }

    /// `render_full_<H>p_ms` alone: the built-in world's full redraw as `render` takes it (Europe
    /// at zoom 5 with the demo's pins, no base-map cache), on a renderer and frame of its own.
    /// `frames`: that many frames exactly (a profiler's run), else the bench's runs.
    /// Full redraws timed: a key's (3 warm-up frames, at least 5 runs and `minSeconds`), or,
    /// with `frames`, exactly that many without a warm-up (for a profiler).
    func fullRedraws(frames: Int?, _ body: () -> Void) -> [Double] {
        let exact = frames.map { max(1, $0) }
        return BenchSupport.timeRuns(warmup: exact == nil ? 3 : 0, minRuns: exact ?? 5, maxRuns: exact ?? 1000,
                                     minSeconds: exact == nil ? minSeconds : 0, body)
    }

    /// Vaduz, where the street map's views look (the Liechtenstein tiles' capital).
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)

    mutating func worldFull(width: Int, height: Int, frames: Int? = nil) {
        let frame = OwnedFrameBuffer(width: width, height: height)
        let markers = DemoTour.markers.map { MarkerSprite(id: $0.id, coordinate: $0.coordinate) }
        let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 48.5, longitude: 9.0), zoom: 5), markers: markers)
        let renderer = MapRenderer()
        renderer.usesBaseMapCache = false
        let full = fullRedraws(frames: frames) { renderer.render(scene, into: frame.buffer) }
        add("render_full_\(height)p_ms", BenchSupport.median(full), "ms", "full redraw, built-in map, \(width)x\(height)")
    }

    /// A recording through pipeline + renderer at its real timing: from handing a frame to the
    /// pipeline (the moment it was read) to the frame being ready in the back buffer.
    /// Zoom steps at a screen size, over Europe, as people make them: a double tap (in), a
    /// second double tap during its animation (a series: two levels), a two-finger tap (out);
    /// each animated by the controller, every frame at 60 Hz drawn as MapView draws it
    /// (interactive while the camera moves, then the final frame), timed.
    public static func zoomStepFrames(width: Int, height: Int, steps: Int) -> [Double] {
        let screen = Size(width: Double(width), height: Double(height))
        let frame = OwnedFrameBuffer(width: width, height: height)
        let controller = MapController(camera: CameraPosition(target: Coordinate(latitude: 48.5, longitude: 9.0), zoom: 4.3), screenSize: screen)
        let renderer = MapRenderer()
        var scene = MapScene(camera: controller.camera, markers: DemoTour.markers.map { MarkerSprite(id: $0.id, coordinate: $0.coordinate) })
        renderer.render(scene, into: frame.buffer)
        while renderer.prepareWhileIdle() {}    // as MapView does at its first idle moment
        var times: [Double] = []
        var t = 1.0
        for i in 0..<steps {
            let inward = i % 3 != 2
            let at = Point(x: screen.width * (inward ? 0.55 : 0.5), y: screen.height * (inward ? 0.45 : 0.5))
            func tap() {
                controller.handle(GestureEvent(kind: inward ? .doubleTap : .twoFingerTap, phase: .recognized, time: t, position: at,
                                               fingers: inward ? 1 : 2))
            }
            tap()
            for n in 0..<90 {
                t += 1.0 / 60
                if i % 3 == 1 && n == 9 { tap() }    // the series' second double tap, 150 ms in
                controller.advance(to: t)
                let moving = controller.isMoving
                scene.camera = controller.camera
                let start = BenchSupport.nanos()
                renderer.render(scene, into: frame.buffer, quality: moving ? .interactive : .final)
                times.append(Double(BenchSupport.nanos() - start) / 1e6)
                if !moving { break }
            }
            _ = controller.drainEvents()
            t += 0.5
        }
        return times
    }

    /// What replaying recordings end to end measured: wall and CPU time from an input frame
    /// read to its frame ready, and per kind of frame.
    struct EndToEnd {
        var latencies = LatencyHistogram()
        var cpuLatencies = LatencyHistogram()
        var kinds: [String: [(wall: Double, cpu: Double, render: Double)]] = [:]
        /// The slowest frame: when in the recording (s), its wall time (ms), kind and camera.
        var slowest: (t: Double, ms: Double, kind: String, camera: String)?
    }

    /// Replays `rec` at its real timing (its first `limit` seconds) through a fresh pipeline at
    /// 1920x1080 into `renderer`, which draws straight into the display's back buffer.
    static func replayEndToEnd(_ rec: Evemu.Recording, limit: Double, renderer: MapRenderer, display: MemoryDisplay,
                               into m: inout EndToEnd) {
        let screen = Size(width: 1920, height: 1080)
        let pipeline = MapPipeline(configuration: KioskConfiguration(), screen: screen,
                                   density: Replay.density(for: rec.capabilities, screen: screen))
        var assembler = FrameAssembler(capabilities: rec.capabilities, screen: screen)
        // Drawn straight into the display's back buffer, as MapView does when the display allows
        // it (every built-in backend's back buffer is RAM; DRM and fbdev copy it to the scanout
        // memory in present(), after the moment measured here).
        let back = display.backBuffer()
        precondition(display.backBufferIsDrawable)
        let target = FrameBuffer(width: back.width, height: back.height, stride: back.stride, pixels: back.pixels)
        guard let t0 = rec.events.first?.time else { return }
        let wall0 = MonotonicClock.now()
        pipeline.begin(at: t0)
        renderer.render(pipeline.scene(attribution: nil), into: target)
        while renderer.prepareWhileIdle() {}    // as MapView does at its first idle moment
        for e in rec.events where e.time - t0 <= limit {
            guard let f = assembler.process(e) else { continue }
            // Wait for the frame's real time.
            let due = wall0 + (f.time - t0)
            let now = MonotonicClock.now()
            if due > now { Thread.sleep(forTimeInterval: due - now) }
            let start = BenchSupport.nanos(), cpuStart = Self.threadCPUNanos()
            pipeline.handle(f)
            if pipeline.takeNeedsRedraw() {
                let moving = pipeline.controller.isMoving || pipeline.contactsDown > 0
                let builds = renderer.overlayBuilds, strips = renderer.overlayStrips
                let scene = pipeline.scene(attribution: nil)
                let renderStart = Self.threadCPUNanos()
                renderer.render(scene, into: target, quality: moving ? .interactive : .final)
                let renderCPU = Double(Self.threadCPUNanos() &- renderStart) / 1e6
                let seconds = Double(BenchSupport.nanos() - start) / 1e9
                let cpu = Double(Self.threadCPUNanos() &- cpuStart) / 1e9
                m.latencies.record(seconds: seconds)
                m.cpuLatencies.record(seconds: cpu)
                let kind = Self.frameKindName(renderer.lastFrameKind, quality: moving ? "interactive" : "final",
                                              layerBuilt: renderer.overlayBuilds > builds, layerStrips: renderer.overlayStrips > strips)
                m.kinds[kind, default: []].append((seconds * 1e3, cpu * 1e3, renderCPU))
                if seconds * 1e3 > m.slowest?.ms ?? 0 {
                    let c = scene.camera
                    m.slowest = (f.time - t0, seconds * 1e3, kind, String(format: "%.4f,%.4f z%.3f b%.1f t%.1f", c.target.latitude, c.target.longitude, c.zoom, c.bearing, c.tilt))
                }
            }
        }
    }

    mutating func endToEnd() throws {
        guard let path = options.recording else { return }
        let rec = try Replay.load(path: path, descPath: nil)
        var m = EndToEnd()
        Self.replayEndToEnd(rec, limit: options.quick ? 1.0 : 6.0, renderer: MapRenderer(),
                            display: MemoryDisplay(width: 1920, height: 1080), into: &m)
        guard !m.latencies.isEmpty else { return }
        let (latencies, cpuLatencies, kinds) = (m.latencies, m.cpuLatencies, m.kinds)
        add("event_to_frame_p50_ms", latencies.milliseconds(at: 50), "ms", "input frame read -> frame ready in back buffer, p50")
        add("event_to_frame_p99_ms", latencies.milliseconds(at: 99), "ms", "  p99")
        add("event_to_frame_p999_ms", latencies.milliseconds(at: 99.9), "ms", "  p99.9")
        add("event_to_frame_max_ms", latencies.maxMilliseconds, "ms", "  max (\(latencies.count) frames, HdrHistogram)")
        add("event_to_frame_cpu_p50_ms", cpuLatencies.milliseconds(at: 50), "ms", "  the same, CPU time of the handling thread, p50")
        add("event_to_frame_cpu_p99_ms", cpuLatencies.milliseconds(at: 99), "ms", "  CPU time p99")
        add("event_to_frame_cpu_max_ms", cpuLatencies.maxMilliseconds, "ms", "  CPU time max")
        printKinds(kinds)
    }

    /// Every recording beside `options.recording` (the repo's ten real recordings from four
    /// panels: drags, taps, two- and four-finger touches, hover; 29 s in all), one after the
    /// other into one renderer, as a kiosk meets them over time: the event-to-frame figures
    /// over all their frames (`--quick`: the first second of each).
    mutating func endToEndAll() throws {
        guard let path = options.recording else { return }
        let dir = (path as NSString).deletingLastPathComponent
        let files = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".events") }.sorted()
        let renderer = MapRenderer(), display = MemoryDisplay(width: 1920, height: 1080)
        var all = EndToEnd()
        var replayed = 0
        for file in files {
            let rec: Evemu.Recording
            do { rec = try Replay.load(path: dir + "/" + file, descPath: nil) } catch {
                progress("  (\(file) skipped: \(error))")
                continue
            }
            var one = EndToEnd()
            Self.replayEndToEnd(rec, limit: options.quick ? 1.0 : 60.0, renderer: renderer, display: display, into: &one)
            guard !one.latencies.isEmpty else { continue }
            replayed += 1
            progress(String(format: "  %@: %d frames, p50 %.2f, p99 %.2f, max %.2f ms", (file as NSString).deletingPathExtension,
                            one.latencies.count, one.latencies.milliseconds(at: 50), one.latencies.milliseconds(at: 99), one.latencies.maxMilliseconds)
                     + (one.slowest.map { String(format: " (at %.2f s: %@, camera %@)", $0.t, $0.kind, $0.camera) } ?? ""))
            for e in one.kinds { all.kinds[e.key, default: []] += e.value }
            for e in one.kinds.values.joined() { all.latencies.record(seconds: e.wall / 1e3); all.cpuLatencies.record(seconds: e.cpu / 1e3) }
        }
        guard !all.latencies.isEmpty else { return }
        add("event_to_frame_all_p50_ms", all.latencies.milliseconds(at: 50), "ms", "input frame read -> frame ready, all \(replayed) recordings, p50")
        add("event_to_frame_all_p99_ms", all.latencies.milliseconds(at: 99), "ms", "  p99")
        add("event_to_frame_all_max_ms", all.latencies.maxMilliseconds, "ms", "  max (\(all.latencies.count) frames)")
        add("event_to_frame_all_cpu_p99_ms", all.cpuLatencies.milliseconds(at: 99), "ms", "  CPU time of the handling thread, p99")
        printKinds(all.kinds)
    }

    mutating func printKinds(_ kinds: [String: [(wall: Double, cpu: Double, render: Double)]]) {
        progress("  per kind of frame: count, wall p50 / max ms, CPU p50 / max ms, of which render p50 / max, share of the summed CPU time")
        let total = kinds.values.reduce(0) { $0 + $1.reduce(0) { $0 + $1.cpu } }
        for (kind, v) in kinds.sorted(by: { ($0.value.map(\.cpu).max() ?? 0) > ($1.value.map(\.cpu).max() ?? 0) }) {
            let wall = v.map(\.wall).sorted(), cpu = v.map(\.cpu).sorted(), render = v.map(\.render).sorted()
            let padded = kind.count < 42 ? kind + String(repeating: " ", count: 42 - kind.count) : kind
            progress("    " + padded + String(format: " %4d %7.2f %7.2f %7.2f %7.2f %7.2f %7.2f %5.1f %%", v.count, wall[wall.count / 2], wall.last ?? 0,
                                              cpu[cpu.count / 2], cpu.last ?? 0, render[render.count / 2], render.last ?? 0,
                                              100 * cpu.reduce(0, +) / max(total, 1e-9)))
        }
    }

    static func threadCPUNanos() -> UInt64 { ThreadCPUTime.nanoseconds() }

    /// A name for what a frame cost the renderer: its base-map kind, its quality, and what the
    /// overlay layer did for it.
    static func frameKindName(_ kind: MapRenderer.FrameKind, quality: String, layerBuilt: Bool, layerStrips: Bool) -> String {
        var name = "\(kind) \(quality)"
        if layerBuilt { name += " + layer drawn whole" } else if layerStrips { name += " + layer strips" }
        return name
    }

    /// Starts `touchbridge bench --probe-kiosk` and reads its figures: time from exec to the
    /// first frame presented, and peak RSS after panning a 1080p MBTiles map for a while.
    /// `linkedStatic`: `executable` is the package's build; only its memory is reported, as
    /// `peak_rss_static_mib` and `street_kiosk_peak_rss_static_mib`.
    /// `size`: the kiosk's screen (1920x1080 unless given); another size is reported only for the
    /// street map, as `street_kiosk_peak_rss_mib_<H>p`.
    mutating func kioskProbe(executable: String, street: Bool = false, linkedStatic: Bool = false,
                             size: (width: Int, height: Int) = (1920, 1080)) throws {
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ProbeFailed(description: "\(executable) is not an executable file: build it first (make static-build for --static-binary)")
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        var args = ["bench", "--probe-kiosk"]
        if street, let t = options.streetTiles { args += ["--mbtiles", t, "--street-camera"] } else if let m = options.mbtiles { args += ["--mbtiles", m] }
        if options.quick { args.append("--quick") }
        let atOtherSize = size.width != 1920 || size.height != 1080
        if atOtherSize { args += ["--probe-size", "\(size.width)x\(size.height)"] }
        p.arguments = args
        let pipe = Pipe()
        p.standardOutput = pipe
        let start = BenchSupport.nanos()
        try p.run()
        var firstFrameMS: Double?
        var rss: Double?
        var cacheBytes = 0.0
        var buffer = Data()
        let h = pipe.fileHandleForReading
        while true {
            let d = h.availableData
            if d.isEmpty { break }
            buffer.append(d)
            while let nl = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[buffer.startIndex..<nl], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...nl)
                if line == "first-frame" { firstFrameMS = Double(BenchSupport.nanos() - start) / 1e6 }
                if line.hasPrefix("peak-rss-mib ") { rss = Double(line.dropFirst(13)) }
                if line.hasPrefix("cache ") {
                    // "cache BYTES WxH NAME | RULE": the renderer's caches and how the screen sized them.
                    let f = line.split(separator: " ", maxSplits: 3)
                    if f.count == 4, let b = Double(f[1]) {
                        cacheBytes += b
                        let parts = f[3].split(separator: "|", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                        progress(String(format: "    cache: %@, %@, %.1f MiB", parts[0], String(f[2]), b / 1_048_576)
                                 + (parts.count > 1 ? ": " + parts[1] : ""))
                    }
                }
            }
        }
        p.waitUntilExit()
        if linkedStatic {
            guard p.terminationStatus == 0, let r = rss else {
                throw ProbeFailed(description: "\(executable) bench --probe-kiosk failed (exit \(p.terminationStatus)): is it a build of this version (make static-build)?")
            }
            if street {
                add("street_kiosk_peak_rss_static_mib", r, "MiB", "the same on the street map, Swift runtime linked in")
            } else {
                add("peak_rss_static_mib", r, "MiB", "peak resident memory of the 1080p kiosk with a tile set, Swift runtime linked in (as packaged)")
            }
            return
        }
        if atOtherSize {
            guard p.terminationStatus == 0, let r = rss else {
                throw ProbeFailed(description: "\(executable) bench --probe-kiosk --probe-size \(size.width)x\(size.height) failed (exit \(p.terminationStatus))")
            }
            if street {
                add("street_kiosk_peak_rss_mib_\(size.height)p", r, "MiB", "peak resident memory of a \(size.width)x\(size.height) kiosk run on the street map (fresh process)")
            }
            return
        }
        if street {
            if let r = rss { add("street_kiosk_peak_rss_mib", r, "MiB", "peak resident memory of a 1080p kiosk run on the street map (fresh process)") }
            return
        }
        if let f = firstFrameMS { add("first_frame_ms", f, "ms", "start to first frame (1080p, tile set)") }
        if let r = rss { add("peak_rss_mib", r, "MiB", "peak resident memory of a 1080p kiosk run with a tile set") }
        if cacheBytes > 0 { add("render_caches_mib", cacheBytes / 1_048_576, "MiB", "the renderer's caches in that run (listed above)") }
    }

    /// The child side of `kioskProbe`: a MapView on a memory display at 1080p with the tile set,
    /// a first frame, then two-finger and one-finger gestures for a few seconds of frames.
    public static func probeKiosk(mbtiles: String?, quick: Bool, memoryTrace: Bool = false, street: Bool = false,
                                  width: Int = 1920, height: Int = 1080) throws {
        var lastPeak = 0
        /// With --memory-trace: where the resident memory is at a point of the run ("mem" lines,
        /// ignored by the parent), and after each frame that raised the peak by 1 MiB or more.
        func trace(_ stage: String, onlyIfPeakRose: Bool = false) {
            guard memoryTrace, let b = ProcessMemory.breakdown() else { return }
            if onlyIfPeakRose && b.peakKiB < lastPeak + 1024 { return }
            lastPeak = b.peakKiB
            let top = b.mappings.prefix(stage == "settled frame" ? 40 : 8).map { "\($0.name)=\(String(format: "%.1f", Double($0.kib) / 1024))" }.joined(separator: " ")
            print(String(format: "mem %@ rss=%.1f hwm=%.1f MiB: %@", stage, Double(b.residentKiB) / 1024, Double(b.peakKiB) / 1024, top))
        }
        trace("process start")
        var cfg = KioskConfiguration()
        cfg.display.maxFPS = 1000
        if let m = mbtiles { cfg.map.source = .mbtiles(m) }
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 20, longitude: 0), zoom: 2)
        // The street map: Vaduz at street level (the vector tile set of the street-map bench).
        if street { cfg.map.camera = CameraPosition(target: Self.vaduz, zoom: 15.5) }
        cfg.touch = [.init(match: .path("/nonexistent"))] // no devices: the probe drives the pipeline itself
        // TOUCHBRIDGE_PROBE_COPY_FRAMES=1: a display whose buffer may not be drawn into (the
        // renderer draws into a frame of its own and copies it): the "before" of drawing in place.
        let memory = MemoryDisplay(width: width, height: height)
        let display: DisplayBackend = ProcessInfo.processInfo.environment["TOUCHBRIDGE_PROBE_COPY_FRAMES"] == "1" ? CopyOnlyDisplay(memory) : memory
        let kiosk = try Kiosk(configuration: cfg, display: display, log: KioskLog.journal(level: .error))
        defer { withExtendedLifetime(kiosk) {} }   // the kiosk closes its view when it goes
        let view = kiosk.view
        trace("MapView made")
        view.drawAndPresent(now: MonotonicClock.now())
        print("first-frame"); fflush(nil)
        trace("first frame")
        var script = TouchScript(screen: view.screen, start: 1)
        let c = view.screen.center
        // The gestures' distances in 1080p pixels, scaled to the screen (the same hand on a 2160p screen).
        let u = view.screen.height / 1080
        for k in 0..<(quick ? 1 : 4) {
            script.move([0: c + Point(x: 300 * u, y: 100 * u)], [0: c - Point(x: 300 * u, y: 50 * Double(k) * u)], duration: 0.8)
            script.move([0: c - Point(x: 100 * u, y: 0), 1: c + Point(x: 100 * u, y: 0)],
                        [0: c - Point(x: 300 * u, y: 60 * u), 1: c + Point(x: 300 * u, y: 60 * u)], duration: 0.6)
            script.wait(0.5)
        }
        var assembler = FrameAssembler(capabilities: script.device, screen: view.screen)
        var drawn: [Double] = []
        var kinds: [String: Int] = [:]
        for e in script.events {
            if let f = assembler.process(e) {
                view.pipeline.handle(f)
                if view.pipeline.takeNeedsRedraw() {
                    let t0 = BenchSupport.nanos()
                    view.drawAndPresent(now: f.time)
                    drawn.append(Double(BenchSupport.nanos() - t0) / 1e6)
                    kinds["\(view.renderer.lastFrameKind)", default: 0] += 1
                    trace("frame at t=\(String(format: "%.2f", f.time)) (\(view.renderer.lastFrameKind), \(f.contacts.count) fingers)", onlyIfPeakRose: true)
                }
            }
        }
        trace("gestures done")
        view.pipeline.advance(to: script.time + 3)
        view.drawAndPresent(now: script.time + 3)
        trace("settled frame")
        for c in view.renderer.cacheSizes { print("cache \(c.bytes) \(c.width)x\(c.height) \(c.name) | \(c.rule)") }
        // The gesture frames' draw times (ignored by the parent; for comparing cache sizes by hand).
        print(String(format: "gesture-frames %d draw-ms total %.1f p50 %.2f p95 %.2f", drawn.count, drawn.reduce(0, +),
                     BenchSupport.percentile(drawn, 50), BenchSupport.percentile(drawn, 95))
              + " kinds " + kinds.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " "))
        print("peak-rss-mib \(BenchSupport.peakRSSMiB() ?? 0)"); fflush(nil)
        view.close()
    }

    public var json: String {
        var o = JSONLine()
        for f in figures { o.number(f.key, f.value, f.unit == "events/s" ? 0 : 4) }
        return o.text
    }

    public var table: String {
        figures.map { f in
            let k = f.key.count < 42 ? f.key + String(repeating: " ", count: 42 - f.key.count) : f.key
            return k + String(format: " %12.3f ", f.value) + f.unit
        }.joined(separator: "\n")
    }
}

extension Benchmarks {
    /// A FeatureCollection of `count` features with simplestyle properties: LineStrings of 10
    /// points, Polygons (a 6-point ring with a hole), and Points (title, description, pin colour).
    static func geoJSONText(features count: Int) -> String {
        var parts: [String] = []
        parts.reserveCapacity(count)
        for i in 0..<count {
            let lon = 9.0 + Double(i % 100) * 0.01, lat = 47.0 + Double(i / 100) * 0.01
            func p(_ dx: Double, _ dy: Double) -> String { "[\(lon + dx * 0.001),\(lat + dy * 0.001)]" }
            switch i % 3 {
            case 0:
                let pts = (0..<10).map { p(Double($0), Double($0 % 2)) }.joined(separator: ",")
                parts.append(##"{"type":"Feature","properties":{"stroke":"#1a73e8","stroke-width":4,"stroke-opacity":0.9},"geometry":{"type":"LineString","coordinates":["## + pts + "]}}")
            case 1:
                let outer = [p(0, 0), p(4, 0), p(5, 2), p(4, 4), p(0, 4), p(-1, 2), p(0, 0)].joined(separator: ",")
                let hole = [p(1, 1), p(1, 2), p(2, 2), p(1, 1)].joined(separator: ",")
                parts.append(##"{"type":"Feature","properties":{"stroke":"#555","fill":"#00aa00","fill-opacity":0.3,"title":"Area \##(i)"},"geometry":{"type":"Polygon","coordinates":[["## + outer + "],[" + hole + "]]}}")
            default:
                parts.append(##"{"type":"Feature","properties":{"title":"Place \##(i)","description":"Opening hours 8-18","marker-color":"#c00"},"geometry":{"type":"Point","coordinates":"## + p(0, 0) + "}}")
            }
        }
        return #"{"type":"FeatureCollection","name":"bench","features":["# + parts.joined(separator: ",\n") + "]}"
    }

    /// `geojson_load_10k_ms`: a 10,000-feature GeoJSON text parsed and read into an Overlay.
    mutating func geoJSONLoad() throws {
        let text = Self.geoJSONText(features: 10_000)
        var failure: Error?
        var shapes = 0
        let runs = BenchSupport.timeRuns(warmup: 1, minRuns: options.quick ? 2 : 5, minSeconds: minSeconds) {
            do {
                let o = try GeoJSON.overlay(id: "bench", json: try GeoJSON.parse(text: text))
                shapes = o.shapes.count + o.markers.count
            } catch { failure = error }
        }
        if let failure { throw failure }
        precondition(shapes == 10_000)
        add("geojson_load_10k_ms", BenchSupport.median(runs), "ms",
            "GeoJSON text (\(text.utf8.count / 1024) KiB, 10k features) parsed into an overlay")
    }
}

/// Holds a section title until the section prints its first line.
final class SectionPrinter {
    let out: (String) -> Void
    var pending: String?
    init(out: @escaping (String) -> Void) { self.out = out }
    func header(_ title: String) { pending = title }
    func line(_ text: String) {
        if let p = pending { pending = nil; out(p) }
        out(text)
    }
}
