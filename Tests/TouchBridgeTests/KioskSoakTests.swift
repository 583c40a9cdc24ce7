import Foundation
import Testing
@testable import TouchBridge
@testable import KioskTools

/// `touchbridge soak --hours`, a few seconds of it: the whole kiosk with its loop and socket,
/// clients, gestures, reloads, unplugs and display loss; figures per interval.
@Suite struct KioskSoakTests {
    @Test func aShortKioskSoakReportsEachInterval() throws {
        var s = KioskSoak.Settings(seconds: 6)
        s.interval = 1.5
        s.width = 640; s.height = 400
        let soak = try KioskSoak(settings: s)
        let report = try soak.run()
        #expect(report.intervals.count >= 3, "\(report)")
        #expect(report.intervals.reduce(0) { $0 + $1.frames } > 0)
        #expect(report.intervals.reduce(0) { $0 + $1.gestures + $1.clients } > 0, "\(report)")
        #expect(report.intervals.allSatisfy { $0.descriptors > 0 && $0.rssMiB > 0 })
        #expect(!report.violations.contains { $0.contains("descriptors") }, "\(report)")
    }
}
