import CCairo
import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering
@testable import VectorTiles

/// Labels along lines (issue 27): road and river names follow their line glyph by glyph,
/// upright at any bearing, apart from each other, wrapped only between words.
@Suite struct LineLabelTests {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)

    /// A bold black "H" of 24 px, no halo: one glyph to turn and copy.
    static func boldH() -> LineText {
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        return LineText.make(text.layout("H", TextRenderer.Style(sizePx: 24, bold: true, width: nil, maxLines: 1)),
                             color: StyleColor(r: 0, g: 0, b: 0), halo: nil, radius: 0)
    }

    /// A quarter circle of radius r round (cx, cy), as a screen polyline of many short segments.
    static func arc(cx: Double = 400, cy: Double = 500, r: Double = 300, from a0: Double = -.pi * 0.95, to a1: Double = -.pi * 0.05) -> ScreenPolyline {
        ScreenPolyline(points: (0...180).map { i in
            let a = a0 + (a1 - a0) * Double(i) / 180
            return (cx + r * cos(a), cy + r * sin(a))
        })
    }

    @Test func curvedLabelGlyphsFollowTheirLine() throws {
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        let line = Self.arc()
        let t = LineText.make(text.layout("Landstrasse Vaduz", TextRenderer.Style(sizePx: 16, bold: false, width: nil, maxLines: 1)),
                              color: StyleColor(r: 0, g: 0, b: 0), halo: nil, radius: 0)
        let spots = try #require(LinePlacement.place(t.placement, width: t.width, along: line, center: line.length / 2, maxAngle: .pi / 4))
        #expect(spots.count == t.glyphs.count)
        for (g, p) in zip(t.glyphs, spots) {
            // Each glyph's centre lies on the line, within a pixel...
            #expect(line.distance(to: (p.x, p.y)) < 1, "glyph at \(p) is off the arc")
            // ...and turned to it: the arc's tangent at that point, within a few degrees.
            let radial = atan2(p.y - 500, p.x - 400)
            let tangent = radial + .pi / 2
            #expect(abs(LinePlacement.turn(tangent, p.angle)) < 0.05, "glyph \(g.center): angle \(p.angle), tangent \(tangent)")
        }
        // Drawn: the ink lies along the arc, no further from it than half the text's height.
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 800, 600)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        t.draw(spots.map { LineGlyph(x: $0.x, y: $0.y, angle: $0.angle, coordinate: Coordinate(latitude: 0, longitude: 0)) }, cr: cr)
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!, stride = Int(cairo_image_surface_get_stride(surface))
        var inked = 0, off = 0
        for y in 0..<600 { for x in 0..<800 {
            let alpha = data.advanced(by: y * stride + 4 * x).withMemoryRebound(to: UInt32.self, capacity: 1) { $0.pointee } >> 24
            guard alpha > 128 else { continue }
            inked += 1
            if abs(hypot(Double(x) - 400, Double(y) - 500) - 300) > t.height / 2 + 1 { off += 1 }
        } }
        #expect(inked > 300, "the label is drawn")
        #expect(off == 0, "\(off) of \(inked) inked pixels lie off the arc's band")
    }

    @Test func aLineTooBentOrTooShortTakesNoLabel() {
        let glyphs = (0..<10).map { (center: Double($0) * 9 + 4.5, advance: 9.0) }
        // A right angle in the middle of the text: more than 45 degrees between neighbours.
        let corner = ScreenPolyline(points: [(100, 300), (200, 300), (200, 400)])
        #expect(LinePlacement.place(glyphs, width: 90, along: corner, center: 100, maxAngle: .pi / 4) == nil)
        // Shifted along it, the text finds the straight part.
        var back: ScreenPolyline?
        let shifted = LinePlacement.best(glyphs, width: 90, along: corner, reversed: &back, anchor: 100, maxAngle: .pi / 4, shiftLimit: 100)
        #expect(shifted != nil)
        let short = ScreenPolyline(points: [(0, 0), (50, 0)])
        #expect(LinePlacement.anchors(length: short.length, width: 90, spacing: 250).isEmpty)
        #expect(LinePlacement.anchors(length: 1000, width: 90, spacing: 250).count == 4)
    }

    @Test func aLineRunningRightToLeftIsReadLeftToRight() throws {
        let glyphs = (0..<6).map { (center: Double($0) * 10 + 5, advance: 10.0) }
        let leftward = ScreenPolyline(points: [(400, 200), (100, 260)])
        #expect(LinePlacement.place(glyphs, width: 60, along: leftward, center: 150, maxAngle: .pi / 4) == nil)
        var back: ScreenPolyline?
        let spots = try #require(LinePlacement.best(glyphs, width: 60, along: leftward, reversed: &back, anchor: 150,
                                                    maxAngle: .pi / 4, shiftLimit: 0))
        #expect(spots.first!.x < spots.last!.x)
        #expect(spots.allSatisfy { cos($0.angle) > 0.9 })
    }

    func render(bearing: Double, tilt: Double = 0, zoom: Double = 16, name: String? = nil) -> MapRenderer {
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: zoom, bearing: bearing, tilt: tilt))
        return renderStreet(scene, width: 1024, height: 768, name: name).1
    }

    @Test(arguments: [0.0, 45, 90, 135, 180, 225, 270, 315])
    func noLabelUpsideDownAtAnyBearing(bearing: Double) {
        for tilt in [0.0, 50] {
            let labels = render(bearing: bearing, tilt: tilt, name: "line-labels-b\(Int(bearing))-t\(Int(tilt))").streetLabels
            let along = labels.filter { !$0.glyphs.isEmpty }
            #expect(along.count >= 3, "bearing \(bearing) tilt \(tilt): \(along.count) road names")
            for l in along {
                // Left to right, no glyph leaning past 100 degrees.
                #expect(l.glyphs.first!.x <= l.glyphs.last!.x + 1e-6, "\(l.text) reads right to left")
                for g in l.glyphs { #expect(cos(g.angle) >= -0.17, "\(l.text): glyph at \(g.angle * 180 / .pi) degrees") }
            }
        }
    }

    @Test(arguments: [(0.0, 0.0), (30, 0), (200, 50)])
    func noTwoLabelsOverlap(bearing: Double, tilt: Double) {
        let labels = render(bearing: bearing, tilt: tilt).streetLabels
        #expect(labels.count >= 5)
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] {
                for ba in a.boxes { for bb in b.boxes {
                    #expect(!ba.intersects(bb), "\(a.text) \(ba) overlaps \(b.text) \(bb)")
                } }
            }
        }
    }

    @Test func aNameIsNotRepeatedCloseTogether() {
        let labels = render(bearing: 0, zoom: 17).streetLabels.filter { !$0.glyphs.isEmpty }
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] where a.text == b.text {
                let pa = a.glyphs[a.glyphs.count / 2], pb = b.glyphs[b.glyphs.count / 2]
                #expect(hypot(pa.x - pb.x, pa.y - pb.y) >= 250, "\(a.text) twice within 250 px")
            }
        }
    }

    @Test func glyphsAreRasterizedOncePerName() {
        let renderer = MapRenderer(vector: MapRenderer.openTiles(path: mbtilesPath).vector)
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 16, bearing: 20))
        renderer.render(scene, into: frame.buffer)
        let made = renderer.textRenderer.lineTexts.made
        #expect(made > 0)
        renderer.render(scene, into: frame.buffer)
        #expect(renderer.textRenderer.lineTexts.made == made, "the same frame again draws no glyph")
        // Turned (the names at other angles, a few new ones), then back: nothing drawn anew.
        renderer.render(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 16, bearing: 25)), into: frame.buffer)
        let turned = renderer.textRenderer.lineTexts.made
        renderer.render(scene, into: frame.buffer)
        #expect(renderer.textRenderer.lineTexts.made == turned, "\(turned) -> \(renderer.textRenderer.lineTexts.made)")
        // A pan by whole pixels moves the names without changing their shape: their turned
        // glyphs are copied again, none is turned anew; a second frame at a camera rasterises
        // no glyph and turns none.
        // (Interactive frames keep their glyphs to coarser angles than final ones, so the first
        // interactive frame turns its own once.)
        let bitmaps = renderer.textRenderer.glyphBitmaps
        renderer.render(scene, into: frame.buffer, quality: .interactive)
        let rasterized = bitmaps.rasterized, turnedMade = bitmaps.turnedMade
        #expect(turnedMade > 0, "a turned view turns glyphs")
        let proj = Projection(camera: scene.camera, screen: Size(width: 800, height: 600))
        var cam = scene.camera
        for step in 1...4 {
            cam.target = proj.coordinate(at: Point(x: 400 + Double(step) * 3, y: 300 + Double(step) * 2))!
            renderer.render(MapScene(camera: cam), into: frame.buffer, quality: .interactive)
        }
        #expect(bitmaps.turnedMade == turnedMade, "\(turnedMade) -> \(bitmaps.turnedMade)")
        renderer.render(scene, into: frame.buffer)
        #expect(bitmaps.rasterized == rasterized && bitmaps.turnedMade == turnedMade, "the first camera again turns nothing anew")
    }

    /// Names share their letters' images: each glyph of a font, size and colours is rasterised
    /// once whatever the names it appears in, and a shared image has the bytes of one made alone.
    @Test func namesShareTheirGlyphImages() {
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        let bitmaps = GlyphBitmaps()
        let black = StyleColor(r: 0, g: 0, b: 0), white = StyleColor(r: 1, g: 1, b: 1)
        let style = TextRenderer.Style(sizePx: 14, bold: false, width: nil, maxLines: 1)
        let a = LineText.make(text.layout("Aeulestrasse", style), color: black, halo: white, radius: 1, bitmaps: bitmaps)
        let afterFirst = bitmaps.rasterized
        let b = LineText.make(text.layout("Austrasse", style), color: black, halo: white, radius: 1, bitmaps: bitmaps)
        // "Austrasse" has no letter "Aeulestrasse" lacks.
        #expect(bitmaps.rasterized == afterFirst, "\(afterFirst) -> \(bitmaps.rasterized)")
        #expect(a.glyphs[0].image === b.glyphs[0].image, "the same A")
        let alone = LineText.make(text.layout("Austrasse", style), color: black, halo: white, radius: 1)
        for (g, h) in zip(b.glyphs, alone.glyphs) {
            #expect(g.image?.pixels == h.image?.pixels && g.dx == h.dx && g.dy == h.dy)
        }
        // Another colour is another image.
        _ = LineText.make(text.layout("Austrasse", style), color: StyleColor(r: 0.5, g: 0, b: 0), halo: white, radius: 1, bitmaps: bitmaps)
        #expect(bitmaps.rasterized > afterFirst)
    }

    /// The turned glyphs' budget follows the screen: the glyphs' 4 MiB up to 4 MiB of pixels, a
    /// byte a pixel above (a 4K screen holds four times the names a 1080p one does, each turned
    /// again as a gesture steps its angle): a 4K renderer keeps more than 4 MiB of them, and
    /// turns none of them again; back on a small screen, the budget and the kept shrink.
    @Test func theTurnedGlyphsBudgetFollowsTheScreen() throws {
        let image = try #require(Self.boldH().glyphs[0].image)
        let b = GlyphBitmaps()
        #expect(b.turnedBudget == 4 << 20)
        b.fit(screenPixels: 1920 * 1080)
        #expect(b.turnedBudget == 4 << 20)
        b.fit(screenPixels: 3840 * 2160)
        #expect(b.turnedBudget == 3840 * 2160)
        func turn(_ i: Int) {
            _ = b.turned(image, ox: Double(i % 2) / 2, oy: 0, angle: Double(i / 2) * 2 * .pi / 3600, cx: 5, cy: 5, steps: 3600)
        }
        var n = 0
        while b.turnedBytes <= 5 << 20 { turn(n); n += 1 }
        let made = b.turnedMade
        #expect(made == n && b.turnedBytes <= b.turnedBudget, "\(b.turnedBytes) bytes")
        for i in 0..<n { turn(i) }
        #expect(b.turnedMade == made, "every turned glyph kept: \(b.turnedMade - made) turned again")
        b.fit(screenPixels: 1280 * 800)
        #expect(b.turnedBudget == 4 << 20 && b.turnedBytes <= 4 << 20)
        // The renderer sizes it for the frame it draws.
        let renderer = MapRenderer()
        let frame = OwnedFrameBuffer(width: 3840, height: 2160)
        renderer.render(MapScene(camera: CameraPosition(target: Coordinate(latitude: 47.141, longitude: 9.521), zoom: 5)), into: frame.buffer)
        #expect(renderer.textRenderer.glyphBitmaps.turnedBudget == 3840 * 2160)
    }

    /// A turned glyph copied onto a frame: its ink where the glyph turned about its centre lies
    /// (the upright image's ink centre, turned), whatever the angle.
    /// A glyph at a position or angle no frame can show (NaN, infinite, far off) is skipped
    /// rather than turned into an integer that traps.
    @Test func aGlyphAtANonFinitePlaceIsSkipped() {
        let t = Self.boldH()
        let frame = OwnedFrameBuffer(width: 64, height: 64)
        frame.buffer.pixels.initializeMemory(as: UInt8.self, repeating: 0xff, count: frame.buffer.stride * 64)
        let surface = cairo_image_surface_create_for_data(frame.buffer.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                          64, 64, Int32(frame.buffer.stride))!
        let cr = cairo_create(surface)!
        for (x, y, angle) in [(32.0, 32.0, Double.nan), (Double.nan, 32.0, 0.3), (32.0, .infinity, 0.3), (1e300, 32.0, 0.3), (32.0, 32.0, Double.infinity)] {
            t.draw([LineGlyph(x: x, y: y, angle: angle, coordinate: Coordinate(latitude: 0, longitude: 0))], cr: cr)
        }
        cairo_destroy(cr)
        cairo_surface_destroy(surface)
        let g = t.glyphs[0], image = g.image!
        let b = GlyphBitmaps()
        #expect(b.turned(image, ox: 0, oy: 0, angle: .nan, cx: 10, cy: 10) == nil)
        #expect(b.turned(image, ox: .infinity, oy: 0, angle: 0.2, cx: 10, cy: 10) == nil)
        #expect(b.turned(image, ox: 0, oy: 0, angle: 0.2, cx: 10, cy: 10) != nil)
    }

    /// Glyph images with a halo, and the same glyphs turned to every 7 degrees at both centre
    /// phases, are valid premultiplied pixels (no channel above its alpha): what lets
    /// `GlyphTarget.over` blend them with one multiplication (`overPremultiplied`).
    @Test func glyphImagesAndTurnedOnesAreValidPremultiplied() throws {
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        let t = LineText.make(text.layout("Wag", TextRenderer.Style(sizePx: 17, bold: false, width: nil, maxLines: 1)),
                              color: StyleColor(r: 0.31, g: 0.27, b: 0.22), halo: StyleColor(r: 1, g: 0.98, b: 0.9, a: 0.9), radius: 2)
        let b = GlyphBitmaps()
        var checked = 0, bad = 0, translucent = 0
        func check(_ px: [UInt32]) {
            for p in px where p != 0 {
                let a = p >> 24
                if (p >> 16) & 0xff > a || (p >> 8) & 0xff > a || p & 0xff > a { bad += 1 }
                if a > 0 && a < 255 { translucent += 1 }
                checked += 1
            }
        }
        for g in t.glyphs {
            let image = try #require(g.image)
            check(image.pixels)
            for deg in stride(from: 0.0, to: 360, by: 7) {
                for c in [10.0, 10.5] {
                    let turned = try #require(b.turned(image, ox: Double(g.dx), oy: Double(g.dy), angle: deg * .pi / 180, cx: c, cy: c))
                    check(turned.0.image.pixels)
                }
            }
        }
        #expect(bad == 0 && checked > 10_000 && translucent > 1_000, "\(bad) of \(checked) pixels above their alpha (\(translucent) translucent)")
    }

    /// An interactive frame's glyphs are kept to 3 degrees (`interactiveAngleSteps`), a final
    /// frame's to one (within half a degree either way): angles a tilt gesture moves by a fraction of a degree a frame
    /// find their glyph turned already; the two kinds of frame never share an image.
    @Test func interactiveFramesTurnGlyphsInCoarserSteps() throws {
        let t = Self.boldH()
        let image = try #require(t.glyphs[0].image)
        let b = GlyphBitmaps()
        let coarse = GlyphBitmaps.interactiveAngleSteps
        let degrees = [20.0, 20.4, 20.8, 21.2, 19.6]   // all within 1.5 degrees of 21 (a 3-degree step)
        for d in degrees { _ = b.turned(image, ox: -8, oy: -12, angle: d * .pi / 180, cx: 10, cy: 10, steps: coarse) }
        #expect(b.turnedMade == 1, "one turned image for angles in one 3-degree step: \(b.turnedMade)")
        for d in degrees { _ = b.turned(image, ox: -8, oy: -12, angle: d * .pi / 180, cx: 10, cy: 10) }
        #expect(b.turnedMade == 1 + 2, "final frames, whole degrees: 20, 21: \(b.turnedMade)")
        // 21 degrees at 120 steps and at 360 are the same angle, made once for each kind of frame.
        let a = try #require(b.turned(image, ox: -8, oy: -12, angle: 21 * .pi / 180, cx: 10, cy: 10, steps: coarse))
        let f = try #require(b.turned(image, ox: -8, oy: -12, angle: 21 * .pi / 180, cx: 10, cy: 10))
        #expect(a.0.image.pixels == f.0.image.pixels && a.0.image.serial != f.0.image.serial)
    }

    /// Past its budget the turned cache drops the images used longest ago: one looked up again
    /// (a hit, made the most recently used) outlives those made after it but not used since.
    @Test func turnedImagesUsedLatelyOutliveOlderOnes() throws {
        let t = Self.boldH()
        let image = try #require(t.glyphs[0].image)
        func turned(_ degrees: Int, by cache: GlyphBitmaps) -> GlyphBitmap {
            cache.turned(image, ox: -8, oy: -12, angle: Double(degrees) * .pi / 180, cx: 10, cy: 10)!.0.image
        }
        let scratch = GlyphBitmaps()
        func bytes(_ degrees: Int) -> Int { turned(degrees, by: scratch).bytes }
        // Room for the images at 10 to 15 degrees and half another: the one at 16 evicts the
        // least recently used (11 degrees, once 10 is looked up again) until it fits.
        let b = GlyphBitmaps(maxBytes: (10...15).map(bytes).reduce(0, +) + bytes(16) / 2)
        func turn(_ degrees: Int) -> Int { turned(degrees, by: b).serial }
        let first = turn(10)
        for d in 11...15 { _ = turn(d) }
        #expect(turn(10) == first && b.turnedMade == 6, "a hit")
        _ = turn(16)
        #expect(b.turnedMade == 7)
        #expect(turn(10) == first && b.turnedMade == 7, "the image looked up again stayed")
        _ = turn(15)
        #expect(b.turnedMade == 7, "the newest of the others stayed")
        _ = turn(11)
        #expect(b.turnedMade == 8, "11 degrees, used before 10 was looked up again, was dropped")
    }

    /// A glyph image knows each row's first and last pixel that is not transparent (a copy
    /// passes over the rest); an empty row has none.
    @Test func aGlyphImageKnowsWhereEachRowHasInk() {
        var px = [UInt32](repeating: 0, count: 5 * 3)
        px[1] = 0xff00_0000; px[3] = 0x8000_0000          // row 0: columns 1 and 3
        px[2 * 5 + 4] = 0x0100_0000                         // row 2: column 4; row 1 empty
        let b = GlyphBitmap(width: 5, height: 3, pixels: px, dx: 0, dy: 0, serial: 1)
        #expect(b.rowSpans == [1, 4, 0, 0, 4, 5])
    }

    @Test func aTurnedGlyphKeepsItsCentre() {
        let t = Self.boldH()
        func inkCentre(angle: Double) -> (Double, Double) {
            let frame = OwnedFrameBuffer(width: 100, height: 100)
            frame.buffer.pixels.initializeMemory(as: UInt8.self, repeating: 0xff, count: frame.buffer.stride * 100)
            let surface = cairo_image_surface_create_for_data(frame.buffer.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                              100, 100, Int32(frame.buffer.stride))!
            let cr = cairo_create(surface)!
            t.draw([LineGlyph(x: 50.25, y: 49.75, angle: angle, coordinate: Coordinate(latitude: 0, longitude: 0))], cr: cr)
            cairo_destroy(cr)
            cairo_surface_destroy(surface)
            var sx = 0.0, sy = 0.0, sw = 0.0
            for y in 0..<100 { for x in 0..<100 {
                let p = frame.buffer.pixels.load(fromByteOffset: y * frame.buffer.stride + 4 * x, as: UInt32.self)
                let ink = Double(255 - (p & 0xff))
                sx += ink * Double(x); sy += ink * Double(y); sw += ink
            } }
            return (sx / sw, sy / sw)
        }
        // The glyph image's ink centre, from the glyph's centre (the turning point) before turning.
        let g = t.glyphs[0], image = g.image!
        var cu = 0.0, cv = 0.0, cw = 0.0
        for v in 0..<image.height { for u in 0..<image.width {
            let a = Double(image.pixels[v * image.width + u] >> 24)
            cu += a * Double(u); cv += a * Double(v); cw += a
        } }
        let rx = -g.advance / 2 + g.dx + cu / cw + 0.5, ry = t.baseline - t.height / 2 + g.dy + cv / cw + 0.5
        for degrees in [10.0, 45, 90, -60, 170] {
            let a = degrees * .pi / 180
            let c = inkCentre(angle: a)
            // Pixel (x, y)'s centre is at (x + 0.5, y + 0.5).
            let ex = 50.25 + cos(a) * rx - sin(a) * ry - 0.5, ey = 49.75 + sin(a) * rx + cos(a) * ry - 0.5
            #expect(hypot(c.0 - ex, c.1 - ey) < 0.4, "at \(degrees) degrees the ink centre is \(c), expected (\(ex), \(ey))")
        }
    }

    @Test func wrapsOnlyBetweenWords() {
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        for name in ["Liechtensteinische Landesbank", "Liechtensteinisches Landesmuseum Vaduz", "Kunstmuseum Liechtenstein",
                     "Hochschule Liechtenstein Fürst-Franz-Josef-Strasse"] {
            for ems in [3.0, 6, 9] {
                let width = StreetLabelPainter.wrapWidth(name, maxWidth: ems * 13, sizePx: 13, bold: false, text: text)
                let layout = text.layout(name, TextRenderer.Style(sizePx: 13, bold: false, width: width,
                                                                  maxLines: StreetLabelPainter.maxLines, alignCenter: true))
                let bytes = Array(name.utf8)
                var lines = 0
                var iter = pango_layout_get_lines_readonly(layout)
                while let node = iter {
                    let line = node.pointee.data.assumingMemoryBound(to: PangoLayoutLine.self)
                    let start = Int(line.pointee.start_index)
                    #expect(start == 0 || bytes[start - 1] == UInt8(ascii: " ") || bytes[start - 1] == UInt8(ascii: "-"), "\(name) at \(ems) ems breaks inside a word at byte \(start)")
                    lines += 1
                    iter = node.pointee.next
                }
                #expect(lines >= 1)
                // Nothing cut off: every word is shown.
                #expect(pango_layout_is_ellipsized(layout) == 0, "\(name) at \(ems) ems is cut")
            }
        }
    }
}
