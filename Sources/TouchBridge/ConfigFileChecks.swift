import Foundation
import MapEngine
import Rendering
import VectorTiles

/// What `check` and `run` refuse beyond the file's own text: keys that contradict each other
/// (`crossChecks`), and what the file names on this machine (`fileChecks`): a tiles file or style
/// that cannot be opened, a folder that does not exist or cannot be written. Each is an error
/// with the file, line and key and what to do, collected with the file's other errors.
extension ConfigReader {
    /// The line of the first of `keys` the file sets, and that key.
    func firstSet(_ keys: [String]) -> String { keys.first { index.line(for: $0) != nil } ?? keys[0] }

    func crossChecks(_ cfg: KioskConfiguration) {
        guard let b = cfg.map.bounds else { return }
        // A start camera that is itself wrong was read as the default: no second error from it.
        let bad = Set(sink.errors.compactMap(\.key))
        guard bad.isDisjoint(with: ["map.latitude", "map.longitude", "map.bounds"]) else { return }
        // Latitude and longitude swapped ([south, west, north, east]) is a valid box elsewhere
        // on Earth: the start camera or the markers then lie outside it, and inside the swapped box.
        let swapped = CoordinateBounds(west: b.south, south: b.west, east: b.north, north: b.east)
        let swappedIsValid = abs(b.west) <= WebMercator.maxLatitude && abs(b.east) <= WebMercator.maxLatitude
        func advice(_ points: [Coordinate]) -> String {
            if swappedIsValid, points.allSatisfy({ swapped.contains($0) }) {
                return ": latitude and longitude look swapped; write [west, south, east, north] (longitude first), e.g. [\(b.south), \(b.west), \(b.north), \(b.east)]"
            }
            return ": widen the box, or move the start camera into it"
        }
        let startSet = index.line(for: "map.latitude") != nil || index.line(for: "map.longitude") != nil
        let start = cfg.map.camera.target
        if startSet, !b.contains(start) {
            sink.add(error("map.bounds", String(format: "the start camera (latitude %.5f, longitude %.5f) is outside bounds [%g, %g, %g, %g]", start.latitude, start.longitude, b.west, b.south, b.east, b.north) + advice([start])))
        } else if !cfg.markers.isEmpty, swappedIsValid, cfg.markers.allSatisfy({ !b.contains($0.coordinate) && swapped.contains($0.coordinate) }) {
            sink.add(error("map.bounds", "every marker is outside bounds [\(b.west), \(b.south), \(b.east), \(b.north)]" + advice(cfg.markers.map(\.coordinate))))
        }
    }

    /// Whether this process may write into `folder` (and enter it).
    static func writable(_ folder: String) -> Bool { access(folder, W_OK | X_OK) == 0 }

