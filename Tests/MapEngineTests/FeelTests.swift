import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// Issue 14, each case frame by frame through recogniser and controller, on jittered streams
/// at 60 and 120 Hz: the camera after every frame and the delegate sequence.
@Suite struct FeelTests {
    static let rates: [Double] = [60, 120]

    /// A fling to the right; returns the stream with the finger lifted.
    func fling(_ s: inout FeelStream) {
        s.down(1, 60, 70)
        s.move([1: (110, 70)], over: 0.1)
        s.up(1)
    }

    // MARK: touch-down stops the camera

    @Test(arguments: rates)
    func touchDownStopsAFlingInItsFrameAndTheTapIsOnTheStoppedMap(hz: Double) {
        var s = FeelStream(hz: hz)
        fling(&s)
        s.wait(0.15)
        s.down(2, 150, 80)
        s.hold(0.1)
        s.up(2)
        let run = FeelRun()
        run.play(s.frames)
        let down = firstFrame(with: 2, in: s.frames)
        let tDown = s.frames[down].time
        let liftCamera = run.camera(afterFrame: down - 1)
        let stopped = run.camera(afterFrame: down)
        #expect(liftCamera != stopped, "the fling was gliding until the touch")
        #expect(run.cameras(from: tDown).allSatisfy { $0 == stopped }, "nothing moves from the touch-down frame on")
        // The move ends the GMS way: one idleAt at the touch-down (after the glide's last
        // didChange, at that same instant), then the tap.
        let after = run.delegate.calls.filter { $0.time >= tDown }.map(\.name).drop { $0 == "didChange" }
        #expect(Array(after) == ["idleAt", "didTapAt"], "\(run.delegate.story)")
        #expect(run.delegate.story == ["willMove(true)", "didChange", "idleAt", "didTapAt"])
        #expect(run.delegate.calls.first { $0.name == "idleAt" }!.time == tDown)
        // The tap reports what is under the finger on the stopped map.
        let tapped = run.delegate.calls.last!.coordinate!
        let under = Projection(camera: stopped, screen: testScreen).coordinate(at: s.frames[down].contact(id: 2)!.position)!
        #expect(abs(tapped.latitude - under.latitude) < 1e-9 && abs(tapped.longitude - under.longitude) < 1e-9)
    }

    @Test(arguments: rates)
    func touchDownStopsAProgrammaticAnimation(hz: Double) {
        var s = FeelStream(hz: hz)
        s.wait(0.3)
        s.down(1, 100, 60)
        s.hold(0.5)
        s.up(1)
        let run = FeelRun()
        run.controller.animate(to: CameraPosition(target: Coordinate(latitude: 52.52, longitude: 13.4), zoom: 9), duration: 1, at: 10)
        run.play(s.frames)
        let down = firstFrame(with: 1, in: s.frames)
        let stopped = run.camera(afterFrame: down)
        #expect(stopped != run.camera(afterFrame: 0) || down == 0)
        #expect(stopped.target != Coordinate(latitude: 52.52, longitude: 13.4), "stopped on the way")
        #expect(run.cameras(from: s.frames[down].time).allSatisfy { $0 == stopped })
        // The finger rested 0.5 s: a long press, on the stopped map.
        #expect(run.delegate.story == ["willMove(false)", "didChange", "idleAt", "didLongPressAt"])
    }

    @Test(arguments: rates)
    func touchDownStopsAnAutoReturnFlightAndTheCountRestartsAtTheLift(hz: Double) {
        var config = MapConfiguration()
        config.autoReturnInterval = 1
        config.modeTransitionDuration = 0.6
        var s = FeelStream(hz: hz)
        s.down(1, 100, 60)
        s.move([1: (120, 60)], over: 0.3)
        s.hold(0.2) // stopped: no fling
        s.up(1)
        let lift = s.lastTime
        s.wait(1.2)          // the flight starts at lift + 1 s
        s.down(2, 90, 90)
        s.hold(0.6)          // resting: no auto-return while it rests
        s.up(2)
        let run = FeelRun(configuration: config)
        run.controller.positionSource = .fixed(PositionFix(coordinate: Coordinate(latitude: 48.0, longitude: 2.0)))
        run.play(s.frames, settle: 0.5)
        let down = firstFrame(with: 2, in: s.frames)
        let stopped = run.camera(afterFrame: down)
        #expect(run.delegate.calls.contains { $0.name == "mode(following)" && abs($0.time - (lift + 1)) < 1e-6 })
        #expect(run.cameras(from: s.frames[down].time).allSatisfy { $0 == stopped }, "stopped, and no return while resting")
        #expect(run.controller.cameraMode == .free)
        let idleAtTouch = run.delegate.calls.filter { $0.name == "idleAt" }.map(\.time)
        #expect(idleAtTouch.contains(s.frames[down].time))
        // Counted from the last lift: the return comes 1 s after it.
        run.run(until: s.lastTime + 1.01)
        #expect(run.controller.cameraMode == .following)
        #expect(run.delegate.calls.last { $0.name == "mode(following)" }!.time >= s.lastTime + 1 - 1e-9)
    }

