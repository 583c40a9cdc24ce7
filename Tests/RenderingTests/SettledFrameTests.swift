import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// The frame a kiosk leaves on the glass when a pinch ends must be the frame `render` draws for
/// that camera: the e2e kiosk test compares the two. The last pinch frame that reaches the
/// display need not be at the final zoom (the display may have been busy with a flip when the
/// last change came), so the settled frame can be the first one at its zoom: the renderer says
/// when a final frame should be drawn once more (`settledFrameIsDue`).
@Suite struct SettledFrameTests {
    static let size = OverlayLayerTests.size

    static func pinch(_ renderer: MapRenderer, from start: CameraPosition, zooms: [Double], into frame: FrameBuffer, markers: [MarkerSprite]) {
        var scene = MapScene(camera: start, markers: markers)
        renderer.render(scene, into: frame)
        for z in zooms {
            scene.camera.zoom = z
            renderer.render(scene, into: frame, quality: .interactive)
        }
    }

    @Test(arguments: [
        // The settled zoom was drawn during the pinch (the idle frame comes after it).
        [5.05, 5.12, 5.2, 5.31, 5.4, 5.4],
        // The settled zoom is new: the last changes of the pinch came while a flip was pending.
        [5.05, 5.12, 5.2, 5.31],
    ])
    func theFrameAfterAPinchEqualsAFreshFrame(zooms: [Double]) {
        let markers = OverlayLayerTests.markers(50, lat: 40...57, lon: -5...23)
        let start = CameraPosition(target: Coordinate(latitude: 47.3, longitude: 8.1), zoom: 5)
        let renderer = MapRenderer()
        let frame = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        Self.pinch(renderer, from: start, zooms: zooms, into: frame.buffer, markers: markers)
        var settled = MapScene(camera: start, markers: markers)
        settled.camera.zoom = 5.4
        renderer.render(settled, into: frame.buffer, quality: .final)
        // A final frame at a zoom not drawn before is drawn directly (a zoom animation whose
        // frames are all final must not build the cache each time) and says so; the kiosk draws
        // it again, which builds the cache.
        let newZoom = zooms.last != settled.camera.zoom
        #expect(renderer.settledFrameIsDue == newZoom)
        if renderer.settledFrameIsDue { renderer.render(settled, into: frame.buffer, quality: .final) }
        #expect(!renderer.settledFrameIsDue)

        let fresh = MapRenderer()
        let reference = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        fresh.render(settled, into: reference.buffer)
        let d = OverlayLayerTests.differences(frame.buffer, reference.buffer)
        if d.count > 0 { OverlayLayerTests.save(frame.buffer, "settled-after-pinch"); OverlayLayerTests.save(reference.buffer, "settled-after-pinch-fresh") }
        // The same rule as a settled pan (OverlayLayerTests.theSettledFrameEqualsAFreshFrame):
        // the names are the fresh frame's, and the base map differs by a few levels at most.
        #expect(d.count <= 100 && d.maxDelta <= 8, "settled frame: \(d.count) pixels differ, by up to \(d.maxDelta)")
        #expect(renderer.drawnPlaces.map(\.name) == fresh.drawnPlaces.map(\.name))
        // A kiosk that stays still keeps that frame: drawing it again changes nothing.
        let again = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        renderer.render(settled, into: again.buffer, quality: .final)
        #expect(OverlayLayerTests.differingPixels(again.buffer, frame.buffer) == 0)
    }
}
