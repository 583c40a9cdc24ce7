import Platform
import Foundation
import TouchCore
import TouchDevices
import Gestures
import MapEngine
import Rendering
import VectorTiles
import Display

extension DisplayBackend {
    /// The visible area in millimetres, when the output reports a real one (not 0x0).
    public var physicalSizeMillimetres: Size? {
        guard let mm = physicalSizeMM, mm.width > 0, mm.height > 0 else { return nil }
        return Size(width: Double(mm.width), height: Double(mm.height))
    }
}

/// The map as an app uses it, in the style of the phone map SDKs: create it with a
/// configuration, set a delegate, add markers, and `run()` the one event loop. The
/// `touchbridge run` executable is a thin user of this type.
///
///     var configuration = KioskConfiguration()
///     configuration.map.source = .mbtiles("/var/lib/touchbridge/city.pmtiles")
///     let view = try MapView(configuration: configuration)
///     view.delegate = myDelegate
///     view.add(Marker(id: "cafe", position: Coordinate(latitude: 48.85, longitude: 2.35), title: "Cafe"))
///     try view.run()
public final class MapView {
    public package(set) var configuration: KioskConfiguration
    public let configPath: String?
    package let display: DisplayBackend
    /// Size the map is drawn at (the display's, turned by `[display] rotation`).
    public let screen: Size
    package let pipeline: MapPipeline
    package var controller: MapController { pipeline.controller }
    /// Where the camera is now (target, zoom, bearing, tilt).
    public var camera: CameraPosition { controller.camera }
    /// Following, overview or free; setting it starts the mode's camera move.
    public var cameraMode: CameraMode {
        get { controller.cameraMode }
        set { controller.setCameraMode(newValue, at: MonotonicClock.now()); pipeline.setNeedsRedraw() }
    }
    public weak var delegate: MapViewDelegate? {
        didSet { controller.delegate = delegate }
    }
    /// Receives each raw gesture first; return true to replace the default map behaviour.
    public var gestureHandler: ((GestureEvent) -> Bool)? {
        get { controller.gestureHandler }
        set { controller.gestureHandler = newValue }
    }
    /// Called after each frame is shown, with the newest input timestamp it reflects.
    public var onFramePresented: ((_ now: Double, _ inputTime: Double?) -> Void)?
    /// Draws over the map before it is shown (used by `tune`).
    package var overlay: ((FrameBuffer) -> Void)?

    package let log: KioskLog
    /// The composition root around this view (the kiosk: `Kiosk`), told of devices, frames and
    /// the loop's turns; nil for an app that embeds the view alone.
    package weak var host: MapViewHost?
    package internal(set) var renderer: MapRenderer
    /// Hears each presented frame's draw time in seconds (the kiosk soak's frame times).
    package var onFrameTime: ((Double) -> Void)?
    /// The vector tile set whose warnings were logged, and how many (logTileWarnings).
    var tileWarnings: (set: ObjectIdentifier?, seen: Int) = (nil, 0)
    /// The frame the renderer draws into when it cannot draw into the display's back buffer
    /// (a turned panel, or a backend whose buffer is not ordinary memory); made at the first
    /// such frame, so a kiosk that draws in place never holds a second full frame.
    private var ownFrame: OwnedFrameBuffer?
    /// The kiosk's one event loop. A host app adds its own descriptors and timers to it
    /// (`add(fd:interest:handler:)`, `schedule(at:handler:)`), before or during `run()`.
    public let eventLoop: EventLoop
    package private(set) var running = false
    /// The one device manager: the touchscreens the configuration selects, hotplug included.
    package let input: TouchInputHub
    /// Several touchscreens, one surface.
    package var merger = ContactMerger()
    package var pacer: FramePacer
    /// The touchscreens opened by the constructor, reported to the host (or the log) by `startInput`.
    private var openedAtStart: [TouchInputHub.Event]? = nil
    var newestInput: Double?
    var closed = false
    /// Vector tiles decoded on the second core wake the loop through this (TileWorkerWake.swift).
    var tileWorker: TileWorkerWake?
    /// Kernel input timestamp to page-flip timestamp (same clock), seconds, per frame that showed
    /// new input (displays that report flip times: DRM).
    package private(set) var touchToFlip = LatencyHistogram()
    var flipInput: Double?
    /// When the frame whose flip is pending was drawn (for the prediction's draw-to-flip time).
    var flipDrawTime: Double?
    var lastMeasuredInput: Double?
    /// While another DRM master holds the display: when to try to take it back (MapView+DisplayFaults.swift).
    var displayRetryAt: Double?
    /// The display error last logged (each is logged once, not per frame).
    package internal(set) var displayProblem: String?

