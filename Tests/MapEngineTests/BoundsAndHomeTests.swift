import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// `[map] bounds` and `[camera] home_after_s`, driven by scripted gestures with explicit times.
@Suite struct BoundsAndHomeTests {
    /// A box around Paris: 0.1 degrees of longitude, 0.05 of latitude.
    let box = CoordinateBounds(west: 2.30, south: 48.83, east: 2.40, north: 48.88)

    func boundedController() -> MapController {
        var config = MapConfiguration()
        config.limits.targetBounds = box
        return controller(zoom: 12, configuration: config)
    }

    /// Degrees of longitude per screen pixel at zoom 12.
    let degPerPx = 360.0 / (256 * 4096)

    @Test func aDragStopsAtTheEdgeSlidesAlongItAndComesBackAtOnce() {
        let c = boundedController()
        var p = Point(x: 1000, y: 400)
        c.handle(gesture(.pan, .began, 1.0, at: p))
        var t = 1.0
        // Drag 900 px to the left and 60 px up (the view goes east and a little south): far past the east edge.
        for _ in 0..<30 {
            t += 1.0 / 60
            let next = Point(x: p.x - 30, y: p.y - 2)
            c.handle(gesture(.pan, .changed, t, at: next, from: p))
            p = next
        }
        c.advance(to: t + 0.001)
        let cams = c.drainEvents().compactMap { e -> CameraPosition? in
            if case .didChange(let cam) = e.event { return cam }
            return nil
        }
        #expect(cams.count > 20)
        #expect(cams.allSatisfy { box.contains($0.target) })
        #expect(c.camera.target.longitude == box.east)
        // The other axis kept following the finger: 60 px of latitude.
        #expect(c.camera.target.latitude < paris.latitude - 0.002)
        // The finger turns back 100 px: the map follows at once, no dead zone past the edge.
        t += 1.0 / 60
        c.handle(gesture(.pan, .changed, t, at: Point(x: p.x + 100, y: p.y), from: p))
        c.advance(to: t + 0.001)
        #expect(abs(c.camera.target.longitude - (box.east - 100 * degPerPx)) < 1e-7)
    }

    @Test func aFlingTowardsTheEdgeSlowsToAStopAtIt() {
        let c = boundedController()
        let start = Point(x: 640, y: 400), release = Point(x: 600, y: 400)
        c.handle(gesture(.pan, .began, 1.0, at: start))
        c.handle(gesture(.pan, .changed, 1.02, at: release, from: start))
        // A hard flick to the left: unbounded, the view would travel far past the east edge.
        let v = Point(x: -6000, y: 0)
        let law = c.configuration.momentum
        #expect(law.displacement(v, after: .infinity).length * degPerPx > box.east - c.camera.target.longitude + 0.1)
        c.handle(gesture(.pan, .ended, 1.02, at: release, velocity: v))
        _ = c.drainEvents()
        runUntilIdle(c)
        let events = c.drainEvents()
        let lons = events.compactMap { e -> Double? in
            if case .didChange(let cam) = e.event { return cam.target.longitude }
            return nil
        }
        #expect(lons.count > 10)
        #expect(lons.allSatisfy { $0 <= box.east })
        // It decelerates all the way: each frame moves less than the one before, and the last
        // frames are slow (no impact at full speed), ending within a pixel of the edge.
        let steps = zip(lons.dropFirst(), lons).map { $0 - $1 }
        #expect(zip(steps.dropFirst(), steps).allSatisfy { $0 <= $1 + 1e-12 })
        #expect(steps.last! / degPerPx < 2)
        #expect(box.east - c.camera.target.longitude < 1.5 * degPerPx)
        #expect(types(events).last == "idleAt")
        #expect(c.nextDeadline == nil)
    }

    @Test func aFlingAgainstAnEdgeAlreadyReachedDoesNothing() {
        let c = boundedController()
        c.move(to: CameraPosition(target: Coordinate(latitude: 48.85, longitude: box.east), zoom: 12), at: 0.5)
        runUntilIdle(c, limit: 0.6)
        _ = c.drainEvents()
        let start = Point(x: 640, y: 400), release = Point(x: 600, y: 400)
        c.handle(gesture(.pan, .began, 1.0, at: start))
        c.handle(gesture(.pan, .changed, 1.02, at: release, from: start))
        c.handle(gesture(.pan, .ended, 1.02, at: release, velocity: Point(x: -3000, y: 0)))
        runUntilIdle(c)
        #expect(c.camera.target.longitude == box.east)
        // No fling: nothing moves after the release, and the camera goes idle at it.
        let events = c.drainEvents()
        #expect(!events.contains { e in e.time > 1.02 + 1e-9 && e.event.typeName == "didChange" })
        #expect(events.last.map { $0.event.typeName == "idleAt" && abs($0.time - 1.02) < 1e-9 } == true)
    }

