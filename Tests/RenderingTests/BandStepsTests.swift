import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// `BandSteps`: a base map's layers drawn 32 rows at a time through all of them, an opaque
/// paint carried to the first step that draws in a chunk and written there with the fill's own
/// pixels (`FillRasterizer.draw(over:)`), give the bytes of each step drawn over the whole frame
/// one after the other: the paint stored over every pixel, each fill, each line layer.
@Suite struct BandStepsTests {
    static let w = 120, h = 100

    enum Step {
        case paint(RGBColor)
        case fill(FillRasterizer.Fill, outline: LineRasterizer.Layer?)
        case lines([LineRasterizer.Layer])
    }

    /// Each step over every row, one after the other (no chunks, no carried paint).
    static func oneByOne(_ steps: [Step]) -> [UInt32] {
        var px = [UInt32](repeating: 0xff12_3456, count: w * h)
        px.withUnsafeMutableBytes { b in
            let p = b.baseAddress!
            for step in steps {
                switch step {
                case let .paint(c):
                    let s = LineRasterizer.pixel(c)
                    let solid = SolidBlend(r: s.r, g: s.g, b: s.b).solid
                    for i in 0..<(w * h) { p.storeBytes(of: solid, toByteOffset: 4 * i, as: UInt32.self) }
                case let .fill(f, outline):
                    FillRasterizer.fill(f, pixels: p, stride: w * 4, width: w, rows: 0..<h)
                    if let outline { LineRasterizer.stroke(layers: [outline], antialias: true, pixels: p, stride: w * 4, width: w, rows: 0..<h) }
                case let .lines(layers):
                    LineRasterizer.stroke(layers: layers, antialias: true, pixels: p, stride: w * 4, width: w, rows: 0..<h)
                }
            }
        }
        return px
    }

    /// The steps as `BandSteps`, drawn in the pieces of rows `cuts` gives.
    static func inSteps(_ steps: [Step], cuts: [Int]) -> [UInt32] {
        var band = BandSteps()
        for step in steps {
            switch step {
            case let .paint(c): band.paint(c)
            case let .fill(f, outline): band.fill(f, outline: outline)
            case let .lines(layers): band.lines(layers)
            }
        }
        var px = [UInt32](repeating: 0xff12_3456, count: w * h)
        px.withUnsafeMutableBytes { b in
            for i in 0..<(cuts.count - 1) where cuts[i] < cuts[i + 1] {
                band.draw(pixels: b.baseAddress!, stride: w * 4, width: w, rows: cuts[i]..<cuts[i + 1])
            }
        }
        return px
    }

    static func fill(_ rings: [[Double]], _ hex: UInt32, alpha: Double = 1, evenOdd: Bool = false) -> FillRasterizer.Fill {
        FillRasterizer.Fill(edges: FillRasterizerTests.edges(rings), evenOdd: evenOdd, color: RGBColor(hex: hex), alpha: alpha)
    }

    static func line(_ segments: [Double], width: Double, _ hex: UInt32) -> LineRasterizer.Layer {
        LineRasterizer.Layer(segments: segments, lineWidth: width, color: RGBColor(hex: hex))
    }

    /// Fills in some chunks only (the top rows, the bottom rows, a thin wedge down the frame),
    /// opaque and translucent, with outlines; lines in some chunks only; a second paint.
    static let cases: [(String, [Step])] = [
        ("a paint, then a fill across the frame", [
            .paint(RGBColor(hex: 0xAAD3DF)),
            .fill(fill([[-20, 10.5, 150, 30.25, 90.5, 95.5, 10.2, 80.7]], 0xF2EFE9, evenOdd: true), outline: nil),
        ]),
        ("a fill in the top chunk only, then one in the bottom rows, with outlines", [
            .paint(RGBColor(hex: 0xAAD3DF)),
            .fill(fill([[10.5, 2.25, 70.5, 5.5, 40.2, 28.75]], 0xE0DFDF), outline: line([10.5, 2.25, 70.5, 5.5, 70.5, 5.5, 40.2, 28.75], width: 1, 0x303030)),
            .fill(fill([[5.5, 70.5, 115.5, 66.25, 100.5, 99.5, 8.5, 97.5]], 0xC8FACC, alpha: 0.6), outline: line([5.5, 70.5, 115.5, 66.25], width: 1, 0x806060)),
            .lines([line([0, 50.5, 120, 52.5, 60, 0, 62, 100], width: 3, 0xFFFFFF)]),
        ]),
        ("lines first, where no fill is; a second paint; a translucent fill just after a paint", [
            .paint(RGBColor(hex: 0xF2EFE9)),
            .lines([line([3.5, 40.5, 100.5, 44.5], width: 2.5, 0xA0A0A0)]),
            .fill(fill([[50, -10, 52.5, 110, 49.3, 110]], 0x1E88E5), outline: nil),
            .paint(RGBColor(hex: 0xAAD3DF)),
            .fill(fill([[30.25, 33.5, 90.75, 33.5, 90.75, 62.5, 30.25, 62.5], [40, 40, 80, 40, 80, 55, 40, 55]], 0x7F7F00, alpha: 0.35, evenOdd: true), outline: nil),
            .fill(fill([[0, 0, 120, 0, 120, 100, 0, 100]], 0xFFFFFF, alpha: 0.2), outline: nil),
        ]),
        ("only paints and lines", [
            .paint(RGBColor(hex: 0x102030)),
            .lines([]),
            .paint(RGBColor(hex: 0xF2EFE9)),
            .lines([line([-10, 97.5, 130, 98.5], width: 1.2, 0x000000)]),
        ]),
        ("a paint at the end", [
            .fill(fill([[10, 10, 60, 10, 60, 60]], 0x00FF00), outline: nil),
            .paint(RGBColor(hex: 0xAAD3DF)),
        ]),
    ]

    @Test(arguments: cases.indices)
    func stepsInChunksGiveTheStepsOneByOne(_ i: Int) {
        let (name, steps) = Self.cases[i]
        let expected = Self.oneByOne(steps)
        for cuts in [[0, Self.h], [0, 32, 64, 96, Self.h], [0, 50, 64, Self.h], [0, 17, 33, 99, Self.h]] {
            let got = Self.inSteps(steps, cuts: cuts)
            let differ = zip(got, expected).filter { $0 != $1 }.count
            #expect(differ == 0, "\(name), cuts \(cuts): \(differ) pixels differ")
        }
        // Not a blank frame: the paints and the fills are all there (a last paint hides all).
        if case .paint = steps.last! { #expect(Set(expected).count == 1) } else { #expect(Set(expected).count > 3, "\(name)") }
    }
}
