import Foundation
import Platform
import TouchCore
import TouchDevices
import Gestures
import MapEngine
import Rendering
import Display
import TouchBridge

/// The kiosk: the composition root around one `MapView`, what `touchbridge run` is. The view is
/// the SDK's component (display, touchscreens, gestures, camera, drawing, its loop); the kiosk
/// adds what a product on a wall needs around it: the configuration file it was read from (and
/// SIGHUP / `reload`), the control socket, systemd's notify socket and watchdog, the JSON event
/// stream written to a file or standard output, the counters behind `stats` and the metrics
/// textfile, blanking, the backlight and the attract tour. It hears the view through
/// `MapViewHost` and drives it through its package API; the pure stages know nothing of it.
///
///     let kiosk = try Kiosk(configuration: try KioskConfiguration.load(path: path), configPath: path)
///     try kiosk.run()
public final class Kiosk {
    /// The map view the kiosk shows (an app's delegate, markers and overlays go on it).
    public let view: MapView
    /// The configuration file as the kiosk started with it (before command-line overrides):
    /// `reload` lists the keys whose new value needs a restart against it.
    public var startFileConfiguration: KioskConfiguration
    /// Counters for `stats` and the metrics textfile (KioskStats.swift); kept across reloads.
    package let stats: KioskStats
    /// Blanking, the attract tour, the metrics textfile (Kiosk+Operations.swift).
    let operations: KioskOperations
    /// systemd's notify socket and watchdog (no-ops outside a Type=notify unit); SystemdNotify.swift.
    let systemd = SystemdNotifier()
    /// The JSON event stream's file or standard output (`[log] events`), if any.
    var eventOut: EventStreamWriter?
    /// The control socket for apps (`[control] socket`), while running.
    var control: ControlServer?
    /// What the control socket's clients said to make each overlay (update_overlay changes it).
    var overlaySpecs: [String: OverlaySpec] = [:]
    /// Tile cache hits and misses of the tile sets a reload replaced: `stats` counts on from them
    /// (a counter never goes back).
    var retiredTileCounts = (hits: 0, misses: 0)
    /// The tiles file and style the renderer was made from, as they were on disk then
    /// (`MapFileStamp`): `reload` reopens a file replaced or edited under the same name.
    var mapFileStamps: MapFileStamps

    /// Opens the display, the map data and the touchscreens the configuration names, and the
    /// event stream's file; the control socket and the watchdog start with `run()`.
    public convenience init(configuration: KioskConfiguration, configPath: String? = nil, log: KioskLog? = nil) throws {
        try self.init(configuration: configuration, configPath: configPath, display: nil, log: log)
    }

    /// The same on a display backend made by the caller (tests, the demo, the bench).
    package init(configuration: KioskConfiguration, configPath: String? = nil, display: DisplayBackend?,
                 log: KioskLog? = nil) throws {
        let stats = KioskStats(startedAt: MonotonicClock.now())
        self.stats = stats
        operations = KioskOperations(settings: configuration.operations, now: MonotonicClock.now())
        // Every warning and error the view or the kiosk logs is counted (the last one shown by `stats`).
        var kioskLog = log ?? KioskLog.journal(level: .init(name: configuration.log.level))
        let appObserver = kioskLog.problemObserver
        kioskLog.problemObserver = { level, text in
            stats.problem(level, text, at: MonotonicClock.now())
            appObserver?(level, text)
        }
        view = try MapView(configuration: configuration, configPath: configPath, display: display, log: kioskLog, startInput: false)
        startFileConfiguration = configuration
        mapFileStamps = MapFileStamps(configuration.map)
        view.host = self
        view.pipeline.gestureObserver = { [stats, operations] e in if operations.attract == nil { stats.gesture(e) } }
        try view.startInput()
        // Write errors (full disk, closed pipe) are logged once per outage; the kiosk goes on.
        let report: (String) -> Void = { [log = view.log] in log(.warning, $0) }
        switch configuration.log.events {
        case "": eventOut = nil
        case "-": eventOut = EventStreamWriter(fd: STDOUT_FILENO, name: "standard output", report: report)
        case let path:
            do { eventOut = try EventStreamWriter.open(path: path, report: report) } catch {
                throw ConfigError(file: configPath ?? "configuration", line: nil, key: "log.events",
                                  message: "cannot write the event stream to \(path): \(error)")
            }
        }
        view.pipeline.sink = { [weak self] line in
            self?.eventOut?.write(line + "\n")
            self?.control?.broadcast(line)
        }
        // No file and no subscriber: the pipeline encodes no lines at all.
        view.pipeline.sinkHasReader = { [weak self] in self?.eventOut != nil || self?.control?.hasSubscribers == true }
    }

