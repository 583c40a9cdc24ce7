import CCairo
import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering
@testable import VectorTiles

/// POI icons (issue 27): the sprite (MapLibre format) read and checked, `icon-image` and the
/// icon properties of the style, icons placed with their names as one and drawn at the POI.
@Suite struct POIIconTests {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)

    func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-sprite-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        return d
    }

    func builtIn() throws -> SpriteIcons {
        let (icons, warnings) = SpriteIcons.load(for: StreetStyle.standard())
        #expect(warnings.isEmpty, "\(warnings)")
        return try #require(icons)
    }

    // MARK: the sprite

    @Test func theBuiltInSpriteCoversOpenMapTilesPOIClasses() throws {
        let icons = try builtIn()
        #expect(icons.sheets.count == 2, "1x and 2x")
        for name in ["restaurant", "cafe", "fast_food", "bar", "shop", "grocery", "pharmacy", "hospital", "doctors", "bus",
                     "railway", "museum", "attraction", "information", "toilets", "parking", "fuel", "bank", "atm", "post",
                     "school", "place_of_worship", "lodging", "hotel", "playground", "poi"] {
            #expect(icons.has(name), "no icon for \(name)")
        }
        // The 2x sheet holds the same icons at twice the pixels, for the same size on screen.
        let one = try #require(icons.sheets.first?.entries["cafe"]), two = try #require(icons.sheets.last?.entries["cafe"])
        #expect(two.pixelRatio == 2 && two.width == 2 * one.width)
        let size = try #require(icons.size("cafe", scale: 1))
        #expect(size.width == Double(one.width) && size.height == Double(one.height))
        #expect(icons.size("cafe", scale: 2)?.width == Double(two.width), "drawn twice as large from the 2x sheet")
    }

    @Test func aValidIndexParses() throws {
        let json = #"{"cafe": {"x": 0, "y": 0, "width": 22, "height": 22, "pixelRatio": 1}, "bus": {"x": 24, "y": 0, "width": 20, "height": 22}}"#
        let e = try SpriteSheet.parseIndex(Data(json.utf8), file: "s.json", imageWidth: 48, imageHeight: 22)
        #expect(e["cafe"] == SpriteSheet.Entry(x: 0, y: 0, width: 22, height: 22, pixelRatio: 1))
        #expect(e["bus"]?.width == 20 && e["bus"]?.pixelRatio == 1)
    }

    @Test(arguments: [
        (#"{"cafe": {"x": 0, "y": 0, "width": 22"#, "not valid JSON"),
        (#"["cafe"]"#, "a JSON object of icons"),
        (#"{"cafe": 3}"#, "\"cafe\" is not an object"),
        (#"{"cafe": {"x": 0, "y": 0, "width": 22.5, "height": 22}}"#, "\"cafe\".width is missing or not a whole number"),
        (#"{"cafe": {"x": 0, "height": 22, "width": 22}}"#, "\"cafe\".y is missing"),
        (#"{"cafe": {"x": 40, "y": 0, "width": 22, "height": 22}}"#, "lies outside the 48x22 px image"),
        (#"{"cafe": {"x": 0, "y": 0, "width": 0, "height": 22}}"#, "an icon is 1 to 512 px a side"),
        (#"{"cafe": {"x": 0, "y": 0, "width": 22, "height": 22, "pixelRatio": 9}}"#, "pixelRatio 9.0 is outside 1...4"),
    ])
    func aCorruptIndexIsReportedNamingTheFile(json: String, problem: String) {
        #expect {
            _ = try SpriteSheet.parseIndex(Data(json.utf8), file: "/etc/touchbridge/my-sprite.json", imageWidth: 48, imageHeight: 22)
        } throws: { error in
            let d = "\(error)"
            return d.hasPrefix("sprite /etc/touchbridge/my-sprite.json: ") && d.contains(problem)
        }
    }

    @Test func aCorruptOrOversizedImageIsReportedNamingTheFile() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let good = try Data(contentsOf: URL(fileURLWithPath: try #require(SpriteSheet.builtInBase()) + ".png"))
        let index = try Data(contentsOf: URL(fileURLWithPath: try #require(SpriteSheet.builtInBase()) + ".json"))
        func check(png: Data?, json: Data? = index, _ problem: String, file: String = "s.png") throws {
            let base = dir.appendingPathComponent("s").path
            try? FileManager.default.removeItem(atPath: base + ".png")
            if let png { try png.write(to: URL(fileURLWithPath: base + ".png")) }
            if let json { try json.write(to: URL(fileURLWithPath: base + ".json")) }
            #expect { _ = try SpriteSheet.load(base: base) } throws: { error in
                let d = "\(error)"
                return d.hasPrefix("sprite \(dir.appendingPathComponent(file).path): ") && d.contains(problem)
            }
        }
        try check(png: Data("not a png at all, just words".utf8), "not a PNG image")
        try check(png: good.prefix(good.count / 2), "a corrupt PNG")
        // A header claiming 100000 x 100000 px: refused before any pixel is decoded.
        var huge = good.prefix(33)
        huge.replaceSubrange(16..<24, with: [0, 1, 0x86, 0xA0, 0, 1, 0x86, 0xA0])
        try check(png: huge, "100000x100000 px: a sprite image may be at most 4096 px a side")
        try check(png: nil, "no such file")
        // A good image with an index that does not belong to it.
        try check(png: good, json: Data(#"{"big": {"x": 0, "y": 0, "width": 500, "height": 500}}"#.utf8), "lies outside", file: "s.json")
    }

    // MARK: the style

    func style(_ layout: String, sprite: String? = "touchbridge:poi", file: String = "my-style.json") throws -> StreetStyle {
        let spriteLine = sprite.map { "\"sprite\": \"\($0)\"," } ?? ""
        let json = """
        {"version": 8, \(spriteLine) "layers": [
          {"id": "bg", "type": "background", "paint": {"background-color": "#f0ece4"}},
          {"id": "poi", "type": "symbol", "source-layer": "poi", "filter": ["all", ["==", "$type", "Point"], ["has", "name:latin"]],
           "layout": {\(layout)}, "paint": {"text-color": "#333333", "text-halo-color": "#ffffff", "text-halo-width": 1}}]}
        """
        return try StreetStyle.parse(Data(json.utf8), file: file)
    }

    @Test func iconImageTakesTemplatesCoalesceAndMatch() throws {
        let icons = try builtIn()
        func name(_ iconImage: String, _ props: [String: VectorTile.Value]) throws -> String? {
            let s = try style(#""icon-image": \#(iconImage)"#)
            let e = try #require(s.layers[1].property("icon-image"))
            return icons.resolve(e, StyleContext(zoom: 16, properties: props, geometryType: .point))
        }
        let cafe: [String: VectorTile.Value] = ["class": .string("cafe"), "subclass": .string("cafe")]
        let parking: [String: VectorTile.Value] = ["class": .string("amenity"), "subclass": .string("parking")]
        let bollard: [String: VectorTile.Value] = ["class": .string("barrier"), "subclass": .string("bollard")]
        #expect(try name(#""{class}""#, cafe) == "cafe")
        #expect(try name(#""{class}""#, parking) == nil, "no icon called amenity")
        let coalesce = #"["coalesce", ["image", ["get", "subclass"]], ["image", ["get", "class"]], ["image", "poi"]]"#
        #expect(try name(coalesce, parking) == "parking")
        #expect(try name(coalesce, cafe) == "cafe")
        #expect(try name(coalesce, bollard) == "poi", "neither subclass nor class has an icon: the fallback")
        #expect(try name(#"["match", ["get", "class"], "cafe", "restaurant", "shop"]"#, cafe) == "restaurant")
        // OSM Bright names its icons with their size ("{class}_11"): the name without it is used.
        #expect(try name(#""{class}_11""#, cafe) == "cafe")
        #expect(try name(#""{class}_11""#, bollard) == nil)
    }

    @Test func iconPropertiesParseAndAreBounded() throws {
        let s = try style(#""icon-image": "cafe", "icon-size": 1.5, "icon-allow-overlap": true, "icon-ignore-placement": true, "icon-optional": true, "text-optional": true, "icon-padding": 4, "icon-offset": [0, -3], "icon-anchor": "bottom""#)
        let l = s.layers[1], c = StyleContext(zoom: 16)
        #expect(l.property("icon-size")?.evaluate(c).number == 1.5)
        for p in ["icon-allow-overlap", "icon-ignore-placement", "icon-optional", "text-optional"] { #expect(l.property(p)?.evaluate(c).isTruthy == true, "\(p)") }
        #expect(l.property("icon-padding")?.evaluate(c).number == 4)
        #expect(l.property("icon-anchor")?.evaluate(c).string == "bottom")
        #expect(s.sprite == "touchbridge:poi" && s.spriteLocation == .builtIn)
        #expect(throws: StyleError.self) { try style(#""icon-image": "cafe", "icon-size": 1e9"#) }
        // The icon properties drawn raise no notice; those not drawn (icon-rotate, icon-color) are reported once.
        #expect(s.notices.isEmpty, "\(s.notices.map { s.message($0) })")
        let r = try style(##""icon-image": "cafe", "icon-rotate": 45, "icon-color": "#f00""##)
        #expect(r.notices.map(\.property).sorted() == ["icon-color", "icon-rotate"])
    }

    @Test func aRemoteSpriteIsReportedAndNotFetched() throws {
        let s = try style(#""icon-image": "cafe", "text-field": "{name}""#, sprite: "https://tiles.example.com/styles/bright/sprite")
        #expect(s.spriteLocation == .remote("https://tiles.example.com/styles/bright/sprite"))
        let (icons, warnings) = SpriteIcons.load(for: s)
        #expect(icons == nil)
        // Said once, as a style notice (the log at load and `touchbridge check`), not again by the icons.
        #expect(warnings.isEmpty, "\(warnings)")
        let said = s.notices.filter { $0.property == "sprite" }.map { s.message($0) }
        #expect(said.count == 1 && said[0].contains("my-style.json") && said[0].contains("remote") && said[0].contains("Download"), "\(said)")
        // A style whose layers name icons but that has no sprite says so too.
        let none = SpriteIcons.load(for: try style(#""icon-image": "cafe""#, sprite: nil))
        #expect(none.0 == nil && none.warnings.first?.contains("no \"sprite\"") == true, "\(none.warnings)")
    }

    @Test func aLocalSpriteBesideTheStyleIsUsed() throws {
        let dir = try tempDir()
        defer { try? FileManager.default.removeItem(at: dir) }
        let base = try #require(SpriteSheet.builtInBase())
        try FileManager.default.copyItem(atPath: base + ".png", toPath: dir.appendingPathComponent("mine.png").path)
        try FileManager.default.copyItem(atPath: base + ".json", toPath: dir.appendingPathComponent("mine.json").path)
        let s = try style(#""icon-image": "cafe""#, sprite: "./mine", file: dir.appendingPathComponent("style.json").path)
        #expect(s.spriteLocation == .local(base: dir.appendingPathComponent("mine").path))
        let (icons, warnings) = SpriteIcons.load(for: s)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(icons?.sheets.count == 1 && icons?.has("cafe") == true)
        // A path that names nothing is reported with the file looked for.
        let missing = SpriteIcons.load(for: try style(#""icon-image": "cafe""#, sprite: "nowhere/sprite", file: dir.appendingPathComponent("style.json").path))
        #expect(missing.0 == nil && missing.warnings.first?.contains(dir.appendingPathComponent("nowhere/sprite.json").path) == true, "\(missing.warnings)")
    }

    // MARK: placement and drawing

    func render(bearing: Double = 0, tilt: Double = 0, zoom: Double = 17, size: (Int, Int) = (1024, 768), name: String? = nil) -> (OwnedFrameBuffer, MapRenderer, Projection) {
        renderStreet(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: zoom, bearing: bearing, tilt: tilt)),
                     width: size.0, height: size.1, name: name)
    }

    @Test func iconsAreDrawnAtTheirPOIs() throws {
        let (frame, renderer, projection) = render(name: "poi-icons-flat")
        let withIcons = renderer.streetLabels.filter { $0.icon != nil }
        #expect(withIcons.count >= 8, "\(withIcons.count) icons")
        let icons = try #require(renderer.streetIcons)
        for l in withIcons {
            let icon = l.icon!
            // Centred on the POI's point (whole pixels).
            let p = try #require(projection.point(for: l.coordinate))
            #expect(abs(icon.frame.midX - p.x) <= 1 && abs(icon.frame.midY - p.y) <= 1, "\(l.text): icon at \(icon.frame), POI at \(p)")
            // Its opaque pixels are the icon's, byte for byte (copied at a whole pixel, nothing over it).
            let img = try #require(icons.image(icon.name, scale: icon.scale))
            var opaque = 0, same = 0
            for y in 0..<img.height { for x in 0..<img.width {
                let s = img.pixel(x: x, y: y)
                guard s >> 24 == 0xff else { continue }
                opaque += 1
                if frame.buffer.pixel(x: Int(icon.frame.x) + x, y: Int(icon.frame.y) + y) & 0xffffff == s & 0xffffff { same += 1 }
            } }
            // (A neighbouring road name's antialiased edge may touch a pixel or two.)
            #expect(opaque > 200 && Double(same) >= 0.97 * Double(opaque), "\(l.text) (\(icon.name)): \(same) of \(opaque) opaque icon pixels on screen")
        }
        // The café at the POI is the café icon: its class chooses it.
        let named = withIcons.filter { ["cafe", "restaurant", "bus", "parking", "place_of_worship", "school", "fuel"].contains($0.icon!.name) }
        #expect(!named.isEmpty, "\(withIcons.map { $0.icon!.name })")
    }

    @Test(arguments: [(0.0, 0.0), (135, 0), (30, 50)])
    func noIconOrLabelOverlapsAnother(bearing: Double, tilt: Double) {
        let (_, renderer, projection) = render(bearing: bearing, tilt: tilt, name: "poi-icons-b\(Int(bearing))-t\(Int(tilt))")
        let labels = renderer.streetLabels
        let icons = labels.compactMap(\.icon)
        #expect(icons.count >= 5, "bearing \(bearing) tilt \(tilt): \(icons.count) icons")
        for (i, a) in labels.enumerated() {
            for b in labels[(i + 1)...] {
                for ba in a.boxes { for bb in b.boxes {
                    #expect(!ba.intersects(bb), "\(a.text) \(ba) overlaps \(b.text) \(bb)")
                } }
            }
            // An icon and its own name sit apart too (the name below the icon).
            if let icon = a.icon, a.drawsText { #expect(!icon.frame.intersects(a.frame), "\(a.text): icon \(icon.frame) under its name \(a.frame)") }
        }
        // Upright and full size, turned or tilted: every icon is its sprite size, centred on its POI.
        for l in labels where l.icon != nil {
            #expect(l.icon!.frame.width == 22 && l.icon!.frame.height == 22)
            if let p = projection.point(for: l.coordinate) { #expect(abs(l.icon!.frame.midX - p.x) <= 1 && abs(l.icon!.frame.midY - p.y) <= 1) }
        }
    }

    @Test func iconImagesAreMadeOnceNotPerFrame() throws {
        let renderer = MapRenderer(vector: MapRenderer.openTiles(path: mbtilesPath).vector)
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        let scene = MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 17))
        renderer.render(scene, into: frame.buffer)
        let icons = try #require(renderer.streetIcons)
        var names = Set(renderer.streetLabels.compactMap { $0.icon?.name })
        #expect(!names.isEmpty)
        #expect(icons.made == names.count, "one image per icon drawn: \(icons.made) for \(names.count)")
        // The same frame, turned and tilted, a gesture frame and back: icons are copied from the
        // images kept, a new one made only for an icon not drawn before.
        var cam = scene.camera
        cam.target = WebMercator.coordinate(world: WebMercator.worldPoint(Self.vaduz, zoom: 17) + Point(x: 7, y: 3), zoom: 17)
        for (s, q) in [(scene, MapRenderer.Quality.final), (MapScene(camera: CameraPosition(target: Self.vaduz, zoom: 17, bearing: 40, tilt: 30)), .final),
                       (MapScene(camera: cam), .interactive), (scene, .final)] {
            renderer.render(s, into: frame.buffer, quality: q)
            names.formUnion(renderer.streetLabels.compactMap { $0.icon?.name })
            #expect(icons.made == names.count, "\(icons.made) images for \(names.count) icons drawn so far")
        }
    }

    /// A renderer of the Liechtenstein tiles with a style of one POI layer.
    func renderPOIs(_ layout: String, zoom: Double = 16) throws -> MapRenderer {
        let s = try style(layout)
        let renderer = MapRenderer(vector: MapRenderer.openTiles(path: mbtilesPath).vector, streetStyle: s)
        #expect(renderer.spriteWarnings.isEmpty)
        let frame = OwnedFrameBuffer(width: 800, height: 600)   // kept alive while drawn into
        withExtendedLifetime(frame) { renderer.render(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: zoom)), into: frame.buffer) }
        return renderer
    }

    @Test func textOptionalKeepsIconsWhoseNamesDoNotFit() throws {
        let icon = #""icon-image": ["coalesce", ["image", ["get", "subclass"]], ["image", ["get", "class"]], ["image", "poi"]], "text-field": "{name}", "text-size": 14, "text-anchor": "top", "text-offset": [0, 1]"#
        let both = try renderPOIs(icon).streetLabels
        let optional = try renderPOIs(icon + #", "text-optional": true"#).streetLabels
        // Without text-optional an icon comes with its name or not at all.
        #expect(both.allSatisfy { $0.icon != nil && $0.drawsText })
        #expect(optional.contains { $0.icon != nil && !$0.drawsText }, "some names did not fit beside their icons")
        #expect(optional.filter { $0.icon != nil }.count > both.count)
        // icon-allow-overlap with icon-ignore-placement: every icon on screen is drawn.
        let all = try renderPOIs(#""icon-image": "poi", "icon-allow-overlap": true, "icon-ignore-placement": true"#).streetLabels
        #expect(all.count > optional.filter { $0.icon != nil }.count, "\(all.count) icons")
        #expect(all.allSatisfy { !$0.drawsText })
        // icon-size scales the icon; icon-anchor bottom puts its bottom on the point.
        let big = try renderPOIs(#""icon-image": "poi", "icon-size": 1.5, "icon-anchor": "bottom""#)
        let b = try #require(big.streetLabels.first?.icon)
        #expect(b.frame.width == 33 && abs(b.dy + 33) <= 0.5)
    }

    @Test func anIconIsPartOfItsPOIsTapTarget() throws {
        let (_, renderer, _) = render()
        let l = try #require(renderer.streetLabels.first { $0.icon != nil && $0.drawsText && $0.tappable })
        let poi = try #require(l.pointOfInterest)
        let box = try #require(poi.labelBox)
        let icon = l.icon!
        // The box (relative to the POI's point) holds the icon and the name.
        #expect(box.minX <= icon.dx && box.minY <= icon.dy)
        #expect(box.minX + box.size.width >= icon.dx + icon.frame.width && box.minY + box.size.height >= icon.dy + icon.frame.height)
        #expect(box.minY + box.size.height >= l.dy + l.frame.height - 2)
        // An icon whose name did not fit still reports its feature's name.
        let quiet = try renderPOIs(#""icon-image": "poi", "text-field": "{name}", "text-optional": true, "icon-allow-overlap": true"#).streetLabels
        let alone = try #require(quiet.first { !$0.drawsText && $0.icon != nil })
        #expect(!alone.text.isEmpty && alone.pointOfInterest?.name == alone.text)
    }
}
