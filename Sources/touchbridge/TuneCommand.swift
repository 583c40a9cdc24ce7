import ArgumentParser
import Foundation
import TouchBridge
import Kiosk
import KioskTools
import TouchCore

/// `touchbridge tune`: the bench screen for a new panel.
struct TuneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tune",
        abstract: "Live bench screen: contacts with ids and trails, the recognised gesture and why, rates and latency.",
        discussion: """
        Draws the map with every contact over it (id, trail, pressure and size when the panel reports \
        them), the gesture the recogniser sees and which threshold decided it, the panel's report rate, \
        the frame rate and the input-to-screen latency. The same events go to stdout as JSON lines. \
        Edit the thresholds in the configuration file and send SIGHUP (kill -HUP PID) to apply them \
        without a restart.
        """)

    @Option(help: "configuration file (thresholds, display, touch devices)")
    var config: String = "/etc/touchbridge/touchbridge.toml"

    @Option(help: "override [display] backend: drm, fbdev or png")
    var display: String?

    @Option(help: "stop after this many seconds")
    var duration: Double?

    func run() throws {
        checkSeconds(duration, option: "--duration")
        requireWorldMap()
        var cfg = KioskConfiguration()
        let hasFile = FileManager.default.fileExists(atPath: config)
        if hasFile {
            do { cfg = try KioskConfiguration.load(path: config, checkFiles: false) } catch let e as ConfigError { fail(e.description, code: 2) }
        }
        if let display {
            guard let b = KioskConfiguration.DisplayBackendKind(rawValue: display) else { throw ValidationError("--display must be drm, fbdev or png") }
            cfg.display.backend = b
        }
        cfg.log.events = "-"
        let kiosk: Kiosk
        do { kiosk = try Kiosk(configuration: cfg, configPath: hasFile ? config : nil) } catch let e as ConfigError {
            fail(e.description, code: 2)
        } catch { fail("\(error)", code: 1) }
        let view = kiosk.view
        view.pipeline.writesContacts = true
        var model = TuneModel()
        let ppm = view.pipeline.recognizer.pixelsPerMillimetre
        view.pipeline.frameObserver = { model.add($0) }
        view.pipeline.gestureObserver = { model.add($0) }
        view.onFramePresented = { now, input in model.frameShown(at: now, inputTime: input) }
        view.overlay = { frame in TuneOverlay.draw(model, on: frame, pixelsPerMM: ppm) }
        if let duration { kiosk.stopTime = MonotonicClock.now() + duration }
        do { try kiosk.run() } catch { fail("\(error)", code: 1) }
    }
}
