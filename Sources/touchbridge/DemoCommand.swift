import ArgumentParser
import Foundation
import TouchBridge
import Kiosk
import KioskTools

/// `touchbridge demo`: the main job on a machine with no touchscreen or display.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a scripted tour of every gesture through the whole pipeline; write PNG frames, a contact sheet and the event stream.")

    @Option(help: "output folder")
    var out: String = "out/demo"

    @Flag(help: "also show the tour on the DRM display (each step for --step-seconds)")
    var show = false

    @Option(help: "with --show: seconds each step stays on screen")
    var stepSeconds: Double = 2

    @Flag(help: "tour Vaduz on the street map (the Liechtenstein vector tiles in Tests/StreetMapTests/Fixtures, or --tiles)")
    var street = false

    @Option(help: "with --street: a vector tile set (MBTiles or PMTiles) covering Vaduz")
    var tiles: String?

    func run() throws {
        checkSeconds(stepSeconds, option: "--step-seconds", range: 0...3600)
        requireWorldMap()
        let started = MonotonicClock.now()
        let result: DemoRunner.Result
        var runner = DemoRunner(outputDirectory: out)
        if street || tiles != nil {
            let fixture = "Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.pmtiles"
            let path = tiles ?? fixture
            guard FileManager.default.fileExists(atPath: path) else {
                fail("--street needs the Liechtenstein tiles: \(path) is missing (run from the repository, or pass --tiles FILE)", code: 2)
            }
            runner.streetTiles = path
        }
        var screen: BenchScreen?
        if show {
            var cfg = KioskConfiguration()
            cfg.display.backend = .drm
            do { screen = try BenchScreen(configuration: cfg, log: KioskLog.journal(level: .warning)) } catch {
                fail("--show needs a DRM display: \(error)", code: 1)
            }
            runner.onFrame = { frame in
                guard let screen else { return }
                screen.draw { c in c.image(frame) }
                screen.present()
                Thread.sleep(forTimeInterval: stepSeconds)
            }
        }
        defer { screen?.close() }
        do {
            result = try runner.run()
        } catch {
            fail("demo failed: \(error)", code: 1)
        }
        print("TouchBridge demo: a scripted tour of every gesture through the real pipeline")
        print("(synthetic evdev frames -> frame assembler -> gesture recogniser -> map controller -> renderer)\n")
        for (i, f) in result.frames.enumerated() {
            let g = i == 0 ? "" : "  [" + (result.gesturesPerStep[i - 1].isEmpty ? "no gesture" : result.gesturesPerStep[i - 1].joined(separator: ", ")) + "]"
            print(String(format: "%2d. ", i) + f.caption + g)
        }
        print("\nFrames:        \(result.frames.first.map { ($0.path as NSString).deletingLastPathComponent } ?? "")/")
        print("Contact sheet: \(result.contactSheet)")
        print("Event stream:  \(result.eventStream)")
        print("Tour as evemu: \(result.evemuDescription), \(result.evemuEvents)")
        print("Final camera:  \(result.finalCamera)")
        print(String(format: "Done in %.1f s.", MonotonicClock.now() - started))
    }
}
