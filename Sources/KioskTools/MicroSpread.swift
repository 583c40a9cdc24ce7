import Foundation
import TouchBridge
import TouchCore
import Gestures

/// Micro-benchmarks in fresh processes. One process's figure for a few hundred nanoseconds of
/// work depends on that process's luck (hash seeds, heap layout, where the code landed), so the
/// recogniser and controller figures are taken in several new processes and reported as the
/// median with the spread (`<key>_min`, `<key>_max`).
extension Benchmarks {
    /// The child side (`bench --probe-micro`): the recogniser and controller stages, one
    /// "key value" line each.
    public static func probeMicro(quick: Bool) {
        var opts = Options()
        opts.quick = quick
        var b = Benchmarks(options: opts)
        b.recogniser()
        b.controller()
        for f in b.figures { print("\(f.key) \(f.value)") }
        fflush(nil)
    }

    /// Runs `probeMicro` in `runs` fresh processes of `executable`; false when none ran.
    mutating func microInFreshProcesses(executable: String, runs: Int) -> Bool {
        var values: [String: [Double]] = [:]
        var order: [String] = []
        for _ in 0..<runs {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = ["bench", "--probe-micro"] + (options.quick ? ["--quick"] : [])
            let pipe = Pipe()
            p.standardOutput = pipe
            guard (try? p.run()) != nil else { return false }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            for line in String(decoding: data, as: UTF8.self).split(separator: "\n") {
                let parts = line.split(separator: " ")
                guard parts.count == 2, let v = Double(parts[1]) else { continue }
                let k = String(parts[0])
                if values[k] == nil { order.append(k) }
                values[k, default: []].append(v)
            }
        }
        guard !order.isEmpty else { return false }
        for k in order {
            let v = values[k]!
            add(k, BenchSupport.median(v), "ns", "\(k), median of \(v.count) processes")
            add(k + "_min", v.min()!, "ns", "  min")
            add(k + "_max", v.max()!, "ns", "  max")
        }
        return true
    }
}

/// Instruction counts for the recogniser (`make bench-callgrind`): callgrind counts only inside
/// `recognizerWorkload`, which runs a fixed number of frames, so the count per frame is the same
/// on a loaded machine or a quiet one.
extension Benchmarks {
    public static let callgrindFrames = 5_000

    /// The child side of `bench --probe-callgrind FINGERS`.
    public static func callgrindProbe(fingers: Int) {
        let frames = scriptedFrames(fingers: max(1, min(fingers, 10)), count: callgrindFrames)
        var r = GestureRecognizer(screen: Size(width: 1920, height: 1080))
        // One pass outside the counted function, so one-time set-up is not counted.
        var warm = 0
        for f in frames { warm &+= r.process(f).count }
        r = GestureRecognizer(screen: Size(width: 1920, height: 1080))
        print(warm)
        print(recognizerWorkload(&r, frames))
        // The whole input path (`make bench-callgrind` counts `inputPathWorkload` in a second run).
        let events = inputPathEvents(fingers: max(1, min(fingers, 10)), count: callgrindFrames)
        print(inputPathWorkload(events, screen: Size(width: 1920, height: 1080)))
        // With an event-stream reader (`inputPathReaderWorkload`, a third run).
        print(inputPathReaderWorkload(events, screen: Size(width: 1920, height: 1080)))
    }

    @inline(never)
    public static func recognizerWorkload(_ r: inout GestureRecognizer, _ frames: [ContactFrame]) -> Int {
        var sink = 0
        for f in frames { sink &+= r.process(f).count }
        return sink
    }
}