    /// Stop the loop at this CLOCK_MONOTONIC time (for tests and measurements).
    public var stopTime: Double?
    public private(set) var framesPresented = 0
    /// When to try again a frame the display refused with no flip pending.
    var presentRetryAt: Double?
    /// Frames the display refused with no flip pending (reported at exit).
    public private(set) var refusedPresents = 0
    public private(set) var firstFrameTime: Double?
    package let createdAt = MonotonicClock.now()

    /// Opens the display, the map data and the touchscreens the configuration names.
    /// - Parameter display: a backend to use instead of the configured one (tests, demo).
    public convenience init(configuration: KioskConfiguration, configPath: String? = nil, log: KioskLog? = nil) throws {
        try self.init(configuration: configuration, configPath: configPath, display: nil, log: log)
    }

    /// The same on a display backend made by the caller (tests, the demo, the bench). With
    /// `startInput: false` the touchscreens are opened but reported, and read, only from
    /// `startInput()`: a host sets itself as `host` first, so it hears them.
    package init(configuration: KioskConfiguration, configPath: String? = nil, display: DisplayBackend?,
                 log: KioskLog? = nil, startInput: Bool = true) throws {
        self.configuration = configuration
        self.configPath = configPath
        self.log = log ?? KioskLog(level: .init(name: configuration.log.level))
        _ = try BuiltInWorld.load() // a clear error now, not an empty map later
        let d = try display ?? MapView.openDisplay(configuration.display, log: self.log)
        self.display = d
        if !configuration.display.rotationIsExplicit, let r = d.panelRotation, r != 0 {
            // Weston does the same: the kernel knows how a built-in panel is mounted.
            self.configuration.display.rotation = r
            self.log(.info, "display: panel orientation says the panel is turned \(r) degrees; drawing (and turning touches) to match")
        }
        let (w, h) = FrameCopy.logicalSize(width: d.width, height: d.height, rotation: self.configuration.display.rotation)
        screen = Size(width: Double(w), height: Double(h))
        var raster: RasterTileSource? = nil
        var vector: VectorTileSet? = nil
        if case .mbtiles(let path) = configuration.map.source {
            // Decoded raster tiles: the screen turned to any angle (RasterTileSource.capacity).
            // Decoded vector tiles: enough for this screen's cached base map and its ring of neighbours.
            let opened = MapRenderer.openTiles(path: path, rasterCacheCapacity: RasterTileSource.capacity(screenWidth: w, screenHeight: h),
                                               vectorCacheBytes: VectorTileSet.cacheBytes(
                screenWidth: w, screenHeight: h, margin: MapRenderer.cacheMargin(width: w, height: h)))
            raster = opened.raster
            vector = opened.vector
            if raster == nil && vector == nil {
                // Not the world map instead: a kiosk that shows the wrong map is a silent failure.
                throw ConfigError(file: configPath ?? "configuration", line: nil, key: "map.tiles",
                                  message: TileFileCheck.problem(path: path) ?? "\(path): cannot be opened")
            }
            for warning in opened.warnings { self.log(.warning, warning) }
        }
        let streetStyle = MapView.loadStyle(configuration.map.style, log: self.log)
        renderer = MapRenderer(raster: raster, vector: vector, streetStyle: streetStyle)
        for w in renderer.spriteWarnings { self.log(.warning, w) }
        renderer.textScale = configuration.map.textScale
        renderer.labelLanguage = configuration.map.language
        pacer = FramePacer(refreshHz: min(d.refreshHz > 0 ? d.refreshHz : 60, Double(configuration.display.maxFPS)))

        eventLoop = try EventLoop()
        // Touchscreens first: their resolution decides how many pixels a millimetre is.
        input = TouchInputHub(entries: MapView.touchEntries(self.configuration), screen: screen)
        let opened = input.openAll()
        let found = input.discovered
        let density = Replay.density(configuration: configuration, touch: found.first?.capabilities, screen: screen,
                                     displayMM: d.physicalSizeMillimetres)
        pipeline = MapPipeline(configuration: configuration, screen: screen, density: density)
        pipeline.logTransitions { [log = self.log] level, message in log(level, message) }
        if configuration.touchPrediction {
            pipeline.prediction = FramePrediction(settings: .init(pixelsPerMillimetre: density.pixelsPerMillimetre),
                                                  fixedLatency: configuration.predictionLatency, refreshHz: 1 / pacer.interval)
        }
        self.log(.info, "display \(d.name); map drawn at \(screen); gestures at \(density)")
        self.log(.info, MapView.memoryPlan(display: d, rotation: self.configuration.display.rotation, width: w, height: h, raster: raster, vector: vector))
        for p in configuration.gestures.thresholds.problems { self.log(.warning, "gesture thresholds: \(p)") }
        for w in pipeline.overlayWarnings { self.log(.warning, w) }
        for line in MapView.missingTouchscreens(self.configuration, found: found.map(\.path)) { self.log(.warning, line) }
        openedAtStart = opened
        pipeline.measureInfoWindows(with: renderer)
        if let vector {
            tileWorker = try TileWorkerWake(vector: vector, loop: eventLoop) { [weak self] in
                self?.renderer.invalidateCache()
                self?.pipeline.setNeedsRedraw()
            }
        }
        if startInput { try self.startInput() }
    }

