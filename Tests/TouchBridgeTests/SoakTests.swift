import Testing
import TouchCore
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

/// The soak's own checks work: a short run of random gestures (with unplugs and SYN_DROPPED
/// mid-gesture) through the pipeline and renderer leaves nothing down and the camera in its
/// limits, and a broken invariant is reported, not missed.
@Suite struct SoakTests {
    @Test(arguments: [1, 2, 3])
    func randomGesturesLeaveNoContactDownAndTheCameraInItsLimits(seed: Int) {
        // Seed 1 draws every frame (small, so a debug build is quick); the others are the pure pipeline.
        let soak = Soak(screen: Size(width: 320, height: 240), seed: UInt64(seed), render: seed == 1)
        let gestures = seed == 1 ? 40 : 150
        let report = soak.run(gestures: gestures)
        #expect(report.gestures == gestures)
        #expect(report.inputFrames > gestures * 8)
        if seed != 1 { #expect(report.unplugs > 0) }   // about one gesture in 20
        #expect(report.streamLines > report.gestures)
        if seed == 1 { #expect(report.renderedFrames > 200) }
        #expect(report.violations == [])
        #expect(report.rssEnd > 0)
    }

    @Test func aCameraOutsideItsLimitsIsReported() {
        let soak = Soak(seed: 9, render: false)
        soak.pipeline.controller.configuration.limits.maxZoom = 3   // the camera is at zoom 6
        soak.check()
        #expect(soak.report.violations.count == 1)
        #expect(soak.report.violations.first?.contains("zoom outside its limits") == true)
    }

    /// The pipeline soak's memory judgement (RSSTrend, shared with the kiosk soak). The first
    /// series is CI's run of 2026-11-30 beside the fuzzers (soak seed 1): after the 12 s warm-up
    /// the caches filled between 31 and 62 s (52.3 -> 69.3 MB) and stayed — not a leak, though it
    /// failed the old "16 MB after the warm-up" rule. The same growth spread evenly over the run
    /// goes on through its later half: a leak.
    @Test func cachesFillingEarlyPassAndGrowthThroughTheLaterHalfIsALeak() {
        let ci: [(seconds: Double, mib: Double)] = [(12, 52.3), (31, 53.1), (62, 69.3), (92, 69.7), (106, 69.7), (120, 69.7)]
        #expect(RSSTrend().violations(ci) == [])
        let leak = (0...108).map { (seconds: 12 + Double($0), mib: 52.3 + Double($0) * 0.16) }
        let said = RSSTrend().violations(leak)
        #expect(said.count == 1 && said[0].contains("later half") && said[0].contains("at 65 s"), "\(said)")
        // Growth past the overall limit is a leak even when it stopped.
        let jump = [(seconds: 12.0, mib: 50.0), (60, 90), (90, 90), (100, 90), (110, 90), (120, 90)]
        #expect(RSSTrend().violations(jump).first?.contains("RSS grew from 50.0 MiB to 90.0 MiB") == true)
        // Fewer samples than minLateSamples: the overall limit only.
        #expect(RSSTrend().violations([(12, 50), (30, 70)]) == [])
    }
}
