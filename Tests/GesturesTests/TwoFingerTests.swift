import Foundation
import Testing
import TouchCore
@testable import Gestures

/// Pinch, rotate, two-finger pan and tilt, and the ambiguities between them.
struct TwoFingerTests {
    /// Two fingers 40 mm apart around (100, 70) mm, then the path.
    func twoFingers(_ rig: Rig, seed: UInt64 = 7, span: Double = 40, angle: Double = 0,
                    over seconds: Double = 0.5,
                    _ path: @escaping (Double) -> (focal: Point, span: Double, angle: Double)) -> Script {
        var s = Script(rig, seed: seed)
        let r = angle * Double.pi / 180
        let half = Point(x: cos(r), y: sin(r)) * (span / 2)
        let c = Point(x: 100, y: 70)
        s.down(1, (c - half).x, (c - half).y)
        s.down(2, (c + half).x, (c + half).y)
        s.hold(0.05)
        s.pair(1, 2, over: seconds, path)
        s.up(1)
        s.up(2)
        return s
    }

    @Test(arguments: Rig.all)
    func pinchOutZoomsAndIncidentalTwistDoesNotRotate(rig: Rig) {
        // Spread from 40 to 80 mm with 5 degrees of twist on the way.
        let s = twoFingers(rig) { f in (Point(x: 100, y: 70), 40 + 40 * f, 5 * f) }
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(of(.rotate, events).isEmpty)
        #expect(story(of(.pinch, events)) == ["pinch.began", "pinch.changed", "pinch.ended"])
        #expect(of(.pinch, events)[0].reason?.contains("pinchStartSpanChange") == true)
        let zoom = log2(events.reduce(1.0) { $0 * $1.scale })
        // 40 -> 80 mm is one level; the first 5 mm (pinchStartSpanChange) only decide.
        #expect(abs(zoom - log2(80.0 / 45)) < 0.05, "zoom \(zoom)")
    }

    @Test(arguments: Rig.all)
    func deliberateTwistRotatesWithoutPinching(rig: Rig) {
        let s = twoFingers(rig) { f in (Point(x: 100, y: 70), 40, 40 * f) }
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(of(.pinch, events).isEmpty)
        #expect(story(of(.rotate, events)) == ["rotate.began", "rotate.changed", "rotate.ended"])
        #expect(of(.rotate, events)[0].reason?.contains("rotationStartAngle") == true)
        let turned = events.reduce(0.0) { $0 + $1.rotation }
        #expect(turned > 40 - 12 - 2 && turned < 40 + 1, "clockwise, less the start threshold: \(turned)")
    }

    @Test(arguments: Rig.all)
    func pinchRotateAndPanKeepTheMapUnderBothFingers(rig: Rig) {
        mapFollowsBothFingers(rig: rig, mask: .all, drift: Point(x: 30, y: -15))
    }

    @Test(arguments: Rig.all)
    func pinchAndRotateCarryTheFocalMotionWhenTwoFingerPanIsOff(rig: Rig) {
        mapFollowsBothFingers(rig: rig, mask: GestureMask.all.subtracting(.twoFingerPan), drift: Point(x: 8, y: 6))
    }

    @Test(arguments: Rig.all)
    func pinchAndRotateCarryTheFocalMotionBeforeTwoFingerPanStarts(rig: Rig) {
        mapFollowsBothFingers(rig: rig, mask: .all, drift: Point(x: 2, y: 2))
    }

