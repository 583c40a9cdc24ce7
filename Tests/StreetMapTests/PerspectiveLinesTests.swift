import CCairo
import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering

/// A tilted view's lines as MapLibre draws a pitched map's: widths, dashes and circle radii in
/// pixels at the camera target, scaled by the ground's perspective, so far roads thin out and
/// fade instead of crowding the far ground as fat bands (near ones keep the style's size).
@Suite struct PerspectiveLinesTests {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)

    /// White lines rasterized over black in a w x h frame: the blue level (0...255) at a pixel.
    static func whiteOnBlack(_ seg: [Double], endWidths: [Double], w: Int, h: Int, antialias: Bool = true) -> (Int, Int) -> Int {
        var pixels = [UInt32](repeating: 0xff00_0000, count: w * h)
        pixels.withUnsafeMutableBytes { p in
            LineRasterizer.stroke(seg, endWidths: endWidths, lineWidth: 99, color: RGBColor(r: 1, g: 1, b: 1), antialias: antialias,
                                  pixels: p.baseAddress!, stride: 4 * w, width: w, rows: 0..<h)
        }
        return { x, y in Int(pixels[y * w + x] & 0xff) }
    }

    static func view(tilt: Double, zoom: Double = 15.5) -> GroundView {
        GroundView(projection: Projection(camera: CameraPosition(target: vaduz, zoom: zoom, bearing: 30, tilt: tilt),
                                          screen: Size(width: 640, height: 480)))
    }

    @Test func theScaleIsOneWhenFlatAndTheGroundsOwnScaleWhenTilted() throws {
        let flat = Self.view(tilt: 0)
        #expect(flat.perspectiveScale(y: 0) == 1 && flat.perspectiveScale(y: 479) == 1)
        for tilt in [30.0, 50.0, 70.0] {
            let v = Self.view(tilt: tilt)
            #expect(abs(v.perspectiveScale(y: v.targetY) - 1) < 1e-9)
            // At each row: one screen pixel across is 1/scale ground pixels.
            for y in stride(from: 10.0, through: 470, by: 40) {
                guard let h = v.horizonY, y > h + 5 else { continue }
                let a = try #require(v.projection.groundOffset(screen: Point(x: 300, y: y)))
                let b = try #require(v.projection.groundOffset(screen: Point(x: 310, y: y)))
                let expected = min(10 / hypot(b.x - a.x, b.y - a.y), GroundView.maxPerspectiveScale)
                #expect(abs(v.perspectiveScale(y: y) - expected) < 1e-6 * max(1, expected), "tilt \(tilt) row \(y)")
            }
            // Far rows smaller than near ones.
            #expect(v.perspectiveScale(y: 100) < v.perspectiveScale(y: 400))
        }
    }

    @Test func aTiltedViewsPiecesTaperWithDistance() throws {
        let v = Self.view(tilt: 60)
        // A line from the bottom of the screen to near the top, in two segments.
        let seg = [320.0, 470, 320, 300, 320, 300, 330, 60]
        let p = LinePieces(perspective: seg, width: 4, dash: [], trim: 0, view: v)
        // The second segment is cut where the scale reaches 1 (the target's row), and no other.
        #expect(p.segments.count == 12)
        #expect(Array(p.segments[0..<6]) == Array(seg[0..<6]) && p.segments.last == 60)
        #expect(abs(p.segments[7] - v.targetY) < 1e-9 && p.segments[9] == p.segments[7])
        let w = try #require(p.endWidths)
        #expect(w.count == 6)
        for k in 0..<3 {
            #expect(abs(w[2 * k] - 4 * v.perspectiveScale(y: p.segments[4 * k + 1])) < 1e-9)
            #expect(abs(w[2 * k + 1] - 4 * v.perspectiveScale(y: p.segments[4 * k + 3])) < 1e-9)
        }
        // Below the target the style's width (the scale is at most 1); far up, much thinner.
        #expect(w[0] == 4 && w[3] == 4 && w[5] < 2.5)
        // For one-width strokers (cairo): pieces of at most 16 rows, each of the width at its middle.
        let even = p.evenPieces()
        #expect(even.count >= 410 / 16)
        for e in even {
            #expect(abs(e.y1 - e.y0) <= 16 + 1e-9)
            #expect(abs(e.width - 4 * v.perspectiveScale(y: (e.y0 + e.y1) / 2)) < 1e-9)
        }
    }

    @Test func dashesShortenWithTheScaleWhereTheyStart() {
        let line = [0.0, 10, 64, 10]
        let plain = LineRasterizer.dashed(line, pattern: [4, 4], trim: 0)
        let half = LineRasterizer.dashed(line, pattern: [4, 4], trim: 0, scale: PerspectiveScale(base: 0.5, slope: 0, minimum: 0, maximum: 10))
        #expect(plain.count / 4 == 8 && half.count / 4 == 16)
        #expect(abs((half[2] - half[0]) - 2) < 1e-9)
        // The end trim of a whole line follows the scale at each end (0.5 at the top, 2 at the bottom).
        let trimmed = LineRasterizer.dashed([0, 0, 0, 100], pattern: [], trim: 2, scale: PerspectiveScale(base: 0.5, slope: 0.015, minimum: 0, maximum: 10))
        #expect(trimmed == [0, 1, 0, 96])
        // A scale of 0 (the horizon) is taken as 0.05: the pattern still advances.
        let horizon = LineRasterizer.dashed(line, pattern: [4, 4], trim: 0, scale: PerspectiveScale(base: 0, slope: 0, minimum: 0, maximum: 10))
        #expect(horizon.count / 4 == 160)
    }

    @Test func eachSegmentTakesItsOwnWidthAndAHairlineFades() {
        let h = 40
        // Horizontal lines through pixel centres: 6 px wide, then 0.5 px wide.
        let level = Self.whiteOnBlack([2, 10.5, 38, 10.5, 2, 30.5, 38, 30.5], endWidths: [6, 6, 0.5, 0.5], w: 40, h: h)
        let wide = (0..<h).filter { level(20, $0) > 0 && $0 < 20 }
        #expect(wide.first == 7 && wide.last == 13, "\(wide)")        // 6 px: rows 7.5...13.5 and halves beside
        #expect(level(20, 10) == 255)
        // Half a pixel of white over black: half the level, not three quarters.
        let thin = level(20, 30)
        #expect(thin >= 126 && thin <= 129, "\(thin)")
        #expect(level(20, 29) == 0 && level(20, 31) == 0)
    }

    @Test func aTiltedStreetFrameThinsItsFarRoadsAndKeepsItsNearOnes() throws {
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let set = try #require(opened.vector)
        let r = MapRenderer(vector: set)
        let v = Self.view(tilt: 60, zoom: 16)
        let painter = r.streetPainter(set, view: v, zoom: 16, antialias: true)
        let layers = painter.layers(view: v, zoom: 16)
        var far: [Double] = [], near: [Double] = [], styled: [Double] = []
        for op in layers.ops {
            guard case let .lines(_, pieces, width, _, _, _, _) = op, let pieces, let widths = pieces.endWidths else { continue }
            styled.append(width)
            for k in 0..<widths.count {
                let y = pieces.segments[2 * k + 1]      // the start's y, then the end's
                if y < v.targetY - 100 { far.append(widths[k] / width) } else if y > v.targetY + 10 { near.append(widths[k] / width) }
            }
        }
        #expect(!styled.isEmpty && !far.isEmpty && !near.isEmpty)
        #expect(far.allSatisfy { $0 < 0.95 } && near.allSatisfy { $0 == 1 })
        // A flat view keeps the style's widths.
        let flat = Self.view(tilt: 0, zoom: 16)
        for op in painter.layers(view: flat, zoom: 16).ops {
            if case let .lines(_, pieces, _, _, _, _, _) = op { #expect(pieces?.endWidths == nil) }
        }
    }
}