    @Test func programmaticMovesAreHeldInsideToo() {
        let c = boundedController()
        c.move(to: CameraPosition(target: Coordinate(latitude: 52.5, longitude: 13.4), zoom: 10), at: 1)
        #expect(c.camera.target == Coordinate(latitude: box.north, longitude: box.east))
        #expect(c.camera.zoom == 10)
    }

    // MARK: home reset

    func homeController(after seconds: Double = 30) -> MapController {
        var config = MapConfiguration()
        config.homeAfterInterval = seconds
        let c = controller(zoom: 12, configuration: config)
        c.add(Marker(id: "cafe", position: paris, title: "Cafe"))
        return c
    }

    /// A one-finger pan of 200 px from t0 to t0 + 0.2 with the contacts the pipeline reports.
    func pan(_ c: MapController, at t0: Double) {
        c.touchesChanged(count: 1, at: t0)
        c.handle(gesture(.pan, .began, t0 + 0.05, at: Point(x: 600, y: 400)))
        c.handle(gesture(.pan, .changed, t0 + 0.15, at: Point(x: 400, y: 400), from: Point(x: 600, y: 400)))
        c.handle(gesture(.pan, .ended, t0 + 0.2, at: Point(x: 400, y: 400)))
        c.touchesChanged(count: 0, at: t0 + 0.2)
    }

    @Test func afterTheQuietIntervalTheCameraGoesHomeAndTheWindowCloses() {
        let c = homeController()
        let home = c.camera
        c.select("cafe", at: 0.5)
        pan(c, at: 1)
        #expect(c.camera != home)
        _ = c.drainEvents()
        // The next deadline is exactly 30 s after the finger lifted.
        runUntilIdle(c, limit: 31.2 - 0.001)
        #expect(c.selectedMarker == "cafe")
        #expect(abs((c.nextDeadline ?? 0) - 31.2) < 1e-9)
        _ = c.drainEvents()
        runUntilIdle(c, limit: 40)
        let events = c.drainEvents()
        #expect(types(events).first == "didCloseInfoWindow")
        #expect(abs((events.first?.time ?? 0) - 31.2) < 1e-9)
        #expect(types(events).contains("willMove") && events.contains { $0.event == .willMove(gesture: false) })
        #expect(c.camera == home)
        #expect(c.selectedMarker == nil)
        #expect(types(events).last == "idleAt")
        // Home and closed: nothing more to do, no timer left.
        #expect(c.nextDeadline == nil)
    }

    @Test func aFingerDownHoldsTheTimerAndItsLiftRestartsIt() {
        let c = homeController()
        pan(c, at: 1)
        runUntilIdle(c, limit: 20)
        // A finger rests on the screen from 20 s to 45 s (no gesture needed): no reset meanwhile.
        c.touchesChanged(count: 1, at: 20)
        #expect(c.nextDeadline == nil)
        c.advance(to: 44)
        #expect(c.cameraMode == .free && !c.isMoving)
        let away = c.camera
        c.touchesChanged(count: 0, at: 45)
        #expect(abs((c.nextDeadline ?? 0) - 75) < 1e-9)
        c.advance(to: 74.9)
        #expect(c.camera == away)
        runUntilIdle(c, limit: 80)
        #expect(c.camera == c.homeCamera)
    }

    @Test func aProgrammaticMoveRestartsTheTimerAndOtherModesHaveNone() {
        let c = homeController()
        c.move(to: CameraPosition(target: Coordinate(latitude: 48.9, longitude: 2.4), zoom: 13), at: 10)
        runUntilIdle(c, limit: 20)
        #expect(abs((c.nextDeadline ?? 0) - 40) < 1e-9)
        c.positionSource = .fixed(PositionFix(coordinate: paris))
        c.configuration.autoReturnInterval = nil
        c.setCameraMode(.following, at: 20)
        runUntilIdle(c, limit: 100)
        #expect(c.cameraMode == .following)
        #expect(c.nextDeadline == nil)
    }

    @Test func offByDefault() {
        let c = controller(zoom: 12)
        pan(c, at: 1)
        runUntilIdle(c, limit: 1000)
        #expect(c.camera.target != paris)
        #expect(c.nextDeadline == nil)
    }
}
