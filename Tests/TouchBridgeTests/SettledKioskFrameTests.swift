import Foundation
import Testing
import TouchCore
import MapEngine
import Rendering
import Display
@testable import TouchBridge
@testable import Kiosk

/// When a pinch ends, the picture the kiosk leaves on the glass is the one `render` draws for
/// the camera the event stream reports (the kiosk VM test compares them), even when the pinch's
/// last changes never reached the display (a flip was pending), so the first still frame is
/// also the first at its zoom. That frame is drawn directly, with the names at the view's
/// fractional offset; the kiosk draws it once more through the base-map cache.
@Suite struct SettledKioskFrameTests {
    @Test func thePictureAfterAPinchIsTheOneRenderGives() throws {
        let display = MemoryDisplay(width: 1280, height: 800)
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 41.4, longitude: 45.8), zoom: 5.6)
        let view = try MapView(configuration: cfg, display: display, log: KioskLog(level: .error))
        view.drawAndPresent(now: 1)
        _ = view.pipeline.takeNeedsRedraw()

        // Spread about a point off the centre; only every fifth change is drawn, and none of the
        // last ones (the display was busy with a flip).
        var script = TouchScript(screen: view.screen, start: 2)
        let c = view.screen.center + Point(x: 37, y: -21)
        script.move([0: c - Point(x: 90, y: 10), 1: c + Point(x: 90, y: 10)], [0: c - Point(x: 230, y: 25), 1: c + Point(x: 230, y: 25)], duration: 0.5)
        var a = FrameAssembler(capabilities: script.device, screen: view.screen)
        var frames = 0, drawn = 0
        for e in script.events {
            guard let f = a.process(e) else { continue }
            view.pipeline.handle(f)
            frames += 1
            if frames % 5 == 0 && frames < 40, view.pipeline.takeNeedsRedraw() { view.drawAndPresent(now: f.time); drawn += 1 }
        }
        #expect(drawn >= 5)
        let end = script.time + 2
        view.pipeline.advance(to: end)
        #expect(!view.controller.isMoving && view.pipeline.contactsDown == 0)
        var still = 0
        while view.pipeline.takeNeedsRedraw() && still < 5 {
            view.drawAndPresent(now: end + Double(still) * 0.02)
            still += 1
        }
        // The first still frame asked for the second; the second asked for nothing.
        #expect(still == 2)
        #expect(!view.renderer.settledFrameIsDue)

        let scene = view.pipeline.scene(attribution: nil)
        let reference = OwnedFrameBuffer(width: 1280, height: 800)
        MapRenderer().render(scene, into: reference.buffer)
        let shown = display.backBuffer()
        var differing = 0
        for y in 0..<800 {
            let row = (shown.pixels + y * shown.stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<1280 where row[x] & 0xffffff != reference.buffer.pixel(x: x, y: y) & 0xffffff { differing += 1 }
        }
        // As for a settled pan (OverlayLayerTests.theSettledFrameEqualsAFreshFrame): the fresh
        // renderer's cache was drawn around another centre, so cairo's antialiasing of a few
        // border and river pixels may differ; names and pins are the same.
        #expect(differing <= 200, "\(differing) pixels differ from the fresh frame")
    }
}
