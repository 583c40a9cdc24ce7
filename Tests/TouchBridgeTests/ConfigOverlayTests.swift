import Foundation
import Testing
import MapEngine
import TouchCore
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

/// `[[overlays]]`, `[route]`, `[position]`, `[camera] following_tilt` and `[map] cluster_markers`:
/// read when the file is loaded, every mistake named by file, line and key.
@Suite struct ConfigOverlayTests {
    let dir: String = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("tb-cfg-overlays-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    func parse(_ text: String) throws -> KioskConfiguration {
        try KioskConfiguration.parse(text: text, file: (dir as NSString).appendingPathComponent("kiosk.toml"))
    }

    func error(_ text: String) -> ConfigError? {
        do { _ = try parse(text); return nil } catch let e as ConfigError { return e } catch { return nil }
    }

    func write(_ name: String, _ text: String) -> String {
        let p = (dir as NSString).appendingPathComponent(name)
        try? text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    @Test func inlineShapesBecomeOverlaysWithTheirStyle() throws {
        let cfg = try parse("""
        [[overlays]]
        id = "walk"
        type = "polyline"
        coordinates = [[9.50, 47.10], [9.52, 47.12]]
        stroke = "#FF0000"
        stroke_width = 5.0
        dash = [4.0, 2.0]
        z_index = 3
        tappable = false
        [[overlays]]
        id = "square"
        type = "polygon"
        coordinates = [[9.50, 47.10], [9.52, 47.10], [9.52, 47.12], [9.50, 47.10]]
        fill = "#00FF00"
        fill_opacity = 0.25
        [[overlays]]
        id = "zone"
        type = "circle"
        center = [9.51, 47.11]
        radius_m = 250.0
        """)
        #expect(cfg.overlays.map(\.id) == ["walk", "square", "zone"])
        let walk = cfg.overlays[0]
        #expect(walk.zIndex == 3 && !walk.tappable)
        #expect(walk.shapes[0].style.stroke == 0xFF0000 && walk.shapes[0].style.strokeWidth == 5 && walk.shapes[0].style.dash == [4, 2])
        #expect(walk.shapes[0].geometry == .polyline([Coordinate(latitude: 47.10, longitude: 9.50), Coordinate(latitude: 47.12, longitude: 9.52)]))
        // A closed ring's repeated first point is dropped: the ring is the three corners.
        guard case .polygon(let rings) = cfg.overlays[1].shapes[0].geometry else { Issue.record("not a polygon"); return }
        #expect(rings.count == 1 && rings[0].count == 3)
        #expect(cfg.overlays[1].shapes[0].style.fill == 0x00FF00 && cfg.overlays[1].shapes[0].style.fillOpacity == 0.25)
        #expect(cfg.overlays[2].shapes[0].geometry == .circle(center: Coordinate(latitude: 47.11, longitude: 9.51), radius: 250))
    }

    @Test func aGeodesicLineIsDensifiedAlongTheGreatCircle() throws {
        let cfg = try parse("""
        [[overlays]]
        id = "flight"
        type = "polyline"
        coordinates = [[-74.0, 40.7], [2.35, 48.85]]
        geodesic = true
        """)
        guard case .polyline(let pts) = cfg.overlays[0].shapes[0].geometry else { Issue.record("not a line"); return }
        #expect(pts.count > 50)
        // The great circle from New York to Paris passes well north of both ends.
        #expect(pts.map(\.latitude).max()! > 51)
    }

    @Test func aGeoJSONFileIsReadRelativeToTheConfiguration() throws {
        _ = write("site.geojson", """
        {"type":"FeatureCollection","features":[
          {"type":"Feature","properties":{"stroke":"#123456","title":"Path"},"geometry":{"type":"LineString","coordinates":[[9.5,47.1],[9.6,47.2]]}},
          {"type":"Feature","properties":{"title":"Kiosk","description":"You are here"},"geometry":{"type":"Point","coordinates":[9.55,47.15]}}]}
        """)
        let cfg = try parse("[[overlays]]\nid = \"site\"\ngeojson = \"site.geojson\"\nz_index = 4\n")
        let o = try #require(cfg.overlays.first)
        #expect(o.zIndex == 4 && o.shapes.count == 1 && o.markers.count == 1)
        #expect(o.shapes[0].style.stroke == 0x123456)
        #expect(o.markers[0].title == "Kiosk" && o.markers[0].snippet == "You are here")
    }

    @Test func theRouteAndThePositionSettings() throws {
        _ = write("route.geojson", #"{"type":"LineString","coordinates":[[9.5,47.1],[9.51,47.11],[9.52,47.12]]}"#)
        let cfg = try parse("""
        [route]
        geojson = "route.geojson"
        [position]
        show = false
        accuracy_m = 30.0
        [camera]
        following_tilt = 30.0
        [map]
        cluster_markers = true
        """)
        #expect(cfg.route?.count == 3)
        #expect(!cfg.position.show && cfg.position.accuracyMeters == 30)
        #expect(cfg.camera.followingTilt == 30 && cfg.map.clusterMarkers)
        let m = cfg.mapConfiguration(density: PixelDensity(pixelsPerMillimetre: 5, source: .assumed))
        #expect(m.followingTilt == 30 && m.clusterMarkers)
        #expect(m.overlayHitSlop == 20)   // 4 mm at 5 px/mm
    }

    @Test func everyMistakeNamesItsLineAndKey() {
        let cases: [(String, Int, String, String)] = [
            ("[[overlays]]\ntype = \"polygon\"\n", 1, "overlays", "needs an id"),
            ("[[overlays]]\nid = \"a\"\ntype = \"polygon\"\ncoordinates = [[0.0, 0.0], [1.0, 1.0]]\n", 4, "overlays.coordinates", "at least 3"),
            ("[[overlays]]\nid = \"a\"\ntype = \"polyline\"\ncoordinates = [[0.0, 0.0], [200.0, 1.0]]\n", 4, "overlays.coordinates", "longitude"),
            ("[[overlays]]\nid = \"a\"\ntype = \"polyline\"\ncoordinates = [0.0, 1.0]\n", 4, "overlays.coordinates", "pair"),
            ("[[overlays]]\nid = \"a\"\ntype = \"circle\"\ncenter = [0.0, 0.0]\nradius_m = -3.0\n", 5, "overlays.radius_m", "metres"),
            ("[[overlays]]\nid = \"a\"\ntype = \"square\"\n", 3, "overlays.type", "polyline, polygon, circle or ground"),
            ("[[overlays]]\nid = \"a\"\ntype = \"circle\"\ncenter = [0.0, 0.0]\nradius_m = 3.0\nstroke = \"red\"\n", 6, "overlays.stroke", "#RRGGBB"),
            ("[[overlays]]\nid = \"a\"\ntype = \"circle\"\ncenter = [0.0, 0.0]\nradius_m = 3.0\nfill_opacity = 2.0\n", 6, "overlays.fill_opacity", "0...1"),
            ("[[overlays]]\nid = \"a\"\ntype = \"ground\"\nimage = \"nope.png\"\nbounds = [0.0, 0.0, 1.0, 1.0]\n", 4, "overlays.image", "cannot read"),
            ("[[overlays]]\nid = \"a\"\ngeojson = \"missing.geojson\"\n", 3, "overlays.geojson", "missing.geojson"),
            ("[[overlays]]\nid = \"a\"\ngeojson = \"x.geojson\"\ntype = \"circle\"\n", 4, "overlays.type", "not both"),
            ("[[overlays]]\nid = \"a\"\ntype = \"circle\"\ncenter = [0.0, 0.0]\nradius_m = 3.0\n[[overlays]]\nid = \"a\"\ntype = \"circle\"\ncenter = [0.0, 0.0]\nradius_m = 3.0\n",
             7, "overlays.id", "earlier"),
            ("[route]\ngeojson = \"missing-route.geojson\"\n", 2, "route.geojson", "missing-route.geojson"),
            ("[position]\naccuracy_m = -1.0\n", 2, "position.accuracy_m", "0...100000"),
            ("[camera]\nfollowing_tilt = 80.0\n", 2, "camera.following_tilt", "0...60"),
        ]
        for (text, line, key, words) in cases {
            // Among the file's errors (all are listed: issue 30; the geojson + type case also
            // says that x.geojson is missing).
            let all = error(text)?.all ?? []
            let e = all.first { $0.key == key } ?? all.first
            #expect(e?.line == line, "\(text): \(String(describing: e))")
            #expect(e?.key == key, "\(text): \(String(describing: e))")
            #expect(e?.message.contains(words) == true, "\(text): \(String(describing: e))")
        }
    }

    @Test func aBrokenGeoJSONFileIsAnErrorNamingTheFileAndWhere() {
        _ = write("bad.geojson", #"{"type":"Feature","properties":{},"geometry":{"type":"LineString","coordinates":[[9.5,47.1]]}}"#)
        let e = error("[[overlays]]\nid = \"a\"\ngeojson = \"bad.geojson\"\n")
        #expect(e?.key == "overlays.geojson")
        #expect(e?.message.contains("bad.geojson") == true)
        #expect(e?.message.contains("coordinates") == true, "\(String(describing: e))")
        _ = write("notjson.geojson", "{not json")
        #expect(error("[route]\ngeojson = \"notjson.geojson\"\n")?.message.contains("JSON") == true)
    }

    @Test func aGroundOverlayNeedsARealPNGOfBoundedSize() throws {
        let png = (dir as NSString).appendingPathComponent("plan.png")
        try DemoOverlays.writeFloorPlan(to: png, width: 64, height: 32)
        let cfg = try parse("[[overlays]]\nid = \"plan\"\ntype = \"ground\"\nimage = \"plan.png\"\nbounds = [9.5, 47.1, 9.6, 47.2]\nbearing = 15.0\nopacity = 0.5\n")
        #expect(cfg.overlays[0].shapes[0].geometry == .groundImage(path: png, bounds: CoordinateBounds(west: 9.5, south: 47.1, east: 9.6, north: 47.2),
                                                                   bearing: 15, opacity: 0.5))
        _ = write("fake.png", "not a png at all, just text")
        #expect(error("[[overlays]]\nid = \"p\"\ntype = \"ground\"\nimage = \"fake.png\"\nbounds = [0.0, 0.0, 1.0, 1.0]\n")?.message.contains("not a PNG") == true)
        // A header claiming 100000 x 100000 px is refused before anything is decoded.
        var huge: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        huge += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 6, 0, 0, 0]
        _ = FileManager.default.createFile(atPath: (dir as NSString).appendingPathComponent("huge.png"), contents: Data(huge))
        #expect(error("[[overlays]]\nid = \"p\"\ntype = \"ground\"\nimage = \"huge.png\"\nbounds = [0.0, 0.0, 1.0, 1.0]\n")?.message.contains("100000x100000") == true)
    }
}

