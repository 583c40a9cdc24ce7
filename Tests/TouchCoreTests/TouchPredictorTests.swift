import Foundation
import Testing
@testable import TouchCore

/// The touch predictor on scripted one-finger streams with explicit timestamps (100 Hz reports).
struct TouchPredictorTests {
    /// A finger's path as (time, position) samples.
    static func stream(from t0: Double = 0, count: Int, interval: Double = 0.01,
                       _ path: (Double) -> Point) -> [(Double, Point)] {
        (0..<count).map { i in let t = t0 + Double(i) * interval; return (t, path(t)) }
    }

    static func feed(_ p: inout TouchPredictor, _ samples: [(Double, Point)], id: Int = 7) {
        for (t, pos) in samples { p.observe(ContactFrame(time: t, contacts: [Contact(id: id, position: pos)])) }
    }

    /// Deterministic noise in -1...1 (no global random state in a unit test).
    static func noise(_ i: Int) -> Double {
        // splitmix64 of i
        var x = UInt64(i + 1) &* 0x9E3779B97F4A7C15
        x = (x ^ (x >> 30)) &* 0xBF58476D1CE4E5B9
        x = (x ^ (x >> 27)) &* 0x94D049BB133111EB
        x ^= x >> 31
        return Double(x % 20_001) / 10_000 - 1
    }

    @Test func constantVelocityConverges() throws {
        var p = TouchPredictor()
        let v = Point(x: 900, y: -300)   // px/s
        let path: (Double) -> Point = { t in Point(x: 200, y: 600) + v * t }
        let samples = Self.stream(count: 12, path)
        // Too little history: no extrapolation at all.
        Self.feed(&p, Array(samples.prefix(2)))
        #expect(p.position(of: 7, at: 0.01 + 0.03, now: 0.011) == samples[1].1)
        Self.feed(&p, Array(samples.dropFirst(2)))
        let last = samples.last!.0
        let predicted = try #require(p.position(of: 7, at: last + 0.03, now: last + 0.002))
        let truth = path(last + 0.03)
        // Without prediction the newest sample is 30 ms (about 28 px) behind; predicted, under 1 px.
        #expect(samples.last!.1.distance(to: truth) > 25)
        #expect(predicted.distance(to: truth) < 1)
    }

    @Test func theLeadIsCappedInTimeAndDistance() throws {
        var p = TouchPredictor()
        let path: (Double) -> Point = { t in Point(x: 100 + 6000 * t, y: 500) }
        let samples = Self.stream(count: 8, path)
        Self.feed(&p, samples)
        let last = samples.last!
        let far = try #require(p.position(of: 7, at: last.0 + 1.0, now: last.0))
        #expect(far.distance(to: last.1) <= p.settings.maxDistance + 1e-9)
        var slow = TouchPredictor()
        let s2 = Self.stream(count: 8) { t in Point(x: 100 + 500 * t, y: 500) }
        Self.feed(&slow, s2)
        let l2 = s2.last!
        let lead = try #require(slow.position(of: 7, at: l2.0 + 1.0, now: l2.0)).distance(to: l2.1)
        #expect(abs(lead - 500 * slow.settings.maxLead) < 1)
    }

    @Test func aSuddenStopOvershootsLessThanABound() throws {
        // 1500 px/s to the right, then the finger stops dead and the panel keeps reporting it.
        let stopAt = 0.1
        let path: (Double) -> Point = { t in Point(x: 300 + 1500 * min(t, stopAt), y: 400) }
        var p = TouchPredictor()
        var worst = 0.0
        for (t, pos) in Self.stream(count: 30, path) {
            p.observe(ContactFrame(time: t, contacts: [Contact(id: 1, position: pos)]))
            guard t > stopAt else { continue }
            let q = try #require(p.position(of: 1, at: t + 0.03, now: t + 0.002))
            worst = max(worst, q.x - path(stopAt).x)
        }
        // Unchecked, 30 ms of lead at 1500 px/s would be 45 px past the stop.
        #expect(worst < 16)
        // Two reports after the stop the lead is gone.
        let t = 0.1 + 0.03
        var q = TouchPredictor()
        Self.feed(&q, Self.stream(count: 14, path), id: 1)
        #expect(try #require(q.position(of: 1, at: t + 0.03, now: t + 0.002)).x - path(stopAt).x < 0.5)
    }

