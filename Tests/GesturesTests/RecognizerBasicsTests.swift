import Foundation
import Testing
import TouchCore
@testable import Gestures

/// Pixel density, transition log and deadlines.
struct RecognizerBasicsTests {
    @Test func densityPrefersTheDeviceResolutionThenTheDisplaySizeThen96Dpi() {
        let screen = Size(width: 1280, height: 800)
        let device = PixelDensity(screen: screen, touchAreaMillimetres: Size(width: 256, height: 160),
                                  displayMillimetres: Size(width: 300, height: 200))
        #expect(device.source == .deviceResolution && device.pixelsPerMillimetre == 5)
        let display = PixelDensity(screen: screen, displayMillimetres: Size(width: 256, height: 160))
        #expect(display.source == .displaySize && display.pixelsPerMillimetre == 5)
        let zeroEDID = PixelDensity(screen: screen, touchAreaMillimetres: nil, displayMillimetres: Size(width: 0, height: 0))
        #expect(zeroEDID == .assumed)
        #expect(abs(PixelDensity.assumed.pixelsPerMillimetre - 96 / 25.4) < 1e-12)
    }

    @Test func thresholdsInMillimetresMeanTheSameMotionOnEveryDevice() {
        // 4 mm is a pan everywhere, 2 mm a tap everywhere, whatever the pixel density.
        for ppm in [2.0, 3.78, 8.0, 15.0] {
            let rig = Rig(name: "\(ppm) px/mm", hz: 60,
                          density: PixelDensity(pixelsPerMillimetre: ppm, source: .displaySize))
            for (distance, expected) in [(2.0, ["tap.recognized"]), (4.0, ["pan.began", "pan.changed", "pan.ended"])] {
                var s = Script(rig, jitter: 0)
                s.down(1, 50, 50)
                s.move([1: (50 + distance, 50)], over: 0.1)
                s.up(1)
                var r = rig.recognizer()
                #expect(story(run(s, &r)) == expected, "\(distance) mm at \(ppm) px/mm")
            }
        }
    }

    @Test func everyTransitionIsLoggedAsOldInputNew() {
        final class Lines: @unchecked Sendable { var lines: [String] = [] }
        let sink = Lines()
        var r = GestureRecognizer(screen: Rig.screen, log: { sink.lines.append("\($0.from) -> \($0.input) -> \($0.to)") })
        var s = Script(.plain, jitter: 0)
        s.tap(1, 80, 60)
        _ = run(s, &r)
        #expect(sink.lines == [
            "idle -> fingerDown -> oneFingerDown",
            "oneFingerDown -> fingerUp -> tapPending",
            "tapPending -> doubleTapTimeout -> idle",
        ])
    }

    @Test func traceRecordsTheThresholdThatDecided() {
        var r = GestureRecognizer(density: PixelDensity(pixelsPerMillimetre: 4, source: .displaySize), screen: Rig.screen)
        _ = r.process(ContactFrame(time: 1, contacts: [Contact(id: 1, position: Point(x: 100, y: 100))]))
        let events = r.process(ContactFrame(time: 1.02, contacts: [Contact(id: 1, position: Point(x: 114, y: 100))]))
        #expect(names(events) == ["pan.began"])
        #expect(r.trace.map(\.description) == [
            "1.02 oneFingerDown -> motion -> panning (moved 3.5 mm > panStartDistance 3.0 mm)",
        ])
        #expect(events[0].reason == "moved 3.5 mm > panStartDistance 3.0 mm")
    }

    @Test func deadlinesFireInTimeOrderBeforeALaterFrame() {
        var r = GestureRecognizer(screen: Rig.screen)
        let p = Point(x: 100, y: 100)
        _ = r.process(ContactFrame(time: 1, contacts: [Contact(id: 1, position: p)]))
        _ = r.process(ContactFrame(time: 1.05, contacts: []))
        #expect(r.nextDeadline == 1.35)
        // The event loop was late: the next touch comes after the deadline, far away.
        let events = r.process(ContactFrame(time: 2, contacts: [Contact(id: 2, position: p)]))
        #expect(names(events) == ["tap.recognized"])
        #expect(events[0].time == 1.35)
        #expect(r.state == .oneFingerDown)
        #expect(r.nextDeadline == 2.5, "the new touch's long press")
    }

    @Test func aFastTapWhoseDownAndUpArriveInOneReadIsNoCrash() {
        // Down and up in one read produce no frame with the contact at all: nothing happens.
        var r = GestureRecognizer(screen: Rig.screen)
        #expect(r.process(ContactFrame(time: 1, contacts: [])).isEmpty)
        #expect(r.state == .idle && r.trace.isEmpty)
    }
}