extension PerspectiveLinesTests {
    @Test func aTaperedSegmentNarrowsFromItsStartWidthToItsEnd() {
        let w = 40
        // Down the screen from 9 px wide to 1 px wide.
        let level = Self.whiteOnBlack([20, 2, 20, 38], endWidths: [9, 1], w: w, h: 40)
        func ink(row y: Int) -> Double { (0..<w).reduce(0.0) { $0 + Double(level($1, y)) / 255 } }
        // The width at a row is 9 - 8t along the segment (t from y = 2 to 38).
        for y in [6, 12, 20, 28, 34] {
            let t = (Double(y) + 0.5 - 2) / 36
            #expect(abs(ink(row: y) - (9 - 8 * t)) < 0.1, "row \(y): \(ink(row: y)) against \(9 - 8 * t)")
        }
    }

    @Test func withoutAntialiasingAHairlineStaysUnbroken() {
        let h = 20
        // A 0.3 px line at a slant: each column keeps a pixel (an interactive tilted frame's far road).
        let level = Self.whiteOnBlack([2, 5, 38, 14], endWidths: [0.3, 0.3], w: 40, h: h, antialias: false)
        for x in 3..<37 {
            #expect((0..<h).contains { level(x, $0) == 255 }, "column \(x) has no pixel of the line")
        }
    }
}