    @Test func aFingerThatSlowsToAStopIsNotPredictedPastIt() throws {
        // Speed falls linearly from 1200 px/s to 0 over 150 ms, then the finger rests.
        let a = 1200 / 0.15
        let path: (Double) -> Point = { t in
            let s = min(t, 0.15)
            return Point(x: 100 + 1200 * s - 0.5 * a * s * s, y: 300)
        }
        let stopX = path(1).x
        var p = TouchPredictor()
        var worst = -Double.infinity
        for (t, pos) in Self.stream(count: 30, path) {
            p.observe(ContactFrame(time: t, contacts: [Contact(id: 1, position: pos)]))
            let q = try #require(p.position(of: 1, at: t + 0.03, now: t + 0.002))
            worst = max(worst, q.x - stopX)
        }
        #expect(worst < 3)
    }

    @Test func aQuietDeviceMeansAStillFinger() throws {
        // Panels send nothing while a finger holds still: as time passes with no report the lead fades.
        var p = TouchPredictor()
        let samples = Self.stream(count: 10) { t in Point(x: 100 + 1000 * t, y: 300) }
        Self.feed(&p, samples)
        let last = samples.last!
        let fresh = try #require(p.position(of: 7, at: last.0 + 0.03, now: last.0 + 0.002)).distance(to: last.1)
        let later = try #require(p.position(of: 7, at: last.0 + 0.06, now: last.0 + 0.03)).distance(to: last.1)
        #expect(fresh > 20)
        #expect(later == 0)
    }

    @Test func jitterIsNotAmplified() throws {
        // A finger held still with +-1.5 px of sensor noise: the predictions stay as close to
        // the true point as the raw reports are.
        let truth = Point(x: 640, y: 400)
        var p = TouchPredictor()
        var rawErr = 0.0, predErr = 0.0
        for i in 0..<200 {
            let t = Double(i) * 0.01
            let pos = truth + Point(x: 1.5 * Self.noise(2 * i), y: 1.5 * Self.noise(2 * i + 1))
            p.observe(ContactFrame(time: t, contacts: [Contact(id: 3, position: pos)]))
            let q = try #require(p.position(of: 3, at: t + 0.03, now: t + 0.002))
            rawErr += pos.distance(to: truth); predErr += q.distance(to: truth)
        }
        #expect(predErr <= rawErr * 1.001)
        // Moving with the same noise: prediction is closer to where the finger will be than the raw report.
        var m = TouchPredictor()
        let path: (Double) -> Point = { t in Point(x: 100 + 800 * t, y: 300 + 200 * t) }
        rawErr = 0; predErr = 0
        for i in 0..<60 {
            let t = Double(i) * 0.01
            let pos = path(t) + Point(x: 1.5 * Self.noise(2 * i), y: 1.5 * Self.noise(2 * i + 1))
            m.observe(ContactFrame(time: t, contacts: [Contact(id: 3, position: pos)]))
            guard i >= 6 else { continue }
            let q = try #require(m.position(of: 3, at: t + 0.025, now: t + 0.002))
            rawErr += pos.distance(to: path(t + 0.025)); predErr += q.distance(to: path(t + 0.025))
        }
        #expect(predErr < rawErr * 0.5)
    }

    @Test func contactsComeAndGo() throws {
        var p = TouchPredictor()
        Self.feed(&p, Self.stream(count: 6) { t in Point(x: 1000 * t, y: 0) }, id: 1)
        #expect(p.position(of: 1, at: 0.08, now: 0.051)!.x > 50)
        // Lifted: gone. The same id down again elsewhere starts with no history (no leap from the old path).
        p.observe(ContactFrame(time: 0.06, contacts: []))
        #expect(p.position(of: 1, at: 0.09, now: 0.061) == nil)
        p.observe(ContactFrame(time: 0.07, contacts: [Contact(id: 1, position: Point(x: 500, y: 500))]))
        #expect(p.position(of: 1, at: 0.1, now: 0.071) == Point(x: 500, y: 500))
    }

