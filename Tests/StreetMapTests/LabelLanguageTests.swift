import CCairo
import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering
@testable import TileSources
@testable import VectorTiles

/// A hand-made vector tile set (one z14 tile round Vaduz, OpenMapTiles schema) whose names
/// carry `name:xx` in several scripts, as tilemaker keeps them when its config asks.
/// The names are made up for the test (no OpenStreetMap data).
final class MultilingualTiles: TileSource, @unchecked Sendable {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)
    let path = "multilingual-test-tiles"
    let metadata = TileSetMetadata(name: "multilingual", format: "pbf", minZoom: 14, maxZoom: 14, kind: .vector,
                                   vectorLayers: ["place", "transportation_name", "transportation"])
    let tile: (x: Int, y: Int, data: Data)

    init() {
        let w = WebMercator.worldPoint(Self.vaduz, zoom: 14)
        let tx = Int(w.x / 256), ty = Int(w.y / 256)
        func local(_ c: Coordinate) -> (Int, Int) {
            let p = WebMercator.worldPoint(c, zoom: 14)
            return (Int(((p.x / 256) - Double(tx)) * 4096), Int(((p.y / 256) - Double(ty)) * 4096))
        }
        let town = local(Self.vaduz)
        let road = [local(Coordinate(latitude: 47.1395, longitude: 9.5140)), local(Coordinate(latitude: 47.1375, longitude: 9.5290))]
        var mvt = MVT()
        mvt.layer("place", features: [
            (.point, [town], ["class": "town", "rank": "1", "name": "Vaduz", "name:latin": "Vaduz", "name_int": "Vaduz",
                              "name:ja": "ファドゥーツ", "name:ar": "فادوتس", "name:zh": "瓦杜兹", "name:ko": "파두츠"]),
        ])
        mvt.layer("transportation", features: [(.line, road, ["class": "primary"])])
        mvt.layer("transportation_name", features: [
            (.line, road, ["class": "primary", "name": "Landstrasse", "name:latin": "Landstrasse", "name:ja": "ラントシュトラーセ",
                           "name:ar": "شارع لاند"]),
        ])
        tile = (tx, ty, mvt.data)
    }

    func tileData(z: Int, x: Int, y: Int) throws -> Data? {
        z == 14 && x == tile.x && y == tile.y ? tile.data : nil
    }
}

/// The Mapbox Vector Tile protobuf, written by hand: layers of point and line features with
/// string properties.
struct MVT {
    enum Kind: UInt64 { case point = 1, line = 2 }
    var data = Data()

    static func varint(_ v: UInt64, into d: inout Data) {
        var v = v
        while v >= 0x80 { d.append(UInt8(v & 0x7f) | 0x80); v >>= 7 }
        d.append(UInt8(v))
    }
    static func field(_ n: UInt64, bytes: Data, into d: inout Data) {
        varint(n << 3 | 2, into: &d); varint(UInt64(bytes.count), into: &d); d.append(bytes)
    }
    static func field(_ n: UInt64, varint v: UInt64, into d: inout Data) {
        varint(n << 3, into: &d); varint(v, into: &d)
    }
    static func zigzag(_ v: Int) -> UInt64 { UInt64(bitPattern: Int64((v << 1) ^ (v >> 63))) }

    mutating func layer(_ name: String, features: [(Kind, [(Int, Int)], [String: String])]) {
        var keys: [String] = [], values: [String] = []
        var layer = Data()
        Self.field(15, varint: 2, into: &layer)
        Self.field(1, bytes: Data(name.utf8), into: &layer)
        for (i, (kind, points, props)) in features.enumerated() {
            var f = Data()
            Self.field(1, varint: UInt64(i + 1), into: &f)
            var tags = Data()
            for (k, v) in props.sorted(by: { $0.key < $1.key }) {
                let ki = keys.firstIndex(of: k) ?? { keys.append(k); return keys.count - 1 }()
                let vi = values.firstIndex(of: v) ?? { values.append(v); return values.count - 1 }()
                Self.varint(UInt64(ki), into: &tags); Self.varint(UInt64(vi), into: &tags)
            }
            Self.field(2, bytes: tags, into: &f)
            Self.field(3, varint: kind.rawValue, into: &f)
            var geometry = Data()
            var cx = 0, cy = 0
            for (j, p) in points.enumerated() {
                if j == 0 { Self.varint(1 | 1 << 3, into: &geometry) }
                if j == 1 { Self.varint(2 | UInt64(points.count - 1) << 3, into: &geometry) }
                Self.varint(Self.zigzag(p.0 - cx), into: &geometry); Self.varint(Self.zigzag(p.1 - cy), into: &geometry)
                cx = p.0; cy = p.1
            }
            Self.field(4, bytes: geometry, into: &f)
            Self.field(2, bytes: f, into: &layer)
        }
        for k in keys { Self.field(3, bytes: Data(k.utf8), into: &layer) }
        for v in values {
            var value = Data()
            Self.field(1, bytes: Data(v.utf8), into: &value)
            Self.field(4, bytes: value, into: &layer)
        }
        Self.field(5, varint: 4096, into: &layer)
        Self.field(3, bytes: layer, into: &data)
    }
}

