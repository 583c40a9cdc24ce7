import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

@Suite struct MomentumTests {
    /// A pan along +x released at `velocity` px/s at t = 1.
    func flick(_ c: MapController, velocity: Double) -> (release: Point, coord: Coordinate) {
        let start = Point(x: 400, y: 400), release = Point(x: 500, y: 400)
        c.handle(gesture(.pan, .began, 0.9, at: start))
        c.handle(gesture(.pan, .changed, 1.0, at: release, from: start))
        let coord = c.projection.coordinate(at: release)!
        c.handle(gesture(.pan, .ended, 1.0, at: release, velocity: Point(x: velocity, y: 0)))
        return (release, coord)
    }

    @Test func flingDecaysExponentiallyAndStops() {
        let c = controller(zoom: 13, bearing: 70)
        let law = c.configuration.momentum
        let (release, coord) = flick(c, velocity: 2000)
        _ = c.drainEvents()
        let steps = runUntilIdle(c)
        let events = c.drainEvents()
        // It stopped: an idleAt at the stop time, nothing pending, and no endless frames.
        #expect(c.nextDeadline == nil)
        #expect(steps < 200)
        let stop = 1.0 + law.timeConstant * log(2000 / law.stopSpeed)
        #expect(events.last?.event == .idleAt(c.camera))
        #expect(abs(events.last!.time - stop) < 1e-9)
        // The dragged point travelled v0 * tau * (1 - stopSpeed / v0) further along x.
        let travel = 2000 * law.timeConstant * (1 - law.stopSpeed / 2000)
        #expect(screenPoint(c, coord).distance(to: release + Point(x: travel, y: 0)) < 0.5)
        // Frame to frame the steps shrink: smooth deceleration.
        let xs = events.compactMap { e -> Double? in
            if case .didChange(let cam) = e.event {
                return Projection(camera: cam, screen: testScreen).point(for: coord)!.x
            }
            return nil
        }
        let deltas = zip(xs.dropFirst(), xs).map { $0 - $1 }
        #expect(deltas.count > 10)
        #expect(zip(deltas.dropFirst(), deltas).allSatisfy { $0 <= $1 + 1e-9 })
        #expect(!types(events).contains("willMove"))
    }

    @Test func slowReleaseGivesNoFling() {
        let c = controller()
        _ = flick(c, velocity: 100)
        c.advance(to: 1.0)
        #expect(types(c.drainEvents()).suffix(1) == ["idleAt"])
        #expect(c.nextDeadline == nil)
    }

    @Test func momentumDisabledGivesNoFling() {
        var config = MapConfiguration()
        config.gestureMask.remove(.momentum)
        let c = controller(configuration: config)
        _ = flick(c, velocity: 3000)
        let cameraAtRelease = c.camera
        runUntilIdle(c)
        #expect(c.camera == cameraAtRelease)
        #expect(types(c.drainEvents()).suffix(2) == ["didChange", "idleAt"])
    }

    @Test func aNewPanStopsTheFlingAndSaysWillMoveAgain() {
        let c = controller()
        _ = flick(c, velocity: 3000)
        c.advance(to: 1.2)
        _ = c.drainEvents()
        c.handle(gesture(.pan, .began, 1.25, at: Point(x: 100, y: 100)))
        #expect(types(c.drainEvents()) == ["didChange", "willMove"])   // the fling's frame at 1.25, then the pan
        c.handle(gesture(.pan, .ended, 1.3, at: Point(x: 100, y: 100)))
        runUntilIdle(c)
        #expect(types(c.drainEvents()) == ["idleAt"])
    }

    @Test func lawFigures() {
        let law = MomentumLaw(timeConstant: 0.5, minStartSpeed: 100, stopSpeed: 10, maxStartSpeed: 1000)
        #expect(law.startVelocity(Point(x: 50, y: 0)) == nil)
        #expect(law.startVelocity(Point(x: 0, y: 5000)) == Point(x: 0, y: 1000))
        let v = Point(x: 1000, y: 0)
        #expect(abs(law.duration(v) - 0.5 * log(100)) < 1e-12)
        #expect(abs(law.displacement(v, after: 100).x - 1000 * 0.5 * 0.99) < 1e-9)
        #expect(law.speed(v, after: law.duration(v)) == 0)
    }
}
