import Platform
import TouchCore
import Foundation
import TouchBridge

/// Measurement helpers for `touchbridge bench`: monotonic nanoseconds, repeated timing with
/// warm-up, percentiles, peak resident memory and the plain frame-copy floor.
public enum BenchSupport {
    /// `MonotonicClock.now()` in nanoseconds (a double holds them exactly for 100 days of uptime).
    public static func nanos() -> UInt64 { UInt64(MonotonicClock.now() * 1e9) }

    /// Runs `body` `warmup` times, then until both `minRuns` runs and `minSeconds` have passed
    /// (or `maxRuns`); returns each run's time in milliseconds.
    public static func timeRuns(warmup: Int = 3, minRuns: Int = 10, maxRuns: Int = 1000, minSeconds: Double = 0.5,
                                _ body: () -> Void) -> [Double] {
        for _ in 0..<warmup { body() }
        var out: [Double] = []
        let start = nanos()
        while out.count < maxRuns && (out.count < minRuns || Double(nanos() - start) / 1e9 < minSeconds) {
            let t0 = nanos()
            body()
            out.append(Double(nanos() - t0) / 1e6)
        }
        return out
    }

    public static func percentile(_ values: [Double], _ p: Double) -> Double { Statistics.percentile(values, p) }

    public static func median(_ v: [Double]) -> Double { percentile(v, 50) }

    /// Peak resident set size of this process in MiB (VmHWM), or nil when /proc is not there.
    public static func peakRSSMiB() -> Double? { ProcessMemory.peakResidentMiB() }
    /// Resident memory now (VmRSS), MiB: what a stage added, beside the peak.
    public static func currentRSSMiB() -> Double? { ProcessMemory.residentMiB() }

    /// The same, with buffers that are not in the CPU cache (a ring of 8 source/destination
    /// pairs, larger than the last-level cache): what a frame copy costs in a real loop.
    public static func coldFrameCopyMS(width: Int, height: Int) -> [Double] {
        let bytes = width * height * 4
        let bufs = (0..<16).map { _ -> UnsafeMutableRawPointer in
            let p = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
            memset(p, 0x5a, bytes)
            return p
        }
        defer { bufs.forEach { $0.deallocate() } }
        var i = 0
        return timeRuns(minRuns: 32) {
            memcpy(bufs[(2 * i) % 16], bufs[(2 * i + 1) % 16], bytes)
            i += 1
        }
    }

    /// The floor: milliseconds to copy one frame's bytes between two ordinary buffers.
    public static func frameCopyMS(width: Int, height: Int) -> [Double] {
        let bytes = width * height * 4
        let a = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        let b = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        defer { a.deallocate(); b.deallocate() }
        memset(a, 0x5a, bytes); memset(b, 0, bytes)
        return timeRuns(minRuns: 30) { memcpy(b, a, bytes) }
    }
}