    /// nil when a file may be created at `path` (or written, if it exists); else why not.
    static func creatableFileProblem(_ path: String, what: String) -> String? {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { return "\(path) is a folder: name a file for the \(what)" }
            return access(path, W_OK) == 0 ? nil : "\(path) exists but this user (uid \(getuid())) may not write it: change its owner or mode, or name another file"
        }
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        return folderProblem(folder, create: false, for: what)
    }

    /// nil when `folder` exists and may be written (or, with `create`, may be made); else why not.
    static func folderProblem(_ folder: String, create: Bool, for what: String) -> String? {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
            if !isDir.boolValue { return "\(folder) is a file, not a folder: name a folder for the \(what)" }
            return writable(folder) ? nil : "this user (uid \(getuid())) may not write in the folder \(folder) (for the \(what)): change its owner or mode (systemd: RuntimeDirectory= / StateDirectory=), or name another folder"
        }
        guard create else {
            return "the folder \(folder) (for the \(what)) does not exist: create it (systemd: RuntimeDirectory=touchbridge makes /run/touchbridge), or name a folder that exists"
        }
        // `run` creates the folder: its nearest existing parent must be writable.
        var parent = folder
        while true {
            let up = (parent as NSString).deletingLastPathComponent
            if up.isEmpty || up == parent { return nil }
            parent = up
            if FileManager.default.fileExists(atPath: parent, isDirectory: &isDir) {
                if !isDir.boolValue { return "\(parent) is a file: the folder \(folder) (for the \(what)) cannot be made in it" }
                return writable(parent) ? nil : "the folder \(folder) (for the \(what)) does not exist and this user (uid \(getuid())) may not create it in \(parent): create it, or name another folder"
            }
        }
    }

    func fileChecks(_ cfg: KioskConfiguration) {
        if case .mbtiles(let path) = cfg.map.source {
            let key = firstSet(["map.tiles", "map.mbtiles"])
            if let problem = TileFileCheck.problem(path: path) { sink.add(error(key, problem)) }
        }
        if let style = cfg.map.style {
            do { _ = try StreetStyle.load(path: style) } catch {
                sink.add(self.error("map.style", "\(error): fix the style, or remove the key for the built-in street style"))
            }
        }
        if !cfg.control.socket.isEmpty {
            let folder = (cfg.control.socket as NSString).deletingLastPathComponent
            if let p = ConfigReader.folderProblem(folder.isEmpty ? "/" : folder, create: false, for: "control socket") {
                sink.add(error("control.socket", p))
            }
        }
        if !cfg.log.events.isEmpty, cfg.log.events != "-",
           let p = ConfigReader.creatableFileProblem(cfg.log.events, what: "event stream") {
            sink.add(error("log.events", p))
        }
        switch cfg.display.backend {
        case .png:
            if let p = ConfigReader.folderProblem(cfg.display.pngDirectory, create: true, for: "PNG frames") {
                sink.add(error(firstSet(["display.png_dir", "display.backend"]), p))
            }
        case .fbdev:
            if !FileManager.default.fileExists(atPath: cfg.display.fbdev) {
                sink.add(error(firstSet(["display.fbdev", "display.backend"]), "\(cfg.display.fbdev) does not exist: is the framebuffer driver loaded (ls /dev/fb*)? Or use backend = \"drm\""))
            }
        case .drm:
            if let card = cfg.display.card, !FileManager.default.fileExists(atPath: card) {
                sink.add(error("display.card", "\(card) does not exist: `touchbridge devices` lists the DRM cards; or write card = \"auto\""))
            }
        }
    }
}

/// Whether a tile set file can be shown: it opens as MBTiles or PMTiles and holds raster or
/// vector tiles. Used by `check` and `run` (which refuses what it cannot show) and `reload`.
package enum TileFileCheck {
    /// nil when the file opens; else what is wrong, naming the file.
    public static func problem(path: String) -> String? {
        let opened = MapRenderer.openTiles(path: path, rasterCacheCapacity: 1, vectorCacheBytes: 1 << 20)
        if opened.raster != nil || opened.vector != nil { return nil }
        let why = opened.warnings.first.map(clean) ?? "\(path): not a tile set"
        return why + " (source = \"tiles\" needs an MBTiles or PMTiles file this user may read; or write source = \"builtin\")"
    }

    /// A renderer warning as a sentence of an error: no "warning: ", no fallback promise.
    static func clean(_ w: String) -> String {
        var s = w
        if s.hasPrefix("warning: ") { s.removeFirst("warning: ".count) }
        s = s.replacingOccurrences(of: " Showing the built-in world map instead.", with: "")
        while s.hasSuffix(".") || s.hasSuffix(" ") { s.removeLast() }
        return s
    }

    /// "MBTiles" or "PMTiles", told by the file's first bytes (as `TileArchive.open` does), or nil.
    public static func container(path: String) -> String? {
        guard let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        let head = (try? h.read(upToCount: 16)) ?? Data()
        if head.starts(with: Array("SQLite format 3".utf8)) { return "MBTiles" }
        if head.starts(with: Array("PMTiles".utf8)) { return "PMTiles" }
        return nil
    }
}
