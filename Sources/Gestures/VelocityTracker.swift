import TouchCore

/// Release velocity of one finger: a least-squares line through its positions over the last
/// `window` seconds before the lift, so one jittery sample does not fling the map.
struct VelocityTracker: Sendable, Hashable {
    struct Sample: Sendable, Hashable {
        var time: Double
        var position: Point
    }

    var window: Double
    private(set) var samples: [Sample] = []

    init(window: Double) { self.window = window }

    mutating func reset() { samples.removeAll(keepingCapacity: true) }

    /// Time of the last sample.
    var lastTime: Double? { samples.last?.time }

    mutating func add(time: Double, position: Point) {
        samples.append(Sample(time: time, position: position))
        let oldest = time - window
        if let keep = samples.firstIndex(where: { $0.time >= oldest }), keep > 0 {
            samples.removeFirst(keep)
        }
    }

    /// Velocity in px/s over the samples within `window` before `time`, with the number of
    /// samples used; zero when fewer than two samples or no time span.
    func velocity(at time: Double) -> (velocity: Point, samples: Int) {
        let used = samples.filter { $0.time >= time - window && $0.time <= time }
        guard used.count >= 2 else { return (.zero, used.count) }
        let n = Double(used.count)
        let mt = used.reduce(0) { $0 + $1.time } / n
        let mx = used.reduce(0) { $0 + $1.position.x } / n
        let my = used.reduce(0) { $0 + $1.position.y } / n
        var stt = 0.0, stx = 0.0, sty = 0.0
        for s in used {
            let dt = s.time - mt
            stt += dt * dt
            stx += dt * (s.position.x - mx)
            sty += dt * (s.position.y - my)
        }
        guard stt > 0 else { return (.zero, used.count) }
        return (Point(x: stx / stt, y: sty / stt), used.count)
    }
}
