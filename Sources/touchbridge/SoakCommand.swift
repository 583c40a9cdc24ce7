import ArgumentParser
import Foundation
import TouchBridge
import KioskTools

/// `touchbridge soak`: random gestures at 120 Hz through the whole pipeline with rendering,
/// for a number of wall-clock minutes; fails (exit 1) on a stuck contact, a camera outside its
/// limits or RSS that keeps growing. CI runs two minutes (`make soak-ci`).
/// `--hours N`: the whole kiosk instead (KioskSoak: the event loop, the control socket with
/// clients coming and going, reloads, unplugs, display loss, at 1080p with the street map of
/// `--tiles`), with RSS, descriptors and frame times reported per `--interval` minutes.
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Random gestures through the pipeline and renderer for a while: RSS flat, no stuck contact, camera within its limits.")

    @Option(help: "wall-clock minutes to run (the pipeline soak)")
    var minutes: Double = 2

    @Option(help: "wall-clock hours to run the whole kiosk (socket clients, reloads, unplugs, display loss), e.g. 24 or 0.1")
    var hours: Double?

    @Option(help: "with --hours: minutes per reported interval (RSS, descriptors, frame times)")
    var interval: Double = 10

    @Option(help: "with --hours: a vector tile set (MBTiles or PMTiles) for the street map")
    var tiles: String?

    @Option(help: "seed of the random gestures (a failure names it)")
    var seed: UInt64 = 1

    @Option(help: "size the frames are drawn at, WIDTHxHEIGHT")
    var size: String = "800x480"

    @Flag(help: "the pure pipeline only, no rendering")
    var noRender = false

    func run() throws {
        if let hours { return try runKiosk(hours: hours) }
        checkSeconds(minutes * 60, option: "--minutes (in seconds)", range: 1...1e7)
        let sz = try parseSize(size, option: "--size", frame: true)
        if !noRender { requireWorldMap() }
        let soak = Soak(screen: sz, seed: seed, render: !noRender)
        var lastPrint = 0.0
        let report = soak.run(seconds: minutes * 60) { r in
            guard r.wallSeconds - lastPrint >= 30 else { return }
            lastPrint = r.wallSeconds
            FileHandle.standardError.write(Data(String(format: "soak: %.0f s, %d gestures, RSS %.1f MB\n", r.wallSeconds, r.gestures,
                                                      Double(r.rssSamples.last?.1 ?? 0) / 1_048_576).utf8))
        }
        print(report)
        if !report.passed {
            fail("soak failed (seed \(seed)): " + report.violations.prefix(10).joined(separator: "\n  "), code: 1)
        }
    }

    func runKiosk(hours: Double) throws {
        checkSeconds(hours * 3600, option: "--hours (in seconds)", range: 1...1e7)
        checkSeconds(interval * 60, option: "--interval (in seconds)", range: 1...1e6)
        requireWorldMap()
        var settings = KioskSoak.Settings(seconds: hours * 3600)
        settings.interval = interval * 60
        settings.seed = seed
        settings.tiles = tiles
        if size != "800x480" {
            let sz = try parseSize(size, option: "--size", frame: true)
            settings.width = Int(sz.width); settings.height = Int(sz.height)
        }
        let soak: KioskSoak
        do { soak = try KioskSoak(settings: settings) } catch { fail("soak: the kiosk did not start: \(error)", code: 1) }
        FileHandle.standardError.write(Data("soak: the kiosk at \(settings.width)x\(settings.height)\(tiles.map { " with \($0)" } ?? ""), \(hours) h, an interval every \(interval) min\n".utf8))
        let report = try soak.run { iv in FileHandle.standardError.write(Data(("soak: " + iv.line + "\n").utf8)) }
        print(report)
        if !report.passed { fail("soak failed (seed \(seed)): " + report.violations.joined(separator: "; "), code: 1) }
    }
}