    // MARK: issue 29: knowing when a finger is stopping

    /// A report overdue by a quarter of the panel's interval is the first sign of a stop: the
    /// lead fades out over the next half interval (125 Hz reports, 900 px/s).
    @Test func anOverdueReportFadesTheLead() throws {
        var p = TouchPredictor()
        let samples = Self.stream(count: 8, interval: 0.008) { t in Point(x: 100 + 900 * t, y: 300) }
        Self.feed(&p, samples)
        let last = samples.last!
        func lead(late: Double) throws -> Double {
            try #require(p.position(of: 7, at: last.0 + late + 0.016, now: last.0 + late)).x - last.1.x
        }
        let onTime = try lead(late: 0.002), due = try lead(late: 0.0095), overdue = try lead(late: 0.0125), gone = try lead(late: 0.0145)
        #expect(onTime > 10, "\(onTime)")
        #expect(due > onTime, "still on time: the lead grows with the horizon (\(due))")
        #expect(overdue < 0.5 * due, "\(overdue) against \(due)")
        #expect(gone == 0)
    }

    /// A panel that reports in lumps (speeds alternating 1,200 and 2,800 px/s, as the N-Trig
    /// does) is extrapolated less far than one reporting the same mean speed evenly.
    @Test func aLumpyPanelIsTrustedLess() throws {
        func lead(lumpy: Bool) throws -> Double {
            var p = TouchPredictor()
            var x = 100.0, t = 0.0
            for i in 0..<8 {
                if i > 0 { x += (lumpy ? (i % 2 == 0 ? 1200.0 : 2800.0) : 2000) * 0.012 }
                t = Double(i) * 0.012
                p.observe(ContactFrame(time: t, contacts: [Contact(id: 1, position: Point(x: x, y: 300))]))
            }
            return try #require(p.position(of: 1, at: t + 0.02, now: t + 0.001)).x - x
        }
        let even = try lead(lumpy: false), lumpy = try lead(lumpy: true)
        #expect(abs(even - 40) < 1, "\(even)")
        // The spread of 1,200 / 2,800 px/s is 800 px/s: a quarter of it over the 20 ms ahead is 4 px.
        #expect(lumpy < even - 3, "\(lumpy) against \(even)")
    }

    /// A finger that has stopped, and whose next report jumps 5 px forward by sensor noise, is
    /// not brought back to life: the slower of the last two steps is the finger's speed.
    @Test func oneJitteredReportAfterAStopDoesNotRestartTheLead() throws {
        var p = TouchPredictor()
        var pts = Self.stream(count: 6) { t in Point(x: 100 + 600 * t, y: 300) }
        let stop = pts.last!.1
        pts.append((0.06, stop + Point(x: 0.3, y: 0)))
        pts.append((0.07, stop + Point(x: 5, y: 0)))
        Self.feed(&p, pts)
        let q = try #require(p.position(of: 7, at: 0.07 + 0.03, now: 0.071))
        #expect(q.x - (stop.x + 5) < 1, "\(q.x - (stop.x + 5)) px of lead")
    }

    /// A path that turns (half a small circle inside the window) is not extrapolated along the
    /// fitted straight line, which would cut the corner and run off the path.
    @Test func aTurningPathIsNotExtrapolatedStraight() throws {
        var straight = TouchPredictor(), turning = TouchPredictor()
        let r = 40.0, w = Double.pi / 0.06      // half a turn in 60 ms
        Self.feed(&straight, Self.stream(count: 7) { t in Point(x: 100 + r * w * t, y: 300) })
        Self.feed(&turning, Self.stream(count: 7) { t in Point(x: 100 + r * sin(w * t), y: 300 + r - r * cos(w * t)) })
        let a = try #require(straight.position(of: 7, at: 0.09, now: 0.061)).distance(to: Point(x: 100 + r * w * 0.06, y: 300))
        let end = Point(x: 100 + r * sin(w * 0.06), y: 300 + r - r * cos(w * 0.06))
        let b = try #require(turning.position(of: 7, at: 0.09, now: 0.061)).distance(to: end)
        #expect(a > 20)
        #expect(b < 0.25 * a, "turning lead \(b) px against straight \(a) px")
    }

