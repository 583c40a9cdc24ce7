import ArgumentParser
import Foundation
import TouchBridge
import KioskTools
import Rendering
import Platform
#if canImport(Glibc)
import Glibc
#endif

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

    @Option(help: "run pinned to this many CPUs (the first of those allowed), the renderer on as many bands: the same keys, as a board with fewer cores would give them (docs/benchmarks.md)")
    var cores: Int?

    @Flag(help: .hidden)
    var probeKiosk = false

    /// With --probe-kiosk: the kiosk's screen, WxH (1920x1080 unless given).
    @Option(help: .hidden)
    var probeSize: String?

    /// The frame figures only, one "key TAB value TAB unit TAB label" line each (the one-core run).
    @Flag(help: .hidden)
    var probeFrames = false

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
        if let n = cores {
            guard n >= 1 else { throw ValidationError("--cores takes 1 or more") }
            try Self.pin(cores: n)
            // One band per CPU kept (unless TOUCHBRIDGE_RENDER_BANDS said otherwise).
            if MapRenderer.defaults.bands == nil { MapRenderer.defaults.bands = CPUAffinity.usableCount() }
        }
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
            var size = (1920, 1080)
            if let text = probeSize {
                let parts = text.split(separator: "x").compactMap { Int($0) }
                guard parts.count == 2, parts.allSatisfy({ $0 > 0 && $0 <= 16384 }) else { throw ValidationError("--probe-size takes WxH") }
                size = (parts[0], parts[1])
            }
            try Benchmarks.probeKiosk(mbtiles: mbtiles, quick: quick, memoryTrace: memoryTrace, street: streetCamera,
                                      width: size.0, height: size.1)
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
        if probeFrames {
            Benchmarks.probeFrames(options: opts)
            return
        }
        var bench = Benchmarks(options: opts)
        if !json {
            #if DEBUG
            print("note: a debug build; figures are only meaningful from `swift build -c release` (make bench)")
            #endif
            let usable = CPUAffinity.usableCount(), all = ProcessInfo.processInfo.processorCount
            print("TouchBridge bench on \(usable) core\(usable == 1 ? "" : "s")" + (usable < all ? " of \(all)" : "")
                  + ", \(MapRenderer.defaultBands()) band\(MapRenderer.defaultBands() == 1 ? "" : "s")\(quick ? " (quick)" : "")")
            bench.progress = { print($0); fflush(nil) }
        }
        try bench.runAll()
        if json { print(bench.json) }
    }

    /// Narrows this process to its first `n` allowed CPUs. libdispatch sizes its thread pool (and
    /// `concurrentPerform`) from the mask when the program loads, before any of this runs, so
    /// after narrowing the mask the program starts itself again (exec: the same process, the new
    /// mask inherited, libdispatch loaded afresh). Fewer CPUs than `n` allowed: runs on those.
    static func pin(cores n: Int) throws {
        guard CPUAffinity.usableCount() > n else { return }
        guard CPUAffinity.pin(toFirst: n) != nil else {
            throw ValidationError("--cores \(n): the kernel refused the CPU mask (sched_setaffinity)")
        }
        var argv: [UnsafeMutablePointer<CChar>?] = CommandLine.arguments.map { strdup($0) } + [nil]
        execv("/proc/self/exe", &argv)
        throw ValidationError("--cores \(n): could not start again pinned (execv: errno \(errno))")
    }
}
