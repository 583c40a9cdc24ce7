import Foundation
import Testing
import MapEngine
@testable import Rendering

/// Real JPEG and WebP raster tile sets (made by cjpeg and cwebp: Fixtures/make-jpeg-webp.py):
/// one tile of four flat quadrants at 0/0/0, decoded and drawn where each quadrant lies.
@Suite struct JPEGWebPTileTests {
    /// (name, a coordinate inside the quadrant, its colour) — NW red, NE green, SW blue, SE yellow.
    static let quadrants: [(String, Coordinate, (Int, Int, Int))] = [
        ("nw", Coordinate(latitude: 40, longitude: -90), (208, 64, 64)),
        ("ne", Coordinate(latitude: 40, longitude: 90), (64, 160, 64)),
        ("sw", Coordinate(latitude: -40, longitude: -90), (64, 96, 208)),
        ("se", Coordinate(latitude: -40, longitude: 90), (224, 192, 64)),
    ]

    @Test(arguments: ["quadrants-jpeg.mbtiles", "quadrants-webp.mbtiles"])
    func aRealTileIsDecodedAndDrawnWhereItBelongs(_ name: String) throws {
        let path = fixture(name)
        let opened = MapRenderer.openRaster(path: path)
        let source = try #require(opened.source, "\(opened.warning ?? "")")
        #expect(opened.warning == nil)
        #expect(source.image(z: 0, x: 0, y: 0) != nil)
        #expect(source.warnings.isEmpty, "\(source.warnings)")
        // Zoom 1 on a 512 x 512 frame: the whole world, the tile scaled to fill it.
        let f = RenderedFrame(MapScene(camera: CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 1),
                                       showsCompass: false, showsScaleBar: false),
                              width: 512, height: 512, renderer: MapRenderer(raster: source), name: "raster-" + name)
        for (q, c, (r, g, b)) in Self.quadrants {
            let p = try #require(f.projection.point(for: c))
            let px = f.pixel(p)
            let (pr, pg, pb) = (Int(px >> 16 & 0xff), Int(px >> 8 & 0xff), Int(px & 0xff))
            // Lossy codecs: within a few levels of the flat colour.
            #expect(abs(pr - r) <= 8 && abs(pg - g) <= 8 && abs(pb - b) <= 8, "\(name) \(q): \(String(px & 0xffffff, radix: 16))")
        }
    }
}
