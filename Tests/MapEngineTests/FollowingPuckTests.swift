import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// Following mode as the Navigation SDK frames it, and live positions gliding (`setPosition`).
@Suite struct FollowingPuckTests {
    func puckPoint(_ c: MapController) -> Point {
        Point(x: c.screenSize.width / 2, y: c.configuration.followingPuckY * c.screenSize.height)
    }

    @Test(arguments: [(0.0, 45.0), (120.0, 45.0), (270.0, 30.0), (33.0, 60.0), (359.0, 0.0)])
    func thePositionSitsLowFacingTheHeading(heading: Double, tilt: Double) throws {
        var config = MapConfiguration()
        config.followingTilt = tilt
        let c = controller(configuration: config)
        let here = Coordinate(latitude: 52.52, longitude: 13.405)
        c.positionSource = .fixed(PositionFix(coordinate: here, heading: heading))
        c.setCameraMode(.following, at: 0)
        runUntilIdle(c, limit: 2)
        #expect(c.camera.bearing == heading)
        #expect(c.camera.tilt == tilt)
        #expect(c.camera.zoom == 16)
        let p = try #require(c.projection.point(for: here))
        #expect(p.distance(to: puckPoint(c)) < 1, "position drawn at \(p)")
        // The target lies ahead of the position: in the heading's direction.
        #expect(Geodesy.distance(here, c.camera.target) > 10)
        let east = (c.camera.target.longitude - here.longitude) * cos(here.latitude * .pi / 180)
        let toTarget = atan2(east, c.camera.target.latitude - here.latitude) * 180 / .pi
        #expect(abs(CameraInterpolation.shortestTurn(from: heading, to: toTarget)) < 1)
    }

    @Test func puckHeightIsConfigurable() throws {
        var config = MapConfiguration()
        config.followingPuckY = 0.5
        let c = controller(configuration: config)
        let here = Coordinate(latitude: 52.52, longitude: 13.405)
        c.positionSource = .fixed(PositionFix(coordinate: here, heading: 80))
        c.start(in: .following)
        #expect(c.projection.point(for: here)!.distance(to: testScreen.center) < 1)
        c.configuration.followingPuckY = 0.9
        c.start(in: .following)
        #expect(c.projection.point(for: here)!.distance(to: Point(x: 640, y: 720)) < 1)
    }

    @Test func anUnknownHeadingKeepsTheBearing() {
        let c = controller(bearing: 77)
        c.setPosition(PositionFix(coordinate: paris, heading: 0, accuracy: 12, headingKnown: false), at: 0)
        c.setCameraMode(.following, at: 0)
        runUntilIdle(c, limit: 2)
        #expect(abs(c.camera.bearing - 77) < 1e-9)
        #expect(c.currentFix?.accuracy == 12)
        #expect(c.currentFix?.headingKnown == false)
        #expect(c.projection.point(for: paris)!.distance(to: puckPoint(c)) < 1)
    }

    @Test func theFirstFixIsFixedAndALaterOneGlidesFrameByFrame() throws {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        let a = Coordinate(latitude: 48.85, longitude: 2.35), b = Coordinate(latitude: 48.851, longitude: 2.352)
        c.setPosition(PositionFix(coordinate: a, heading: 30), at: 0)
        #expect(c.positionSource == .fixed(PositionFix(coordinate: a, heading: 30)))
        c.setCameraMode(.following, at: 0)
        runUntilIdle(c, limit: 1)
        #expect(c.nextDeadline == nil)
        d.calls.removeAll()
        _ = c.drainEvents()

        // One second later: a glide of min(1, max(0.25, 1)) = 1 s.
        c.setPosition(PositionFix(coordinate: b, heading: 30), at: 1)
        #expect(c.nextDeadline != nil)
        let startCam = c.camera
        let endCam = try #require(c.followingCamera(at: 3))
        let total = Geodesy.distance(startCam.target, endCam.target)
        let frames = 1.0 / c.configuration.frameInterval
        var previous = startCam.target
        var travelled = 0.0
        var steps = 0
        while let t = c.nextDeadline, t <= 3 {
            c.advance(to: t)
            let step = Geodesy.distance(previous, c.camera.target)
            #expect(step <= total / frames * 1.05 + 1e-6, "frame at \(t): \(step) m")
            // Monotonic: every frame brings the camera nearer the end, never back.
            #expect(Geodesy.distance(c.camera.target, endCam.target) <= Geodesy.distance(previous, endCam.target) + 1e-9)
            travelled += step
            previous = c.camera.target
            steps += 1
        }
        #expect(steps >= 55 && steps <= 62)
        #expect(abs(c.now - 2) < 1e-9)
        #expect(c.camera == endCam)
        #expect(abs(travelled - total) < 0.01 * total)
        #expect(c.projection.point(for: b)!.distance(to: puckPoint(c)) < 1)
        #expect(d.calls.first == "willMove(false)")
        #expect(d.calls.filter { $0 == "idleAt" }.count == 1)
        #expect(d.calls.last == "idleAt")
        #expect(c.nextDeadline == nil)
    }

