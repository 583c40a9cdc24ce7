import CCairo
import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering

/// The street labels copied in bands on both cores (issues 27 and 28): every glyph, halo and
/// icon made first on the drawing thread, then each band copies those reaching its rows, in
/// drawing order. Frame after frame (settled frames and the pan frames that follow, flat, turned
/// and tilted) the banded renderer draws the one-thread renderer's frame, byte for byte.
@Suite struct StreetLabelBandsTests {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)

    static func renderer(bands: Int) -> MapRenderer {
        let r = MapRenderer(vector: MapRenderer.openTiles(path: mbtilesPath).vector)
        r.bands = bands
        return r
    }

    static func same(_ a: FrameBuffer, _ b: FrameBuffer) -> Bool {
        a.width == b.width && a.height == b.height && a.stride == b.stride && memcmp(a.pixels, b.pixels, a.stride * a.height) == 0
    }

    /// The copies a frame's labels make (the band path is taken from 64 on).
    static func copies(_ r: MapRenderer, _ frame: FrameBuffer) -> Int {
        let s = cairo_image_surface_create_for_data(frame.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                    Int32(frame.width), Int32(frame.height), Int32(frame.stride))!
        defer { cairo_surface_destroy(s) }
        let cr = cairo_create(s)!
        defer { cairo_destroy(cr) }
        return StreetLabelPainter.copies(r.streetLabels, cr: cr, text: r.textRenderer, icons: r.streetIcons, runs: r.icons)?.count ?? -1
    }

    @Test(arguments: [(15.5, 0.0, 0.0), (16.5, 0.0, 0.0), (15.5, 30.0, 0.0), (15.5, 30.0, 50.0), (16.0, 200.0, 40.0)])
    func labelsInBandsDrawTheOneThreadFrame(zoom: Double, bearing: Double, tilt: Double) {
        let one = Self.renderer(bands: 1), two = Self.renderer(bands: 2)
        let a = OwnedFrameBuffer(width: 800, height: 600), b = OwnedFrameBuffer(width: 800, height: 600)
        var banded = 0
        // A settled frame, a pan of interactive frames (from the cached base map when flat and
        // north up, labels following), and the settled frame where the pan stops: 6 a camera.
        for step in 0..<6 {
            let moved = step == 0 ? 0 : Double(step) * 0.0004
            let camera = CameraPosition(target: Coordinate(latitude: Self.vaduz.latitude - moved / 2, longitude: Self.vaduz.longitude + moved),
                                        zoom: zoom, bearing: bearing, tilt: tilt)
            let quality: MapRenderer.Quality = step == 0 || step == 5 ? .final : .interactive
            one.render(MapScene(camera: camera), into: a.buffer, quality: quality)
            two.render(MapScene(camera: camera), into: b.buffer, quality: quality)
            #expect(!one.streetLabels.isEmpty, "no street label at step \(step)")
            #expect(one.streetLabels == two.streetLabels, "step \(step)")
            #expect(Self.same(a.buffer, b.buffer), "step \(step): the banded frame differs")
            if Self.copies(two, b.buffer) >= 64 { banded += 1 }
        }
        #expect(banded >= 4, "only \(banded) of 6 frames had labels enough to be copied in bands")
    }
}
