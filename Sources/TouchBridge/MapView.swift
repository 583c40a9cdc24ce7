import Foundation
import TouchCore
import TouchDevices
import Gestures
import MapEngine
import Rendering
import Display
#if canImport(Glibc)
import Glibc
#endif

extension DisplayBackend {
    /// The visible area in millimetres, when the output reports a real one (not 0x0).
    var physicalSizeMillimetres: Size? {
        guard let mm = physicalSizeMM, mm.width > 0, mm.height > 0 else { return nil }
        return Size(width: Double(mm.width), height: Double(mm.height))
    }
}

/// The map as an app uses it, in the style of the phone map SDKs: create it with a
/// configuration, set a delegate, add markers, and `run()` the one event loop. The
/// `touchbridge run` executable is a thin user of this type.
///
///     let view = try MapView(configuration: try KioskConfiguration.load(path: path))
///     view.delegate = myDelegate
///     view.add(Marker(id: "cafe", position: Coordinate(latitude: 48.85, longitude: 2.35), title: "Cafe"))
///     try view.run()
public final class MapView {
    public private(set) var configuration: KioskConfiguration
    public let configPath: String?
    public let display: DisplayBackend
    /// Size the map is drawn at (the display's, turned by `[display] rotation`).
    public let screen: Size
    public let pipeline: MapPipeline
    public var controller: MapController { pipeline.controller }
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
    public var overlay: ((FrameBuffer) -> Void)?

    let log: KioskLog
    let renderer: MapRenderer
    let frame: OwnedFrameBuffer
    var loop: EventLoop?
    var devices: [String: TouchDevice] = [:]
    var monitor: TouchDeviceMonitor?
    var pacer: FramePacer
    var eventOut: EventStreamWriter?
    var newestInput: Double?
    var closed = false
    /// Kernel input timestamp to page-flip timestamp (same clock), seconds, per frame that showed
    /// new input (displays that report flip times: DRM).
    public private(set) var touchToFlip: [Double] = []
    var flipInput: Double?
    var lastMeasuredInput: Double?

    /// Stop the loop at this CLOCK_MONOTONIC time (for tests and measurements).
    public var stopTime: Double?
    public private(set) var framesPresented = 0
    public private(set) var firstFrameTime: Double?
    let createdAt = EventLoop.now()

    /// Opens the display, the map data and the touchscreens the configuration names.
    /// - Parameter display: a backend to use instead of the configured one (tests, demo).
    public init(configuration: KioskConfiguration, configPath: String? = nil, display: DisplayBackend? = nil,
                log: KioskLog? = nil) throws {
        self.configuration = configuration
        self.configPath = configPath
        self.log = log ?? KioskLog(level: .init(name: configuration.log.level))
        let d = try display ?? MapView.openDisplay(configuration.display, log: self.log)
        self.display = d
        let (w, h) = FrameCopy.logicalSize(width: d.width, height: d.height, rotation: configuration.display.rotation)
        screen = Size(width: Double(w), height: Double(h))
        frame = OwnedFrameBuffer(width: w, height: h)
        var raster: RasterTileSource? = nil
        if case .mbtiles(let path) = configuration.map.source {
            // 96 decoded 256 px tiles (24 MiB) cover a 1080p screen, its parents and a margin.
            let opened = MapRenderer.openRaster(path: path, cacheCapacity: 96)
            raster = opened.source
            if let warning = opened.warning { self.log(.warning, warning) }
        }
        renderer = MapRenderer(raster: raster)
        pacer = FramePacer(refreshHz: min(d.refreshHz > 0 ? d.refreshHz : 60, Double(configuration.display.maxFPS)))

        // Touchscreens first: their resolution decides how many pixels a millimetre is.
        let found = MapView.discover(configuration)
        let displayMM = configuration.display.physicalSizeMM.map { Size(width: $0.0, height: $0.1) } ?? d.physicalSizeMillimetres
        let density: PixelDensity
        if let ppm = configuration.gestures.pixelsPerMM, found.isEmpty && displayMM == nil {
            density = PixelDensity(pixelsPerMillimetre: ppm, source: .assumed)
        } else if let first = found.first {
            density = Replay.density(for: first.info.capabilities, screen: screen, displayMM: displayMM)
        } else {
            density = PixelDensity(screen: screen, displayMillimetres: displayMM)
        }
        pipeline = MapPipeline(configuration: configuration, screen: screen, density: density)
        self.log(.info, "display \(d.name); map drawn at \(screen); gestures at \(density)")
        for p in configuration.gestures.thresholdValues.problems { self.log(.warning, "gesture thresholds: \(p)") }
        if found.isEmpty {
            self.log(.warning, "no touchscreen found yet: waiting for one to be plugged in (touchbridge devices lists input devices)")
        }
        for f in found { openDevice(f.info, settings: f.settings) }
        // Write errors (full disk, closed pipe) are logged once per outage; the kiosk goes on.
        let report: (String) -> Void = { [log = self.log] in log(.warning, $0) }
        switch configuration.log.events {
        case "": eventOut = nil
        case "-": eventOut = EventStreamWriter(fd: STDOUT_FILENO, name: "standard output", report: report)
        case let path:
            do { eventOut = try EventStreamWriter.open(path: path, report: report) } catch {
                throw ConfigError(file: configPath ?? "configuration", line: nil, key: "log.events",
                                  message: "cannot write the event stream to \(path): \(error)")
            }
        }
        pipeline.sink = { [weak self] line in self?.eventOut?.write(line + "\n") }
        pipeline.measureInfoWindows(with: renderer)
    }

