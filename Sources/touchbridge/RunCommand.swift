import ArgumentParser
import Foundation
import TouchBridge
import Kiosk

/// `touchbridge run`: the kiosk. What a systemd unit starts.
struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the map kiosk: touchscreens in, map on the display, until SIGTERM.",
        discussion: """
        Reads the configuration (Configs/default.toml documents every key). A configuration error \
        names the file, line and key and exits with status 2; a display or device error exits with 1. \
        SIGHUP re-reads the configuration; a bad new file keeps the old one running.
        """)

    @Option(help: "configuration file")
    var config: String = "/etc/touchbridge/touchbridge.toml"

    @Option(help: "override [display] backend: drm, fbdev or png")
    var display: String?

    @Option(help: "override [log] events: - for stdout, or a file path")
    var events: String?

    @Option(help: "stop after this many seconds (for tests and measurements)")
    var duration: Double?

    func run() throws {
        checkSeconds(duration, option: "--duration")
        requireWorldMap()
        var backend: KioskConfiguration.DisplayBackendKind?
        if let display {
            guard let b = KioskConfiguration.DisplayBackendKind(rawValue: display) else {
                throw ValidationError("--display must be drm, fbdev or png")
            }
            backend = b
        }
        var cfg: KioskConfiguration
        var fileCfg = KioskConfiguration()
        let overrides: (inout KioskConfiguration) -> Void = { [events] c in
            fileCfg = c
            if let backend { c.display.backend = backend }
            if let events { c.log.events = events }
        }
        if FileManager.default.fileExists(atPath: config) || config != "/etc/touchbridge/touchbridge.toml" {
            // Everything `check` refuses, `run` refuses (exit 2): the tiles file and style must
            // open, the folders exist and be writable, not a fallback to the world map.
            do { cfg = try KioskConfiguration.load(path: config, adjust: overrides) } catch let e as ConfigError { fail(e.description, code: 2) }
        } else {
            FileHandle.standardError.write(Data("touchbridge: \(config) does not exist; running with the built-in defaults\n".utf8))
            cfg = KioskConfiguration()
            overrides(&cfg)
        }
        let kiosk: Kiosk
        do {
            kiosk = try Kiosk(configuration: cfg, configPath: FileManager.default.fileExists(atPath: config) ? config : nil)
        } catch let e as ConfigError {
            fail(e.description, code: 2)
        } catch {
            fail("\(error)", code: 1)
        }
        kiosk.startFileConfiguration = fileCfg
        if let duration { kiosk.stopTime = MonotonicClock.now() + duration }
        do { try kiosk.run() } catch { fail("\(error)", code: 1) }
    }
}