    @Test(arguments: rates)
    func touchDownStopsAZoomStepAndTheStepsStillAddUp(hz: Double) {
        var s = FeelStream(hz: hz)
        s.tap(1, 100, 60)
        s.wait(0.1)
        s.tap(2, 100.5, 60)      // double tap: +1, animating 0.3 s
        s.wait(0.08)
        s.down(3, 100.3, 60.2)   // lands mid-step: the step stops
        s.hold(0.08)
        s.up(3)                  // a further tap of the series: +1 more
        let run = FeelRun()
        run.play(s.frames)
        let down = firstFrame(with: 3, in: s.frames)
        let stopped = run.camera(afterFrame: down)
        #expect(stopped.zoom > 12 && stopped.zoom < 13, "stopped mid-step: \(stopped.zoom)")
        let lift = s.frames.count - 1
        #expect(s.frames[down...lift - 1].indices.allSatisfy { run.camera(afterFrame: $0) == stopped })
        #expect(abs(run.controller.camera.zoom - 14) < 1e-9, "two steps, two levels: \(run.controller.camera.zoom)")
    }

    // MARK: glued fingers

    @Test(arguments: rates)
    func pinchAndRotateEndWithTheTouchDownPlacesUnderTheFingers(hz: Double) {
        var s = FeelStream(hz: hz)
        let c = Point(x: 108, y: 68)
        s.down(1, c.x - 20, c.y)
        s.down(2, c.x + 20, c.y)
        s.pair(1, 2, over: 0.7) { f in (c + Point(x: 15, y: -10) * f, 40 + 35 * f, 55 * f) }
        let lastTwo = s.frames.count - 1
        s.up(1, 2)
        let run = FeelRun()
        run.play(s.frames)
        let both = firstFrame(with: 2, in: s.frames)
        let p0 = Projection(camera: run.camera(afterFrame: both), screen: testScreen)
        let a0 = p0.coordinate(at: s.frames[both].contact(id: 1)!.position)!
        let b0 = p0.coordinate(at: s.frames[both].contact(id: 2)!.position)!
        let end = Projection(camera: run.camera(afterFrame: lastTwo), screen: testScreen)
        let a = s.frames[lastTwo].contact(id: 1)!.position, b = s.frames[lastTwo].contact(id: 2)!.position
        #expect(end.point(for: a0)!.distance(to: a) < 2, "finger 1: \(end.point(for: a0)!.distance(to: a)) px")
        #expect(end.point(for: b0)!.distance(to: b) < 2, "finger 2: \(end.point(for: b0)!.distance(to: b)) px")
        // No frame jumps: per frame at most ~a fifth of the threshold debt on top of the fingers' own change.
        var maxZoom = 0.0, maxTurn = 0.0
        for i in both..<lastTwo {
            let x = run.camera(afterFrame: i), y = run.camera(afterFrame: i + 1)
            maxZoom = max(maxZoom, abs(y.zoom - x.zoom))
            maxTurn = max(maxTurn, abs(CameraInterpolation.shortestTurn(from: x.bearing, to: y.bearing)))
        }
        print("feel: pinch + rotate @ \(Int(hz)) Hz: largest step zoom \(maxZoom), bearing \(maxTurn) deg")
        #expect(maxZoom < 0.08 && maxTurn < 5, "largest step: zoom \(maxZoom), bearing \(maxTurn) deg")
        #expect(run.delegate.story == ["willMove(true)", "didChange", "idleAt"])
    }