extension RecognizerBasicsTests {
    @Test func partialThresholdConfigurationKeepsTheOtherDefaults() throws {
        let json = #"{"rotationStartAngle": 15, "tapMaxMovement": 3}"#
        let t = try JSONDecoder().decode(GestureThresholds.self, from: Data(json.utf8))
        var expected = GestureThresholds()
        expected.rotationStartAngle = 15
        expected.tapMaxMovement = 3
        #expect(t == expected)
        let roundTrip = try JSONDecoder().decode(GestureThresholds.self, from: JSONEncoder().encode(expected))
        #expect(roundTrip == expected)
    }

    @Test func pinchAboutOneStillFingerNeverRotatesAboutTheCentre() {
        // The thumb stays, the index finger moves right: span grows, the focal point moves
        // horizontally, but the fingers do not move together.
        var s = Script(.plain, jitter: 0, seed: 17)
        s.down(1, 80, 50)
        s.down(2, 110, 50)
        s.move([2: (140, 50)], over: 0.3)
        s.up(1)
        s.up(2)
        for mask in [GestureMask.all, GestureMask.all.subtracting(.pinch)] {
            var r = Rig.plain.recognizer(mask: mask)
            let events = run(s, &r)
            #expect(!events.contains { $0.kind == .rotate && $0.position == Rig.screen.center })
            #expect(of(.pinch, events).isEmpty == !mask.contains(.pinch))
        }
    }
}

extension RecognizerBasicsTests {
    @Test func defaultThresholdsHaveNoProblems() {
        #expect(GestureThresholds().problems.isEmpty)
    }

    @Test func aPanStartBelowTheTapSlopIsReportedForTheUser() {
        var t = GestureThresholds()
        t.tapMaxMovement = 3
        t.panStartDistance = 1.5
        t.rotationStartAngle = -1
        let problems = t.problems
        #expect(problems.count == 3)
        #expect(problems.contains { $0.contains("longPressSlop 3.0 mm is above panStartDistance 1.5 mm") })
        #expect(problems.contains { $0.contains("panStartDistance 1.5 mm is below tapMaxMovement 3.0 mm") })
        #expect(problems.contains { $0.contains("rotationStartAngle is -1.0 deg; it must be a positive number") })
    }
}

/// Every transition goes to `log`; an input the state cannot receive is marked a bug (the
/// kiosk logs those as warnings) and changes nothing.
struct TransitionLogTests {
    final class Collected: @unchecked Sendable {
        var steps: [GestureTransition] = []
    }

    @Test func transitionsAreLoggedAndAnImpossibleInputIsABug() {
        let collected = Collected()
        var r = Rig.plain.recognizer()
        r.log = { collected.steps.append($0) }
        var s = Script(.plain)
        s.tap(1, 50, 50)
        _ = run(s, &r)
        #expect(collected.steps.map { "\($0.from.rawValue)>\($0.to.rawValue)" }.prefix(3)
                == ["idle>oneFingerDown", "oneFingerDown>tapPending", "tapPending>idle"])
        #expect(!collected.steps.contains { $0.isBug })
        r.handle(.liftGraceTimeout) // cannot happen in idle
        #expect(collected.steps.last?.isBug == true && r.state == .idle)
        #expect(collected.steps.last?.description.contains("idle -> liftGraceTimeout -> idle (bug:") == true)
    }
}
