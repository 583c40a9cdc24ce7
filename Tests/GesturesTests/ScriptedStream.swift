import Foundation
import Testing
import TouchCore
@testable import Gestures

/// The seeded generator of the jittered streams (TouchCore's SplitMix64).
typealias SeededRandom = SplitMix64

/// A sampling rate and a touch device: the recogniser must behave the same in millimetres
/// on all of them.
struct Rig: Sendable, CustomTestStringConvertible {
    var name: String
    var hz: Double
    var density: PixelDensity
    var testDescription: String { "\(name) @ \(Int(hz)) Hz" }

    static let screen = Size(width: 1280, height: 800)
    /// A 10.1" panel whose evdev axes report a resolution: 217 x 136 mm touch area (5.9 px/mm).
    static let withResolution = PixelDensity(screen: screen, touchAreaMillimetres: Size(width: 217, height: 136))
    /// A panel with no resolution and a display without EDID size: 96 dpi assumed (3.78 px/mm).
    static let withoutResolution = PixelDensity(screen: screen)

    static let all: [Rig] = [
        Rig(name: "resolution", hz: 60, density: withResolution),
        Rig(name: "resolution", hz: 120, density: withResolution),
        Rig(name: "no resolution", hz: 60, density: withoutResolution),
        Rig(name: "no resolution", hz: 120, density: withoutResolution),
    ]
    static let plain = Rig(name: "resolution", hz: 60, density: withResolution)

    func recognizer(mask: GestureMask = .all, horizontal: TwoFingerHorizontalMode = .rotate,
                    thresholds: GestureThresholds = GestureThresholds()) -> GestureRecognizer {
        GestureRecognizer(thresholds: thresholds, mask: mask, density: density, screen: Rig.screen,
                          twoFingerHorizontal: horizontal)
    }
    var ppm: Double { density.pixelsPerMillimetre }
}

/// Builds a contact stream the way a panel reports it: positions in millimetres (converted to
/// the rig's pixels), one frame per sample period with seeded position and timing jitter,
/// one finger landing or lifting per frame.
struct Script {
    let rig: Rig
    /// Position noise, uniform +-mm per axis per frame.
    var jitter: Double
    /// Sample-interval noise, fraction of the period.
    var timeJitter: Double
    private var random: SeededRandom
    /// Time of the next frame, s.
    private(set) var time = 100.0
    /// True finger positions, mm.
    private(set) var fingers: [Int: Point] = [:]
    private var palms: Set<Int> = []
    private(set) var frames: [ContactFrame] = []

    init(_ rig: Rig, jitter: Double = 0.15, timeJitter: Double = 0.1, seed: UInt64 = 1) {
        self.rig = rig
        self.jitter = jitter
        self.timeJitter = timeJitter
        self.random = SeededRandom(seed: seed)
    }

    var period: Double { 1 / rig.hz }
    /// Time of the last frame emitted.
    var lastTime: Double { frames.last?.time ?? time }

    /// Emits one frame at the current time, then advances by one (jittered) period.
    mutating func frame(cancelled: [Int] = []) {
        var contacts: [Contact] = []
        for (id, p) in fingers {
            let q = Point(x: p.x + jitter * random.signedUnit(), y: p.y + jitter * random.signedUnit())
            contacts.append(Contact(id: id, position: q * rig.ppm, toolType: palms.contains(id) ? .palm : .finger))
        }
        frames.append(ContactFrame(time: time, contacts: contacts, cancelled: cancelled))
        time += period * (1 + timeJitter * random.signedUnit())
    }

    mutating func down(_ id: Int, _ x: Double, _ y: Double) {
        fingers[id] = Point(x: x, y: y)
        frame()
    }

    mutating func palm(_ id: Int, _ x: Double, _ y: Double) {
        palms.insert(id)
        down(id, x, y)
    }

    mutating func up(_ id: Int) {
        fingers[id] = nil
        frame()
    }

    /// Several fingers lift in one frame (a panel reports both ends of a pinch together).
    mutating func up(_ ids: [Int]) {
        for id in ids { fingers[id] = nil }
        frame()
    }

    /// The contact ends by cancellation (palm rejection, unplug), not by a lift.
    mutating func cancel(_ id: Int) {
        fingers[id] = nil
        frame(cancelled: [id])
    }

    /// Fingers stay put (with jitter) for `seconds`.
    mutating func hold(_ seconds: Double) {
        let end = time + seconds
        while time < end - period / 2 { frame() }
    }

