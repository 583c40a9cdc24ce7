import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// Cameras for predicted frames: read-only views of where the map will be.
@Suite struct PredictedCameraTests {
    @Test func aPredictedFingerCarriesTheMapPointUnderIt() {
        let c = controller(zoom: 13, bearing: 30, tilt: 20)
        let start = Point(x: 400, y: 400), now = Point(x: 450, y: 420)
        // Nothing follows the fingers yet: the camera stays.
        #expect(!c.followsFingers)
        #expect(c.cameraFollowing(anchor: now, position: now + Point(x: 30, y: 0), scale: 1, rotation: 0) == c.camera)
        c.handle(gesture(.pan, .began, 1.0, at: start))
        c.handle(gesture(.pan, .changed, 1.02, at: now, from: start))
        #expect(c.followsFingers)
        let coord = c.projection.coordinate(at: now)!
        let before = c.camera
        let predicted = c.cameraFollowing(anchor: now, position: now + Point(x: 30, y: -12), scale: 1.5, rotation: 10)
        // The point under the finger is drawn where the finger is predicted to be; scale and
        // rotation are not applied by a pan, and the controller's own camera did not move.
        #expect(Projection(camera: predicted, screen: testScreen).point(for: coord)!.distance(to: now + Point(x: 30, y: -12)) < 1e-6)
        #expect(predicted.zoom == before.zoom && predicted.bearing == before.bearing)
        #expect(c.camera == before)
        _ = c.drainEvents()
        // A tilt does not follow the fingers: no predicted camera.
        c.handle(gesture(.pan, .ended, 1.04, at: now))
        c.handle(gesture(.tilt, .began, 2.0, at: now))
        #expect(!c.followsFingers)
    }

    @Test func aFlingIsShownWhereItWillBeAtTheFlip() {
        let c = controller(zoom: 13)
        let start = Point(x: 400, y: 400), release = Point(x: 500, y: 400)
        c.handle(gesture(.pan, .began, 0.9, at: start))
        c.handle(gesture(.pan, .changed, 1.0, at: release, from: start))
        #expect(c.motionCamera(at: 1.03) == nil)   // fingers drive the camera
        c.handle(gesture(.pan, .ended, 1.0, at: release, velocity: Point(x: 2000, y: 0)))
        c.advance(to: 1.01)
        for t in [1.03, 1.2, 1.7] {
            let predicted = c.motionCamera(at: t)
            c.advance(to: t)
            let p = Projection(camera: predicted!, screen: testScreen).point(for: c.camera.target)!
            #expect(p.distance(to: testScreen.center) < 1e-6, "at \(t)")
        }
        _ = runUntilIdle(c)
        #expect(c.motionCamera(at: c.now + 1) == nil)   // nothing moves
    }
}
