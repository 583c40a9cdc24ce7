import Testing
import TouchCore
@testable import Gestures

/// Seeded random touch streams (one to three fingers landing, wandering, lifting, being
/// cancelled or turning into palms): whatever comes in, the recogniser logs no bug, every
/// continuous gesture is began ... ended/cancelled exactly once, events come in time order
/// with finite values, and once every finger is up and time has run on it is idle.
struct RandomStreamTests {
    @Test(arguments: 0..<40)
    func anyStreamKeepsGestureLifecyclesWellFormed(seed: Int) {
        var random = SeededRandom(seed: UInt64(seed) &+ 1000)
        let rig = Rig.all[seed % Rig.all.count]
        var s = Script(rig, seed: UInt64(seed))
        var nextID = 1
        for _ in 0..<60 {
            let down = s.fingers.keys.sorted()
            let roll = random.signedUnit()
            if down.count < 3 && (down.isEmpty || roll < -0.5) {
                s.down(nextID, 100 + 60 * random.signedUnit(), 80 + 50 * random.signedUnit())
                nextID += 1
            } else if roll < -0.3, let id = down.first {
                s.up(id)
            } else if roll < -0.27, let id = down.last {
                s.cancel(id)
            } else if roll < 0.7 {
                var targets: [Int: (Double, Double)] = [:]
                for id in down {
                    let p = s.fingers[id]!
                    targets[id] = (p.x + 20 * random.signedUnit(), p.y + 20 * random.signedUnit())
                }
                s.move(targets, over: 0.05 + 0.2 * (random.signedUnit() + 1))
            } else if roll < 0.85 {
                s.hold(0.3 * (random.signedUnit() + 1))
            } else {
                s.wait(0.2 * (random.signedUnit() + 1))
            }
        }
        for id in s.fingers.keys.sorted() { s.up(id) }

        let mask = seed % 3 == 0 ? GestureMask.all : GestureMask(rawValue: UInt32(truncatingIfNeeded: random.next()) & GestureMask.all.rawValue)
        var r = rig.recognizer(mask: mask, horizontal: seed % 2 == 0 ? .rotate : .pan)
        let events = run(s, &r)

        var open: Set<GestureKind> = []
        var lastTime = -Double.infinity
        for e in events {
            #expect(e.time >= lastTime, "events in time order")
            lastTime = e.time
            #expect(e.scale.isFinite && e.scale > 0 && e.rotation.isFinite && e.tilt.isFinite)
            #expect(e.translation.x.isFinite && e.translation.y.isFinite)
            switch e.phase {
            case .recognized:
                #expect([.tap, .doubleTap, .twoFingerTap, .longPress].contains(e.kind))
            case .began:
                #expect(!open.contains(e.kind), "\(e.kind) began twice")
                open.insert(e.kind)
            case .changed:
                #expect(open.contains(e.kind), "\(e.kind) changed before it began")
            case .ended, .cancelled:
                #expect(open.remove(e.kind) != nil, "\(e.kind) ended before it began")
            }
            #expect(mask.contains(Self.bit(e.kind)), "\(e.kind) fired while disabled")
        }
        #expect(open.isEmpty, "gestures left open: \(open)")
        #expect(r.state == .idle)
        #expect(r.nextDeadline == nil)
    }

    static func bit(_ kind: GestureKind) -> GestureMask {
        switch kind {
        case .tap: .tap
        case .doubleTap: .doubleTap
        case .twoFingerTap: .twoFingerTap
        case .longPress: .longPress
        case .pan: .pan
        case .pinch: .pinch
        case .rotate: .rotate
        case .tilt: .tilt
        case .twoFingerPan: .twoFingerPan
        case .quickZoom: .quickZoom
        }
    }
}