    @Test func flipLatencyIsTheMedianOfRecentFrames() {
        var e = FlipLatencyEstimator(initial: 0.025)
        #expect(e.estimate() == 0.025)
        for i in 0..<20 { e.record(drawTime: Double(i), flipTime: Double(i) + (i % 7 == 0 ? 0.05 : 0.012)) }
        #expect(abs(e.estimate() - 0.012) < 1e-9)
        e.record(drawTime: 100, flipTime: 99)   // a flip before its draw is not a measurement
        e.record(drawTime: 100, flipTime: 105)  // nor is one seconds later
        #expect(abs(e.estimate() - 0.012) < 1e-9)
    }

    /// A frame is flipped at the first vertical blank after it is ready: with the refresh
    /// period known, the draw-to-flip time is the time to that blank, not the median of the
    /// recent frames (which is up to half a refresh off either way).
    @Test func flipLatencyIsTheTimeToTheBlankTheFrameMakes() {
        let period = 1.0 / 60, blank = 10.0, drawing = 0.002
        var e = FlipLatencyEstimator(initial: 0.025, refreshPeriod: period)
        #expect(e.estimate(now: 9) == 0.025)       // no flip seen yet: the initial guess
        // Fifteen frames drawn at phases 0.5, 1.5, ... 14.5 ms after a blank, 2 ms each.
        for k in 0..<15 {
            let draw = blank + Double(k) * period + (Double(k) + 0.5) / 1000
            let flip = blank + ((draw + drawing - blank) / period).rounded(.up) * period
            e.record(drawTime: draw, flipTime: flip)
        }
        let last = blank + 15 * period             // the newest flip
        #expect(abs(e.estimate(now: last + 0.005) - (period - 0.005)) < 1e-9)
        // Ready after the coming blank (0.17 ms of drawing past it at most): the one after.
        #expect(abs(e.estimate(now: last + 0.015) - (2 * period - 0.015)) < 1e-9)
        // Long after the newest flip the grid is not trusted: the median of the frames.
        #expect(abs(e.estimate(now: last + 2) - e.estimate()) < 1e-12)
        // Without the period, the median.
        var m = e
        m.refreshPeriod = nil
        #expect(m.estimate(now: last + 0.005) == m.estimate())
    }

    /// A slow, deliberate drag (12.5 mm/s at 4 px/mm, a report every 8 ms, 0.05 px of noise) is
    /// led (nothing is extrapolated below 7.5 mm/s, the whole lead from 15 mm/s; it was 15 and
    /// 30 mm/s), while 0.3 px of noise on a still finger is not extrapolated.
    @Test func aSlowDeliberateDragIsLedButJitterIsNot() throws {
        func noise(_ i: Int) -> Double { Double((i * 7919) % 13) / 12 * 0.6 - 0.3 }
        var slow = TouchPredictor(settings: .init(pixelsPerMillimetre: 4))
        var still = TouchPredictor(settings: .init(pixelsPerMillimetre: 4))
        let speed = 50.0   // px/s (12.5 mm/s)
        for k in 0..<10 {
            let t = Double(k) * 0.008
            slow.observe(ContactFrame(time: t, contacts: [Contact(id: 7, position: Point(x: 300 + speed * t + noise(k) / 6, y: 300 + noise(k + 5) / 6))]))
            still.observe(ContactFrame(time: t, contacts: [Contact(id: 7, position: Point(x: 300 + noise(k), y: 300 + noise(k + 5)))]))
        }
        let now = 0.0725, target = 0.09
        let newestSlow = Point(x: 300 + speed * 0.072 + noise(9) / 6, y: 300 + noise(14) / 6)
        let lead = try #require(slow.position(of: 7, at: target, now: now)).x - newestSlow.x
        #expect(lead > 0.25 && lead < speed * (target - 0.072) + 0.1, "slow drag lead \(lead) px")
        let newestStill = Point(x: 300 + noise(9), y: 300 + noise(14))
        #expect(try #require(still.position(of: 7, at: target, now: now)).distance(to: newestStill) < 1e-9)
    }
}