    /// Reports the touchscreens the constructor opened and starts reading them on the loop
    /// (hotplug included). Once; the constructor calls it unless told not to.
    package func startInput() throws {
        guard let opened = openedAtStart else { return }
        openedAtStart = nil
        handle(opened)
        try input.attach(to: eventLoop) { [weak self] events in self?.handle(events) }
    }

    deinit { close() }

    // MARK: markers (the SDK surface; the controller holds the state)

    public func add(_ marker: Marker) { controller.add(marker); pipeline.setNeedsRedraw() }
    public func removeMarker(id: String) { controller.removeMarker(id: id); pipeline.setNeedsRedraw() }
    public var selectedMarker: String? {
        get { controller.selectedMarker }
        set { controller.select(newValue); pipeline.setNeedsRedraw() }
    }
    // MARK: overlays, the route and the position (the controller holds the state)

    /// Adds a shape overlay (or a GeoJSON one: `GeoJSON.overlay(id:json:)`), or replaces the one
    /// with its id; throws `OverlayError` past `OverlayLimits`.
    public func add(_ overlay: Overlay) throws { try controller.add(overlay, at: MonotonicClock.now()); pipeline.setNeedsRedraw() }
    public func removeOverlay(id: String) { controller.removeOverlay(id: id, at: MonotonicClock.now()); pipeline.setNeedsRedraw() }
    /// The route drawn with the navigation look (empty: none); overview mode fits it.
    public func setRoute(_ points: [Coordinate]) { controller.setRoute(points); pipeline.setNeedsRedraw() }
    /// The you-are-here position: the puck (and a following camera) glide to it.
    public func setPosition(_ fix: PositionFix) {
        let now = MonotonicClock.now()
        catchUp(to: now)
        controller.setPosition(fix, at: now)
        pipeline.advance(to: now)
        pipeline.setNeedsRedraw()
    }

    public func animate(to camera: CameraPosition, duration: Double) {
        controller.animate(to: camera, duration: duration, at: MonotonicClock.now()); pipeline.setNeedsRedraw()
    }
    public func move(to camera: CameraPosition) { controller.move(to: camera, at: MonotonicClock.now()); pipeline.setNeedsRedraw() }