@Suite struct LabelLanguageTests {
    @Test func fallbackChain() {
        let all: [String: VectorTile.Value] = ["name": .string("Vaduz"), "name:latin": .string("Vaduz (latin)"),
                                               "name_int": .string("Vaduz (int)"), "name:ja": .string("ファドゥーツ")]
        #expect(LabelLanguage.name(all, language: "ja") == .string("ファドゥーツ"))
        var p = all; p["name:ja"] = nil
        #expect(LabelLanguage.name(p, language: "ja") == .string("Vaduz (int)"))
        p["name_int"] = nil
        #expect(LabelLanguage.name(p, language: "ja") == .string("Vaduz (latin)"))
        p["name:latin"] = nil
        #expect(LabelLanguage.name(p, language: "ja") == .string("Vaduz"))
        // An empty name:xx does not count.
        #expect(LabelLanguage.name(["name": .string("Vaduz"), "name:ja": .string("")], language: "ja") == .string("Vaduz"))
        // Every name key the style might read becomes the chosen name, but name:nonlatin goes, so
        // OSM Bright's "{name:latin}\n{name:nonlatin}" shows it once; no language: unchanged.
        let localized = LabelLanguage.localized(all, language: "ja")
        for key in LabelLanguage.nameKeys where key != "name:nonlatin" { #expect(localized[key] == .string("ファドゥーツ"), "\(key)") }
        #expect(localized["name:nonlatin"] == nil)
        let bright = StyleExpression.template("{name:latin}\n{name:nonlatin}")
        #expect(bright.evaluate(StyleContext(zoom: 14, properties: localized)).text == "ファドゥーツ")
        // A Latin-only name once (it was "Vaduz\nVaduz"); a name in both scripts on two lines.
        #expect(bright.evaluate(StyleContext(zoom: 14, properties: ["name": .string("Vaduz"), "name:latin": .string("Vaduz")])).text == "Vaduz")
        #expect(bright.evaluate(StyleContext(zoom: 14, properties: ["name:latin": .string("Moskva"), "name:nonlatin": .string("Москва")])).text == "Moskva\nМосква")
        #expect(LabelLanguage.localized(all, language: nil) == all)
        #expect(LabelLanguage.normalized("ja") == "ja" && LabelLanguage.normalized("zh-Hant") == "zh-Hant")
        #expect(LabelLanguage.normalized("") == nil && LabelLanguage.normalized("j") == nil && LabelLanguage.normalized("ja; rm") == nil)
    }

    func labels(language: String?, name: String) -> [PlacedStreetLabel] {
        let renderer = MapRenderer(vector: VectorTileSet(tiles: MultilingualTiles()))
        renderer.labelLanguage = language
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        renderer.render(MapScene(camera: CameraPosition(target: MultilingualTiles.vaduz, zoom: 15.2)), into: frame.buffer)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-street-tests")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? frame.buffer.writePNG(to: dir.appendingPathComponent(name + ".png").path)
        return renderer.streetLabels
    }

    @Test func theLanguagePicksTheNames() {
        let local = Set(labels(language: nil, name: "language-default").map(\.text))
        #expect(local.contains("Vaduz") && local.contains("Landstrasse"), "\(local)")
        let ja = Set(labels(language: "ja", name: "language-ja").map(\.text))
        #expect(ja.contains("ファドゥーツ") && ja.contains("ラントシュトラーセ"), "\(ja)")
        let ar = Set(labels(language: "ar", name: "language-ar").map(\.text))
        #expect(ar.contains("فادوتس") && ar.contains("شارع لاند"), "\(ar)")
        // Korean: the place has name:ko, the road falls back to name:latin.
        let ko = Set(labels(language: "ko", name: "language-ko").map(\.text))
        #expect(ko.contains("파두츠") && ko.contains("Landstrasse"), "\(ko)")
    }

    /// The Liechtenstein fixture keeps the names OpenStreetMap has in other scripts (tilemaker's
    /// `additional_languages`, scripts/street-fixture-languages.py): Vaduz in Japanese, Chinese,
    /// Korean, Arabic and Russian; without a language it stays "Vaduz".
    @Test func theFixtureKeepsNamesInOtherScripts() {
        let expected = ["ja": "ファドゥーツ", "zh": "瓦都茲", "ko": "파두츠", "ar": "فادوز", "ru": "Вадуц"]
        for (language, name) in expected.sorted(by: { $0.key < $1.key }) + [(nil, "Vaduz")] as [(String?, String)] {
            let renderer = MapRenderer(vector: MapRenderer.openTiles(path: pmtilesPath).vector)
            renderer.labelLanguage = language
            let frame = OwnedFrameBuffer(width: 800, height: 600)
            renderer.render(MapScene(camera: CameraPosition(target: Coordinate(latitude: 47.1395, longitude: 9.5225), zoom: 14.6)), into: frame.buffer)
            #expect(renderer.streetLabels.contains { $0.text == name }, "\(language ?? "local"): \(renderer.streetLabels.map(\.text))")
        }
    }

    /// Inked pixels of a text drawn black on white at 24 px.
    static func ink(_ s: String, text: TextRenderer) -> (pixels: [Bool], unknown: Int32) {
        let layout = text.layout(s, TextRenderer.Style(sizePx: 24, bold: false, width: nil, maxLines: 1))
        let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 240, 48)!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        cairo_set_source_rgb(cr, 1, 1, 1); cairo_paint(cr)
        text.draw(layout, cr: cr, x: 4, y: 4, color: RGBColor(r: 0, g: 0, b: 0))
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        let data = cairo_image_surface_get_data(surface)!, stride = Int(cairo_image_surface_get_stride(surface))
        var out: [Bool] = []
        for y in 0..<48 { for x in 0..<240 { out.append(data[y * stride + 4 * x + 1] < 128) } }
        return (out, pango_layout_get_unknown_glyphs_count(layout))
    }

