/// Where each finger will be when the frame being drawn reaches the glass.
///
/// A frame drawn from the newest input sample is seen one input-to-flip latency later (tens of
/// milliseconds), so a map that follows the newest sample trails a moving finger by speed x
/// latency. Phones hide part of that with touch prediction (Android's MotionPredictor, iOS's
/// predictedTouches); this is the same idea for a kiosk, made so it cannot fling the map past a
/// finger that stops:
/// - velocity is a least-squares fit over a short window (one noisy sample does not swing it);
/// - acceleration is used only to shorten the lead (a decelerating finger is predicted to stop
///   where its deceleration stops it, never beyond), never to lengthen it;
/// - the speed extrapolated is a cautious one: the fit less a quarter of the spread of the
///   report-to-report speeds (panels that report in lumps are trusted less), never more than
///   one and a half times the newest step's (nor the step's before it when that one almost
///   stopped);
/// - a report overdue by a quarter of the panel's own report interval fades the lead out, and
///   a turning path is not extrapolated along a straight line;
/// - slow motion (hand tremor, jitter: under 7.5 mm/s, or not standing out of the samples'
///   scatter) is not extrapolated at all;
/// - a contact whose device has gone quiet (touchscreens stop reporting a finger that holds
///   still) is predicted where it is;
/// - the lead is capped in time and in distance.
///
/// Pure: samples come with their timestamps and the caller says which time to predict for.
/// It allocates only when a new contact id needs a track beyond those already made.
public struct TouchPredictor: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Samples this much older than the newest are not used for the fit (s).
        public var window: Double = 0.06
        /// The furthest ahead of the newest sample a prediction reaches (s).
        public var maxLead: Double = 0.05
        /// The furthest a predicted point moves from the newest sample (px).
        public var maxDistance: Double = 64
        /// Below this speed nothing is extrapolated (px/s); full prediction from `fullSpeed` times it.
        public var minSpeed: Double = 30
        /// A contact with no sample for this many of its usual report intervals is taken as
        /// slowing or held still (an overdue report from a moving finger is the first sign of a
        /// stop): its prediction fades out ...
        public var quietIntervals: Double = 1.25
        /// ... over this many further report intervals.
        public var quietFade: Double = 0.5
        /// How many spreads of the report-to-report speeds are taken off the fitted speed: the
        /// lead reaches only as far as the finger's slower plausible speed carries it.
        public var uncertainty: Double = 0.2
        /// The speed extrapolated is at most this many times the newest report-to-report speed
        /// (a finger braking hard shows it first in its newest step).
        public var newestStepSlack: Double = 1.5
        /// Motion is extrapolated only when the fitted line travels this many times the samples'
        /// scatter about it over the window (fully trusted from twice it).
        public var noiseMultiple: Double = 4
        /// The lead fades in from `minSpeed` to this many times it.
        public var fullSpeed: Double = 2

        public init() {}

        /// Distances and speeds scaled from millimetres: 16 mm of lead at most, nothing
        /// extrapolated below 7.5 mm/s, the whole lead from 15 mm/s.
        public init(pixelsPerMillimetre ppm: Double) {
            maxDistance = 16 * ppm
            minSpeed = 7.5 * ppm
        }
    }

    struct Sample: Sendable { var t: Double; var p: Point }

    /// One contact's recent samples in a ring (newest at `head`).
    struct Track: Sendable {
        var id: Int = -1
        var live = false
        var ring = [Sample](repeating: Sample(t: 0, p: .zero), count: TouchPredictor.capacity)
        var head = 0
        var count = 0

        mutating func reset(id: Int) { self.id = id; live = true; head = 0; count = 0 }

        mutating func append(_ s: Sample) {
            if count > 0 {
                let last = ring[head]
                guard s.t >= last.t else { return }            // out of order: ignore
                if s.t == last.t { ring[head] = s; return }     // same report time: keep the newer position
                head = (head + 1) % TouchPredictor.capacity
            }
            ring[head] = s
            count = min(count + 1, TouchPredictor.capacity)
        }

        /// i = 0 is the newest.
        func sample(_ i: Int) -> Sample { ring[(head - i + TouchPredictor.capacity) % TouchPredictor.capacity] }
    }

    static let capacity = 12

    public var settings: Settings
    var tracks: [Track] = []

    public init(settings: Settings = Settings()) {
        self.settings = settings
        tracks.reserveCapacity(10)
    }

    /// Takes one real contact frame. Contacts that are gone lose their history; a new contact
    /// (a new id) starts a fresh one.
    public mutating func observe(_ frame: ContactFrame) {
        for i in tracks.indices { tracks[i].live = false }
        for c in frame.contacts {
            if let i = tracks.firstIndex(where: { $0.id == c.id && $0.count > 0 }) {
                tracks[i].live = true
                tracks[i].append(Sample(t: frame.time, p: c.position))
            } else {
                let i = tracks.firstIndex(where: { $0.count == 0 }) ?? {
                    tracks.append(Track())
                    return tracks.count - 1
                }()
                tracks[i].reset(id: c.id)
                tracks[i].append(Sample(t: frame.time, p: c.position))
            }
        }
        for i in tracks.indices where !tracks[i].live { tracks[i].count = 0; tracks[i].id = -1 }
    }

    /// Forgets every contact (e.g. after a configuration change).
    public mutating func reset() {
        for i in tracks.indices { tracks[i].count = 0; tracks[i].id = -1; tracks[i].live = false }
    }

    /// Where contact `id` is expected to be at `time`, judged at `now` (when the frame is
    /// drawn; it tells whether the device has gone quiet). The newest real position when there
    /// is nothing to extrapolate; nil for an id that is not down.
    public func position(of id: Int, at time: Double, now: Double) -> Point? {
        guard let tr = tracks.first(where: { $0.id == id && $0.count > 0 }) else { return nil }
        let newest = tr.sample(0)
        return newest.p + lead(tr, at: time, now: now)
    }

    /// The offset from the newest sample to the predicted position.
    ///
    /// Made so the picture is never drawn past where a stopping finger comes to rest (issue 29):
    /// - the speed is the least-squares fit's, brought to the newest sample by the trend of the
    ///   report-to-report speeds (slowing only), and never more than `newestStepSlack` times
    ///   the newest step's (a hard brake; the slack because report times jitter and one step's
    ///   speed with them), nor than the one before it when that one almost stopped (a finger
    ///   that has stopped is not brought back to life by one jittered report);
    /// - from it is taken `uncertainty` times the spread of the report-to-report speeds: a panel
    ///   whose reports come in lumps (N-Trig: 1,100..3,700 px/s from one report to the next) is
    ///   extrapolated less far;
    /// - a decelerating finger is predicted to stop where its deceleration stops it;
    /// - a report that is overdue (a quarter of the panel's own report interval late) means a
    ///   slowing or still finger: the lead fades out over the next half interval;
    /// - a path that turns (the newer half of the window against the older) is not extrapolated
    ///   along the fitted line;
    /// - slow motion, and motion that does not stand out of the samples' scatter, is not
    ///   extrapolated at all; the lead is capped in time and distance.
    func lead(_ tr: Track, at time: Double, now: Double) -> Point {
        let s = settings
        let newest = tr.sample(0)
        let horizon = min(time - newest.t, s.maxLead)
        guard horizon > 0 else { return .zero }

        // The samples inside the window, times relative to the newest (all <= 0).
        var n = 0
        var st = 0.0, sx = 0.0, sy = 0.0
        while n < tr.count {
            let q = tr.sample(n)
            let dt = q.t - newest.t
            if dt < -s.window { break }
            st += dt; sx += q.p.x; sy += q.p.y
            n += 1
        }
        guard n >= 3 else { return .zero }
        let oldest = tr.sample(n - 1)
        let span = newest.t - oldest.t
        guard span > 1e-4 else { return .zero }
        // The panel's report interval.
        let interval = span / Double(n - 1)

        // An overdue report: a panel reports a moving finger at its own rate, so none within an
        // interval and a quarter means the finger slowed or stopped. Fade the lead out.
        let quiet = now - newest.t
        let quietStart = s.quietIntervals * interval
        let presence = quiet <= quietStart ? 1 : max(0, 1 - (quiet - quietStart) / (max(s.quietFade, 0.01) * interval))
        guard presence > 0 else { return .zero }

        // Least-squares line through the window: its slope is the velocity at the window's
        // middle time.
        let tm = st / Double(n), mx = sx / Double(n), my = sy / Double(n)
        var stt = 0.0, stx = 0.0, sty = 0.0
        for i in 0..<n {
            let q = tr.sample(i)
            let dt = q.t - newest.t - tm
            stt += dt * dt; stx += dt * (q.p.x - mx); sty += dt * (q.p.y - my)
        }
        guard stt > 0 else { return .zero }
        let v = Point(x: stx / stt, y: sty / stt)
        let fitSpeed = v.length
        guard fitSpeed > s.minSpeed else { return .zero }
        let dir = Point(x: v.x / fitSpeed, y: v.y / fitSpeed)

        // Motion must stand out of the noise: over the window the line travels at least four
        // times the scatter of the samples about it (fully trusted from eight times).
        var residual = 0.0
        for i in 0..<n {
            let q = tr.sample(i)
            let dt = q.t - newest.t - tm
            let ex = q.p.x - (mx + v.x * dt), ey = q.p.y - (my + v.y * dt)
            residual += ex * ex + ey * ey
        }
        let scatter = (residual / Double(n)).squareRoot()
        let confidence = scatter > 0 ? min(1, max(0, (fitSpeed * span / scatter - s.noiseMultiple) / max(s.noiseMultiple, 1e-6))) : 1
        guard confidence > 0 else { return .zero }

        // Report-to-report speeds along the motion (weighted by their intervals): their mean,
        // spread and trend (a weighted line through speed against time).
        var w = 0.0, wv = 0.0, wt = 0.0
        for i in 0..<(n - 1) {
            let b = tr.sample(i), a = tr.sample(i + 1)
            let dt = b.t - a.t
            guard dt > 1e-5 else { continue }
            let sp = ((b.p.x - a.p.x) * dir.x + (b.p.y - a.p.y) * dir.y) / dt
            w += dt; wv += dt * sp; wt += dt * ((a.t + b.t) / 2 - newest.t)
        }
        guard w > 0 else { return .zero }
        let meanSpeed = wv / w, meanTime = wt / w
        var spread = 0.0, cov = 0.0, vtt = 0.0, lastSpeed = Double.infinity, previousSpeed = Double.infinity
        for i in 0..<(n - 1) {
            let b = tr.sample(i), a = tr.sample(i + 1)
            let dt = b.t - a.t
            guard dt > 1e-5 else { continue }
            let sp = ((b.p.x - a.p.x) * dir.x + (b.p.y - a.p.y) * dir.y) / dt
            if i == 0 { lastSpeed = sp } else if i == 1 { previousSpeed = sp }
            let dtm = (a.t + b.t) / 2 - newest.t - meanTime
            spread += dt * (sp - meanSpeed) * (sp - meanSpeed)
            cov += dt * dtm * (sp - meanSpeed)
            vtt += dt * dtm * dtm
        }
        spread = (spread / w).squareRoot()
        let accel = vtt > 0 ? cov / vtt : 0
        var speed = fitSpeed
        if accel < 0 { speed = min(speed, meanSpeed + accel * (0 - meanTime)) }   // slowing: as of the newest sample
        speed = min(speed, s.newestStepSlack * lastSpeed)                           // braked hard
        // A step before it that almost stopped (under a quarter of the fitted speed) means a
        // stopped finger whose newest report jumped by noise: it does not bring it back to life.
        if previousSpeed < 0.25 * fitSpeed { speed = min(speed, previousSpeed) }
        speed -= s.uncertainty * spread                                             // the slowest plausible speed
        guard speed > s.minSpeed else { return .zero }
        let decel = max(0, -accel)

        // A turning path: the newer half of the window against the older.
        var straight = 1.0
        if n >= 4 {
            let h = n / 2
            let p0 = tr.sample(0).p, ph = tr.sample(h).p, pn = tr.sample(n - 1).p
            let a = p0 - ph, b = ph - pn
            let la = a.length, lb = b.length
            if la > 0, lb > 0 {
                let c = (a.x * b.x + a.y * b.y) / (la * lb)
                straight = min(1, max(0, (c - 0.5) / 0.45))
            }
        }
        guard straight > 0 else { return .zero }

        // Travel along the direction of motion within the horizon, stopping where the
        // deceleration would stop the finger.
        var travel: Double
        if decel > 0, speed / decel < horizon {
            travel = speed * speed / (2 * decel)
        } else {
            travel = speed * horizon - 0.5 * decel * horizon * horizon
        }
        // Fade in above the tremor speed, fade out for a quiet device, cap the distance.
        let ramp = min(1, (speed - s.minSpeed) / max(s.minSpeed * (s.fullSpeed - 1), 1e-6))
        travel = min(max(0, travel * ramp * presence * confidence * straight), s.maxDistance)
        return Point(x: dir.x * travel, y: dir.y * travel)
    }
}

