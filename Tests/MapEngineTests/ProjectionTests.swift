import Testing
import TouchCore
@testable import MapEngine

@Suite struct ProjectionTests {
    let screen = Size(width: 1280, height: 800)

    @Test func targetIsAtScreenCentre() {
        let cam = CameraPosition(target: Coordinate(latitude: 48.85, longitude: 2.35), zoom: 5, bearing: 30, tilt: 40)
        let p = Projection(camera: cam, screen: screen).point(for: cam.target)!
        #expect(abs(p.x - 640) < 1e-6 && abs(p.y - 400) < 1e-6)
    }

    @Test func screenToCoordinateRoundTripsWithBearingAndTilt() {
        let cam = CameraPosition(target: Coordinate(latitude: 10, longitude: 20), zoom: 4, bearing: 123, tilt: 55)
        let proj = Projection(camera: cam, screen: screen)
        for s in [Point(x: 10, y: 790), Point(x: 1200, y: 500), Point(x: 640, y: 300)] {
            let c = proj.coordinate(at: s)!
            let back = proj.point(for: c)!
            #expect(back.distance(to: s) < 1e-6)
        }
    }

    @Test func bearingNinetyPutsEastUp() {
        let cam = CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 3, bearing: 90)
        let p = Projection(camera: cam, screen: screen).point(for: Coordinate(latitude: 0, longitude: 10))!
        #expect(abs(p.x - 640) < 1e-6)
        #expect(p.y < 400)
    }

    @Test func zoomZeroWorldIs256PixelsWide() {
        let cam = CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 0)
        let p = Projection(camera: cam, screen: screen).point(for: Coordinate(latitude: 0, longitude: 90))!
        #expect(abs(p.x - (640 + 64)) < 1e-9)
    }

    @Test func tiltShowsHorizonOnlyWhenSteep() {
        let flat = Projection(camera: CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 3), screen: screen)
        #expect(flat.horizonY == nil)
        let steep = Projection(camera: CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 3, tilt: 75), screen: screen)
        #expect(steep.horizonY! > 0 && steep.horizonY! < 400)
        #expect(steep.coordinate(at: Point(x: 640, y: steep.horizonY! - 5)) == nil)
    }

    @Test func bearingIsNormalised() {
        #expect(CameraPosition.normalizedBearing(-90) == 270)
        #expect(CameraPosition.normalizedBearing(720) == 0)
        #expect(CameraPosition.normalizedBearing(359.5) == 359.5)
    }
}