    // MARK: zoom steps accumulate

    @Test(arguments: rates)
    func zoomStepsLandExactlyNLevelsAwayWhateverTheRhythm(hz: Double) {
        var s = FeelStream(hz: hz, seed: 9)
        // Every step doubles distances about its tap point, so six steps would turn 0.1 mm of
        // position jitter into 40 px: the taps land on one spot, the rhythm is jittered.
        s.jitter = 0
        let gaps = [0.10, 0.22, 0.05, 0.18, 0.12, 0.25]
        s.tap(1, 100, 60)
        for (i, g) in gaps.enumerated() {
            s.wait(g)
            s.tap(2 + i, 100, 60)
        }
        let run = FeelRun()
        let tapPoint = s.frames[0].contact(id: 1)!.position
        let under = run.controller.projection.coordinate(at: tapPoint)!
        run.play(s.frames)
        #expect(abs(run.controller.camera.zoom - (12 + Double(gaps.count))) < 1e-9, "\(run.controller.camera.zoom)")
        #expect(run.controller.projection.point(for: under)!.distance(to: tapPoint) < 0.5, "about the tap point")
    }

    @Test func aStoppedStepCountsOnlyForTheNextStepOfItsSeries() {
        let c = controller()
        c.handle(gesture(.doubleTap, .recognized, 1, at: Point(x: 640, y: 400)))
        c.advance(to: 1.1)
        c.touchesChanged(count: 1, at: 1.1)   // stops the step short of 13
        c.touchesChanged(count: 0, at: 1.15)
        let stopped = c.camera.zoom
        #expect(stopped > 12 && stopped < 13)
        c.advance(to: 5)
        c.handle(gesture(.doubleTap, .recognized, 5, at: Point(x: 640, y: 400)))   // a new series, later
        runUntilIdle(c)
        #expect(abs(c.camera.zoom - (stopped + 1)) < 1e-9, "one level from where it stopped: \(c.camera.zoom)")
    }

    @Test(arguments: rates)
    func twoFingerTapStepsAddUpToo(hz: Double) {
        var s = FeelStream(hz: hz, seed: 5)
        for i in 0..<3 {
            s.down(10 + 2 * i, 90, 60)
            s.down(11 + 2 * i, 120, 60)
            s.hold(0.06)
            s.up(10 + 2 * i, 11 + 2 * i)
            s.wait([0.05, 0.15, 0.1][i])
        }
        let run = FeelRun()
        run.play(s.frames)
        #expect(abs(run.controller.camera.zoom - 9) < 1e-9, "\(run.controller.camera.zoom)")
    }

    // MARK: extra fingers, lifts and returns

    @Test(arguments: rates)
    func aThirdFingerNeverFreezesThePinch(hz: Double) {
        var s = FeelStream(hz: hz)
        s.down(1, 90, 70)
        s.down(2, 130, 70)
        s.move([1: (80, 70), 2: (140, 70)], over: 0.2)
        s.down(3, 110, 110)
        let third = s.frames.count - 1
        s.move([1: (70, 70), 2: (150, 70)], over: 0.2)
        s.up(3)
        s.move([1: (60, 70), 2: (160, 70)], over: 0.2)
        s.up(1, 2)
        let run = FeelRun()
        run.play(s.frames)
        // Zoom keeps changing every frame while the pair spreads, third finger down or not.
        let frozen = (third + 1..<s.frames.count - 1).filter { i in
            s.frames[i].contacts.count >= 2 && run.camera(afterFrame: i).zoom == run.camera(afterFrame: i - 1).zoom
        }
        #expect(frozen.count <= 1, "frames with no zoom change: \(frozen)")
        #expect(abs(run.controller.camera.zoom - (12 + log2(100.0 / 40))) < 0.03, "\(run.controller.camera.zoom)")
        #expect(run.delegate.story == ["willMove(true)", "didChange", "idleAt"])
    }

