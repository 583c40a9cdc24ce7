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
}
