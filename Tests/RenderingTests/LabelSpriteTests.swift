import CCairo
import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// Place names come from haloed label images made once per name, style and colours: the same
/// pixels as the nine pango runs drawn onto the map (up to 8-bit rounding), made once, bounded
/// in memory, and made again at a new text scale.
@Suite struct LabelSpriteTests {
    /// Draws names at whole pixels over a striped background, with or without sprites.
    static func drawn(_ names: [String], sprites: Bool, text: TextRenderer = TextRenderer(family: MapStyle.standard.fontFamily),
                      size: Double = 13) -> OwnedFrameBuffer {
        let f = OwnedFrameBuffer(width: 320, height: 40 * names.count + 20)
        let s = cairo_image_surface_create_for_data(f.buffer.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                    Int32(f.buffer.width), Int32(f.buffer.height), Int32(f.buffer.stride))!
        let cr = cairo_create(s)!
        // Land, sea and a border line behind the names, so the halo blends with several colours.
        let style = MapStyle.standard
        cairo_set_source_rgb(cr, style.sea.r, style.sea.g, style.sea.b); cairo_paint(cr)
        cairo_rectangle(cr, 0, 0, 140, Double(f.buffer.height))
        cairo_set_source_rgb(cr, style.land.r, style.land.g, style.land.b); cairo_fill(cr)
        cairo_move_to(cr, 60, 0); cairo_line_to(cr, 90, Double(f.buffer.height))
        cairo_set_source_rgb(cr, style.border.r, style.border.g, style.border.b); cairo_stroke(cr)
        text.usesLabelSprites = sprites
        for (i, name) in names.enumerated() {
            let layout = text.layout(name, TextRenderer.Style(sizePx: size, bold: i % 2 == 1, width: nil, maxLines: 1))
            text.drawWithHalo(layout, cr: cr, x: 40, y: Double(10 + 40 * i), color: style.cityText, halo: style.halo)
        }
        cairo_destroy(cr)
        cairo_surface_flush(s)
        cairo_surface_destroy(s)
        return f
    }

    /// Takes the owners, so neither frame's memory goes while it is read.
    static func largestDifference(_ fa: OwnedFrameBuffer, _ fb: OwnedFrameBuffer) -> (level: Int, pixels: Int) {
        let a = fa.buffer, b = fb.buffer
        var worst = 0, n = 0
        for y in 0..<a.height { for x in 0..<a.width {
            let p = rgb(a.pixel(x: x, y: y)), q = rgb(b.pixel(x: x, y: y))
            let d = max(abs(p.r - q.r), abs(p.g - q.g), abs(p.b - q.b))
            worst = max(worst, d)
            if d > 0 { n += 1 }
        } }
        return withExtendedLifetime((fa, fb)) { (worst, n) }
    }

    static let names = ["Zürich", "SWITZERLAND", "Nizhniy Novgorod", "Ağrı", "Qjy", "ÅLAND"]

    @Test func aSpriteGivesThePixelsOfTheHaloDrawnDirectly() {
        let direct = Self.drawn(Self.names, sprites: false)
        let sprite = Self.drawn(Self.names, sprites: true)
        let d = Self.largestDifference(direct, sprite)
        // OVER is associative; only the 8-bit rounding of the halo's overlapping copies differs.
        #expect(d.level <= 2, "largest channel difference \(d.level) over \(d.pixels) pixels")
        // The names are there: many pixels differ from the plain background.
        let blank = Self.drawn(Self.names.map { _ in "" }, sprites: true)
        var inked = 0
        for y in 0..<blank.buffer.height { for x in 0..<320 where sprite.buffer.pixel(x: x, y: y) != blank.buffer.pixel(x: x, y: y) { inked += 1 } }
        #expect(inked > 2000)
    }

    @Test func aSpriteIsMadeOnceAndReused() {
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        _ = Self.drawn(Self.names, sprites: true, text: text)
        #expect(text.sprites.made == Self.names.count)
        let again = Self.drawn(Self.names, sprites: true, text: text)
        #expect(text.sprites.made == Self.names.count)
        #expect(Self.largestDifference(again, Self.drawn(Self.names, sprites: true)).level == 0)
    }

    @Test func spriteMemoryIsBounded() {
        let sprites = LabelSprites(maxBytes: 100_000)
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        let s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 200, 40)!
        let cr = cairo_create(s)!
        for i in 0..<200 {
            let layout = text.layout("Place \(i)", TextRenderer.Style(sizePx: 13, bold: false, width: nil, maxLines: 1))
            let key = LabelSprites.Key(layout: UInt(bitPattern: Int(bitPattern: UnsafeMutableRawPointer(layout))), color: MapStyle.standard.cityText,
                                       halo: MapStyle.standard.halo)
            let sprite = sprites.sprite(key, layout: layout) { _, _, _ in }
            #expect(sprite != nil)
            #expect(sprites.bytes <= 100_000)
            // The budget counts the image and, once asked for (every other name here), its runs
            // (a copy of the pixels kept for band copies), made once.
            if i % 2 == 0, let runs = sprites.runs(of: key) {
                #expect(sprites.runs(of: key) === runs)
                let again = sprites.sprite(key, layout: layout) { _, _, _ in }
                #expect(again.map { $0.bytes == $0.image.width * $0.image.height * 4 + runs.bytes } == true)
                #expect(runs.bytes >= sprite!.image.width * sprite!.image.height * 4)
                #expect(sprites.bytes <= 100_000)
            }
        }
        #expect(sprites.made == 200)
        #expect(sprites.count < 200 && sprites.count > 5)
        // A layout the text renderer lets go takes its sprite with it.
        let kept = sprites.count
        let layout = text.layout("Place 199", TextRenderer.Style(sizePx: 13, bold: false, width: nil, maxLines: 1))
        sprites.remove(layout: layout)
        #expect(sprites.count == kept - 1)
        cairo_destroy(cr); cairo_surface_destroy(s)
    }

    /// A text-scale change draws the names at the new size from new sprites: the frame equals
    /// one drawn directly at that scale, and differs from the old scale's.
    @Test func aTextScaleChangeMakesNewSprites() {
        let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 48.5, longitude: 9), zoom: 5))
        func frame(_ r: MapRenderer) -> OwnedFrameBuffer {
            let f = OwnedFrameBuffer(width: 640, height: 480)
            r.usesBaseMapCache = false
            r.render(scene, into: f.buffer)
            return f
        }
        let r = MapRenderer()
        let small = frame(r)
        let made = r.textRenderer.sprites.made
        #expect(made > 5)
        r.textScale = 1.6
        let big = frame(r)
        #expect(r.textRenderer.sprites.made > made)
        let direct = MapRenderer()
        direct.textRenderer.usesLabelSprites = false
        direct.textScale = 1.6
        let reference = frame(direct)
        #expect(Self.largestDifference(big, reference).level <= 2)
        #expect(Self.largestDifference(big, small).pixels > 1000)
    }
}