/// Images a file or a client names are checked by size and header before anything decodes
/// them (issue 31: a 48 KB PNG bomb cost 1.57 GB, a 1 GiB file 2.09 GB).
@Suite struct PNGFileCheckTests {
    let dir: String = {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("tb-pngcheck-\(getpid())").path
        try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
        return d
    }()

    @Test func aBombAHugeFileAndANonFileAreRefusedUndecoded() throws {
        // A header claiming 100000 x 100000 px (then nothing): refused by its header.
        var bomb: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]
        bomb += [0x00, 0x01, 0x86, 0xA0, 0x00, 0x01, 0x86, 0xA0, 8, 6, 0, 0, 0]
        let b = (dir as NSString).appendingPathComponent("bomb.png")
        _ = FileManager.default.createFile(atPath: b, contents: Data(bomb))
        guard case .failure(let e) = MarkerLook.icon(path: b) else { Issue.record("the bomb was taken"); return }
        #expect(e.message.contains("100000x100000") && e.message.contains("512x512"))
        // A sparse 1 GiB file: refused by its size, not read.
        let big = (dir as NSString).appendingPathComponent("big.png")
        _ = FileManager.default.createFile(atPath: big, contents: Data(bomb))
        let fh = try #require(FileHandle(forWritingAtPath: big))
        try fh.truncate(atOffset: 1 << 30)
        try fh.close()
        defer { try? FileManager.default.removeItem(atPath: big) }
        guard case .failure(let e2) = MarkerLook.icon(path: big) else { Issue.record("the 1 GiB file was taken"); return }
        #expect(e2.message.contains("1073741824 bytes"))
        #expect(GroundImageCheck.problem(path: big)?.contains("32 MiB") == true)
        // A folder is not an image.
        #expect(PNGFileCheck.problem(path: dir, maxSide: 512, maxBytes: 1 << 20, what: "icon")?.contains("not a regular file") == true)
        // A real small PNG passes.
        let ok = (dir as NSString).appendingPathComponent("ok.png")
        try DemoOverlays.writeFloorPlan(to: ok, width: 40, height: 20)
        #expect(PNGFileCheck.problem(path: ok, maxSide: 512, maxBytes: 1 << 20, what: "icon") == nil)
        guard case .success = MarkerLook.icon(path: ok) else { Issue.record("a real icon was refused"); return }
    }
}
