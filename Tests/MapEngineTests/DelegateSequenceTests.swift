import Testing
import TouchCore
import Gestures
@testable import MapEngine

@Suite struct DelegateSequenceTests {
    /// Checks the rules on a whole call list: no didChange before a willMove, and idleAt only
    /// after a movement, exactly once per movement.
    func checkSequence(_ calls: [String]) {
        var moving = false
        for call in calls {
            if call.hasPrefix("willMove") { moving = true }
            if call == "didChange" { #expect(moving, "didChange before willMove in \(calls)") }
            if call == "idleAt" { #expect(moving, "idleAt without movement in \(calls)"); moving = false }
        }
        #expect(!moving, "no idleAt at the end of \(calls)")
    }

    @Test func panGivesWillMoveChangesThenOneIdle() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        c.handle(gesture(.pan, .began, 0, at: Point(x: 100, y: 100)))
        #expect(d.calls == ["willMove(true)"])   // already free: no mode change
        for i in 1...5 {
            c.handle(gesture(.pan, .changed, Double(i) * 0.02, at: Point(x: 100 + Double(i) * 10, y: 100),
                             from: Point(x: 100 + Double(i - 1) * 10, y: 100)))
        }
        c.handle(gesture(.pan, .ended, 0.12, at: Point(x: 150, y: 100)))
        #expect(!d.calls.contains("idleAt"))   // idleAt goes out when the loop advances
        #expect(c.nextDeadline == 0.12)
        runUntilIdle(c)
        #expect(d.calls.filter { $0 == "didChange" }.count == 5)
        #expect(d.calls.last == "idleAt")
        #expect(d.calls.filter { $0 == "idleAt" }.count == 1)
        checkSequence(d.calls)
        // The recorded events match the delegate calls.
        #expect(types(c.drainEvents()).filter { $0 != "cameraMode" }.count == d.calls.filter { !$0.hasPrefix("cameraMode") }.count)
    }

    @Test func oneDidChangePerInputFrame() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        var focal = Point(x: 600, y: 400)
        for i in 0..<4 {
            // The recogniser splits each frame's transform over three events with the frame's time.
            let t = Double(i) / 60, next = focal + Point(x: 4, y: 1)
            let phase: GesturePhase = i == 0 ? .began : .changed
            c.handle(gesture(.twoFingerPan, phase, t, at: next, from: focal, fingers: 2))
            c.handle(gesture(.pinch, phase, t, at: next, scale: 1.02, fingers: 2))
            c.handle(gesture(.rotate, phase, t, at: next, rotation: 1, fingers: 2))
            focal = next
        }
        #expect(c.nextDeadline == 3.0 / 60)   // the last frame's didChange is due
        c.advance(to: 3.0 / 60)
        let changes = c.drainEvents().filter { $0.event.typeName == "didChange" }
        let expectedTimes: [Double] = (0..<4).map { Double($0) / 60 }
        #expect(changes.map(\.time) == expectedTimes)
        #expect(changes.last?.event == .didChange(c.camera))
        #expect(d.calls.filter { $0 == "didChange" }.count == 4)
    }

