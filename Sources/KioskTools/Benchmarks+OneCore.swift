import Foundation
import Platform

/// One-core figures (issue 28: a slower kiosk board, stood in for by one core of the bench
/// machine). The frame keys are taken again in a fresh process pinned to one CPU, the renderer
/// on one band (`bench --probe-frames --cores 1`), and added beside the main run's keys with
/// `_1core` after their screen size: `street_full_1080p_1core_ms` beside `street_full_1080p_ms`.
/// A fresh process because libdispatch reads the CPU mask once, when the program loads: a mask
/// narrowed later leaves `concurrentPerform` two threads wide (they then share the one CPU).
extension Benchmarks {
    /// The key a one-core figure is reported under: `_1core` after the screen size
    /// (`_1080p`, `_2160p`), else before the unit (`…_1core_ms`).
    public static func oneCoreKey(_ key: String) -> String {
        for tag in ["_1080p", "_2160p", "_800p"] {
            if let r = key.range(of: tag) { return key.replacingCharacters(in: r, with: tag + "_1core") }
        }
        if let r = key.range(of: "_", options: .backwards) { return key.replacingCharacters(in: r, with: "_1core_") }
        return key + "_1core"
    }

    /// The child side (`bench --probe-frames`): the frame figures, one "key<TAB>value<TAB>unit<TAB>label" line each.
    public static func probeFrames(options: Options) {
        var b = Benchmarks(options: options)
        b.frameFigures()
        for f in b.figures { print("\(f.key)\t\(f.value)\t\(f.unit)\t\(f.label)") }
        print("cpus\t\(CPUAffinity.usableCount())")
        fflush(nil)
    }

    /// Runs `bench --probe-frames --cores 1` and adds its figures as `_1core` keys.
    mutating func oneCoreFrames(executable: String) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = ["bench", "--probe-frames", "--cores", "1"] + (options.quick ? ["--quick"] : [])
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        var cpus = 0
        var lines: [(String, Double, String, String)] = []
        for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            if f.count == 2, f[0] == "cpus" { cpus = Int(f[1]) ?? 0 }
            if f.count == 4, let v = Double(f[1]) { lines.append((f[0], v, f[2], f[3])) }
        }
        guard p.terminationStatus == 0, cpus == 1, !lines.isEmpty else {
            throw ProbeFailed(description: "\(executable) bench --probe-frames --cores 1 failed (exit \(p.terminationStatus), \(cpus) CPUs, \(lines.count) figures)")
        }
        for (key, value, unit, label) in lines { add(Self.oneCoreKey(key), value, unit, label + ", one core") }
    }
}
