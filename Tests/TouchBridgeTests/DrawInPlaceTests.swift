import Foundation
import Testing
import TouchCore
import MapEngine
import Rendering
import Display
import Logging
@testable import TouchBridge
@testable import Kiosk

/// MapView draws straight into the display's buffer when the display says it is ordinary
/// memory and the panel is not turned; the picture on the display is the one a separate frame
/// copied there would give.
@Suite struct DrawInPlaceTests {
    func makeView(_ display: DisplayBackend, rotation: Int = 0) throws -> MapView {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 6), zoom: 4.2)
        cfg.display.rotation = rotation
        let view = try MapView(configuration: cfg, display: display, log: KioskLog(level: .error))
        view.add(Marker(id: "paris", position: Coordinate(latitude: 48.8566, longitude: 2.3522), title: "Paris", snippet: "Capital"))
        return view
    }

    func bytes(_ f: FrameBuffer) -> [UInt8] {
        (0..<f.height).flatMap { y in Array(UnsafeRawBufferPointer(start: f.pixels + y * f.stride, count: f.width * 4)) }
    }

    /// The same frames (a first frame, a pan, a turned pinch, the settled frame) on both views.
    func drive(_ views: [MapView], check: (Int) -> Void) {
        views.forEach { $0.drawAndPresent(now: 1) }
        check(0)
        var script = TouchScript(screen: views[0].screen, start: 2)
        let c = views[0].screen.center
        script.move([0: c], [0: c + Point(x: -240, y: 90)], duration: 0.4)
        script.move([0: c - Point(x: 100, y: 0), 1: c + Point(x: 100, y: 0)], [0: c - Point(x: 220, y: 70), 1: c + Point(x: 220, y: 70)], duration: 0.4)
        var assemblers = views.map { FrameAssembler(capabilities: script.device, screen: $0.screen) }
        var n = 1
        for e in script.events {
            var drew = false
            for (i, v) in views.enumerated() {
                if let f = assemblers[i].process(e) {
                    v.pipeline.handle(f)
                    if v.pipeline.takeNeedsRedraw() { v.drawAndPresent(now: f.time); drew = true }
                }
            }
            if drew { check(n); n += 1 }
        }
        views.forEach { $0.pipeline.advance(to: script.time + 3); $0.drawAndPresent(now: script.time + 3) }
        check(n)
    }

    @Test func theDisplayShowsTheFrameASeparateFrameWouldGive() throws {
        let direct = MemoryDisplay(width: 1280, height: 800), copied = MemoryDisplay(width: 1280, height: 800)
        let a = try makeView(direct), b = try makeView(CopyOnlyDisplay(copied))
        #expect(a.drawnFrame.pixels == direct.backBuffer().pixels, "drawn in place")
        #expect(b.drawnFrame.pixels != copied.backBuffer().pixels, "drawn into a frame of its own")
        var checked = 0
        drive([a, b]) { n in
            #expect(bytes(direct.backBuffer()) == bytes(copied.backBuffer()), "frame \(n)")
            checked += 1
        }
        #expect(checked > 5)
        #expect(direct.presented == copied.presented)
        #expect(MapView.memoryPlan(display: direct, rotation: 0, width: 1280, height: 800, raster: nil, vector: nil).contains("straight into the display's buffer"))
        #expect(MapView.memoryPlan(display: CopyOnlyDisplay(copied), rotation: 0, width: 1280, height: 800, raster: nil, vector: nil).contains("then copied"))
    }

    /// The start line says where frames are drawn and the caches the screen sized; the exit
    /// report lists the caches as they ended.
    @Test func theLogSaysWhereFramesAreDrawnAndTheCacheSizes() throws {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        cfg.map.source = .mbtiles(URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("RenderingTests/Fixtures/node-mbtiles_plain_1.mbtiles").path)
        let out = WrittenText()
        let logger = Logger(label: "touchbridge") { JournalLogHandler(label: $0, style: .plain, write: out.append) }
        let view = try MapView(configuration: cfg, display: MemoryDisplay(width: 800, height: 480), log: KioskLog(level: .info, logger: logger))
        view.drawAndPresent(now: 1)
        view.close()
        let text = out.text
        // 800x480: margins 192 (base map: the layer's 64 + 96 + 32) and 64 (overlay layer, 15x10
        // tiles of 64 px, held only where something is drawn); 25 tiles for the 933 px diagonal.
        // Palette tiles: none kept expanded, a tile's scratch to expand them into as drawn.
        #expect(text.contains("memory: frames drawn straight into the display's buffer; base map cache 1184x864 (3.9 MiB); overlay layer 928x608 in 150 tiles of 64 px, only those with names, pins or the info window on them held (all: 2.3 MiB) + 0.3 MiB scratch; up to 25 decoded tiles (6.2 MiB; palette tiles kept compact, 1/4 of that or less); palette tiles expanded only where drawn, into one tile's scratch a format (0.2 MiB each)"), "\(text)")
        #expect(text.contains(#/caches at exit: base map \(torus\) 1184x864 3.9 MiB; overlay layer \(\d+ of 150 tiles of 64 px held\) 928x608 [0-9.]+ MiB; decoded tiles \(of 25 at most; /#), "\(text)")
        // The layer holds a part of its tiles (the names and pins of the first frame), and its bytes are those tiles and the scratch.
        let layer = try #require(text.firstMatch(of: /overlay layer \((\d+) of 150 tiles of 64 px held\) 928x608 ([0-9.]+) MiB/))
        let held = try #require(Int(layer.1)), mib = try #require(Double(layer.2))
        #expect(held > 0 && held < 150, "\(layer.0)")
        let expectedMiB = Double(held * 16_384 + 318_464) / 1_048_576
        #expect(abs(mib - expectedMiB) < 0.051, "\(layer.0)")
        // The fixture's tiles are all palette PNGs: every decoded tile is compact, none takes 256 KiB.
        let exit = try #require(text.split(separator: "\n").first { $0.contains("caches at exit") })
        let decoded = try #require(exit.firstMatch(of: /decoded tiles \(of 25 at most; (\d+) palette tiles kept compact\) (\d+)x1 ([0-9.]+) MiB/))
        #expect(Int(decoded.1) == Int(decoded.2) && Int(decoded.2)! > 0)
        #expect(Double(decoded.3)! < Double(decoded.2)! * 0.25 / 4)
        // No palette tile kept expanded: one tile's scratch for the fixture's one pixel format.
        #expect(exit.contains(/palette tile scratch \(\d+ regions expanded, \d+ kpx\) 1x1 0.2 MiB/), "\(exit)")
    }

    @Test func aTurnedPanelIsDrawnIntoAFrameAndTurnedOnTheWay() throws {
        let upright = MemoryDisplay(width: 1280, height: 800), turned = MemoryDisplay(width: 800, height: 1280)
        let a = try makeView(upright), b = try makeView(turned, rotation: 90)
        #expect(b.screen == a.screen)
        #expect(b.drawnFrame.pixels != turned.backBuffer().pixels)
        let expected = UnsafeMutableRawPointer.allocate(byteCount: 800 * 1280 * 4, alignment: 64)
        defer { expected.deallocate() }
        let target = FrameBuffer(width: 800, height: 1280, stride: 800 * 4, pixels: expected)
        drive([a, b]) { n in
            FrameCopy.copy(a.drawnFrame, to: target, rotation: 90)
            #expect(bytes(target) == bytes(turned.backBuffer()), "frame \(n)")
        }
        #expect(MapView.memoryPlan(display: turned, rotation: 90, width: 1280, height: 800, raster: nil, vector: nil).contains("then copied"))
    }
}