    deinit { close() }

    // MARK: markers (the SDK surface; the controller holds the state)

    public func add(_ marker: Marker) { controller.add(marker); pipeline.setNeedsRedraw() }
    public func removeMarker(id: String) { controller.removeMarker(id: id); pipeline.setNeedsRedraw() }
    public var selectedMarker: String? {
        get { controller.selectedMarker }
        set { controller.select(newValue); pipeline.setNeedsRedraw() }
    }
    public func animate(to camera: CameraPosition, duration: Double) {
        controller.animate(to: camera, duration: duration, at: EventLoop.now()); pipeline.setNeedsRedraw()
    }
    public func move(to camera: CameraPosition) { controller.move(to: camera, at: EventLoop.now()); pipeline.setNeedsRedraw() }

    // MARK: opening things

    static func openDisplay(_ s: KioskConfiguration.DisplaySettings, log: KioskLog) throws -> DisplayBackend {
        switch s.backend {
        case .png:
            try FileManager.default.createDirectory(atPath: s.pngDirectory, withIntermediateDirectories: true)
            let (w, h) = FrameCopy.logicalSize(width: s.pngSize.0, height: s.pngSize.1, rotation: s.rotation)
            return PNGDisplay(width: w, height: h, output: .numbered(pattern: (s.pngDirectory as NSString).appendingPathComponent("frame-%05d.png")))
        case .fbdev:
            return try FBDevDisplay(path: s.fbdev)
        case .drm:
            let mode = s.mode.map { ModeRequest(width: $0.width, height: $0.height, refreshHz: $0.refresh) }
            if let card = s.card { return try DRMDisplay(path: card, connector: s.connector, mode: mode) }
            // "auto": the first card that has a connected connector.
            let cards = DRMInventory.cardPaths()
            var firstError: Error? = nil
            for card in cards {
                do { return try DRMDisplay(path: card, connector: s.connector, mode: mode) } catch {
                    log(.debug, "\(card): \(error)")
                    if firstError == nil { firstError = error }
                }
            }
            throw firstError ?? DisplayError.noDevice(path: "/dev/dri/card0")
        }
    }

    struct Found { var info: TouchscreenInfo; var settings: KioskConfiguration.TouchSettings }

    static func match(_ m: KioskConfiguration.DeviceMatch) -> TouchDeviceMatch? {
        switch m {
        case .auto: return nil
        case .path(let p): return .path(p)
        case .name(let n): return .name(n)
        case .usb(let v, let p): return .vendorProduct(vendor: v, product: p)
        }
    }

    static func discover(_ cfg: KioskConfiguration) -> [Found] {
        let entries = cfg.touch.isEmpty ? [KioskConfiguration.TouchSettings()] : cfg.touch
        var out: [Found] = []
        for e in entries {
            for info in TouchDiscovery.touchscreens(matching: match(e.match)) where !out.contains(where: { $0.info.path == info.path }) {
                out.append(Found(info: info, settings: e))
            }
        }
        return out
    }

    /// The [[touch]] entry a newly plugged device belongs to, if any.
    func settings(forNew path: String, capabilities caps: DeviceCapabilities) -> KioskConfiguration.TouchSettings? {
        let entries = configuration.touch.isEmpty ? [KioskConfiguration.TouchSettings()] : configuration.touch
        for e in entries {
            if let m = MapView.match(e.match) {
                if caps.touchKind != nil && m.matches(path: path, capabilities: caps) { return e }
            } else if caps.isTouchscreen {
                return e
            }
        }
        return nil
    }

