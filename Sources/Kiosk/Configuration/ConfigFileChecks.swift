import Foundation
import TouchBridge
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
            if let p = FolderCheck.folderProblem(folder.isEmpty ? "/" : folder, create: false, for: "control socket") {
                sink.add(error("control.socket", p))
            }
        }
        if !cfg.log.events.isEmpty, cfg.log.events != "-",
           let p = FolderCheck.creatableFileProblem(cfg.log.events, what: "event stream") {
            sink.add(error("log.events", p))
        }
        switch cfg.display.backend {
        case .png:
            if let p = FolderCheck.folderProblem(cfg.display.pngDirectory, create: true, for: "PNG frames") {
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

