import Foundation
import TouchCore
import Gestures
@testable import MapEngine

/// A panel reporting at `hz` with jittered timing and positions: fingers in millimetres, frames
/// in screen pixels (5.9 px/mm, a 10.1" 1280 x 800 panel), explicit timestamps.
struct FeelStream {
    static let ppm = 5.9
    let hz: Double
    var jitter = 0.08 /* mm */
    var timeJitter = 0.1 /* fraction of the period */
    /// Seeded, so every jittered stream is the same on every run.
    private var random: SplitMix64
    private(set) var time = 10.0
    private(set) var fingers: [Int: Point] = [:]
    private(set) var frames: [ContactFrame] = []

    init(hz: Double, seed: UInt64 = 3) {
        self.hz = hz
        random = SplitMix64(seed: seed)
    }

    var period: Double { 1 / hz }
    var lastTime: Double { frames.last?.time ?? time }

    mutating func frame() {
        let contacts = fingers.map { id, p in
            Contact(id: id, position: Point(x: p.x + jitter * random.signedUnit(), y: p.y + jitter * random.signedUnit()) * FeelStream.ppm)
        }
        frames.append(ContactFrame(time: time, contacts: contacts.sorted { $0.id < $1.id }))
        time += period * (1 + timeJitter * random.signedUnit())
    }
    mutating func down(_ id: Int, _ x: Double, _ y: Double) { fingers[id] = Point(x: x, y: y); frame() }
    mutating func up(_ ids: Int...) { for id in ids { fingers[id] = nil }; frame() }
    mutating func hold(_ seconds: Double) {
        let end = time + seconds
        while time < end - period / 2 { frame() }
    }
    mutating func wait(_ seconds: Double) { time += seconds }
    mutating func move(_ targets: [Int: (Double, Double)], over seconds: Double) {
        let from = fingers
        let n = max(1, Int((seconds * hz).rounded()))
        for k in 1...n {
            let f = Double(k) / Double(n)
            for (id, t) in targets {
                let a = from[id]!
                fingers[id] = Point(x: a.x + (t.0 - a.x) * f, y: a.y + (t.1 - a.y) * f)
            }
            frame()
        }
    }
    /// Two fingers along a path of focal point (mm), span (mm) and angle (deg).
    mutating func pair(_ a: Int, _ b: Int, over seconds: Double, _ path: (Double) -> (Point, Double, Double)) {
        let n = max(1, Int((seconds * hz).rounded()))
        for k in 1...n {
            let (c, span, angle) = path(Double(k) / Double(n))
            let r = angle * Double.pi / 180
            let half = Point(x: cos(r), y: sin(r)) * (span / 2)
            fingers[a] = c - half
            fingers[b] = c + half
            frame()
        }
    }
    mutating func tap(_ id: Int, _ x: Double, _ y: Double, held: Double = 0.06) {
        down(id, x, y)
        hold(held)
        up(id)
    }
}

/// Every delegate call with its time and coordinate.
final class FeelDelegate: MapViewDelegate {
    struct Call { var name: String; var time: Double; var coordinate: Coordinate? }
    var calls: [Call] = []
    var now: () -> Double = { 0 }
    func willMove(gesture: Bool) { calls.append(Call(name: "willMove(\(gesture))", time: now())) }
    func didChange(_ camera: CameraPosition) { calls.append(Call(name: "didChange", time: now())) }
    func idleAt(_ camera: CameraPosition) { calls.append(Call(name: "idleAt", time: now())) }
    func didTapAt(_ c: Coordinate) { calls.append(Call(name: "didTapAt", time: now(), coordinate: c)) }
    func didLongPressAt(_ c: Coordinate) { calls.append(Call(name: "didLongPressAt", time: now(), coordinate: c)) }
    func cameraModeDidChange(_ mode: CameraMode) { calls.append(Call(name: "mode(\(mode.rawValue))", time: now())) }
    var names: [String] { calls.map(\.name) }
    /// Names with runs of didChange folded, so assertions do not depend on the frame rate.
    var story: [String] {
        var out: [String] = []
        for n in names where !(n == "didChange" && out.last == n) { out.append(n) }
        return out
    }
}

/// The pure chain as the kiosk runs it: frames to the recogniser (with the contact count to
/// the controller first, so a touch-down stops the camera in its frame), gesture events to the
/// controller, and both clocks run from deadline to deadline between frames. Records the
/// camera after every input frame and every animation step.
final class FeelRun {
    var recognizer: GestureRecognizer
    let controller: MapController
    let delegate = FeelDelegate()
    /// (time, camera, input frame index or nil for a clock step)
    private(set) var timeline: [(time: Double, camera: CameraPosition, frame: Int?)] = []
    private(set) var gestures: [GestureEvent] = []
    private var fingers = 0

    init(configuration: MapConfiguration = MapConfiguration(), camera: CameraPosition? = nil, mask: GestureMask = .all) {
        recognizer = GestureRecognizer(mask: mask, density: PixelDensity(pixelsPerMillimetre: FeelStream.ppm, source: .deviceResolution),
                                       screen: testScreen)
        controller = MapController(camera: camera ?? CameraPosition(target: paris, zoom: 12), screenSize: testScreen,
                                   configuration: configuration, time: 0)
        controller.delegate = delegate
        delegate.now = { [unowned controller] in controller.now }
    }

    /// Runs both clocks up to `time`, deadline by deadline.
    func run(until time: Double) {
        var guardCount = 0
        while guardCount < 100_000 {
            guardCount += 1
            let next = [recognizer.nextDeadline, controller.nextDeadline].compactMap { $0 }.min()
            guard let d = next, d <= time else { break }
            if let r = recognizer.nextDeadline, r <= d { deliver(recognizer.expire(at: r)) }
            controller.advance(to: max(d, controller.now))
            timeline.append((controller.now, controller.camera, nil))
        }
        controller.advance(to: max(time, controller.now))
    }

    func play(_ frames: [ContactFrame], settle: Double = 3) {
        for (i, f) in frames.enumerated() {
            run(until: f.time)
            if f.contacts.count != fingers {
                controller.touchesChanged(count: f.contacts.count, at: f.time)
                fingers = f.contacts.count
            }
            deliver(recognizer.process(f))
            timeline.append((f.time, controller.camera, i))
        }
        if let last = frames.last { run(until: last.time + settle) }
    }

    func deliver(_ events: [GestureEvent]) {
        for e in events {
            gestures.append(e)
            controller.handle(e)
        }
    }

    /// The camera after input frame `i`.
    func camera(afterFrame i: Int) -> CameraPosition { timeline.last { $0.frame == i }!.camera }
    /// Every camera recorded from time `t` on.
    func cameras(from t: Double) -> [CameraPosition] { timeline.filter { $0.time >= t }.map(\.camera) }
}

/// Index of the first frame in which finger `id` is down.
func firstFrame(with id: Int, in frames: [ContactFrame], after: Double = -.infinity) -> Int {
    frames.firstIndex { $0.time > after && $0.contact(id: id) != nil }!
}