    /// Calibration for one device: the config's matrix, else udev's LIBINPUT_CALIBRATION_MATRIX,
    /// then the rotation and mirror shorthands.
    static func calibration(_ s: KioskConfiguration.TouchSettings, udev: Calibration?) -> Calibration {
        var c = s.calibration.map { Calibration(matrix: $0) } ?? udev ?? .identity
        if s.rotation != 0, let r = Calibration.rotation(degrees: s.rotation) { c = c.then(r) }
        if s.mirror != .none { c = c.then(.mirrored(horizontal: s.mirror == .horizontal, vertical: s.mirror == .vertical)) }
        return c
    }

    func openDevice(_ info: TouchscreenInfo, settings s: KioskConfiguration.TouchSettings) {
        guard devices[info.path] == nil else { return }
        do {
            let filters = FilterOptions(hysteresis: true, smoothing: s.smoothing ? 0.5 : nil)
            let dev = try TouchDevice(path: info.path, screen: screen,
                                      calibration: MapView.calibration(s, udev: info.calibration), filters: filters)
            if s.grab { dev.grab() }
            devices[info.path] = dev
            log(.info, "touchscreen \(info.path) \"\(info.capabilities.name)\" (\(info.capabilities.touchKind?.description ?? "?"), found by \(info.foundBy))")
            try loop?.add(fd: dev.fd) { [weak self] _ in self?.readDevice(info.path) }
        } catch {
            log(.error, "\(error)")
        }
    }

    func readDevice(_ path: String) {
        guard let dev = devices[path] else { return }
        do {
            let frames = try dev.readAvailable()
            for f in frames { feed(f, from: path) }
        } catch TouchDeviceError.gone(_, let frames) {
            for f in frames { feed(f, from: path) }
            loop?.remove(fd: dev.fd)
            devices[path] = nil
            log(.warning, "touch device \(path) disappeared (unplugged?); its contacts were cancelled; waiting for it to come back")
        } catch {
            log(.error, "\(error)")
            loop?.remove(fd: dev.fd)
            devices[path] = nil
        }
    }

    /// Contacts down on each device, with ids made unique across devices.
    var contactsByDevice: [String: [Contact]] = [:]
    var deviceNumbers: [String: Int] = [:]

    /// One device's frame, merged with what the other touchscreens have down (each device
    /// numbers its contacts from 0, and a frame holds only its own device's contacts), so the
    /// recogniser sees one surface.
    func feed(_ f: ContactFrame, from path: String) {
        newestInput = max(newestInput ?? f.time, f.time)
        if deviceNumbers[path] == nil { deviceNumbers[path] = deviceNumbers.count }
        let offset = deviceNumbers[path]! * 1_000_000
        contactsByDevice[path] = f.contacts.map { var c = $0; c.id += offset; return c }
        if contactsByDevice.count == 1 && offset == 0 {
            pipeline.handle(f)
            return
        }
        let merged = contactsByDevice.keys.sorted().flatMap { contactsByDevice[$0]! }
        pipeline.handle(ContactFrame(time: f.time, contacts: merged, cancelled: f.cancelled.map { $0 + offset }))
    }

    func handleHotplug() {
        guard let monitor else { return }
        for change in monitor.changes() {
            switch change {
            case .added(let path):
                guard devices[path] == nil, let caps = try? TouchDiscovery.capabilities(path: path),
                      let s = settings(forNew: path, capabilities: caps) else { continue }
                openDevice(TouchscreenInfo(devnode: path, capabilities: caps, calibration: TouchDiscovery.udevCalibration(devnode: path),
                                           foundBy: "hotplug"), settings: s)
            case .removed(let path):
                if devices[path] != nil { readDevice(path) } // reads ENODEV: cancels its contacts
                if let dev = devices[path] {
                    feed(dev.cancelAll(time: EventLoop.now()), from: path)
                    loop?.remove(fd: dev.fd)
                    devices[path] = nil
                    log(.warning, "touch device \(path) was removed; its contacts were cancelled")
                }
            }
        }
    }

    // MARK: the loop

