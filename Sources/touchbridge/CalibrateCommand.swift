import ArgumentParser
import Foundation
import TouchBridge
import Kiosk
import KioskTools
import TouchCore
import TouchDevices

/// `touchbridge calibrate`: five-target calibration of a touchscreen on the display.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Calibrate a touchscreen: five targets, a least-squares matrix, written into the config.",
        discussion: """
        Shows five targets one after another (four near the corners, one in the centre). Touches far \
        from the target (more than 15 mm) or with two fingers are rejected and the target is asked \
        again. The fitted libinput matrix is written into the device's [[touch]] section of --config \
        (atomically; the old file is kept as FILE.bak) and printed as a udev rule line. Progress is \
        printed as JSON lines. --pointercal imports a tslib calibration instead of touching.
        """)

    @Option(help: "touchscreen: a /dev/input path, a name substring or vvvv:pppp (default: from the config, else the first found)")
    var device: String?

    @Option(help: "configuration file to read the display from and write the calibration into")
    var config: String?

    @Option(help: "override [display] backend: drm, fbdev or png")
    var display: String?

    @Option(help: "import a tslib pointercal file instead of touching targets")
    var pointercal: String?

    @Option(help: "give up after this many seconds")
    var timeout: Double = 120

    @Option(help: "seconds of the verification screen after the fit")
    var verifySeconds: Double = 5

    func run() throws {
        checkSeconds(timeout, option: "--timeout")
        checkSeconds(verifySeconds, option: "--verify-seconds", range: 0...3600)
        var cfg = KioskConfiguration()
        if let config, FileManager.default.fileExists(atPath: config) {
            do { cfg = try KioskConfiguration.load(path: config, checkFiles: false) } catch let e as ConfigError { fail(e.description, code: 2) }
        }
        if let display {
            guard let b = KioskConfiguration.DisplayBackendKind(rawValue: display) else { throw ValidationError("--display must be drm, fbdev or png") }
            cfg.display.backend = b
        }
        let found: (TouchscreenInfo, KioskConfiguration.TouchSettings, Int)
        do { found = try BenchDevice.find(device, configuration: cfg) } catch { fail("\(error)", code: 1) }
        let (info, _, index) = found
        let log = KioskLog.journal(level: .warning)
        let matrix: [Double]
        if let pointercal {
            guard let text = try? String(contentsOfFile: pointercal, encoding: .utf8) else { fail("cannot read \(pointercal)", code: 1) }
            guard let (x, y) = info.capabilities.positionAxes else { fail("\(info.path) has no position axes", code: 1) }
            let screen: BenchScreen
            do { screen = try BenchScreen(configuration: cfg, log: log) } catch { fail("\(error)", code: 1) }
            let size = screen.size
            screen.close()
            do { matrix = try CalibrationFit.fromPointercal(text, xAxis: x, yAxis: y, screen: size) } catch { fail("\(pointercal): \(error)", code: 1) }
            print("{\"type\":\"matrix\",\"matrix\":[\(matrix.map { String(format: "%.6f", $0) }.joined(separator: ","))],\"source\":\"pointercal\"}")
        } else {
            let screen: BenchScreen
            do { screen = try BenchScreen(configuration: cfg, log: log) } catch { fail("\(error)", code: 1) }
            defer { screen.close() }
            let tool: CalibrationTool
            do {
                tool = try CalibrationTool(screen: screen, info: info, verifySeconds: verifySeconds) { line in
                    print(line); fflush(nil)
                }
            } catch { fail("\(error)", code: 1) }
            guard let outcome = try tool.run(timeout: timeout) else { fail("calibration did not finish: nothing was written", code: 1) }
            matrix = outcome.matrix
        }
        let rule = CalibrationFit.udevRule(matrix: matrix, deviceName: info.capabilities.name)
        print("{\"type\":\"udev\",\"rule\":\(jsonString(rule))}")
        if let config {
            let old = (try? String(contentsOfFile: config, encoding: .utf8)) ?? ""
            let new = ConfigWriter.settingCalibration(matrix, in: old, touchIndex: index, match: info.path)
            let backup: String?
            do {
                _ = try KioskConfiguration.parse(text: new, file: config)
                backup = try ConfigWriter.writeAtomically(new, to: config)
            } catch { fail("\(error)", code: 1) }
            print("{\"type\":\"written\",\"file\":\(jsonString(config)),\"backup\":\(backup.map(jsonString) ?? "null")}")
        }
        FileHandle.standardError.write(Data("udev rule for this panel:\n\(rule)\n".utf8))
    }

    func jsonString(_ s: String) -> String { JSONLine.escape(s) }
}