    /// Which gestures move the map (HERE's gesture mask), changeable at runtime. A gesture that
    /// is off is still recognised and handed to `gestureHandler`. A gesture running when the
    /// mask changes ends cleanly (ended, then idleAt); markers and the info window stay.
    public var gestureMask: GestureMask {
        get { controller.configuration.gestureMask }
        set { setGestureMask(newValue, at: MonotonicClock.now()) }
    }

    /// `gestureMask` with an explicit time (CLOCK_MONOTONIC seconds, the loop's clock).
    public func setGestureMask(_ mask: GestureMask, at time: Double) {
        if running { handle(input.readAll()) } // the touches before the change are judged before it
        pipeline.setGestureMask(mask, at: time)
        configuration.gestures.enabled = mask
    }

    /// The app's content for a marker's info window changed: redrawn when that window is shown
    /// and the marker has `tracksInfoWindowChanges` (the delegate is asked again), else ignored.
    public func infoWindowContentDidChange(markerID: String) {
        if controller.infoWindowContentDidChange(markerID: markerID, at: MonotonicClock.now()) { pipeline.setNeedsRedraw() }
    }

    // MARK: opening things

    /// The configured display, opened through Display's one factory; a PNG folder that cannot
    /// be made is a configuration error naming the key.
    package static func openDisplay(_ s: KioskConfiguration.DisplaySettings, log: KioskLog) throws -> DisplayBackend {
        let request: DisplayRequest
        switch s.backend {
        case .png:
            do { try FileManager.default.createDirectory(atPath: s.pngDirectory, withIntermediateDirectories: true) } catch {
                throw ConfigError(file: "configuration", line: nil, key: "display.png_dir",
                                  message: FolderCheck.folderProblem(s.pngDirectory, create: true, for: "PNG frames")
                                    ?? "cannot create the folder \(s.pngDirectory) for the PNG frames")
            }
            let (w, h) = FrameCopy.logicalSize(width: s.pngSize.0, height: s.pngSize.1, rotation: s.rotation)
            request = .png(directory: s.pngDirectory, width: w, height: h)
        case .fbdev:
            request = .fbdev(path: s.fbdev)
        case .drm:
            request = .drm(card: s.card, connector: s.connector, mode: s.mode)   // no card: "auto"
        }
        return try DisplayFactory.open(request) { log(.debug, $0) }
    }

    /// The log lines for touchscreens the configuration asks for that are not there: each
    /// [[touch]] table's match (a path also says whether the node exists), or "any" when
    /// the file names none and nothing was found. The kiosk waits for them (hotplug).
    package static func missingTouchscreens(_ cfg: KioskConfiguration, found: [String]) -> [String] {
        let waiting = "waiting for it to be plugged in (touchbridge devices lists input devices)"
        if cfg.touch.isEmpty {
            return found.isEmpty ? ["no touchscreen found yet (the file names none: any touchscreen is used); \(waiting)"] : []
        }
        var lines: [String] = []
        for (i, t) in cfg.touch.enumerated() {
            guard let m = t.match else {
                if found.isEmpty { lines.append("[[touch]] table \(i + 1) (match = \"auto\"): no touchscreen found yet; \(waiting)") }
                continue
            }
            switch m {
            case .path(let p):
                guard !found.contains(p) else { continue }
                let why = FileManager.default.fileExists(atPath: p) ? "\(p) exists but is not a touchscreen this user may open" : "\(p) does not exist"
                lines.append("[[touch]] table \(i + 1) (match = \"\(p)\"): touchscreen not found yet: \(why); \(waiting)")
            default:
                if found.isEmpty {
                    lines.append("[[touch]] table \(i + 1) (match = \(m)): no touchscreen matching it found yet; \(waiting)")
                }
            }
        }
        return lines
    }

