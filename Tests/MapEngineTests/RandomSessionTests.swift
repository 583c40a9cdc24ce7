import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// Seeded random sessions of gestures, programmatic calls and clock steps: the delegate rules
/// and the camera limits hold whatever the order.
@Suite struct RandomSessionTests {

    @Test(arguments: 1...25)
    func rulesAndLimitsHold(seed: Int) {
        var rng = SplitMix64(seed: UInt64(seed))
        let c = controller(zoom: rng.range(2, 16), bearing: rng.range(0, 360), tilt: rng.range(0, 40))
        c.positionSource = .fixed(PositionFix(coordinate: Coordinate(latitude: 48.9, longitude: 2.4), heading: 30))
        c.add(Marker(id: "m", position: paris, title: "M"))
        var t = 0.0
        func point() -> Point { Point(x: rng.range(0, 1280), y: rng.range(0, 800)) }
        for _ in 0..<80 {
            t += rng.range(0, 0.4)
            switch rng.int(9) {
            case 0, 1:   // a one-finger pan, maybe flung
                var p = point()
                c.handle(gesture(.pan, .began, t, at: p))
                for _ in 0..<rng.int(6) {
                    t += 1.0 / 60
                    let q = p + Point(x: rng.range(-40, 40), y: rng.range(-40, 40))
                    c.handle(gesture(.pan, .changed, t, at: q, from: p))
                    p = q
                }
                c.handle(gesture(.pan, .ended, t, at: p, velocity: Point(x: rng.range(-3000, 3000), y: rng.range(-3000, 3000))))
            case 2:      // a two-finger transform split over three events a frame
                var f = point()
                let phase0: GesturePhase = .began
                for i in 0..<(1 + rng.int(5)) {
                    t += 1.0 / 60
                    let q = f + Point(x: rng.range(-20, 20), y: rng.range(-20, 20))
                    let ph = i == 0 ? phase0 : .changed
                    c.handle(gesture(.twoFingerPan, ph, t, at: q, from: f, fingers: 2))
                    c.handle(gesture(.pinch, ph, t, at: q, scale: rng.range(0.8, 1.25), fingers: 2))
                    c.handle(gesture(.rotate, ph, t, at: q, rotation: rng.range(-15, 15), fingers: 2))
                    f = q
                }
                for k in [GestureKind.twoFingerPan, .pinch, .rotate] { c.handle(gesture(k, .ended, t, at: f, fingers: 2)) }
            case 3:
                c.handle(gesture(.tilt, .began, t, at: testScreen.center, tilt: rng.range(-30, 30), fingers: 2))
                c.handle(gesture(.tilt, .ended, t + 0.05, at: testScreen.center, fingers: 2))
                t += 0.05
            case 4: c.handle(tap(t, at: point()))
            case 5: c.handle(gesture(rng.int(2) == 0 ? .doubleTap : .twoFingerTap, .recognized, t, at: point()))
            case 6:
                c.animate(to: CameraPosition(target: Coordinate(latitude: rng.range(-60, 60), longitude: rng.range(-180, 180)),
                                             zoom: rng.range(-5, 25), bearing: rng.range(-400, 400), tilt: rng.range(0, 90)),
                          duration: rng.range(0, 1), at: t)
            case 7: c.setCameraMode(CameraMode.allCases[rng.int(3)], at: t)
            default: c.advance(to: t)
            }
            let cam = c.camera
            #expect(cam.zoom >= 0 && cam.zoom <= 20)
            #expect(cam.tilt >= 0 && cam.tilt <= c.configuration.limits.maxTilt(atZoom: cam.zoom) + 1e-9)
            #expect(cam.bearing >= 0 && cam.bearing < 360)
            #expect(abs(cam.target.latitude) <= WebMercator.maxLatitude && cam.target.longitude >= -180 && cam.target.longitude < 180)
        }
        runUntilIdle(c, limit: t + 30)
        #expect(!c.isMoving, "seed \(seed)")
        #expect(c.nextDeadline == nil, "seed \(seed)")
        let events = c.drainEvents()
        #expect(zip(events.dropFirst(), events).allSatisfy { $0.time >= $1.time }, "seed \(seed)")
        var moving = false
        for e in events {
            switch e.event {
            case .willMove: moving = true
            case .didChange: #expect(moving, "seed \(seed): didChange before willMove at \(e.time)")
            case .idleAt: #expect(moving, "seed \(seed): idleAt without movement at \(e.time)"); moving = false
            default: break
            }
        }
        #expect(!moving, "seed \(seed)")
    }
}
