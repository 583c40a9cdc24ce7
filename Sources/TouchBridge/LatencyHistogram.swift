import Foundation
import Histogram

/// Latencies kept as an HdrHistogram (https://github.com/HdrHistogram/hdrhistogram-swift):
/// microsecond values to three significant digits up to a minute, in constant memory, so a kiosk
/// that runs for weeks records every frame at a fixed cost and reports exact-enough percentiles
/// without keeping or sorting the samples.
package struct LatencyHistogram: Sendable {
    var histogram = Histogram<UInt64>(lowestDiscernibleValue: 1, highestTrackableValue: 60_000_000,
                                      numberOfSignificantValueDigits: .three)

    public init() {}

    /// One latency in seconds (negative values count as 0; longer than a minute as a minute).
    public mutating func record(seconds: Double) {
        let us = seconds.isFinite ? Swift.max(0, Swift.min(seconds * 1e6, 60e6)).rounded() : 60e6
        _ = histogram.record(UInt64(us))
    }

    public var count: Int { Int(histogram.totalCount) }
    public var isEmpty: Bool { histogram.totalCount == 0 }

    /// The latency at percentile `p` (0...100), in milliseconds.
    public func milliseconds(at p: Double) -> Double { Double(histogram.valueAtPercentile(p)) / 1000 }
    /// The largest latency recorded, in milliseconds (exact).
    public var maxMilliseconds: Double { Double(histogram.maxRecorded) / 1000 }

    /// "p50 3.6 ms, p99 5.9 ms, p99.9 7.1 ms, max 7.7 ms".
    public var summary: String {
        String(format: "p50 %.1f ms, p99 %.1f ms, max %.1f ms, p99.9 %.1f ms",
               milliseconds(at: 50), milliseconds(at: 99), maxMilliseconds, milliseconds(at: 99.9))
    }
}
