import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// The renderer's idle work: the world's place names measured ahead, so that the first frame at
/// a new zoom level (a double tap, a pinch drawn directly) does not measure the names that
/// appear there.
@Suite struct IdleWorkTests {
    static let camera = CameraPosition(target: Coordinate(latitude: 47.75, longitude: -6.6), zoom: 3)
    static let zooms = [4.135, 5.2, 6.6, 8.4]

    /// Frames at new zoom levels after the idle work measure nothing; without it they do.
    @Test func afterTheIdleWorkANewZoomMeasuresNoNames() {
        let frame = OwnedFrameBuffer(width: 800, height: 480)
        func newZoomMeasurements(idle: Bool) -> (before: Int, during: Int) {
            let r = MapRenderer()
            r.render(MapScene(camera: Self.camera), into: frame.buffer)
            var batches = 0
            if idle { while r.prepareWhileIdle() { batches += 1 } }
            #expect(!idle || batches > 1, "the work comes in batches (\(batches))")
            let before = r.textRenderer.measurements
            for z in Self.zooms {
                var c = Self.camera
                c.zoom = z
                r.render(MapScene(camera: c), into: frame.buffer, quality: .interactive)
                r.render(MapScene(camera: c), into: frame.buffer)
            }
            return (before, r.textRenderer.measurements - before)
        }
        let cold = newZoomMeasurements(idle: false), warm = newZoomMeasurements(idle: true)
        #expect(cold.during > 50, "without the idle work, new zoom levels measure their names (\(cold.during))")
        #expect(warm.during == 0, "after it, none (\(warm.during))")
        #expect(warm.before >= cold.before + cold.during, "the idle work measured every name those frames needed, ahead")
    }

    /// The work ends (then costs nothing), and a text-scale change starts it over; the frames it
    /// prepares are the frames drawn without it.
    @Test func theWorkEndsAndATextScaleChangeStartsItOver() {
        let r = MapRenderer(), plain = MapRenderer()
        let a = OwnedFrameBuffer(width: 800, height: 480), b = OwnedFrameBuffer(width: 800, height: 480)
        while r.prepareWhileIdle() {}
        #expect(!r.prepareWhileIdle())
        let done = r.textRenderer.measurements
        #expect(!r.prepareWhileIdle() && r.textRenderer.measurements == done)
        r.textScale = 1.5
        plain.textScale = 1.5
        #expect(r.prepareWhileIdle(), "a new text scale: names to measure again")
        while r.prepareWhileIdle() {}
        for z in Self.zooms {
            var c = Self.camera
            c.zoom = z
            r.render(MapScene(camera: c), into: a.buffer)
            plain.render(MapScene(camera: c), into: b.buffer)
            #expect(OverlayLayerTests.differingPixels(a.buffer, b.buffer) == 0, "zoom \(z)")
            #expect(r.drawnPlaces.map(\.name) == plain.drawnPlaces.map(\.name), "zoom \(z)")
        }
    }
}
