import Foundation
import Testing
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

/// `touchbridge soak --hours`, a few seconds of it: the whole kiosk with its loop and socket,
/// clients, gestures, reloads, unplugs and display loss; figures per interval.
@Suite struct KioskSoakTests {
    @Test func aShortKioskSoakReportsEachInterval() throws {
        var s = KioskSoak.Settings(seconds: 6)
        s.interval = 1.5
        s.width = 640; s.height = 400
        var report = try KioskSoak(settings: s).run()
        #expect(report.intervals.count >= 3, "\(report)")
        #expect(report.intervals.reduce(0) { $0 + $1.frames } > 0)
        #expect(report.intervals.reduce(0) { $0 + $1.gestures + $1.clients } > 0, "\(report)")
        #expect(report.intervals.allSatisfy { $0.descriptors > 0 && $0.rssMiB > 0 })
        // The descriptors are the process's, and the other tests of this process open and close
        // files meanwhile (one run: 63 -> 73 while the reload tests ran): a leak shows again in
        // a second run, another test's files seldom do.
        if report.violations.contains(where: { $0.contains("descriptors") }) { report = try KioskSoak(settings: s).run() }
        #expect(!report.violations.contains { $0.contains("descriptors") }, "\(report)")
    }

    /// The judgement on a long run's intervals: a cache that fills early and stays is flat; RSS
    /// that keeps growing through the later half is a leak even under the overall limit (the
    /// RSS series is the first 2-hour run's, 2026-11-27, which grew 108.5 -> 138.3 MiB).
    @Test func rssStillGrowingLateInALongRunIsALeak() {
        func run(_ rss: [Double]) -> [KioskSoak.Interval] {
            rss.enumerated().map { i, r in
                var iv = KioskSoak.Interval(end: Double(i + 1) * 600)
                iv.frames = 8000; iv.frameP99 = 300; iv.rssMiB = r; iv.descriptors = 19
                return iv
            }
        }
        let leaking = run([108.5, 108.5, 112.9, 114.6, 115.6, 123.6, 123.6, 123.6, 126.1, 127.7, 138.3])
        let said = KioskSoak.violations(leaking)
        #expect(said.count == 1 && said[0].contains("later half") && said[0].contains("123.6 MiB at 3600 s"), "\(said)")
        // Caches filling over the first hour, then flat: no violation.
        #expect(KioskSoak.violations(run([80, 95, 104, 110, 112, 113, 113.5, 113.5, 114, 113.8, 114])).isEmpty)
        // A short run is judged by the overall limit only.
        #expect(KioskSoak.violations(run([80, 82, 95])).isEmpty)
        #expect(KioskSoak.violations(run([80, 82, 120])).first?.contains("RSS grew from 82.0 MiB to 120.0 MiB") == true)
    }
}
