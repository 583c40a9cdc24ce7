import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// The controller's per-frame bookkeeping without hashing or allocation gives what the
/// collections it replaced gave.
@Suite struct PerFrameStateTests {
    @Test func gestureKindSetAnswersAsASetOfGestureKinds() {
        var rng = SplitMix64(seed: 9)
        var bits = GestureKindSet()
        var set: Set<GestureKind> = []
        let kinds = GestureKind.allCases
        for _ in 0..<5_000 {
            let k = kinds[rng.int(kinds.count)]
            if rng.next() & 1 == 0 { bits.insert(k); set.insert(k) } else { bits.remove(k); set.remove(k) }
            #expect(bits.isEmpty == set.isEmpty)
            for q in kinds { #expect(bits.contains(q) == set.contains(q)) }
        }
    }

    @Test func earliestTimeIsTheArraysMin() {
        var rng = SplitMix64(seed: 3)
        for n in 0..<8 {
            for _ in 0..<300 {
                let values = (0..<n).map { _ in rng.int(10) == 0 ? Double.nan : rng.int(5) == 0 ? 1.0 : rng.range(0, 2) }
                var e = EarliestTime()
                for v in values { e.append(v) }
                let want = values.min()
                #expect(e.min?.bitPattern == want?.bitPattern)
            }
        }
    }

    @Test func drainingInPlaceGivesTheEventsDrainEventsGave() {
        func run(inPlace: Bool) -> [TimedMapEvent] {
            let c = MapController(camera: CameraPosition(target: Coordinate(latitude: 47, longitude: 9), zoom: 10),
                                  screenSize: Size(width: 800, height: 600))
            var out: [TimedMapEvent] = []
            let drain = { if inPlace { c.drainEvents { out.append($0) } } else { out += c.drainEvents() } }
            var p = Point(x: 400, y: 300)
            c.handle(GestureEvent(kind: .pan, phase: .began, time: 1, position: p)); drain()
            for i in 1...30 {
                let q = p + Point(x: 7, y: 3)
                c.handle(GestureEvent(kind: .pan, phase: .changed, time: 1 + Double(i) / 60, position: q, anchor: p))
                c.advance(to: 1 + Double(i) / 60)
                drain()
                p = q
            }
            c.handle(GestureEvent(kind: .pan, phase: .ended, time: 1.6, position: p, velocity: Point(x: 900, y: 300)))
            for i in 0...120 { c.advance(to: 1.6 + Double(i) / 60); drain() }
            return out
        }
        let before = run(inPlace: false)
        #expect(before.count > 40)
        #expect(run(inPlace: true) == before)
    }
}
