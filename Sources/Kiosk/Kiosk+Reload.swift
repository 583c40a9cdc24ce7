import TouchBridge
import Foundation
import MapEngine
import Rendering
import Platform
import VectorTiles
import Display

/// What a reload did: applied the file (and which keys it could not apply without a restart),
/// or kept the running configuration and why.
public struct ReloadResult: Sendable, Equatable {
    /// Set when the new file was refused (the running configuration stays).
    public var error: String?
    /// Keys whose new value takes effect only when the kiosk is restarted (display device and
    /// size, touchscreens, the socket, the event stream's file): dotted names, as in the file.
    public var restartNeeded: [String] = []
    /// What was applied, for the log.
    public var applied: [String] = []
}

extension Kiosk {
    /// Keys `reload` cannot apply to a running kiosk, compared between the file the kiosk
    /// started with (`startFileConfiguration`) and the new one.
    static func restartNeeded(running a: KioskConfiguration, new b: KioskConfiguration) -> [String] {
        var keys: [String] = []
        let d = a.display, e = b.display
        if d.backend != e.backend { keys.append("display.backend") }
        if d.card != e.card { keys.append("display.card") }
        if d.connector != e.connector { keys.append("display.connector") }
        if d.mode != e.mode { keys.append("display.mode") }
        if d.rotation != e.rotation || d.rotationIsExplicit != e.rotationIsExplicit { keys.append("display.rotation") }
        if d.backend == .fbdev || e.backend == .fbdev, d.fbdev != e.fbdev { keys.append("display.fbdev") }
        if d.backend == .png || e.backend == .png {
            if d.pngDirectory != e.pngDirectory { keys.append("display.png_dir") }
            if d.pngSize != e.pngSize { keys.append("display.size") }
        }
        if d.physicalSizeMM?.0 != e.physicalSizeMM?.0 || d.physicalSizeMM?.1 != e.physicalSizeMM?.1 { keys.append("display.physical_size_mm") }
        if a.touch != b.touch { keys.append("touch") }
        if a.gestures.pixelsPerMM != b.gestures.pixelsPerMM { keys.append("gestures.pixels_per_mm") }
        if a.control.socket != b.control.socket { keys.append("control.socket") }
        if a.log.events != b.log.events { keys.append("log.events") }
        if a.log.level != b.log.level { keys.append("log.level") }
        return keys
    }

