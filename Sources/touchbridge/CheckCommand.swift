import ArgumentParser
import Foundation
import Rendering
import TouchBridge
import VectorTiles

/// `touchbridge check`: reads a configuration exactly as `run` does, without opening a display
/// or a device. The unit's ExecReload runs it before sending SIGHUP, so `systemctl reload`
/// with a bad file fails (and says why, at priority err) instead of reloading.
struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check a configuration file without running the kiosk.",
        discussion: """
        Exits with 0 and prints a summary of what the kiosk would use, or prints every error of \
        the file, one a line (FILE:LINE: key 'KEY': message, with what to do), as `run` would, \
        and exits with status 2. Besides the file's own keys it checks what the file names on \
        this machine: the tiles file and style open, the folders of the control socket, the \
        event stream and the PNG frames exist and may be written, the framebuffer or DRM card \
        named exists. What the style file asks for that is not drawn (a property, a layer type, \
        a remote sprite) is listed after the summary as warnings, once per property and layer.
        """)

    @Option(help: "configuration file")
    var config: String = "/etc/touchbridge/touchbridge.toml"

    func run() throws {
        let cfg: KioskConfiguration
        do {
            cfg = try KioskConfiguration.load(path: config)
        } catch let e as ConfigError {
            fail(e.description + (e.others.isEmpty ? "" : "\n\(e.others.count + 1) errors in \(config)"), code: 2)
        } catch {
            fail("\(config): \(error)", code: 2)
        }
        print(CheckCommand.summary(cfg, path: config))
        // What the style asks for that is not drawn: warnings, not errors (the rest is drawn).
        if let path = cfg.map.style, let report = (try? StreetStyle.load(path: path))?.noticeReport { print(report) }
        // Its icons' sprite: missing or corrupt, the map is drawn without icons; `run` logs it, so say it here.
        if case .mbtiles(let tiles) = cfg.map.source, MapRenderer.openTiles(path: tiles).vector != nil {
            let style = cfg.map.style.map { try? StreetStyle.load(path: $0) } ?? StreetStyle.standard()
            if let style, let report = SpriteIcons.checkReport(for: style) { print(report) }
        }
    }

    static func summary(_ c: KioskConfiguration, path: String) -> String {
        var display = c.display.backend.rawValue
        switch c.display.backend {
        case .drm:
            display += " " + (c.display.card ?? "auto") + (c.display.connector.map { " connector \($0)" } ?? "")
            if let m = c.display.mode { display += " \(m)" }
        case .fbdev: display += " " + c.display.fbdev
        case .png: display += " \(c.display.pngSize.0)x\(c.display.pngSize.1) to \(c.display.pngDirectory)"
        }
        if c.display.rotation != 0 { display += ", rotated \(c.display.rotation) degrees" }
        let touch: String
        if c.touch.isEmpty {
            touch = "every touchscreen (auto)"
        } else {
            touch = c.touch.map { t -> String in t.match.map { "\($0)" } ?? "auto" }.joined(separator: ", ")
        }
        let map: String
        switch c.map.source {
        case .builtin: map = "built-in world map"
        case .mbtiles(let p): map = "\(TileFileCheck.container(path: p) ?? "tile set") \(p)" + (c.map.style.map { " styled by \($0)" } ?? "")
        }
        var shapes = "\(c.overlays.count) overlay(s)"
        if !c.overlays.isEmpty {
            shapes += " (" + c.overlays.map { "\($0.id): \($0.shapes.count) shape(s)\($0.markers.isEmpty ? "" : ", \($0.markers.count) point(s)")" }
                .joined(separator: "; ") + ")"
        }
        shapes += c.route.map { "; route of \($0.count) points" } ?? "; no route"
        if let p = c.camera.position { shapes += String(format: "; position %.5f, %.5f", p.latitude, p.longitude) }
        if !c.position.show { shapes += " (puck hidden)" }
        return """
        \(path): OK
          display: \(display)
          touchscreens: \(touch)
          map: \(map); \(c.markers.count) marker(s)\(c.map.clusterMarkers ? ", clustered" : "")
          overlays: \(shapes)
          log: level \(c.log.level)\(c.log.events.isEmpty ? "" : ", events to \(c.log.events)")
        """
    }
}
