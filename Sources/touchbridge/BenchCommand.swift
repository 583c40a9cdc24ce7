import ArgumentParser
import Foundation
import TouchBridge
import KioskTools

/// `touchbridge bench`: figures for every stage (release build: `make bench`).
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the pipeline: assembly, recogniser, controller, renderer, end-to-end latency, memory, first frame.",
        discussion: "Prints a table, or with --json one JSON object (keys in docs/benchmarks.md). Build with -c release.")

    @Flag(help: "print one JSON object instead of the table")
    var json = false

    @Flag(help: "a short run that proves the benchmark works (CI)")
    var quick = false

    @Option(help: "MBTiles tile set for the tile frames and the kiosk memory run")
    var mbtiles: String?

    @Option(help: "evemu recording for assembly and end-to-end figures")
    var recording: String?

    @Option(help: "the static build of this version (make static-build: .build-static/release/touchbridge): repeat the kiosk memory runs with it, as the Debian package ships it")
    var staticBinary: String?

    @Flag(help: .hidden)
    var probeKiosk = false

    @Flag(help: .hidden)
    var probeMicro = false

    /// With --probe-kiosk: print where the resident memory is at each stage ("mem" lines).
    @Flag(help: .hidden)
    var memoryTrace = false

    /// With --probe-kiosk: the camera on Vaduz at street level (for the vector tile set).
    @Flag(help: .hidden)
    var streetCamera = false

    @Option(help: .hidden)
    var probeCallgrind: Int?

    /// Draws this many zoom steps at 1080p and prints each frame's milliseconds (for profiling).
    @Option(help: .hidden)
    var probeZoomSteps: Int?

    func run() throws {
        if let fingers = probeCallgrind {
            Benchmarks.callgrindProbe(fingers: fingers)
            return
        }
        if let n = probeZoomSteps {
            print(Benchmarks.zoomStepFrames(width: 1920, height: 1080, steps: n).map { String(format: "%.2f", $0) }.joined(separator: " "))
            return
        }
        if probeMicro {
            Benchmarks.probeMicro(quick: quick)
            return
        }
        if probeKiosk {
            try Benchmarks.probeKiosk(mbtiles: mbtiles, quick: quick, memoryTrace: memoryTrace, street: streetCamera)
            return
        }
        var opts = Benchmarks.Options()
        opts.quick = quick
        let here = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        func existing(_ p: String) -> String? { FileManager.default.fileExists(atPath: p) ? p : nil }
        opts.mbtiles = mbtiles ?? existing(here.appendingPathComponent("Tests/RenderingTests/Fixtures/node-mbtiles_plain_1.mbtiles").path)
        opts.streetTiles = existing(here.appendingPathComponent("Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.pmtiles").path)
        opts.recording = recording ?? existing(here.appendingPathComponent("Tests/TouchCoreTests/Fixtures/evemu/Atmel maXTouch Touchscreen.1-finger-drag-up-down.events").path)
        // This very binary runs the kiosk probe in a fresh process.
        opts.executable = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        opts.staticExecutable = staticBinary
        var bench = Benchmarks(options: opts)
        if !json {
            #if DEBUG
            print("note: a debug build; figures are only meaningful from `swift build -c release` (make bench)")
            #endif
            print("TouchBridge bench on \(ProcessInfo.processInfo.processorCount) cores\(quick ? " (quick)" : "")")
            bench.progress = { print($0); fflush(nil) }
        }
        try bench.runAll()
        if json { print(bench.json) }
    }
}