    deinit { view.close() }

    /// Runs until SIGINT or SIGTERM (or `stop()`); SIGHUP re-reads the configuration file.
    public func run() throws { try view.run() }
    public func stop() { view.stop() }
    /// Stop the loop at this CLOCK_MONOTONIC time (for tests and measurements).
    public var stopTime: Double? {
        get { view.stopTime }
        set { view.stopTime = newValue }
    }
    /// Whether the attract tour is playing (its gestures reach the delegate like a visitor's;
    /// the event stream marks its lines `"attract":true`).
    public var isAttractPlaying: Bool { operations.attract != nil }
    /// Whether the display is blanked after idle.
    public var isBlanked: Bool { operations.blanked }

    // The view's parts the kiosk's rooms (control commands, reload, operations) work on.
    package var configuration: KioskConfiguration {
        get { view.configuration }
        set { view.configuration = newValue }
    }
    var configPath: String? { view.configPath }
    package var log: KioskLog { view.log }
    package var pipeline: MapPipeline { view.pipeline }
    package var controller: MapController { view.controller }
    package var renderer: MapRenderer { view.renderer }
    package var display: DisplayBackend { view.display }
    package var screen: Size { view.screen }
    var input: TouchInputHub { view.input }
    var running: Bool { view.running }
    func catchUp(to now: Double) { view.catchUp(to: now) }
    func setGestureMask(_ mask: GestureMask, at time: Double) { view.setGestureMask(mask, at: time) }
    var drawnFrame: FrameBuffer { view.drawnFrame }
}

extension Kiosk: MapViewHost {
    package func touchscreenOpened(path: String, name: String) {
        stats.opened(path, name: name)
        systemdDevicesChanged()
    }

    package func touchscreenClosed(path: String, fault: Bool) {
        operations.realDown[path] = nil
        stats.closed(path, at: MonotonicClock.now(), error: fault)
        systemdDevicesChanged()
    }

    package func intercept(_ f: ContactFrame, from path: String) -> Bool {
        // Touches are counted as new ids appear; a frame with the same fingers as the last
        // (nearly every frame of a gesture) costs one comparison, no allocation.
        let before = operations.realDown[path] ?? []
        if !f.contacts.elementsEqual(before, by: { $0.id == $1 }) {
            stats.touchesDown(f.contacts.reduce(0) { $0 + (before.contains($1.id) ? 0 : 1) })
            operations.realDown[path] = f.contacts.isEmpty ? nil : f.contacts.map(\.id)
        }
        return operationsIntercept(f, from: path)
    }

    package var mayDraw: Bool { !operations.blanked }

    package func framePresented(drawSeconds: Double) { stats.frameDrawn(seconds: drawSeconds) }

    package func firstFramePresented() { systemd.ready(status: systemdStatus()) }

    package func tick(now: Double) -> Double? { operationsTick(now: now) }

    package func willRun(on loop: EventLoop) throws {
        do { try systemd.attachWatchdog(to: loop) } catch { log(.warning, "systemd watchdog: \(error)") }
        if !configuration.control.socket.isEmpty { try startControl(on: loop) }
        operations.lastTouch = MonotonicClock.now()   // idle (blanking, attract) counts from here
    }

    package func didRun(on loop: EventLoop) { systemd.detachWatchdog(from: loop) }

    package func hangup() { reload() }

    package func stopping() { systemd.stopping() }

    package func closing() {
        control?.close()
        control = nil
    }

    package func closed() { eventOut?.sync() }
}
