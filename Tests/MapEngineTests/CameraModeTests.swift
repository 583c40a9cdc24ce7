import Testing
import TouchCore
import Gestures
@testable import MapEngine

@Suite struct CameraModeTests {
    let here = PositionFix(coordinate: Coordinate(latitude: 52.52, longitude: 13.405), heading: 120)

    func following(at t: Double = 0) -> (MapController, RecordingDelegate) {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        c.positionSource = .fixed(here)
        c.setCameraMode(.following, at: t)
        runUntilIdle(c, limit: t + 1)
        return (c, d)
    }

    func panBriefly(_ c: MapController, at t: Double) {
        c.handle(gesture(.pan, .began, t, at: Point(x: 300, y: 300)))
        c.handle(gesture(.pan, .changed, t + 0.05, at: Point(x: 340, y: 300), from: Point(x: 300, y: 300)))
        c.handle(gesture(.pan, .ended, t + 0.1, at: Point(x: 340, y: 300)))
        c.advance(to: t + 0.1)
    }

    /// Following puts the position low on the screen (Navigation SDK framing).
    func expectPuck(_ c: MapController, at coordinate: Coordinate, sourceLocation: SourceLocation = #_sourceLocation) {
        let p = c.projection.point(for: coordinate)!
        let want = Point(x: testScreen.width / 2, y: c.configuration.followingPuckY * testScreen.height)
        #expect(p.distance(to: want) < 1, "position at \(p), want \(want)", sourceLocation: sourceLocation)
    }

    @Test func followingSitsOnTheSourceTiltedAndFacingItsHeading() {
        let (c, d) = following()
        #expect(c.cameraMode == .following)
        expectPuck(c, at: here.coordinate)
        #expect(c.camera.bearing == 120)
        #expect(c.camera.tilt == 45)
        #expect(c.camera.zoom == 16)
        #expect(d.calls.first == "cameraMode(following)")
        #expect(d.calls.filter { $0.hasPrefix("willMove") } == ["willMove(false)"])
        #expect(d.calls.last == "idleAt")
        #expect(c.nextDeadline == nil)   // a fixed source needs no frames
    }

    /// Issue 30: a double tap and a two-finger tap tell willMove and the mode change in the
    /// order a pan does (willMove(true), then cameraMode free).
    @Test func aZoomTapGivesWillMoveThenFreeAsAPanDoes() {
        for kind in [GestureKind.doubleTap, .twoFingerTap] {
            let (c, d) = following()
            d.calls.removeAll()
            c.handle(gesture(kind, .recognized, 10, at: Point(x: 300, y: 300)))
            #expect(c.cameraMode == .free)
            #expect(d.calls.prefix(2) == ["willMove(true)", "cameraMode(free)"], "\(kind): \(d.calls)")
        }
    }

    @Test func panEntersFreeModeAndTheTimerReturnsToFollowing() {
        let (c, d) = following()
        d.calls.removeAll()
        panBriefly(c, at: 10)
        #expect(c.cameraMode == .free)
        #expect(d.calls.prefix(2) == ["willMove(true)", "cameraMode(free)"])
        #expect(c.controls.recenterVisible)
        // Quiet since the pan ended at 10.1: back to following at 15.1.
        #expect(abs(c.nextDeadline! - 15.1) < 1e-9)
        c.advance(to: 15.0)
        #expect(c.cameraMode == .free)
        c.advance(to: 15.1)
        #expect(c.cameraMode == .following)
        #expect(!c.controls.recenterVisible)
        runUntilIdle(c, limit: 20)
        expectPuck(c, at: here.coordinate)
        #expect(d.calls.suffix(1) == ["idleAt"])
    }

    @Test func everyGestureRestartsTheQuietInterval() {
        let (c, _) = following()
        panBriefly(c, at: 10)
        c.handle(tap(14, at: Point(x: 500, y: 500)))
        c.advance(to: 15.5)
        #expect(c.cameraMode == .free)
        #expect(c.nextDeadline == 19)
        c.advance(to: 19)
        #expect(c.cameraMode == .following)
    }

    @Test func noReturnWhileAFingerIsDown() {
        let (c, _) = following()
        c.handle(gesture(.pan, .began, 10, at: Point(x: 300, y: 300)))
        c.handle(gesture(.pan, .changed, 10.1, at: Point(x: 330, y: 300), from: Point(x: 300, y: 300)))
        c.advance(to: 30)
        #expect(c.cameraMode == .free)
        #expect(c.nextDeadline == nil)
    }

    @Test func autoReturnCanBeTurnedOffAndIntervalConfigured() {
        var config = MapConfiguration()
        config.autoReturnInterval = nil
        let c = controller(configuration: config)
        c.positionSource = .fixed(here)
        panBriefly(c, at: 1)
        c.advance(to: 100)
        #expect(c.cameraMode == .free)

        config.autoReturnInterval = 2
        let c2 = controller(configuration: config)
        c2.positionSource = .fixed(here)
        panBriefly(c2, at: 1)
        c2.advance(to: 3.05)
        #expect(c2.cameraMode == .free)
        c2.advance(to: 3.1)
        #expect(c2.cameraMode == .following)
    }

