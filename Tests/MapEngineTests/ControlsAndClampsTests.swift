import Testing
import TouchCore
import Gestures
@testable import MapEngine

@Suite struct ControlsTests {
    @Test func framesAreWhereTheRendererDrawsThem() {
        let m = MapControls(screen: testScreen, compassVisible: true, recenterVisible: true)
        #expect(m.compassFrame == ScreenRect(x: 1280 - 16 - 48, y: 16, width: 48, height: 48))
        #expect(m.recenterFrame == ScreenRect(x: 1280 - 16 - 120, y: 800 - 20 - 16 - 44, width: 120, height: 44))
        #expect(m.attributionFrame == ScreenRect(x: 0, y: 780, width: 1280, height: 20))
    }

    @Test func compassTapTurnsNorthUpAndFlatAndTheMapTakesNoTap() {
        let c = controller(zoom: 12, bearing: 60, tilt: 30)
        let d = RecordingDelegate()
        c.delegate = d
        #expect(c.controls.compassVisible)
        c.handle(tap(1, at: c.controls.compassFrame.center))
        c.handle(gesture(.longPress, .recognized, 1.05, at: c.controls.compassFrame.center))
        runUntilIdle(c)
        #expect(c.camera.bearing == 0 && c.camera.tilt == 0)
        #expect(c.camera.target == paris)
        #expect(!d.calls.contains("didTapAt") && !d.calls.contains("didLongPressAt"))
        #expect(d.calls.first == "willMove(false)")
        #expect(!c.controls.compassVisible)
        // Hidden compass: the spot is map again.
        c.handle(tap(3, at: c.controls.compassFrame.center))
        #expect(d.calls.last == "didTapAt")
    }

    @Test func controlsSwallowTapsEvenWhenAHandlerIsSet() {
        let c = controller(bearing: 10)
        var handled = 0
        c.gestureHandler = { _ in handled += 1; return false }
        c.handle(tap(1, at: c.controls.compassFrame.center))
        #expect(handled == 0)
    }

    @Test func markerUnderAControlIsNotHit() {
        let c = controller(bearing: 10)
        let d = RecordingDelegate()
        c.delegate = d
        let spot = c.controls.compassFrame.center
        c.add(Marker(id: "hidden", position: c.projection.coordinate(at: spot + Point(x: 0, y: 5))!, title: "t"))
        c.handle(tap(1, at: spot))
        #expect(!d.calls.contains("didTap(hidden)"))
    }
}

@Suite struct ClampTests {
    let limits = CameraLimits()

    @Test func tiltLimitGrowsWithZoom() {
        #expect(limits.maxTilt(atZoom: 0) == 60)
        #expect(limits.maxTilt(atZoom: 2) == 60)
        #expect(limits.maxTilt(atZoom: 3.5) == 67.5)
        #expect(limits.maxTilt(atZoom: 5) == 75)
        #expect(limits.maxTilt(atZoom: 18) == 75)
        // At the highest tilt the horizon shows on screen; at 60 degrees it does not.
        let steep = Projection(camera: CameraPosition(target: paris, zoom: 10, tilt: 75), screen: testScreen)
        #expect(steep.horizonY! > 0)
        let low = Projection(camera: CameraPosition(target: paris, zoom: 1, tilt: 60), screen: testScreen)
        #expect(low.horizonY! < 0)
    }

    @Test func tiltGestureStopsAtTheLimitForTheZoom() {
        let c = controller(zoom: 10)
        c.handle(gesture(.tilt, .began, 0, at: testScreen.center, fingers: 2))
        c.handle(gesture(.tilt, .changed, 0.1, at: testScreen.center, tilt: 80, fingers: 2))
        #expect(c.camera.tilt == 75)
        c.handle(gesture(.tilt, .changed, 0.2, at: testScreen.center, tilt: -100, fingers: 2))
        #expect(c.camera.tilt == 0)
        let low = controller(zoom: 1)
        low.handle(gesture(.tilt, .began, 0, at: testScreen.center, fingers: 2))
        low.handle(gesture(.tilt, .changed, 0.1, at: testScreen.center, tilt: 80, fingers: 2))
        #expect(low.camera.tilt == 60)
    }

