import ArgumentParser
import Foundation
import TouchBridge

/// `touchbridge soak`: random gestures at 120 Hz through the whole pipeline with rendering,
/// for a number of wall-clock minutes; fails (exit 1) on a stuck contact, a camera outside its
/// limits or RSS that keeps growing. CI runs two minutes (`make soak-ci`).
struct SoakCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "soak",
        abstract: "Random gestures through the pipeline and renderer for a while: RSS flat, no stuck contact, camera within its limits.")

    @Option(help: "wall-clock minutes to run")
    var minutes: Double = 2

    @Option(help: "seed of the random gestures (a failure names it)")
    var seed: UInt64 = 1

    @Option(help: "size the frames are drawn at, WIDTHxHEIGHT")
    var size: String = "800x480"

    @Flag(help: "the pure pipeline only, no rendering")
    var noRender = false

    func run() throws {
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
}
