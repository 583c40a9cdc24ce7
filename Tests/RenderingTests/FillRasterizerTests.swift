import CCairo
import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// `FillRasterizer` (the street map's fills, sparse exact area coverage 32 rows at a time)
/// against cairo's fill and `AreaRasterizer` (the same coverage, dense), and its rows drawn in
/// any split against one call.
@Suite struct FillRasterizerTests {
    static let w = 120, h = 100

    /// The rings as one cairo path's edges (`FillRasterizer.edges(of:)`).
    static func edges(_ rings: [[Double]]) -> [Double] {
        let s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1)!
        let cr = cairo_create(s)!
        defer { cairo_destroy(cr); cairo_surface_destroy(s) }
        for r in rings {
            for i in 0..<(r.count / 2) { i == 0 ? cairo_move_to(cr, r[0], r[1]) : cairo_line_to(cr, r[2 * i], r[2 * i + 1]) }
            cairo_close_path(cr)
        }
        let path = cairo_copy_path(cr)!
        defer { cairo_path_destroy(path) }
        return FillRasterizer.edges(of: path)
    }

    static func ours(_ rings: [[Double]], _ c: RGBColor, _ alpha: Double, evenOdd: Bool, splits: [Int] = []) -> [UInt32] {
        var px = [UInt32](repeating: 0xff80_8080, count: w * h)
        let fill = FillRasterizer.Fill(edges: edges(rings), evenOdd: evenOdd, color: c, alpha: alpha)
        let cuts = [0] + splits + [h]
        px.withUnsafeMutableBytes { b in
            for i in 0..<(cuts.count - 1) {
                FillRasterizer.fill(fill, pixels: b.baseAddress!, stride: w * 4, width: w, rows: cuts[i]..<cuts[i + 1])
            }
        }
        return px
    }

    static let shapes: [(String, [[Double]])] = AreaRasterizerTests.shapes + [
        ("off the right and bottom", [[60.2, 30.7, 180.5, 50.1, 90.3, 140.8]]),
        ("wider than the frame on both sides", [[-50, 20.3, 200, 35.6, 170, 80.2, -20, 70.9]]),
        ("left of the frame, reaching in", [[-80, 10, -5, 10, 12.4, 55.5, -80, 90]]),
        ("two touching squares", [[20.25, 20.5, 60.5, 20.5, 60.5, 70.75, 20.25, 70.75], [60.5, 20.5, 95.5, 20.5, 95.5, 70.75, 60.5, 70.75]]),
        ("a tall thin wedge across chunks", [[50, -10, 52.5, 110, 49.3, 110]]),
    ]

    @Test(arguments: shapes.indices)
    func fillsAsCairoAndTheDenseRasterizerFill(_ i: Int) {
        let (name, rings) = Self.shapes[i]
        let color = RGBColor(hex: 0x1E88E5)
        for alpha in [1.0, 0.35] {
            for evenOdd in [true, false] {
                let ours = Self.ours(rings, color, alpha, evenOdd: evenOdd)
                let theirs = AreaRasterizerTests.canvas(Self.w, Self.h, AreaRasterizerTests.cairoFill(rings, color, alpha, evenOdd: evenOdd))
                let d = AreaRasterizerTests.compare(ours, theirs, levels: 8)
                // Interiors and outsides agree exactly; edges within cairo's own sampling.
                #expect(d.max <= 40 && d.over <= 12, "\(name) at alpha \(alpha), even-odd \(evenOdd): against cairo \(d)")
                #expect(ours != AreaRasterizerTests.canvas(Self.w, Self.h) { _ in }, "\(name) drew nothing")
                // The dense rasterizer's exact area (where it takes the rings: even-odd, in range).
                if evenOdd, rings.allSatisfy({ r in r.allSatisfy { $0 >= 0 && $0 <= 100 } }) {
                    let dense = AreaRasterizerTests.canvas(Self.w, Self.h) { cr in
                        _ = AreaRasterizer.fill(rings, cr: cr, color: color, alpha: alpha, evenOdd: true)
                    }
                    let e = AreaRasterizerTests.compare(ours, dense, levels: 1)
                    #expect(e.over == 0, "\(name) at alpha \(alpha): against AreaRasterizer \(e)")
                }
            }
        }
    }

    /// Rows drawn in pieces (bands of any height, cut anywhere) give the one call's bytes.
    @Test func anySplitOfTheRowsGivesTheSameBytes() {
        let color = RGBColor(hex: 0x43A047)
        for (name, rings) in Self.shapes {
            let whole = Self.ours(rings, color, 0.6, evenOdd: false)
            for splits in [[1], [31, 32, 33], [17, 50, 51, 99], [64]] {
                #expect(Self.ours(rings, color, 0.6, evenOdd: false, splits: splits) == whole, "\(name) split at \(splits)")
            }
        }
    }

    /// A pixel half covered by a vertical edge is half way between the colours; one just left of
    /// the frame's right side takes its share; edges with points not finite are left out.
    @Test func halfCoveredPixelsAndHostilePoints() {
        let px = Self.ours([[10.5, 10, 119.5, 10, 119.5, 90, 10.5, 90]], RGBColor(hex: 0xFF0000), 1, evenOdd: false)
        for x in [10, 119] {
            let p = px[50 * Self.w + x]
            #expect(abs(Int((p >> 16) & 0xff) - 192) <= 1 && abs(Int(p & 0xff) - 64) <= 1, "x \(x): \(String(p, radix: 16))")
        }
        #expect(px[50 * Self.w + 60] & 0xffffff == 0xFF0000)
        #expect(px[5 * Self.w + 60] == 0xff80_8080)
        let hostile = [[Double.nan, 10, 50, 50, 20, 80], [1e300, -1e300, 50, 50, -1e300, 1e300], [.infinity, 0, 0, 0, 10, 10]]
        let drawn = Self.ours(hostile, RGBColor(hex: 0xFF0000), 1, evenOdd: false)
        #expect(drawn.count == Self.w * Self.h)
    }
}