    @Test func zoomingOutLowersAnOverLimitTilt() {
        let c = controller(zoom: 6, tilt: 75)
        c.handle(gesture(.pinch, .began, 0, at: testScreen.center, fingers: 2))
        c.handle(gesture(.pinch, .changed, 0.1, at: testScreen.center, scale: 1.0 / 32, fingers: 2))
        #expect(c.camera.zoom == 1)
        #expect(c.camera.tilt == 60)
    }

    @Test func zoomStaysWithinConfiguredRange() {
        var config = MapConfiguration()
        config.limits = CameraLimits(minZoom: 3, maxZoom: 17)
        let c = controller(zoom: 16.5, configuration: config)
        let p = Point(x: 200, y: 200)
        let coord = c.projection.coordinate(at: p)!
        c.handle(gesture(.pinch, .began, 0, at: p, fingers: 2))
        c.handle(gesture(.pinch, .changed, 0.1, at: p, scale: 8, fingers: 2))
        #expect(c.camera.zoom == 17)
        #expect(screenPoint(c, coord).distance(to: p) < 0.5)   // the clamped zoom still keeps the point
        c.handle(gesture(.pinch, .changed, 0.2, at: p, scale: 1.0 / 100_000, fingers: 2))
        #expect(c.camera.zoom == 3)
        c.handle(gesture(.pinch, .ended, 0.3, at: p, fingers: 2))
        c.advance(to: 0.3)
        // At the limit a double tap does nothing further.
        c.move(to: CameraPosition(target: paris, zoom: 40), at: 1)
        #expect(c.camera.zoom == 17)
        _ = c.drainEvents()
        c.handle(gesture(.doubleTap, .recognized, 2, at: p))
        runUntilIdle(c)
        #expect(c.camera.zoom == 17)
        #expect(!types(c.drainEvents()).contains("didChange"))
    }

    @Test func bearingIsNormalisedAfterRotation() {
        let c = controller(bearing: 10)
        c.handle(gesture(.rotate, .began, 0, at: testScreen.center, fingers: 2))
        c.handle(gesture(.rotate, .changed, 0.1, at: testScreen.center, rotation: 400, fingers: 2))
        #expect(c.camera.bearing == 330)
        c.handle(gesture(.rotate, .changed, 0.2, at: testScreen.center, rotation: -40.5, fingers: 2))
        #expect(abs(c.camera.bearing - 10.5) < 1e-9)
    }

    @Test func latitudeIsClampedAndLongitudeWraps() {
        let cam = limits.clamp(CameraPosition(target: Coordinate(latitude: 89, longitude: 190), zoom: 25, tilt: 90))
        #expect(cam.target.latitude == WebMercator.maxLatitude)
        #expect(cam.target.longitude == -170)
        #expect(cam.zoom == 20 && cam.tilt == 75)
        // Panning across the antimeridian wraps the target.
        let c = MapController(camera: CameraPosition(target: Coordinate(latitude: 0, longitude: 179.9), zoom: 10),
                              screenSize: testScreen)
        c.handle(gesture(.pan, .began, 0, at: Point(x: 700, y: 400)))
        c.handle(gesture(.pan, .changed, 0.1, at: Point(x: 300, y: 400), from: Point(x: 700, y: 400)))
        #expect(c.camera.target.longitude < -179 && c.camera.target.longitude >= -180)
        // Panning far south stops at the Mercator edge.
        c.handle(gesture(.pan, .changed, 0.2, at: Point(x: 300, y: -100_000_000), from: Point(x: 300, y: 400)))
        #expect(c.camera.target.latitude == -WebMercator.maxLatitude)
    }

    @Test func fitHandlesTheAntimeridian() {
        let cam = CameraFit.camera(fitting: [Coordinate(latitude: -17, longitude: 178), Coordinate(latitude: -18, longitude: -179)],
                                   screen: testScreen, padding: 40, limits: limits, maxZoom: 16)!
        #expect(abs(abs(cam.target.longitude) - 179.5) < 1e-9)
        #expect(cam.zoom > 6)
    }
}