    @Test func recenterButtonReturnsToFollowingAndTheMapIgnoresTheTap() {
        let (c, d) = following()
        panBriefly(c, at: 10)
        d.calls.removeAll()
        let button = c.controls.recenterFrame.center
        c.handle(tap(11, at: button))
        #expect(c.cameraMode == .following)
        #expect(!d.calls.contains("didTapAt"))
        #expect(d.calls.prefix(2) == ["cameraMode(following)", "willMove(false)"])
        // Hidden in following: the same spot is now map.
        runUntilIdle(c, limit: 12)
        c.handle(tap(13, at: button))
        #expect(d.calls.last == "didTapAt")
    }

    @Test func overviewFitsTheMarkersOrTheRoute() {
        let c = controller()
        let spots = [Coordinate(latitude: 48.85, longitude: 2.35), Coordinate(latitude: 51.5, longitude: -0.12),
                     Coordinate(latitude: 52.52, longitude: 13.4)]
        for (i, s) in spots.enumerated() { c.add(Marker(id: "m\(i)", position: s)) }
        c.positionSource = .fixed(here)
        c.setCameraMode(.overview, at: 0)
        runUntilIdle(c)
        #expect(c.cameraMode == .overview)
        #expect(c.controls.recenterVisible)
        let pad = c.configuration.overviewPadding
        for s in spots {
            let p = screenPoint(c, s)
            #expect(p.x >= pad - 1e-6 && p.x <= testScreen.width - pad + 1e-6)
            #expect(p.y >= pad - 1e-6 && p.y <= testScreen.height - pad + 1e-6)
        }
        c.route = [Coordinate(latitude: 40, longitude: -74), Coordinate(latitude: 34, longitude: -118)]
        c.setCameraMode(.overview, at: 5)
        runUntilIdle(c)
        #expect(c.camera.target.longitude < -70)
    }

    @Test func followingATrackMovesWithItAndIdlesWhenItEnds() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        let a = Coordinate(latitude: 48.80, longitude: 2.30), b = Coordinate(latitude: 48.90, longitude: 2.40)
        c.positionSource = .track([TrackPoint(time: 0, coordinate: a, heading: 350),
                                   TrackPoint(time: 10, coordinate: b, heading: 30)])
        c.setCameraMode(.following, at: 0)
        c.advance(to: 5)
        expectPuck(c, at: Coordinate(latitude: 48.85, longitude: 2.35))
        #expect(abs(c.camera.bearing - 10) < 1e-9)     // the short way round through north
        #expect(c.nextDeadline != nil)
        #expect(!d.calls.contains("idleAt"))
        runUntilIdle(c, limit: 20)
        expectPuck(c, at: b)
        #expect(c.camera == c.followingCamera(at: 20))
        #expect(d.calls.filter { $0 == "idleAt" }.count == 1)
        #expect(d.calls.filter { $0.hasPrefix("willMove") } == ["willMove(false)"])
        #expect(c.nextDeadline == nil)
    }

    @Test func positionSourceInterpolates() {
        let src = PositionSource.track([TrackPoint(time: 2, coordinate: Coordinate(latitude: 0, longitude: 179), heading: 0),
                                        TrackPoint(time: 4, coordinate: Coordinate(latitude: 2, longitude: -179), heading: 90)])
        #expect(src.fix(at: 0)?.coordinate == Coordinate(latitude: 0, longitude: 179))
        let mid = src.fix(at: 3)!
        #expect(abs(mid.coordinate.latitude - 1) < 1e-12)
        #expect(abs(abs(mid.coordinate.longitude) - 180) < 1e-9)   // across the antimeridian
        #expect(mid.heading == 45)
        #expect(src.fix(at: 9)?.coordinate == Coordinate(latitude: 2, longitude: -179))
        #expect(src.isMoving(at: 3) && !src.isMoving(at: 4))
        #expect(src.nextChange(after: 0) == 2 && src.nextChange(after: 3) == 3 && src.nextChange(after: 4) == nil)
        let late = src.shifted(by: 1000)
        #expect(late.fix(at: 1003) == mid)
        #expect(late.isMoving(at: 1003) && !late.isMoving(at: 1004))
    }

    @Test func aTrackNotYetStartedNeedsNoFramesUntilItStarts() {
        let c = controller()
        c.positionSource = .track([TrackPoint(time: 100, coordinate: paris, heading: 0),
                                   TrackPoint(time: 110, coordinate: here.coordinate, heading: 0)])
        c.setCameraMode(.following, at: 0)
        runUntilIdle(c, limit: 1)
        #expect(c.nextDeadline == 100)
        c.advance(to: 100)
        #expect(abs(c.nextDeadline! - (100 + 1.0 / 60)) < 1e-9)
    }

    @Test func programmaticMoveLeavesFollowing() {
        let (c, d) = following()
        c.move(to: CameraPosition(target: paris, zoom: 10), at: 3)
        #expect(c.cameraMode == .free)
        #expect(d.calls.contains("cameraMode(free)"))
    }
}