    /// Runs until SIGINT or SIGTERM (or `stop()`); SIGHUP re-reads the configuration file.
    public func run() throws {
        let loop = try EventLoop()
        self.loop = loop
        defer { self.loop = nil }
        for (path, dev) in devices { try loop.add(fd: dev.fd) { [weak self] _ in self?.readDevice(path) } }
        do {
            let m = try TouchDeviceMonitor()
            monitor = m
            try loop.add(fd: m.fd) { [weak self] _ in self?.handleHotplug() }
        } catch {
            log(.warning, "no hotplug: \(error)")
        }
        if let fd = display.eventFileDescriptor {
            try loop.add(fd: fd) { [weak self] _ in
                guard let self else { return }
                do { try self.display.handleEvents() } catch { self.log(.error, "display: \(error)") }
                if let input = self.flipInput, !self.display.isFlipPending, let flip = self.display.lastFlipTime {
                    self.touchToFlip.append(flip - input)
                    self.flipInput = nil
                }
            }
        }
        try loop.handleSignals([SIGINT, SIGTERM, SIGHUP]) { [weak self] sig in
            guard let self else { return }
            if sig == SIGHUP { self.reload() } else {
                self.log(.info, "signal \(sig): stopping")
                loop.stop()
            }
        }
        loop.onTimer { [weak self] in self?.pipeline.advance(to: EventLoop.now()) }
        pipeline.begin(at: EventLoop.now())
        try loop.run { [weak self] in self?.beforeWait() }
        close()
    }

    public func stop() { loop?.stop() }

    /// Right before sleeping: read what input has arrived, draw if something changed and the
    /// display may take a frame, and arm the timer for the earliest deadline.
    func beforeWait() {
        for path in Array(devices.keys) { readDevice(path) }
        let now = EventLoop.now()
        pipeline.advance(to: now)
        var wakeAt = pipeline.nextDeadline
        if pipeline.takeNeedsRedraw() {
            if display.isFlipPending || !pacer.mayPresent(now: now) {
                pipeline.setNeedsRedraw()
                if !display.isFlipPending { wakeAt = min(wakeAt ?? .infinity, pacer.nextPresentTime) }
            } else {
                drawAndPresent(now: now)
            }
        }
        if let stopTime {
            if now >= stopTime { loop?.stop(); return }
            wakeAt = min(wakeAt ?? stopTime, stopTime)
        }
        loop?.setDeadline(wakeAt)
    }


    /// Renders the current scene and shows it.
    public func drawAndPresent(now: Double) {
        // While something moves, the renderer may resample its cached base map (fast); the
        // frame after the camera goes idle is drawn at full quality.
        let moving = controller.isMoving || pipeline.contactsDown > 0
        renderer.render(pipeline.scene(attribution: nil), into: frame.buffer, quality: moving ? .interactive : .final)
        pipeline.usePlaces(renderer.drawnPlaces)
        overlay?(frame.buffer)
        FrameCopy.copy(frame.buffer, to: display.backBuffer(), rotation: configuration.display.rotation)
        do {
            if try display.present() {
                pacer.didPresent(at: now)
                if let input = newestInput, input != lastMeasuredInput, display.isFlipPending {
                    flipInput = input
                    lastMeasuredInput = input
                }
                framesPresented += 1
                if firstFrameTime == nil {
                    firstFrameTime = EventLoop.now()
                    log(.info, String(format: "first frame on the display %.0f ms after start", (firstFrameTime! - createdAt) * 1000))
                }
                onFramePresented?(EventLoop.now(), newestInput)
            } else {
                pipeline.setNeedsRedraw()
            }
        } catch {
            log(.error, "display: \(error)")
        }
    }

    /// SIGHUP: re-read the file; a bad file keeps the running configuration.
    func reload() {
        guard let path = configPath else { log(.warning, "SIGHUP: no configuration file to re-read"); return }
        do {
            let new = try KioskConfiguration.load(path: path)
            pipeline.reconfigure(new)
            configuration.gestures = new.gestures
            configuration.markers = new.markers
            configuration.camera = new.camera
            log(.info, "SIGHUP: re-read \(path): gestures, markers and camera settings applied")
            pipeline.setNeedsRedraw()
        } catch {
            log(.error, "SIGHUP: \(error); keeping the running configuration")
        }
    }

    /// Frees the display (restoring what it showed) and closes the devices. Safe to call twice.
    public func close() {
        guard !closed else { return }
        closed = true
        if !touchToFlip.isEmpty {
            let ms = touchToFlip.map { $0 * 1000 }
            log(.info, String(format: "touch-to-flip latency over %d frames: p50 %.1f ms, p99 %.1f ms, max %.1f ms",
                              ms.count, BenchSupport.percentile(ms, 50), BenchSupport.percentile(ms, 99), ms.max()!))
        }
        display.close()
        devices.removeAll()
        eventOut?.sync()
    }
}