    @Test(arguments: rates)
    func aFingerLiftedAndReturnedWithinTheGraceIsTheSamePinch(hz: Double) {
        var s = FeelStream(hz: hz)
        s.down(1, 90, 70)
        s.down(2, 130, 70)
        s.move([1: (80, 70), 2: (140, 70)], over: 0.25)
        s.up(2)
        s.wait(0.03)
        s.down(3, 141, 70)           // back 30 ms later, new tracking id
        s.move([1: (70, 70), 3: (151, 70)], over: 0.25)
        s.up(1, 3)
        let run = FeelRun()
        run.play(s.frames)
        #expect(run.delegate.story == ["willMove(true)", "didChange", "idleAt"], "\(run.delegate.story)")
        #expect(run.gestures.filter { $0.phase == .ended || $0.phase == .began }.map(\.kind) == [.pinch, .pinch],
                "one pinch: began ... ended")
        // 40 -> 60 mm, then 61 -> 81 mm: both parts count.
        let expected = log2(60.0 / 40) + log2(81.0 / 61)
        #expect(abs(run.controller.camera.zoom - 12 - expected) < 0.03, "\(run.controller.camera.zoom - 12) vs \(expected)")
    }

    @Test(arguments: rates)
    func aOneFrameDropoutDuringAPanIsTheSamePan(hz: Double) {
        var s = FeelStream(hz: hz)
        s.down(1, 60, 70)
        s.move([1: (90, 70)], over: 0.3)
        s.up(1)                       // the contact vanishes for one frame
        s.down(2, 90.5, 70)           // and comes back with a new id
        s.move([2: (120, 70)], over: 0.3)
        s.hold(0.2)
        s.up(2)
        let run = FeelRun()
        run.play(s.frames)
        #expect(run.delegate.story == ["willMove(true)", "didChange", "idleAt"], "\(run.delegate.story)")
        #expect(run.gestures.filter { $0.phase == .began }.count == 1)
        // The map point first touched is under the finger at the end (no dead zone after the return).
        let under = Projection(camera: run.camera(afterFrame: 0), screen: testScreen).coordinate(at: s.frames[0].contacts[0].position)!
        let last = s.frames[s.frames.count - 2].contact(id: 2)!.position
        #expect(run.controller.projection.point(for: under)!.distance(to: last) < 4)
    }

    @Test(arguments: rates)
    func twoFingersToOneAndBackDuringADragIsOneMove(hz: Double) {
        var s = FeelStream(hz: hz)
        s.jitter = 0.03
        s.down(1, 50, 60)
        s.move([1: (70, 60)], over: 0.2)
        s.down(2, 70, 90)
        s.move([1: (90, 60), 2: (90, 90)], over: 0.2)
        s.up(2)
        s.move([1: (110, 60)], over: 0.25)
        s.down(3, 110, 90)
        s.move([1: (130, 60), 3: (130, 90)], over: 0.2)
        s.up(3)
        s.move([1: (150, 60)], over: 0.2)
        s.hold(0.2)
        s.up(1)
        let run = FeelRun()
        run.play(s.frames)
        #expect(run.delegate.story == ["willMove(true)", "didChange", "idleAt"], "\(run.delegate.story)")
        // The place first touched stays under finger 1 on every frame once the pan has caught up
        // with its dead zone (panStartDistance, paid back over catchUpTime from the pan's start,
        // all of it within 0.3 s); while it catches up it is never farther than the dead zone.
        let under = Projection(camera: run.camera(afterFrame: 0), screen: testScreen).coordinate(at: s.frames[0].contacts[0].position)!
        var worst = 0.0, worstCatchingUp = 0.0
        let panStart = run.gestures[0].time
        for (i, f) in s.frames.enumerated() where f.time >= panStart {
            guard let p = f.contact(id: 1)?.position else { continue }
            let q = Projection(camera: run.camera(afterFrame: i), screen: testScreen).point(for: under)!
            if f.time < panStart + 0.3 {
                worstCatchingUp = max(worstCatchingUp, q.distance(to: p))
            } else {
                worst = max(worst, q.distance(to: p))
            }
        }
        #expect(worst < 4, "worst \(worst) px")
        #expect(worstCatchingUp < GestureThresholds().panStartDistance * FeelStream.ppm + 1, "\(worstCatchingUp) px")
    }

    // MARK: camera modes

    @Test func startModeIsAppliedAtOnceAndAutoReturnNeedsAGestureAndALift() {
        var config = MapConfiguration()
        config.autoReturnInterval = 2
        let c = MapController(camera: CameraPosition(target: paris, zoom: 3), screenSize: testScreen, configuration: config)
        c.positionSource = .fixed(PositionFix(coordinate: Coordinate(latitude: 47, longitude: 8), heading: 30))
        c.start(in: .following)
        #expect(c.cameraMode == .following && c.camera == c.followingCamera(at: 0))
        #expect(c.drainEvents().isEmpty, "no events for the start state")
        // A programmatic move: free, and no return.
        c.animate(to: CameraPosition(target: paris, zoom: 10), duration: 0.2, at: 1)
        runUntilIdle(c, limit: 30)
        #expect(c.cameraMode == .free && c.nextDeadline == nil)
        // A pan with the finger resting afterwards: no return while it rests.
        c.touchesChanged(count: 1, at: 31)
        c.handle(gesture(.pan, .began, 31.1, at: Point(x: 700, y: 400), from: Point(x: 640, y: 400)))
        c.handle(gesture(.pan, .ended, 31.2, at: Point(x: 700, y: 400)))
        c.advance(to: 40)
        #expect(c.cameraMode == .free, "a resting finger holds the map")
        c.touchesChanged(count: 0, at: 40)
        c.advance(to: 41.9)
        #expect(c.cameraMode == .free)
        c.advance(to: 42.0)
        #expect(c.cameraMode == .following, "2 s after the last lift")
    }

    // MARK: the mask

    @Test(arguments: rates)
    func withPanOffAPinchZoomsAboutItsTouchDownFocalPointAndTheHookStillSeesIt(hz: Double) {
        var s = FeelStream(hz: hz)
        s.down(1, 90, 70)
        s.down(2, 130, 70)
        s.pair(1, 2, over: 0.5) { f in (Point(x: 110, y: 70) + Point(x: 30, y: 15) * f, 40 + 30 * f, 0) }
        s.up(1, 2)
        s.down(3, 60, 60)
        s.move([3: (100, 60)], over: 0.3)
        s.up(3)
        var config = MapConfiguration()
        config.gestureMask = GestureMask.all.subtracting(.pan)
        let run = FeelRun(configuration: config)
        var hooked: [GestureKind] = []
        run.controller.gestureHandler = { e in hooked.append(e.kind); return false }
        let focal = Point(x: 110, y: 70) * FeelStream.ppm
        let under = run.controller.projection.coordinate(at: focal)!
        run.play(s.frames)
        #expect(run.controller.camera.zoom > 12.4, "the pinch zoomed")
        let drift = run.timeline.map { Projection(camera: $0.camera, screen: testScreen).point(for: under)!.distance(to: focal) }.max()!
        #expect(drift < 2, "the touch-down focal point stays put: \(drift) px")
        #expect(hooked.contains(.pinch) && hooked.contains(.pan), "disabled gestures still reach the hook")
    }

    @Test(arguments: rates)
    func withRotateOffATwistTurnsNothing(hz: Double) {
        var s = FeelStream(hz: hz)
        s.down(1, 90, 70)
        s.down(2, 130, 70)
        s.pair(1, 2, over: 0.5) { f in (Point(x: 110, y: 70), 40, 60 * f) }
        s.up(1, 2)
        var config = MapConfiguration()
        config.gestureMask = GestureMask.all.subtracting(.rotate)
        let run = FeelRun(configuration: config)
        run.play(s.frames)
        #expect(run.gestures.contains { $0.kind == .rotate }, "still recognised")
        #expect(run.timeline.allSatisfy { $0.camera.bearing == 0 })
    }

    // MARK: double tap and hold

    @Test(arguments: rates)
    func doubleTapAndHoldWithoutMovingGivesNoStrayTap(hz: Double) {
        var s = FeelStream(hz: hz)
        s.tap(1, 100, 60)
        s.wait(0.1)
        s.down(2, 100.4, 60)
        s.hold(0.8)
        s.up(2)
        let run = FeelRun()
        run.play(s.frames)
        #expect(run.delegate.calls.isEmpty, "\(run.delegate.names)")
        #expect(run.timeline.allSatisfy { $0.camera == run.camera(afterFrame: 0) })
    }
}