    @Test func fixesInQuickSuccessionGlideOverTheirInterval() {
        let c = controller()
        c.setPosition(PositionFix(coordinate: paris), at: 0)
        c.setPosition(PositionFix(coordinate: Coordinate(latitude: 48.86, longitude: 2.36)), at: 0.1)
        guard case .track(let pts)? = c.positionSource else { Issue.record("no glide"); return }
        #expect(pts.count == 2 && pts[0].time == 0.1 && abs(pts[1].time - 0.35) < 1e-12)   // at least 0.25 s
        c.advance(to: 0.5)
        c.setPosition(PositionFix(coordinate: Coordinate(latitude: 48.87, longitude: 2.37)), at: 5)
        guard case .track(let later)? = c.positionSource else { Issue.record("no glide"); return }
        #expect(later.map(\.time) == [5, 6])              // at most positionTransition
        #expect(later[0].coordinate == Coordinate(latitude: 48.86, longitude: 2.36))
        // Halfway, the puck is halfway; the renderer gets frames in free mode too.
        #expect(c.nextDeadline != nil)
        c.advance(to: 5.5)
        #expect(abs(c.currentFix!.coordinate.latitude - 48.865) < 1e-9)
        runUntilIdle(c, limit: 10)
        #expect(c.currentFix?.coordinate == Coordinate(latitude: 48.87, longitude: 2.37))
        #expect(c.nextDeadline == nil)
        #expect(c.cameraMode == .free)
    }

    @Test func theRouteAndTheProgressAlongIt() throws {
        let c = controller()
        #expect(c.routeProgress == nil)
        let r0 = c.routeRevision
        c.setRoute([Coordinate(latitude: 48.85, longitude: 2.30), Coordinate(latitude: 48.85, longitude: 2.40)])
        #expect(c.routeRevision == r0 + 1)
        #expect(c.route.count == 2)
        c.setPosition(PositionFix(coordinate: Coordinate(latitude: 48.851, longitude: 2.35)), at: 0)
        let p = try #require(c.routeProgress)
        #expect(p.segment == 0)
        #expect(abs(p.point.longitude - 2.35) < 1e-9 && abs(p.point.latitude - 48.85) < 1e-9)
    }

    @Test func positionFixDecodesWithoutTheNewFields() throws {
        let old = #"{"coordinate":{"latitude":1,"longitude":2},"heading":30}"#
        let f = try JSONDecoder().decode(PositionFix.self, from: Data(old.utf8))
        #expect(f == PositionFix(coordinate: Coordinate(latitude: 1, longitude: 2), heading: 30))
        #expect(f.headingKnown && f.accuracy == nil)
        let g = PositionFix(coordinate: paris, heading: 5, accuracy: 8, headingKnown: false)
        #expect(try JSONDecoder().decode(PositionFix.self, from: JSONEncoder().encode(g)) == g)
        let config = MapConfiguration(overlayHitSlop: 30, clusterMarkers: true)
        var json = try JSONSerialization.jsonObject(with: JSONEncoder().encode(config)) as! [String: Any]
        #expect(try JSONDecoder().decode(MapConfiguration.self, from: JSONEncoder().encode(config)) == config)
        json["overlayHitSlop"] = nil
        json["followingPuckY"] = nil
        let back = try JSONDecoder().decode(MapConfiguration.self, from: JSONSerialization.data(withJSONObject: json))
        #expect(back.overlayHitSlop == 24 && back.followingPuckY == 0.75 && back.clusterMarkers)
    }
}