    @Test func idleWaitsForEveryGestureToEnd() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        let p = Point(x: 600, y: 400)
        c.handle(gesture(.twoFingerPan, .began, 0, at: p, fingers: 2))
        c.handle(gesture(.pinch, .began, 0, at: p, scale: 1.1, fingers: 2))
        c.handle(gesture(.twoFingerPan, .ended, 0.5, at: p, fingers: 2))
        c.advance(to: 0.6)
        #expect(!d.calls.contains("idleAt"))
        c.handle(gesture(.pinch, .ended, 0.7, at: p, fingers: 2))
        c.advance(to: 0.7)
        #expect(d.calls.filter { $0 == "idleAt" }.count == 1)
        #expect(d.calls.filter { $0.hasPrefix("willMove") } == ["willMove(true)"])
        checkSequence(d.calls)
    }

    @Test func gestureEndingAndAnotherStartingInOneFrameIsOneMovement() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        let p = Point(x: 600, y: 400)
        c.handle(gesture(.pan, .began, 0, at: p))
        c.handle(gesture(.pan, .changed, 0.1, at: p + Point(x: 5, y: 0), from: p))
        c.handle(gesture(.pan, .ended, 0.2, at: p))
        c.handle(gesture(.pinch, .began, 0.2, at: p, scale: 1.2, fingers: 2))
        c.handle(gesture(.pinch, .ended, 0.3, at: p, fingers: 2))
        runUntilIdle(c)
        #expect(d.calls.filter { $0.hasPrefix("willMove") }.count == 1)
        #expect(d.calls.filter { $0 == "idleAt" }.count == 1)
        checkSequence(d.calls)
    }

    @Test func animationGivesProgrammaticSequence() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        c.animate(to: CameraPosition(target: Coordinate(latitude: 40, longitude: -3), zoom: 8), duration: 1, at: 0)
        #expect(d.calls.first == "willMove(false)")
        let steps = runUntilIdle(c)
        #expect(steps >= 59 && steps <= 62)   // about 60 frames a second
        #expect(d.calls.last == "idleAt")
        #expect(d.calls.filter { $0 == "idleAt" }.count == 1)
        #expect(c.camera.target == Coordinate(latitude: 40, longitude: -3))
        checkSequence(d.calls)
    }

    @Test func moveToGivesWillMoveFalseChangeIdle() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        c.move(to: CameraPosition(target: paris, zoom: 3), at: 5)
        runUntilIdle(c)
        #expect(d.calls.filter { !$0.hasPrefix("cameraMode") } == ["willMove(false)", "didChange", "idleAt"])
        let events = c.drainEvents()
        #expect(events.allSatisfy { $0.time == 5 })
    }

    @Test func gestureInterruptingAnAnimationSaysWillMoveTrueAgain() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        c.animate(to: CameraPosition(target: paris, zoom: 5), duration: 1, at: 0)
        c.advance(to: 0.5)
        c.handle(gesture(.pan, .began, 0.5, at: Point(x: 10, y: 10)))
        c.handle(gesture(.pan, .changed, 0.55, at: Point(x: 20, y: 10), from: Point(x: 10, y: 10)))
        c.handle(gesture(.pan, .ended, 0.6, at: Point(x: 20, y: 10)))
        runUntilIdle(c)
        let moves = d.calls.filter { $0.hasPrefix("willMove") || $0 == "idleAt" }
        #expect(moves == ["willMove(false)", "willMove(true)", "idleAt"])
        #expect(c.camera.zoom < 12 && c.camera.zoom > 5)   // the animation stopped where it was
        checkSequence(d.calls)
    }

    @Test func doubleTapIsAGestureMove() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        c.handle(gesture(.doubleTap, .recognized, 0, at: Point(x: 10, y: 10)))
        runUntilIdle(c)
        #expect(d.calls.first == "willMove(true)")
        #expect(d.calls.last == "idleAt")
        checkSequence(d.calls)
    }

    @Test func tapOnlyReportsTheTap() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        c.handle(tap(0.2, at: Point(x: 640, y: 400)))
        runUntilIdle(c)
        #expect(d.calls == ["didTapAt"])
        let e = c.drainEvents()
        guard case .didTapAt(let coord) = e.first?.event else { Issue.record("no didTapAt"); return }
        #expect(abs(coord.latitude - paris.latitude) < 1e-9 && abs(coord.longitude - paris.longitude) < 1e-9)
    }

    @Test func longPressReportsTheCoordinate() {
        let c = controller()
        c.handle(gesture(.longPress, .recognized, 1.1, at: Point(x: 700, y: 400)))
        let e = c.drainEvents()
        #expect(types(e) == ["didLongPressAt"])
        #expect(e.first?.time == 1.1)
    }

    @Test func gestureHandlerReplacesTheDefault() {
        let c = controller()
        var seen: [GestureKind] = []
        c.gestureHandler = { e in seen.append(e.kind); return e.kind == .pan || e.kind == .tap }
        let before = c.camera
        c.handle(gesture(.pan, .began, 0, at: Point(x: 10, y: 10)))
        c.handle(gesture(.pan, .changed, 0.1, at: Point(x: 90, y: 10), from: Point(x: 10, y: 10)))
        c.handle(gesture(.pan, .ended, 0.2, at: Point(x: 90, y: 10)))
        c.handle(tap(0.5, at: Point(x: 500, y: 500)))
        c.handle(gesture(.longPress, .recognized, 1.5, at: Point(x: 500, y: 500)))
        runUntilIdle(c)
        #expect(c.camera == before)
        #expect(types(c.drainEvents()) == ["didLongPressAt"])
        #expect(seen == [.pan, .pan, .pan, .tap, .longPress])
    }

    @Test func rulesHoldOverAMixedSession() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        c.positionSource = .fixed(PositionFix(coordinate: Coordinate(latitude: 48.9, longitude: 2.4), heading: 40))
        c.add(Marker(id: "m", position: paris, title: "Centre"))
        c.setCameraMode(.following, at: 0)
        c.advance(to: 0.2)
        // A pan interrupts the transition, is flung, a double tap interrupts the fling.
        let p = Point(x: 500, y: 500)
        c.handle(gesture(.pan, .changed, 0.3, at: p + Point(x: 30, y: 0), from: p))   // no began: still fine
        c.handle(gesture(.pan, .ended, 0.35, at: p + Point(x: 30, y: 0), velocity: Point(x: 0, y: 1500)))
        c.advance(to: 0.5)
        c.handle(gesture(.doubleTap, .recognized, 0.55, at: p))
        c.advance(to: 0.6)
        c.handle(tap(0.7, at: Point(x: 100, y: 100)))          // stops the zoom animation
        runUntilIdle(c, limit: 3)
        c.animate(to: CameraPosition(target: paris, zoom: 9, bearing: 90), duration: 0.5, at: 3)
        c.handle(gesture(.rotate, .began, 3.2, at: p, rotation: 10, fingers: 2))
        c.handle(gesture(.rotate, .ended, 3.4, at: p, fingers: 2))
        runUntilIdle(c, limit: 20)                             // includes the auto-return at 8.4
        #expect(c.cameraMode == .following)
        checkSequence(d.calls)
        let events = c.drainEvents()
        #expect(zip(events.dropFirst(), events).allSatisfy { $0.time >= $1.time })
        #expect(d.calls.filter { $0.hasPrefix("willMove") }
                == ["willMove(false)", "willMove(true)", "willMove(true)", "willMove(false)", "willMove(true)", "willMove(false)"])
        #expect(events.filter { $0.event.typeName == "idleAt" }.map(\.time).count == 3)
    }

    @Test func jsonLinesFollowTheStreamFormat() {
        let cam = CameraPosition(target: Coordinate(latitude: 48.5, longitude: -2.25), zoom: 12, bearing: 30, tilt: 10)
        #expect(MapEvent.didChange(cam).jsonLine(t: 0.316)
                == #"{"t":0.316,"type":"didChange","camera":{"lat":48.5000000,"lon":-2.2500000,"zoom":12.0000,"bearing":30.00,"tilt":10.00}}"#)
        #expect(MapEvent.willMove(gesture: true).jsonLine(t: 0.3) == #"{"t":0.300,"type":"willMove","gesture":true}"#)
        #expect(MapEvent.didTapMarker("a\"b").jsonLine(t: 1) == #"{"t":1.000,"type":"didTapMarker","marker":"a\"b"}"#)
        #expect(MapEvent.didTapPOI(name: "Paris", coordinate: paris).jsonLine(t: 2)
                == #"{"t":2.000,"type":"didTapPOI","name":"Paris","lat":48.8566000,"lon":2.3522000,"class":null,"id":null}"#)
        #expect(MapEvent.didTapPOI(name: "Café \"Am Eck\"", coordinate: paris, featureClass: "cafe", id: 4_207_121_563).jsonLine(t: 2)
                == #"{"t":2.000,"type":"didTapPOI","name":"Café \"Am Eck\"","lat":48.8566000,"lon":2.3522000,"class":"cafe","id":4207121563}"#)
        #expect(MapEvent.cameraMode(.free).jsonLine(t: 0) == #"{"t":0.000,"type":"cameraMode","mode":"free"}"#)
    }
}