    /// No frames for `seconds` (nothing touches, or the panel reports nothing).
    mutating func wait(_ seconds: Double) { time += seconds }

    /// Moves the listed fingers in a straight line to the targets (mm) over `seconds`.
    mutating func move(_ targets: [Int: (Double, Double)], over seconds: Double) {
        let from = fingers
        let n = max(1, Int((seconds / period).rounded()))
        for k in 1...n {
            let f = Double(k) / Double(n)
            for (id, t) in targets {
                let a = from[id]!
                fingers[id] = Point(x: a.x + (t.0 - a.x) * f, y: a.y + (t.1 - a.y) * f)
            }
            frame()
        }
    }

    /// Moves two fingers along a path given by the focal point, span and angle of the pair
    /// (mm, mm, degrees clockwise) at each fraction of `seconds`.
    mutating func pair(_ a: Int, _ b: Int, over seconds: Double,
                       _ path: (Double) -> (focal: Point, span: Double, angle: Double)) {
        let n = max(1, Int((seconds / period).rounded()))
        for k in 1...n {
            let s = path(Double(k) / Double(n))
            let r = s.angle * Double.pi / 180
            let half = Point(x: cos(r), y: sin(r)) * (s.span / 2)
            fingers[a] = s.focal - half
            fingers[b] = s.focal + half
            frame()
        }
    }

    /// A tap: down, held, up.
    mutating func tap(_ id: Int, _ x: Double, _ y: Double, held: Double = 0.08) {
        down(id, x, y)
        hold(held)
        up(id)
    }
}

/// Feeds frames to a recogniser the way the event loop does, then lets time run on to `until`
/// (default: 2 s after the last frame) so pending deadlines fire. Fails the test on any
/// transition the recogniser logs as a bug.
func run(_ script: Script, _ recognizer: inout GestureRecognizer, until: Double? = nil,
         sourceLocation: SourceLocation = #_sourceLocation) -> [GestureEvent] {
    var events: [GestureEvent] = []
    var bugs: [GestureTransition] = []
    for frame in script.frames {
        events += recognizer.process(frame)
        bugs += recognizer.trace.filter(\.isBug)
    }
    events += recognizer.expire(at: until ?? script.lastTime + 2)
    bugs += recognizer.trace.filter(\.isBug)
    #expect(bugs.isEmpty, "recogniser bugs: \(bugs)", sourceLocation: sourceLocation)
    return events
}

/// "kind.phase" names, for compact assertions.
func names(_ events: [GestureEvent]) -> [String] { events.map { "\($0.kind.rawValue).\($0.phase.rawValue)" } }

/// Names with consecutive `changed` events of one kind folded into one, so assertions do not
/// depend on the sampling rate.
func story(_ events: [GestureEvent]) -> [String] {
    var result: [String] = []
    for n in names(events) where !(n.hasSuffix(".changed") && result.last == n) { result.append(n) }
    return result
}

func of(_ kind: GestureKind, _ events: [GestureEvent]) -> [GestureEvent] { events.filter { $0.kind == kind } }

/// A map as its controller would hold it: the similarity transform from map plane to screen,
/// screen = a * map + b with complex a, updated by each gesture event exactly as the
/// GestureEvent contract says (translate anchor -> position, then scale and turn about position).
struct SimilarityMap {
    var a = (re: 1.0, im: 0.0)
    var b = Point.zero

    mutating func apply(_ e: GestureEvent) {
        b += e.translation
        let r = e.rotation * Double.pi / 180
        let k = (re: e.scale * cos(r), im: e.scale * sin(r))
        // screen' = P + k (screen - P): a' = k a, b' = P + k (b - P)
        a = (re: k.re * a.re - k.im * a.im, im: k.re * a.im + k.im * a.re)
        let d = b - e.position
        b = e.position + Point(x: k.re * d.x - k.im * d.y, y: k.re * d.y + k.im * d.x)
    }

    func toScreen(_ m: Point) -> Point {
        Point(x: a.re * m.x - a.im * m.y + b.x, y: a.re * m.y + a.im * m.x + b.y)
    }

    func toMap(_ s: Point) -> Point {
        let d = s - b
        let n = a.re * a.re + a.im * a.im
        return Point(x: (a.re * d.x + a.im * d.y) / n, y: (a.re * d.y - a.im * d.x) / n)
    }
}