/// How long after a frame is drawn it reaches the glass, learned from the display's page-flip
/// timestamps. Pure; no allocation after the first call.
///
/// A frame is flipped at the first vertical blank after it is ready, so its draw-to-flip time
/// is not one figure: drawn just after a blank it waits almost a whole refresh, drawn just
/// before one (and quick) almost none. When the refresh period is known (`refreshPeriod`) and a
/// flip was seen lately, `estimate(now:)` gives the time to the blank this frame will be
/// flipped at: the blanks lie on the grid of the newest flip, and the frame is ready after the
/// shortest draw-to-flip time seen lately (a frame ready just before a blank waits for nothing,
/// so that time is the drawing's own, give or take). Otherwise, and for `estimate()`, the median
/// of the last few frames (a missed refresh now and then does not move it).
public struct FlipLatencyEstimator: Sendable {
    /// Used until a display has reported a flip (s).
    public var initial: Double
    /// Never predict further than this from a measurement (s).
    public var maximum: Double = 0.1
    /// The display's refresh period (s), when known: flips fall on its vertical blanks.
    public var refreshPeriod: Double?
    /// The grid of blanks is trusted this long after the newest flip (s): a refresh rate a
    /// little off the nominal one drifts the grid by a fraction of a millisecond a second.
    public var gridMemory: Double = 0.5
    var ring: [Double] = []
    var scratch: [Double] = []
    var next = 0
    /// The newest flip recorded.
    var lastFlip: Double?
    static let capacity = 15