    @Test(arguments: ["ファドゥーツ", "瓦杜兹", "파두츠", "فادوتس", "שלום", "वडूज़"])
    func everyScriptDrawsGlyphsNotBoxes(name: String) {
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        // A code point no font has (plane 16 private use): pango draws its hex box (tofu), as
        // many as the name's letters.
        let tofu = Self.ink(String(repeating: "\u{10FFFD}", count: name.count), text: text)
        #expect(tofu.unknown > 0, "the box glyph is a box")
        let drawn = Self.ink(name, text: text)
        #expect(drawn.unknown == 0, "\(name): \(drawn.unknown) glyphs missing from every font")
        let inked = drawn.pixels.filter { $0 }.count
        let differ = zip(drawn.pixels, tofu.pixels).filter { $0 != $1 }.count
        #expect(inked > 40, "\(name) is drawn")
        #expect(Double(differ) > 0.5 * Double(inked), "\(name) looks like boxes: \(differ) of \(inked) pixels differ")
    }

    @Test func lineLabelsInOtherScriptsHaveGlyphSprites() {
        let text = TextRenderer(family: MapStyle.standard.fontFamily)
        for name in ["ラントシュトラーセ", "شارع لاند"] {
            let t = LineText.make(text.layout(name, TextRenderer.Style(sizePx: 16, bold: false, width: nil, maxLines: 1)),
                                  color: StyleColor(r: 0, g: 0, b: 0), halo: StyleColor(r: 1, g: 1, b: 1), radius: 1)
            #expect(t.glyphs.filter { $0.image != nil }.count >= name.filter { $0 != " " }.count / 2, "\(name)")
            // Glyphs in visual order, left to right, within the text's width.
            for (a, b) in zip(t.glyphs, t.glyphs.dropFirst()) { #expect(a.penX <= b.penX + 1e-9) }
            #expect(abs((t.glyphs.last!.penX + t.glyphs.last!.advance) - t.width) < 1.5, "\(name)")
        }
    }
}