    /// The device manager's entries: one per [[touch]] table (or one "every touchscreen").
    static func touchEntries(_ cfg: KioskConfiguration) -> [TouchInputHub.Entry] {
        let tables = cfg.touch.isEmpty ? [KioskConfiguration.TouchSettings()] : cfg.touch
        return tables.map { s in
            var entry = TouchInputHub.Entry(match: s.match, filters: FilterOptions(hysteresis: true, smoothing: s.smoothing ? 0.5 : nil),
                                            grab: s.grab) { udev in MapView.calibration(s, udev: udev, displayRotation: cfg.display.rotation) }
            entry.pens = s.pens
            return entry
        }
    }

    /// Calibration for one device: the config's matrix, else udev's LIBINPUT_CALIBRATION_MATRIX,
    /// then the rotation and mirror shorthands.
    /// Touches turn with the display unless the entry sets its own rotation (Weston's rule).
    static func calibration(_ s: KioskConfiguration.TouchSettings, udev: Calibration?, displayRotation: Int = 0) -> Calibration {
        var c = s.calibration.map { Calibration(matrix: $0) } ?? udev ?? .identity
        let rotation = s.rotation ?? displayRotation
        if rotation != 0, let r = Calibration.rotation(degrees: rotation) { c = c.then(r) }
        if s.mirror != .none { c = c.then(.mirrored(horizontal: s.mirror == .horizontal, vertical: s.mirror == .vertical)) }
        return c
    }

    /// What the device manager reports: frames into the pipeline, the rest into the log.
    package func handle(_ events: [TouchInputHub.Event]) {
        for event in events {
            switch event {
            case .opened(let path, let name, let kind, let foundBy):
                log(.info, "touchscreen \(path) \"\(name)\" (\(kind.description), found by \(foundBy))")
                host?.touchscreenOpened(path: path, name: name)
                followDensity()
            case .frames(let path, let frames):
                for f in frames { feed(f, from: path) }
            case .closed(let path, let reason):
                merger.remove(device: path)
                host?.touchscreenClosed(path: path, fault: reason.isFault)
                switch reason {
                case .gone: log(.warning, "touch device \(path) disappeared (unplugged?); its contacts were cancelled; waiting for it to come back")
                case .removed: log(.warning, "touch device \(path) was removed; its contacts were cancelled")
                case .failed(let message): log(.error, message)
                }
            case .warning(let text, let severity):
                log(severity == .warning ? .warning : .error, text)
            }
        }
    }

    /// Gestures are judged at the density of the touchscreen opened first among those open (as
    /// `replay` judges a recording at its device's): a panel plugged in after the start, or in
    /// place of another, brings its own (MapPipeline.useDensity: once no finger is down).
    package func followDensity() {
        guard let first = input.devices.values.min(by: { $0.fd < $1.fd }) else { return }
        let density = Replay.density(configuration: configuration, touch: first.capabilities, screen: screen,
                                     displayMM: display.physicalSizeMillimetres)
        guard density.pixelsPerMillimetre != pipeline.pixelsPerMillimetre else { return }
        log(.info, "gestures at \(density) (touchscreen \(first.path))")
        pipeline.useDensity(density, gestures: configuration.gestures)
    }

    /// Reads every input the touchscreens hold, then runs the pipeline's deadlines (long press,
    /// double tap, lift grace, animations) up to `now`. The input is judged by the kernel's
    /// timestamps, not by when the kiosk got round to reading it: `now` is read before the
    /// devices are, so every event stamped before it has been read (and handled at its own
    /// time) when a deadline at or before `now` fires. After a stall (a busy board, SIGSTOP) a
    /// lift stamped before the long-press time is a tap, not a long press.
    package func catchUp(to now: Double) {
        handle(input.readAll())
        pipeline.advance(to: now)
    }

    /// One device's frame, merged with what the other touchscreens have down, so the
    /// recogniser sees one surface.
    package func feed(_ f: ContactFrame, from path: String) {
        newestInput = max(newestInput ?? f.time, f.time)
        if host?.intercept(f, from: path) == true { return }
        pipeline.handle(merger.merge(f, from: path))
    }

    // MARK: the loop

