import Foundation

/// How a soak judges its memory, the same for the pipeline soak (`touchbridge soak`, a sample a
/// second) and the kiosk soak (an RSS figure per interval): caches fill early and stay, so RSS
/// may grow up to `growthLimitMiB` over the run after the warm-up, but RSS that still grows over
/// the later half of the run is a leak even under that limit (a slow one shows only as a trend).
/// The later half is judged from `minLateSamples` samples on: a short run says nothing of trends.
struct RSSTrend {
    /// RSS may end this much above the first sample after the warm-up; more is a leak.
    var growthLimitMiB = 32.0
    /// RSS may end this much above the sample in the middle of the run after the warm-up.
    var lateGrowthLimitMiB = 8.0
    var minLateSamples = 6

    /// What is wrong with `samples` (seconds since start, MiB), the first the base after the
    /// warm-up; each string names both figures and the limit.
    func violations(_ samples: [(seconds: Double, mib: Double)]) -> [String] {
        guard let base = samples.first, let last = samples.last, samples.count >= 2 else { return [] }
        var out: [String] = []
        if last.mib - base.mib > growthLimitMiB {
            out.append(String(format: "RSS grew from %.1f MiB to %.1f MiB (limit +%.0f MiB)", base.mib, last.mib, growthLimitMiB))
        }
        if samples.count >= minLateSamples {
            let middle = samples[samples.count / 2 - 1]
            if last.mib - middle.mib > lateGrowthLimitMiB {
                out.append(String(format: "RSS still grew over the later half of the run: %.1f MiB at %.0f s, %.1f MiB at %.0f s (limit +%.0f MiB): a leak, not a cache filling",
                                  middle.mib, middle.seconds, last.mib, last.seconds, lateGrowthLimitMiB))
            }
        }
        return out
    }
}
