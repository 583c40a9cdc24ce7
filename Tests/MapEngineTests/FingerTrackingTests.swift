import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// The map point under the finger (or the fingers' focal point) stays under it.
@Suite struct FingerTrackingTests {
    @Test(arguments: [(0.0, 0.0), (37.0, 0.0), (215.0, 0.0), (37.0, 50.0)])
    func panKeepsPointUnderFinger(bearing: Double, tilt: Double) {
        let c = controller(zoom: 12, bearing: bearing, tilt: tilt)
        var finger = Point(x: 300, y: 600)
        let coord = c.projection.coordinate(at: finger)!
        c.handle(gesture(.pan, .began, 0, at: finger))
        for i in 1...30 {
            let next = finger + Point(x: 17.3, y: -9.1)
            c.handle(gesture(.pan, .changed, Double(i) / 60, at: next, from: finger))
            finger = next
            #expect(screenPoint(c, coord).distance(to: finger) < 0.5)
        }
        #expect(c.camera.bearing == CameraPosition.normalizedBearing(bearing))
    }

    @Test(arguments: [(0.0, 0.0), (120.0, 0.0), (120.0, 45.0)])
    func pinchKeepsFocalPointUnderFingers(bearing: Double, tilt: Double) {
        let c = controller(zoom: 10, bearing: bearing, tilt: tilt)
        var focal = Point(x: 800, y: 500)
        let coord = c.projection.coordinate(at: focal)!
        c.handle(gesture(.pinch, .began, 0, at: focal, fingers: 2))
        for i in 1...25 {
            let t = Double(i) / 60
            let next = focal + Point(x: -6, y: 4)
            // One frame: the translation in a twoFingerPan event, the scale in a pinch event.
            c.handle(gesture(.twoFingerPan, i == 1 ? .began : .changed, t, at: next, from: focal, fingers: 2))
            c.handle(gesture(.pinch, .changed, t, at: next, scale: 1.04, fingers: 2))
            focal = next
            #expect(screenPoint(c, coord).distance(to: focal) < 0.5)
        }
        #expect(abs(c.camera.zoom - (10 + 25 * log2(1.04))) < 1e-9)
    }

    @Test(arguments: [(0.0, 0.0), (300.0, 0.0), (300.0, 30.0)])
    func rotateKeepsFocalPointUnderFingers(bearing: Double, tilt: Double) {
        let c = controller(zoom: 14, bearing: bearing, tilt: tilt)
        var focal = Point(x: 400, y: 350)
        let coord = c.projection.coordinate(at: focal)!
        c.handle(gesture(.rotate, .began, 0, at: focal, fingers: 2))
        for i in 1...40 {
            let t = Double(i) / 60
            let next = focal + Point(x: 3, y: 2)
            c.handle(gesture(.twoFingerPan, i == 1 ? .began : .changed, t, at: next, from: focal, fingers: 2))
            c.handle(gesture(.rotate, .changed, t, at: next, rotation: 4.5, fingers: 2))
            focal = next
            #expect(screenPoint(c, coord).distance(to: focal) < 0.5)
        }
        // Turning the map clockwise by 180 degrees turns the bearing by -180.
        #expect(abs(CameraInterpolation.shortestTurn(from: bearing - 180, to: c.camera.bearing)) < 1e-9)
    }

    @Test func rotatingTheMapClockwiseMovesNorthToTheRight() {
        let c = controller(zoom: 5)
        let centre = testScreen.center
        c.handle(gesture(.rotate, .began, 0, at: centre, fingers: 2))
        c.handle(gesture(.rotate, .changed, 0.1, at: centre, rotation: 90, fingers: 2))
        let north = screenPoint(c, Coordinate(latitude: paris.latitude + 1, longitude: paris.longitude))
        #expect(north.x > centre.x + 20)
        #expect(abs(north.y - centre.y) < 1)
        #expect(c.camera.bearing == 270)
    }

    @Test func doubleTapZoomsInExactlyOneLevelAboutTheTap() {
        let c = controller(zoom: 11, bearing: 25, tilt: 30)
        let p = Point(x: 250, y: 620)
        let coord = c.projection.coordinate(at: p)!
        c.handle(gesture(.doubleTap, .recognized, 1.0, at: p))
        // Mid-way the point is still under the tap.
        c.advance(to: 1.15)
        #expect(screenPoint(c, coord).distance(to: p) < 0.5)
        #expect(c.camera.zoom > 11 && c.camera.zoom < 12)
        runUntilIdle(c)
        #expect(c.camera.zoom == 12)
        #expect(screenPoint(c, coord).distance(to: p) < 0.5)
        #expect(abs(c.now - 1.3) < 1e-9)
    }

    @Test func twoFingerTapZoomsOutExactlyOneLevelAboutTheMidpoint() {
        let c = controller(zoom: 9, bearing: 200)
        let mid = Point(x: 900, y: 200)
        let coord = c.projection.coordinate(at: mid)!
        c.handle(gesture(.twoFingerTap, .recognized, 2.0, at: mid, fingers: 2))
        runUntilIdle(c)
        #expect(c.camera.zoom == 8)
        #expect(screenPoint(c, coord).distance(to: mid) < 0.5)
    }

    @Test func quickZoomScalesAboutTheTapPointIgnoringFingerTravel() {
        let c = controller(zoom: 6)
        let p = Point(x: 500, y: 300)
        let coord = c.projection.coordinate(at: p)!
        c.handle(gesture(.quickZoom, .began, 0, at: p))
        c.handle(gesture(.quickZoom, .changed, 0.1, at: p, from: p - Point(x: 0, y: 40), scale: 2))
        #expect(c.camera.zoom == 7)
        #expect(screenPoint(c, coord).distance(to: p) < 0.5)
    }

    @Test func tiltGestureChangesViewingAngleAboutTheCentre() {
        let c = controller(zoom: 15)
        c.handle(gesture(.tilt, .began, 0, at: testScreen.center, fingers: 2))
        c.handle(gesture(.tilt, .changed, 0.1, at: testScreen.center, tilt: 20, fingers: 2))
        c.handle(gesture(.tilt, .changed, 0.2, at: testScreen.center, tilt: 15, fingers: 2))
        #expect(c.camera.tilt == 35)
        #expect(c.camera.target == paris)
    }

    @Test func maskedGesturesDoNothing() {
        var config = MapConfiguration()
        config.gestureMask = GestureMask.all.subtracting([.pan, .doubleTap])
        let c = controller(configuration: config)
        let before = c.camera
        c.handle(gesture(.pan, .began, 0, at: Point(x: 100, y: 100)))
        c.handle(gesture(.pan, .changed, 0.1, at: Point(x: 200, y: 100), from: Point(x: 100, y: 100)))
        c.handle(gesture(.pan, .ended, 0.2, at: Point(x: 200, y: 100)))
        c.handle(gesture(.doubleTap, .recognized, 0.5, at: Point(x: 300, y: 300)))
        runUntilIdle(c)
        #expect(c.camera == before)
        #expect(c.drainEvents().isEmpty)
    }
}