    /// Runs until SIGINT or SIGTERM (or `stop()`); SIGHUP re-reads the configuration file.
    public func run() throws {
        let loop = eventLoop
        running = true
        defer { running = false }
        var displayFD: Int32?
        defer { if let displayFD { loop.remove(fd: displayFD) } }
        defer { host?.didRun(on: loop) }
        if let fd = display.eventFileDescriptor {
            try loop.add(fd: fd) { [weak self] fd in
                guard let self else { return }
                do { try self.display.handleEvents() } catch {
                    // A failing fd would wake the loop for ever: it leaves the loop.
                    self.displayFailed(error, now: MonotonicClock.now())
                    if self.display.eventFileDescriptor != fd { loop.remove(fd: fd) }
                }
                if let drawn = self.flipDrawTime, !self.display.isFlipPending, let flip = self.display.lastFlipTime {
                    self.pipeline.prediction?.frameFlipped(drawnAt: drawn, flippedAt: flip)
                    self.flipDrawTime = nil
                }
                if let input = self.flipInput, !self.display.isFlipPending, let flip = self.display.lastFlipTime {
                    self.touchToFlip.record(seconds: flip - input)
                    self.flipInput = nil
                }
            }
            displayFD = fd
        }
        try loop.handleSignals([SIGINT, SIGTERM, SIGHUP]) { [weak self] sig in
            guard let self else { return }
            if sig == SIGHUP {
                if let host = self.host { host.hangup() } else { self.log(.info, "SIGHUP: no configuration file to re-read; going on") }
            } else {
                self.log(.info, "signal \(sig): stopping")
                self.host?.stopping()
                self.eventLoop.stop()
            }
        }
        try host?.willRun(on: loop)
        // A deadline that passed: the input waiting in the devices first (catchUp).
        loop.onTimer { [weak self] in self?.catchUp(to: MonotonicClock.now()) }
        watchDisplayOwnership(loop)
        pipeline.begin(at: MonotonicClock.now())
        try loop.run { [weak self] in self?.beforeWait() }
        close()
    }

    public func stop() { eventLoop.stop() }

    /// Right before sleeping: read what input has arrived, draw if something changed and the
    /// display may take a frame, and arm the timer for the earliest deadline.
    package func beforeWait() {
        let now = MonotonicClock.now() // before the read: see catchUp
        catchUp(to: now)
        var wakeAt = pipeline.nextDeadline
        if let settle = pipeline.prediction?.settleAt {
            // A predicted frame led the fingers: draw again once they have gone quiet.
            if now >= settle { pipeline.prediction?.settleAt = nil; pipeline.setNeedsRedraw() } else { wakeAt = min(wakeAt ?? settle, settle) }
        }
        if pipeline.takeNeedsRedraw() {
            if display.isFlipPending || !pacer.mayPresent(now: now) {
                pipeline.setNeedsRedraw()
                if !display.isFlipPending { wakeAt = min(wakeAt ?? .infinity, pacer.nextPresentTime) }
            } else {
                drawAndPresent(now: now)
            }
        }
        if !pipeline.needsRedraw && pipeline.contactsDown == 0 && !controller.isMoving {
            // Idle: the renderer's idle work (the world's names measured, about 9 ms once at
            // startup and after a text-scale change), so the first frame at a new zoom level
            // does not pay for it while a finger or an animation waits.
            while renderer.prepareWhileIdle() {}
        }
        if let retry = presentRetryAt {
            // The display refused the frame with no flip pending (a busy driver): no flip event
            // will wake the loop, so try again shortly, or the last frame of a gesture stays off
            // the glass until the next touch.
            presentRetryAt = nil
            wakeAt = min(wakeAt ?? retry, retry)
        }
        if let t = host?.tick(now: now) { wakeAt = min(wakeAt ?? t, t) }
        if let stopTime {
            if now >= stopTime { eventLoop.stop(); return }
            wakeAt = min(wakeAt ?? stopTime, stopTime)
        }
        eventLoop.setDeadline(wakeAt)
    }


