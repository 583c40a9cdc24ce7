import Testing
@testable import TouchBridge

/// The soak's own checks work: a short run of random gestures (with unplugs and SYN_DROPPED
/// mid-gesture) through the pipeline and renderer leaves nothing down and the camera in its
/// limits, and a broken invariant is reported, not missed.
@Suite struct SoakTests {
    @Test(arguments: [1, 2, 3])
    func randomGesturesLeaveNoContactDownAndTheCameraInItsLimits(seed: Int) {
        let soak = Soak(seed: UInt64(seed), render: seed == 1)
        let report = soak.run(gestures: 150)
        #expect(report.gestures == 150)
        #expect(report.inputFrames > 1000)
        #expect(report.unplugs > 0)
        #expect(report.streamLines > report.gestures)
        if seed == 1 { #expect(report.renderedFrames > 500) }
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
}
