import CCairo
import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// `AreaRasterizer` (overlay polygon fills by exact area coverage) against cairo's own fill of
/// the same rings, and the overlays drawn in bands against the one-thread frame.
@Suite struct AreaRasterizerTests {
    /// A grey XRGB8888 canvas, filled by `draw`.
    static func canvas(_ w: Int, _ h: Int, _ draw: (OpaquePointer) -> Void) -> [UInt32] {
        var px = [UInt32](repeating: 0xff80_8080, count: w * h)
        px.withUnsafeMutableBytes { b in
            let s = cairo_image_surface_create_for_data(b.baseAddress!.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                        Int32(w), Int32(h), Int32(w * 4))!
            let cr = cairo_create(s)!
            draw(cr)
            cairo_destroy(cr)
            cairo_surface_flush(s)
            cairo_surface_destroy(s)
        }
        return px
    }

    static func cairoFill(_ rings: [[Double]], _ c: RGBColor, _ alpha: Double, evenOdd: Bool) -> (OpaquePointer) -> Void {
        { cr in
            for r in rings {
                for i in 0..<(r.count / 2) { i == 0 ? cairo_move_to(cr, r[0], r[1]) : cairo_line_to(cr, r[2 * i], r[2 * i + 1]) }
                cairo_close_path(cr)
            }
            cairo_set_fill_rule(cr, evenOdd ? CAIRO_FILL_RULE_EVEN_ODD : CAIRO_FILL_RULE_WINDING)
            cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha)
            cairo_fill(cr)
        }
    }

    /// The largest difference of any channel of any pixel, and how many pixels differ by more
    /// than `levels`.
    static func compare(_ a: [UInt32], _ b: [UInt32], levels: Int) -> (max: Int, over: Int) {
        var worst = 0, over = 0
        for (p, q) in zip(a, b) {
            var d = 0
            for shift in [16, 8, 0] { d = max(d, abs(Int((p >> UInt32(shift)) & 0xff) - Int((q >> UInt32(shift)) & 0xff))) }
            worst = max(worst, d)
            if d > levels { over += 1 }
        }
        return (worst, over)
    }

    static let shapes: [(String, [[Double]])] = [
        ("octagon", [(0..<8).flatMap { k -> [Double] in let a = Double(k) * .pi / 4 + 0.2; return [60 + 37.3 * cos(a), 50 + 29.7 * sin(a)] }]),
        ("square with a hole, same direction", [[10.5, 10.5, 90.2, 10.5, 90.2, 90.7, 10.5, 90.7], [30.3, 30.3, 60.6, 30.3, 60.6, 60.6, 30.3, 60.6]]),
        ("square with a hole, reversed", [[10.5, 10.5, 90.2, 10.5, 90.2, 90.7, 10.5, 90.7], [30.3, 30.3, 30.3, 60.6, 60.6, 60.6, 60.6, 30.3]]),
        ("thin sliver", [[5, 40, 110, 43.3, 110, 44.1]]),
        ("off the left and top", [[-30, -20, 70.4, 15.2, 20.8, 80.9]]),
        ("bow tie", [[10, 10, 100, 90, 100, 10, 10, 90]]),
    ]

    @Test(arguments: shapes.indices)
    func fillsAsCairoFills(_ i: Int) {
        let (name, rings) = Self.shapes[i]
        let color = RGBColor(hex: 0x1E88E5)
        for alpha in [1.0, 0.35] {
            let ours = Self.canvas(120, 100) { cr in
                #expect(AreaRasterizer.fill(rings, cr: cr, color: color, alpha: alpha, evenOdd: true))
            }
            let theirs = Self.canvas(120, 100, Self.cairoFill(rings, color, alpha, evenOdd: true))
            let d = Self.compare(ours, theirs, levels: 8)
            // Interiors and outsides agree exactly; edges within cairo's own coverage
            // quantisation (it samples a 17x15 grid a pixel, this is exact area).
            #expect(d.max <= 40 && d.over <= 12, "\(name) at alpha \(alpha): \(d)")
            #expect(ours != Self.canvas(120, 100) { _ in }, "\(name) drew nothing")
        }
    }

    @Test func aHoleIsEmptyAndTheInteriorExact() {
        let rings = Self.shapes[1].1
        let px = Self.canvas(120, 100) { cr in _ = AreaRasterizer.fill(rings, cr: cr, color: RGBColor(hex: 0xFF0000), alpha: 1, evenOdd: true) }
        #expect(px[20 * 120 + 20] & 0xffffff == 0xFF0000)   // the body
        #expect(px[45 * 120 + 45] == 0xff80_8080)            // the hole (same winding: even-odd)
        #expect(px[95 * 120 + 100] == 0xff80_8080)           // outside
        // A pixel half covered (the left edge at x = 10.5) is half way between the colours.
        let edge = px[50 * 120 + 10]
        #expect(abs(Int((edge >> 16) & 0xff) - 192) <= 2 && abs(Int(edge & 0xff) - 64) <= 2, "\(String(edge, radix: 16))")
    }

    /// Points past the rasterizer's range (a ring projected near a tilted view's horizon) or not
    /// finite are left to cairo: no Int conversion of them, so no trap.
    @Test func hugeOrNonFiniteRingsGoToCairo() {
        let color = RGBColor(hex: 0xFF0000)
        for ring in [[-1e300, 10, 1e300, 10, 50, 90], [10, 10, .infinity, 10, 50, 90], [10, 10, .nan, 10, 50, 90],
                     [10, -2e6, 90, 10, 50, 9e18]] {
            _ = Self.canvas(120, 100) { cr in
                #expect(!AreaRasterizer.fill([ring], cr: cr, color: color, alpha: 1, evenOdd: true))
            }
        }
    }

    @Test func onlyTheClipIsWritten() {
        let rings = [[0.0, 0, 120, 0, 120, 100, 0, 100]]
        let px = Self.canvas(120, 100) { cr in
            cairo_rectangle(cr, 0, 40, 120, 20)
            cairo_clip(cr)
            _ = AreaRasterizer.fill(rings, cr: cr, color: RGBColor(hex: 0x00FF00), alpha: 1, evenOdd: true)
        }
        #expect(px[39 * 120 + 5] == 0xff80_8080 && px[60 * 120 + 5] == 0xff80_8080)
        #expect(px[40 * 120 + 5] & 0xffffff == 0x00FF00 && px[59 * 120 + 5] & 0xffffff == 0x00FF00)
    }

    /// The overlays (polygons, route, circle) and the pins drawn in bands on several threads give the
    /// one-thread frame byte for byte, flat, turned and tilted, many times over (the release
    /// build's races showed about once in a hundred frames).
    @Test func overlaysInBandsDrawTheOneThreadFrame() {
        var scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 48, longitude: 9), zoom: 5))
        let colors: [UInt32] = [0xE53935, 0x43A047, 0x1E88E5]
        let polygons = (0..<60).map { i -> OverlayShape in
            let c = Coordinate(latitude: 42 + Double(i % 10) * 1.2, longitude: -2 + Double(i / 10) * 3.1)
            let ring = (0..<8).map { k -> Coordinate in
                let a = Double(k) * .pi / 4
                return Coordinate(latitude: c.latitude + 0.8 * sin(a), longitude: c.longitude + 1.3 * cos(a))
            }
            return OverlayShape(geometry: .polygon([ring]), style: ShapeStyle(stroke: colors[i % 3], strokeWidth: 1.5, fill: colors[i % 3], fillOpacity: 0.35))
        }
        let circle = OverlayShape(geometry: .circle(center: Coordinate(latitude: 50, longitude: 14), radius: 200_000),
                                  style: ShapeStyle(stroke: 0x6A1B9A, fill: 0xAB47BC, fillOpacity: 0.4))
        scene.overlays = [Overlay(id: "zones", shapes: polygons + [circle])]
        let route = (0..<400).map { i in Coordinate(latitude: 46 + 4 * sin(Double(i) / 40), longitude: -4 + Double(i) * 0.06) }
        scene.route = RouteDrawing(points: route, progress: RouteProgress(segment: 150, point: route[150]))
        // Pins (blitted in bands too once there are 64 or more), one of another colour, and a
        // cluster bubble.
        scene.markers = (0..<300).map { i in
            MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: 41 + Double(i % 20) * 0.7, longitude: -3 + Double(i / 20) * 1.3),
                         icon: .defaultPin(RGBColor(hex: i == 7 ? 0x1565C0 : 0xE53935)), zIndex: i % 3)
        } + [MarkerSprite(id: "c", coordinate: Coordinate(latitude: 47, longitude: 5), icon: .cluster(count: 42), zIndex: 9)]
        for (bearing, tilt) in [(0.0, 0.0), (25.0, 0.0), (10.0, 50.0)] {
            scene.camera.bearing = bearing
            scene.camera.tilt = tilt
            let (one, _) = ParallelBandsTests.frame(scene, bands: 1, cache: false, width: 800, height: 600)
            for round in 0..<8 {
                let (two, _) = ParallelBandsTests.frame(scene, bands: 2 + round % 3, cache: false, width: 800, height: 600)
                let d = ParallelBandsTests.differing(one.buffer, two.buffer)
                #expect(d == 0, "bearing \(bearing) tilt \(tilt) round \(round): \(d) pixels differ")
            }
        }
    }
}