    /// Logs, once each, the tiles the renderer skipped (corrupt, too large, over the feature
    /// budget: each names its tile; the rest of the map is drawn without it).
    func logTileWarnings() {
        guard let v = renderer.vector else { return }
        let all = v.warnings
        guard all.count != tileWarnings.seen || ObjectIdentifier(v) != tileWarnings.set else { return }
        if ObjectIdentifier(v) != tileWarnings.set { tileWarnings = (ObjectIdentifier(v), 0) }
        for w in all.dropFirst(tileWarnings.seen) { log(.warning, "tiles: " + w) }
        tileWarnings.seen = all.count
    }

    /// Renders the current scene and shows it.
    package func drawAndPresent(now: Double) {
        if let retry = displayRetryAt, now < retry { pipeline.setNeedsRedraw(); return } // someone else has the display
        // Blanked: nothing is drawn until a touch wakes the screen (then this frame is drawn).
        if host?.mayDraw == false { pipeline.setNeedsRedraw(); return }
        let drawStart = MonotonicClock.now()
        // While something moves, the renderer may resample its cached base map (fast); the
        // frame after the camera goes idle is drawn at full quality.
        let moving = controller.isMoving || pipeline.contactsDown > 0
        let (target, inPlace) = drawingTarget()
        renderer.render(pipeline.drawingScene(attribution: nil, now: now), into: target, quality: moving ? .interactive : .final)
        logTileWarnings()
        pipeline.prediction?.didDraw(at: now)
        // The first still frame at a new zoom was drawn directly: draw it once more through the
        // cache (at the next refresh), so the still picture is the one `render` gives.
        if renderer.settledFrameIsDue { pipeline.setNeedsRedraw() }
        pipeline.usePlaces(renderer.drawnPlaces, streetLabels: renderer.streetLabels)
        overlay?(target)
        if !inPlace { FrameCopy.copy(target, to: display.backBuffer(), rotation: configuration.display.rotation) }
        do {
            if try display.present() {
                pacer.didPresent(at: now)
                if display.isFlipPending { flipDrawTime = now }
                if let input = newestInput, input != lastMeasuredInput, display.isFlipPending {
                    flipInput = input
                    lastMeasuredInput = input
                }
                framesPresented += 1
                host?.framePresented(drawSeconds: MonotonicClock.now() - drawStart)
                onFrameTime?(MonotonicClock.now() - drawStart)
                if firstFrameTime == nil {
                    let first = MonotonicClock.now()
                    firstFrameTime = first
                    log(.info, String(format: "first frame on the display %.0f ms after start", (first - createdAt) * 1000))
                    host?.firstFramePresented()
                }
                onFramePresented?(MonotonicClock.now(), newestInput)
                displayRecovered()
            } else {
                pipeline.setNeedsRedraw()
                if !display.isFlipPending { presentRetryAt = now + pacer.interval / 4; refusedPresents += 1 }
            }
        } catch {
            displayFailed(error, now: now)
        }
    }

    /// The start line about memory: where frames are drawn and the caches the screen sized.
    static func memoryPlan(display: DisplayBackend, rotation: Int, width w: Int, height h: Int,
                           raster: RasterTileSource?, vector: VectorTileSet?) -> String {
        func mib(_ b: Int) -> String { String(format: "%.1f MiB", Double(b) / 1_048_576) }
        let m = MapRenderer.cacheMargin(width: w, height: h)
        var parts = [display.backBufferIsDrawable && rotation == 0 ? "frames drawn straight into the display's buffer"
                     : "frames drawn into a frame of their own (\(mib(w * h * 4))), then copied into the display's buffer"]
        parts.append("base map cache \(w + 2 * m)x\(h + 2 * m) (\(mib((w + 2 * m) * (h + 2 * m) * 4)))")
        let layer = MapRenderer.overlayLayerPlan(width: w, height: h)
        parts.append("overlay layer \(layer.width)x\(layer.height) in \(layer.tiles) tiles of \(layer.tileSize) px, only those with names, pins or the info window on them held (all: \(mib(layer.tiles * layer.tileSize * layer.tileSize * 4))) + \(mib(layer.scratchBytes)) scratch")
        if let raster {
            parts.append("up to \(raster.capacity) decoded tiles (\(mib(raster.capacity << 18)); palette tiles kept compact, 1/4 of that or less)")
            parts.append("palette tiles expanded only where drawn, into one tile's scratch a format (\(mib(1 << 18)) each)")
        }
        if let vector { parts.append("up to \(mib(vector.maxBytes)) of decoded vector tiles") }
        return "memory: " + parts.joined(separator: "; ")
    }

