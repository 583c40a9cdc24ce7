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
/// - slow motion (hand tremor, jitter) is not extrapolated at all;
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
        /// Below this speed nothing is extrapolated (px/s); full prediction from twice it.
        public var minSpeed: Double = 60
        /// A contact with no sample for this many of its usual report intervals is taken as
        /// held still: its prediction fades out over the next such interval.
        public var quietIntervals: Double = 1.5

        public init() {}

        /// Distances and speeds scaled from millimetres: 16 mm of lead at most, tremor below 15 mm/s.
        public init(pixelsPerMillimetre ppm: Double) {
            maxDistance = 16 * ppm
            minSpeed = 15 * ppm
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
        let interval = span / Double(n - 1)

        // A device that has gone quiet is holding a still finger: fade the lead out.
        let quiet = now - newest.t
        let quietStart = s.quietIntervals * interval
        let presence = quiet <= quietStart ? 1 : max(0, 1 - (quiet - quietStart) / interval)
        guard presence > 0 else { return .zero }

        // Least-squares line through the window: its slope is the velocity at the window's
        // middle time, `tm`.
        let tm = st / Double(n), mx = sx / Double(n), my = sy / Double(n)
        var stt = 0.0, stx = 0.0, sty = 0.0
        for i in 0..<n {
            let q = tr.sample(i)
            let dt = q.t - newest.t - tm
            stt += dt * dt; stx += dt * (q.p.x - mx); sty += dt * (q.p.y - my)
        }
        guard stt > 0 else { return .zero }
        let v = Point(x: stx / stt, y: sty / stt)
        var speed = v.length
        guard speed > s.minSpeed else { return .zero }
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
        let confidence = scatter > 0 ? min(1, max(0, (speed * span / scatter - 4) / 4)) : 1
        guard confidence > 0 else { return .zero }
        let dir = Point(x: v.x / speed, y: v.y / speed)

        // Deceleration along the motion: the newest step against the older half of the window.
        // Only slowing down counts (it shortens the lead); speeding up is not extrapolated.
        var decel = 0.0
        if n >= 4 {
            let half = n / 2
            let newer = Self.chordVelocity(tr, from: 0, to: 1)
            let older = Self.chordVelocity(tr, from: half, to: n - 1)
            if let (vn, tn) = newer, let (vo, to) = older, tn - to > 1e-4 {
                let a = ((vn.x - vo.x) * dir.x + (vn.y - vo.y) * dir.y) / (tn - to)
                decel = max(0, -a)
                // The fitted velocity belongs to the window's middle; bring it to the newest sample.
                speed = max(0, speed - decel * (-tm))
                // A finger whose last step is much slower than the fit has braked hard.
                let lastSpeed = (vn.x * dir.x + vn.y * dir.y)
                if lastSpeed < speed { speed = max(0, lastSpeed) }
            }
        }
        guard speed > s.minSpeed else { return .zero }

        // Travel along the direction of motion within the horizon, stopping where the
        // deceleration would stop the finger.
        var travel: Double
        if decel > 0, speed / decel < horizon {
            travel = speed * speed / (2 * decel)
        } else {
            travel = speed * horizon - 0.5 * decel * horizon * horizon
        }
        // Fade in above the tremor speed, fade out for a quiet device, cap the distance.
        let ramp = min(1, (speed - s.minSpeed) / s.minSpeed)
        travel = min(max(0, travel * ramp * presence * confidence), s.maxDistance)
        return Point(x: dir.x * travel, y: dir.y * travel)
    }

    /// Velocity between samples `from` and `to` (indices from the newest) and its mid time.
    static func chordVelocity(_ tr: Track, from: Int, to: Int) -> (Point, Double)? {
        guard to > from, to < tr.count else { return nil }
        let a = tr.sample(to), b = tr.sample(from)
        let dt = b.t - a.t
        guard dt > 1e-5 else { return nil }
        return (Point(x: (b.p.x - a.p.x) / dt, y: (b.p.y - a.p.y) / dt), (a.t + b.t) / 2)
    }
}

/// How long after a frame is drawn it reaches the glass, learned from the display's page-flip
/// timestamps: the median of the last few frames (a missed refresh now and then does not move
/// it). Pure; no allocation after the first call.
public struct FlipLatencyEstimator: Sendable {
    /// Used until a display has reported a flip (s).
    public var initial: Double
    /// Never predict further than this from a measurement (s).
    public var maximum: Double = 0.1
    var ring: [Double] = []
    var scratch: [Double] = []
    var next = 0
    static let capacity = 15

    public init(initial: Double) {
        self.initial = initial
        ring.reserveCapacity(Self.capacity)
        scratch.reserveCapacity(Self.capacity)
    }

    /// One frame drawn at `drawTime` was flipped at `flipTime` (same clock).
    public mutating func record(drawTime: Double, flipTime: Double) {
        let d = flipTime - drawTime
        guard d.isFinite, d >= 0, d <= maximum else { return }
        if ring.count < Self.capacity { ring.append(d) } else { ring[next] = d }
        next = (next + 1) % Self.capacity
    }

    public var sampleCount: Int { ring.count }

    /// Expected time from drawing a frame to its flip (s).
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
}