    public init(initial: Double, refreshPeriod: Double? = nil) {
        self.initial = initial
        self.refreshPeriod = refreshPeriod
        ring.reserveCapacity(Self.capacity)
        scratch.reserveCapacity(Self.capacity)
    }

    /// One frame drawn at `drawTime` was flipped at `flipTime` (same clock).
    public mutating func record(drawTime: Double, flipTime: Double) {
        let d = flipTime - drawTime
        guard d.isFinite, d >= 0, d <= maximum else { return }
        if ring.count < Self.capacity { ring.append(d) } else { ring[next] = d }
        next = (next + 1) % Self.capacity
        lastFlip = max(lastFlip ?? flipTime, flipTime)
    }

    public var sampleCount: Int { ring.count }

    /// Expected time from drawing a frame to its flip (s): the median of the recent frames.
    public mutating func estimate() -> Double {
        guard !ring.isEmpty else { return initial }
        scratch.removeAll(keepingCapacity: true)
        for d in ring {
            var i = scratch.count
            scratch.append(d)
            while i > 0 && scratch[i - 1] > d { scratch[i] = scratch[i - 1]; i -= 1 }
            scratch[i] = d
        }
        return scratch[scratch.count / 2]
    }

    /// Expected time from drawing a frame at `now` to its flip (s): to the first vertical blank
    /// after the frame is ready, when the refresh period is known and a flip was seen within
    /// `gridMemory`; else `estimate()`.
    public mutating func estimate(now: Double) -> Double {
        guard let period = refreshPeriod, period > 0, let last = lastFlip, now >= last, now - last <= gridMemory,
              let drawing = ring.min() else { return estimate() }
        let ready = now + min(drawing, maximum)
        let flip = last + max(1, ((ready - last) / period).rounded(.up)) * period
        return flip - now
    }
}