    /// The picture last drawn, upright (before any turn for the panel): the display's buffer
    /// when frames are drawn in place, else the map view's own frame.
    package var drawnFrame: FrameBuffer { drawingTarget().0 }

    /// Where the next frame is drawn: the display's back buffer itself when the display allows
    /// it and the panel is not turned (the frame is the same picture either way: the renderer
    /// paints every pixel of every frame), else a frame of the map view's own that is then
    /// copied (and turned) into the back buffer. True in the second element when in place.
    package func drawingTarget() -> (FrameBuffer, Bool) {
        let back = display.backBuffer()
        if display.backBufferIsDrawable, configuration.display.rotation == 0,
           back.width == Int(screen.width), back.height == Int(screen.height) {
            return (back, true)
        }
        let own = ownFrame ?? OwnedFrameBuffer(width: Int(screen.width), height: Int(screen.height))
        ownFrame = own
        return (own.buffer, false)
    }

    /// Frees the display (restoring what it showed) and closes the devices. Safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        host?.closing()
        tileWorker?.close()
        tileWorker = nil
        if !touchToFlip.isEmpty {
            log(.info, "touch-to-flip latency over \(touchToFlip.count) frames: \(touchToFlip.summary)")
        }
        if refusedPresents > 0 { log(.info, "the display refused \(refusedPresents) frames while busy; each was drawn again") }
        let caches = renderer.cacheSizes.map { String(format: "%@ %dx%d %.1f MiB", $0.name, $0.width, $0.height, Double($0.bytes) / 1_048_576) }
        if !caches.isEmpty {
            log(.info, "caches at exit: " + caches.joined(separator: "; ")
                + String(format: "; peak resident memory %.1f MiB", ProcessMemory.peakResidentMiB() ?? 0))
        }
        display.close()
        input.detach()
        input.closeAll()
        host?.closed()
    }
}

/// What a composition root around a `MapView` (the kiosk, `Kiosk` in the Kiosk module) hears from
/// the view's loop and decides for it. Package, not SDK: an app that embeds the view has its
/// delegate instead. Every call is on the loop's thread.
package protocol MapViewHost: AnyObject {
    /// A touchscreen was opened (after the view logged it).
    func touchscreenOpened(path: String, name: String)
    /// A touchscreen was closed (its contacts cancelled); `fault`: it failed or vanished.
    func touchscreenClosed(path: String, fault: Bool)
    /// A real touchscreen's frame before the merger: true swallows it (the recogniser never sees it).
    func intercept(_ frame: ContactFrame, from path: String) -> Bool
    /// False while nothing may be drawn (the display is blanked): frames wait.
    var mayDraw: Bool { get }
    /// A frame reached the display; `drawSeconds` from the start of drawing to the present.
    func framePresented(drawSeconds: Double)
    /// The first frame reached the display.
    func firstFramePresented()
    /// Right before the loop sleeps, after the frame: the host's own work; returns when to be
    /// called again (joins the loop's one timer), or nil.
    func tick(now: Double) -> Double?
    /// `run()` is starting on `loop` (after the display and signals are on it).
    func willRun(on loop: EventLoop) throws
    /// `run()` is returning.
    func didRun(on loop: EventLoop)
    /// SIGHUP.
    func hangup()
    /// SIGINT or SIGTERM: the loop stops after this.
    func stopping()
    /// `close()` began (before the display and the devices are closed), and ended.
    func closing()
    func closed()
}