    /// SIGHUP and the control socket's `reload`: re-reads the file and applies it, tiles,
    /// style and text scale included; a bad file (or a tiles file or style that does not open)
    /// keeps the running configuration. Keys that need a restart are listed in the result and
    /// the log. The camera, the app's markers and overlays, the counters stay.
    @discardableResult
    func reload() -> ReloadResult {
        guard let path = configPath else {
            log(.warning, "reload: no configuration file to re-read")
            return ReloadResult(error: "no configuration file to re-read")
        }
        systemd.reloading()
        defer { if view.firstFrameTime != nil { systemd.ready(status: systemdStatus()) } }
        let new: KioskConfiguration
        do {
            new = try KioskConfiguration.load(path: path)
        } catch {
            log(.error, "reload: \(error); keeping the running configuration")
            return ReloadResult(error: "\(error); keeping the running configuration")
        }
        let now = MonotonicClock.now()
        // The input waiting in the touchscreens first, as before any deadline (catchUp).
        if running { catchUp(to: now) }
        let old = configuration
        var result = ReloadResult()
        // The map data first: if it does not open, nothing has changed yet. A tiles file or
        // style replaced or edited under the same name is reopened too (the renderer holds
        // the old file open, so the new data would otherwise never be shown).
        let stamps = MapFileStamps(new.map)
        let tilesChanged = new.map.source != old.map.source || stamps.tiles != mapFileStamps.tiles
        let styleChanged = new.map.style != old.map.style || stamps.style != mapFileStamps.style
        if tilesChanged || styleChanged {
            do {
                let retired = try view.switchMap(to: new.map)
                retiredTileCounts.hits += retired.hits
                retiredTileCounts.misses += retired.misses
                mapFileStamps = stamps
                if tilesChanged { result.applied.append("tiles") }
                if styleChanged { result.applied.append("style") }
            } catch {
                log(.error, "reload: \(error); keeping the running configuration")
                return ReloadResult(error: "\(error); keeping the running configuration")
            }
        }
        if renderer.textScale != new.map.textScale {
            renderer.textScale = new.map.textScale
            renderer.invalidateCache()
            result.applied.append("text scale")
        }
        if renderer.labelLanguage != new.map.language {
            renderer.labelLanguage = new.map.language
            result.applied.append("language")
        }
        pipeline.reconfigure(new, at: now)
        result.applied += ["gestures", "markers", "overlays", "route", "map limits"]
        view.applyCameraSettings(old: old, new: new, at: now)
        result.applied.append("camera settings")
        if new.display.maxFPS != old.display.maxFPS {
            view.pacer = FramePacer(refreshHz: min(display.refreshHz > 0 ? display.refreshHz : 60, Double(new.display.maxFPS)))
            result.applied.append("max_fps")
        }
        configuration.gestures = new.gestures
        configuration.markers = new.markers
        configuration.camera = new.camera
        configuration.overlays = new.overlays
        configuration.route = new.route
        configuration.position = new.position
        configuration.map = new.map
        configuration.display.maxFPS = new.display.maxFPS
        // The folders client paths are confined to are checked at each request: the new ones
        // from now (the socket itself stays where it was bound: restart_needed).
        if new.control.screenshotDir != old.control.screenshotDir || new.control.filesDir != old.control.filesDir {
            configuration.control.screenshotDir = new.control.screenshotDir
            configuration.control.filesDir = new.control.filesDir
            result.applied.append("control folders")
        }
        // Blanking, backlight, attract tour and metrics ([display] blank_after_s, [kiosk],
        // [metrics]): the new settings from now; the counters (KioskStats) go on.
        configuration.operations = new.operations
        operations.settings = new.operations
        operations.backlight = new.operations.backlight.map { Backlight(name: $0) }
        operations.tour = nil
        operations.tourProblem = nil
        operations.nextMetricsAt = nil
        stats.reloaded()
        result.applied.append("blanking, attract and metrics settings")
        for w in pipeline.overlayWarnings { log(.warning, "reload: \(w)") }
        result.restartNeeded = Kiosk.restartNeeded(running: startFileConfiguration, new: new)
        log(.info, "reload: re-read \(path): applied " + result.applied.joined(separator: ", "))
        if !result.restartNeeded.isEmpty {
            log(.warning, "reload: these keys changed but take effect only after a restart (systemctl restart touchbridge): "
                + result.restartNeeded.joined(separator: ", "))
        }
        pipeline.setNeedsRedraw()
        return result
    }
}

/// What a map file (the tiles file, the style) was on disk when it was opened: the file it
/// names (device, inode), its size and modification time. A file replaced under the same name
/// (a new inode) or rewritten in place (a new size or time) stamps differently.
struct MapFileStamp: Equatable {
    let device: UInt64
    let inode: UInt64
    let size: UInt64
    let modified: Double

    /// The stamp of the file `path` names (through symbolic links: a link moved to a new
    /// version is a new file), or nil when there is none.
    init?(path: String) {
        let target = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard let a = try? FileManager.default.attributesOfItem(atPath: target) else { return nil }
        device = (a[.systemNumber] as? NSNumber)?.uint64Value ?? 0
        inode = (a[.systemFileNumber] as? NSNumber)?.uint64Value ?? 0
        size = (a[.size] as? NSNumber)?.uint64Value ?? 0
        modified = (a[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
    }
}

/// The stamps of a map's tiles file and style (nil: the built-in map or style, or no file).
struct MapFileStamps: Equatable {
    var tiles: MapFileStamp?
    var style: MapFileStamp?

    init() {}
    init(_ map: KioskConfiguration.MapSettings) {
        if case .mbtiles(let path) = map.source { tiles = MapFileStamp(path: path) }
        style = map.style.flatMap { MapFileStamp(path: $0) }
    }
}