    /// Spread, twist and drift all at once; once pinch and rotate are both active, summing the
    /// events reproduces the fingers' focal motion, span ratio and angle, and a map that applies
    /// them keeps the points under both fingers exactly under them.
    func mapFollowsBothFingers(rig: Rig, mask: GestureMask, drift: Point,
                               sourceLocation: SourceLocation = #_sourceLocation) {
        let s = twoFingers(rig, over: 0.8) { f in
            (Point(x: 100, y: 70) + drift * f, 40 + 30 * f, -50 * f)
        }
        var r = rig.recognizer(mask: mask)
        var map = SimilarityMap()
        var begun: Set<GestureKind> = []
        var reference: (a: Point, b: Point, geometry: TwoFingerGeometry)?
        var sums = (translation: Point.zero, scale: 1.0, rotation: 0.0)
        var everyFrameTranslates = true
        var last = s.frames[1]
        for frame in s.frames.dropLast(2) {
            let events = r.process(frame)
            guard frame.contacts.count == 2 else { continue }
            for e in events { map.apply(e) }
            let g = TwoFingerGeometry(a: frame.contact(id: 1)!.position, b: frame.contact(id: 2)!.position)
            if reference != nil {
                sums.translation += events.reduce(Point.zero) { $0 + $1.translation }
                sums.scale *= events.reduce(1.0) { $0 * $1.scale }
                sums.rotation += events.reduce(0.0) { $0 + $1.rotation }
                let before = TwoFingerGeometry(a: last.contact(id: 1)!.position, b: last.contact(id: 2)!.position)
                let delivered = events.reduce(Point.zero) { $0 + $1.translation }
                if (delivered - (g.focal - before.focal)).length > 1e-9 { everyFrameTranslates = false }
            }
            begun.formUnion(events.filter { $0.phase == .began }.map(\.kind))
            if reference == nil && begun.isSuperset(of: [.pinch, .rotate]) {
                // From here on pinch and rotate are both active: the map must follow exactly.
                reference = (map.toMap(g.a), map.toMap(g.b), g)
            }
            last = frame
        }
        guard let ref = reference else {
            Issue.record("pinch and rotation must both have begun", sourceLocation: sourceLocation)
            return
        }
        let a = last.contact(id: 1)!.position, b = last.contact(id: 2)!.position
        let g = TwoFingerGeometry(a: a, b: b)
        #expect(map.toScreen(ref.a).distance(to: a) < 1e-9, "map point under finger 1 stays under it",
                sourceLocation: sourceLocation)
        #expect(map.toScreen(ref.b).distance(to: b) < 1e-9, "map point under finger 2 stays under it",
                sourceLocation: sourceLocation)
        #expect((sums.translation - (g.focal - ref.geometry.focal)).length < 1e-9, sourceLocation: sourceLocation)
        #expect(abs(sums.scale - g.span / ref.geometry.span) < 1e-9, sourceLocation: sourceLocation)
        #expect(abs(sums.rotation - angleDifference(g.angle, ref.geometry.angle)) < 1e-9,
                sourceLocation: sourceLocation)
        #expect(everyFrameTranslates, "translation is delivered every frame", sourceLocation: sourceLocation)
    }

    @Test(arguments: Rig.all)
    func sideBySideFingersMovedUpTogetherTilt(rig: Rig) {
        let s = twoFingers(rig) { f in (Point(x: 100, y: 70 - 25 * f), 40, 0) }
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["tilt.began", "tilt.changed", "tilt.ended"])
        #expect(events[0].reason?.contains("tiltStartDistance") == true)
        let tilt = events.reduce(0.0) { $0 + $1.tilt }
        let start = GestureThresholds().tiltStartDistance
        #expect(tilt > 25 - start - 2 && tilt < 25.5, "1 deg/mm up, less the start distance: \(tilt)")
    }

    @Test func tiltExcludesPinchAndRotateOnceDecided() {
        var s = Script(.plain, seed: 3)
        s.down(1, 80, 70)
        s.down(2, 120, 70)
        s.move([1: (80, 60), 2: (120, 60)], over: 0.2)     // tilt decided
        s.move([1: (60, 50), 2: (140, 40)], over: 0.3)     // then spread and twist
        s.up(1)
        s.up(2)
        var r = Rig.plain.recognizer()
        let events = run(s, &r)
        #expect(Set(events.map(\.kind)) == [.tilt])
    }

    @Test(arguments: Rig.all)
    func fingersOneAboveTheOtherMovedUpPanInsteadOfTilting(rig: Rig) {
        let s = twoFingers(rig, angle: 90) { f in (Point(x: 100, y: 70 - 25 * f), 40, 90) }
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["twoFingerPan.began", "twoFingerPan.changed", "twoFingerPan.ended"])
        let moved = events.reduce(Point.zero) { $0 + $1.translation } / rig.ppm
        #expect(abs(moved.y + 25) < 0.5 && abs(moved.x) < 0.5, "pans with the fingers: \(moved)")
    }

    @Test func sideBySideFingersSpreadingPinchInsteadOfTilting() {
        let s = twoFingers(.plain) { f in (Point(x: 100, y: 70), 40 - 20 * f, 0) }
        var r = Rig.plain.recognizer()
        let events = run(s, &r)
        #expect(of(.tilt, events).isEmpty)
        #expect(of(.pinch, events).first?.phase == .began)
        #expect(log2(events.reduce(1.0) { $0 * $1.scale }) < -0.7)
    }

    @Test(arguments: Rig.all)
    func fingersMovedHorizontallyTogetherRotateAboutTheScreenCentre(rig: Rig) {
        // Above the centre, moving right: clockwise, like turning a wheel from its top.
        var s = Script(rig, seed: 5)
        let y = Rig.screen.height / 4 / rig.ppm
        s.down(1, 60, y)
        s.down(2, 100, y)
        s.move([1: (90, y), 2: (130, y)], over: 0.4)
        s.up(1)
        s.up(2)
        var r = rig.recognizer(horizontal: .rotate)
        let events = run(s, &r)
        #expect(story(events) == ["rotate.began", "rotate.changed", "rotate.ended"])
        #expect(events.allSatisfy { $0.position == Rig.screen.center && $0.translation == .zero })
        let turned = events.reduce(0.0) { $0 + $1.rotation }
        let start = GestureThresholds().centreRotationStartDistance
        #expect(turned > (30 - start) * 0.5 - 1 && turned < 30 * 0.5 + 0.5, "0.5 deg/mm: \(turned)")
    }

    @Test(arguments: Rig.all)
    func googleModeFingersMovedHorizontallyTogetherPan(rig: Rig) {
        var s = Script(rig, seed: 5)
        s.down(1, 60, 50)
        s.down(2, 100, 50)
        s.move([1: (90, 50), 2: (130, 50)], over: 0.4)
        s.up(1)
        s.up(2)
        var r = rig.recognizer(horizontal: .pan)
        let events = run(s, &r)
        #expect(story(events) == ["twoFingerPan.began", "twoFingerPan.changed", "twoFingerPan.ended"])
        let moved = events.reduce(Point.zero) { $0 + $1.translation } / rig.ppm
        #expect(abs(moved.x - 30) < 0.5, "the map point under the fingers follows them: \(moved)")
    }

    @Test func panningDuringAPinchFollowsTheFingersInsteadOfTilting() {
        var s = Script(.plain, seed: 9)
        s.down(1, 80, 70)
        s.down(2, 120, 70)
        s.move([1: (70, 70), 2: (130, 70)], over: 0.2)     // pinch out first
        s.move([1: (70, 40), 2: (130, 40)], over: 0.3)     // then both up together
        s.up(1)
        s.up(2)
        var r = Rig.plain.recognizer()
        let events = run(s, &r)
        #expect(of(.tilt, events).isEmpty)
        #expect(of(.twoFingerPan, events).first?.phase == .began)
        let moved = events.reduce(Point.zero) { $0 + $1.translation } / Rig.plain.ppm
        #expect(abs(moved.y + 30) < 0.5)
    }

    @Test(arguments: Rig.all)
    func fingerAddedMidPanTurnsIntoTwoFingerPanWithoutAJump(rig: Rig) {
        var s = Script(rig, seed: 11)
        s.down(1, 60, 60)
        s.move([1: (80, 60)], over: 0.3)
        s.down(2, 80, 100)
        s.move([1: (100, 60), 2: (100, 100)], over: 0.3)
        s.up(1)
        s.up(2)
        var r = rig.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["pan.began", "pan.changed", "pan.ended",
                                  "twoFingerPan.began", "twoFingerPan.changed", "twoFingerPan.ended"])
        let ended = events.first { $0.kind == .pan && $0.phase == .ended }!
        #expect(ended.velocity == .zero, "no momentum when a finger joins")
        let began = events.first { $0.kind == .twoFingerPan }!
        #expect(began.translation == .zero)
        let biggestStep = events.map { $0.translation.length / rig.ppm }.max()!
        #expect(biggestStep < 5, "no jump: largest step \(biggestStep) mm")
        let moved = events.reduce(Point.zero) { $0 + $1.translation } / rig.ppm
        #expect(abs(moved.x - 40) < 0.5 && abs(moved.y) < 0.5, "\(moved)")
    }

    @Test func liftingOneFingerOfAPinchLetsTheOtherPanWithoutAJump() {
        var s = Script(.plain, seed: 13)
        s.down(1, 80, 70)
        s.down(2, 120, 70)
        s.move([1: (70, 70), 2: (130, 70)], over: 0.2)
        s.up(2)
        s.move([1: (40, 70)], over: 0.3)
        s.up(1)
        var r = Rig.plain.recognizer()
        let events = run(s, &r)
        #expect(story(events) == ["pinch.began", "pinch.changed", "pinch.ended", "pan.began", "pan.changed", "pan.ended"])
        let pan = of(.pan, events)
        let moved = pan.reduce(Point.zero) { $0 + $1.translation } / Rig.plain.ppm
        #expect(abs(moved.x + 30) < 0.5, "the pan starts where the finger was when the other lifted: \(moved)")
    }
}

extension TwoFingerTests {
    @Test(arguments: Rig.all)
    func twoRestingFingersSettlingIntoTheGlassDoNothing(rig: Rig) {
        // As on a recorded maXTouch panel: two fingers far apart, line 24 degrees from
        // horizontal, each jumping 5 mm down as its contact patch grows, held, released.
        var s = Script(rig, seed: 23)
        s.down(1, 200, 60)
        s.down(2, 70, 118)
        s.hold(0.12)
        s.move([1: (198, 65)], over: 0.02)
        s.hold(0.03)
        s.move([2: (72, 123)], over: 0.02)
        s.hold(0.5)
        s.up(2)
        s.up(1)
        var r = rig.recognizer()
        #expect(run(s, &r).isEmpty)
        // With phone-sized start distances the same touch would tilt.
        var phone = GestureThresholds()
        phone.tiltStartDistance = 3
        phone.twoFingerPanStartDistance = 4
        var p = rig.recognizer(thresholds: phone)
        #expect(of(.tilt, run(s, &p)).first?.phase == .began)
    }
}
