import Foundation
import Testing
import MapEngine
import TouchDevices
#if canImport(Glibc)
import Glibc
#endif
@testable import TouchBridge
@testable import Kiosk

/// `check` refuses what `run` would (issue 30): every error of a file, each with file, line,
/// key and what to do; what the file names on this machine (tiles, style, folders); bounds.
@Suite struct CheckErrorsTests {
    static let raster = repoRoot.appendingPathComponent("Tests/RenderingTests/Fixtures/node-mbtiles_plain_1.mbtiles").path
    static let pmtiles = repoRoot.appendingPathComponent("Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.pmtiles").path
    static let vectorMBTiles = repoRoot.appendingPathComponent("Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.mbtiles").path

    func tempDir() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-check-\(getpid())-\(UInt32.random(in: 0...UInt32.max))").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// The errors of a text, checked as `check` does (files too), or [] when it passes.
    func errors(_ text: String, file: String = "/etc/touchbridge/t.toml") -> [ConfigError] {
        do { _ = try KioskConfiguration.parse(text: text, file: file, checkFiles: true); return [] } catch let e as ConfigError {
            return e.all
        } catch { return [ConfigError(file: file, line: nil, key: nil, message: "\(error)")] }
    }

    @Test func everyErrorOfTheFileIsListedInLineOrder() {
        let e = errors("""
        [display]
        backend = "png"
        png_dir = "/tmp"
        conector = "HDMI-A-1"
        [map]
        zoom = 99
        tilt = 80
        [log]
        level = "loud"
        """)
        #expect(e.map(\.key) == ["display.conector", "map.zoom", "map.tilt", "log.level"], "\(e)")
        #expect(e.map(\.line) == [4, 6, 7, 9])
        #expect(e[0].message.contains("did you mean 'connector'"))
        // The thrown error's description lists them all, one a line.
        do { _ = try KioskConfiguration.parse(text: "[map]\nzoom = 99\ntilt = 80\n", file: "f.toml") } catch let e as ConfigError {
            #expect(e.description == "f.toml:2: key 'map.zoom': must be within 0...24, got 99.0\nf.toml:3: key 'map.tilt': must be within 0...75, got 80.0")
        } catch { Issue.record("\(error)") }
    }

    @Test func errorsInSeveralMarkersAndTypesAreAllListed() {
        let e = errors("""
        [[markers]]
        latitude = 95.0
        longitude = 2.0
        color = "red"
        [[markers]]
        latitude = 1.0
        longitude = 2.0
        z_index = "top"
        """)
        #expect(e.map(\.key) == ["markers.latitude", "markers.color", "markers.z_index"], "\(e)")
        #expect(e.map(\.line) == [2, 4, 8])
    }

    /// The file's markers within the socket's bounds (issue 31, docs/limits.md): at most
    /// `MarkerLimits.maxMarkers`, titles and snippets within their byte limits.
    @Test func theFilesMarkersAreBoundedAsTheSocketsAre() {
        let many = String(repeating: "[[markers]]\nlatitude = 1.0\nlongitude = 2.0\n", count: MarkerLimits.maxMarkers + 1)
        let e = errors(many)
        #expect(e.count == 1 && e[0].message.contains("at most \(MarkerLimits.maxMarkers) markers"), "\(e.prefix(3))")
        #expect(errors(String(repeating: "[[markers]]\nlatitude = 1.0\nlongitude = 2.0\n", count: MarkerLimits.maxMarkers)).isEmpty)
        let long = errors("""
        [[markers]]
        latitude = 1.0
        longitude = 2.0
        title = "\(String(repeating: "x", count: MarkerLimits.maxTitleBytes + 1))"
        [[markers]]
        latitude = 1.0
        longitude = 2.0
        snippet = "\(String(repeating: "y", count: MarkerLimits.maxSnippetBytes + 1))"
        """)
        #expect(long.map(\.key) == ["markers.title", "markers.snippet"], "\(long)")
    }

    @Test func aBadKeyInASectionDoesNotHideTheChecksOfItsOtherKeys() throws {
        // zoom out of range used to leave [map] unread: its tiles file and bounds went unchecked.
        let file = try tempDir() + "/plain-file"
        try Data().write(to: URL(fileURLWithPath: file))
        let e = errors("""
        [map]
        tiles = "/nonexistent/city.mbtiles"
        latitude = 48.85
        longitude = 2.35
        bounds = [48.8, 2.2, 48.9, 2.5]
        zoom = 30
        [display]
        backend = "png"
        max_fps = 0
        png_dir = "\(file)/frames"
        [[markers]]
        latitude = 48.85
        longitude = 2.35
        color = "red"
        icon = "/nonexistent/pin.png"
        """)
        #expect(e.map(\.key) == ["map.tiles", "map.bounds", "map.zoom", "display.max_fps", "display.png_dir", "markers.color", "markers.icon"], "\(e)")
        #expect(e.first { $0.key == "map.bounds" }?.message.contains("swapped") == true)
        // A start camera that is itself wrong gives no second error about the bounds.
        let lat = errors("[map]\nlatitude = 95.0\nlongitude = 2.35\nbounds = [2.2, 48.8, 2.5, 48.9]\n")
        #expect(lat.map(\.key) == ["map.latitude"], "\(lat)")
    }

    @Test func aMissingTilesFileIsAnErrorNotTheWorldMap() {
        let e = errors("[map]\nsource = \"tiles\"\ntiles = \"/nonexistent/city.mbtiles\"\n")
        #expect(e.count == 1 && e[0].key == "map.tiles" && e[0].line == 3, "\(e)")
        #expect(e[0].message.contains("/nonexistent/city.mbtiles") && e[0].message.contains("builtin"))
        #expect(!e[0].message.contains("Showing the built-in world"))
        // The older key name is the one named when the file uses it.
        let old = errors("[map]\nmbtiles = \"/nonexistent/city.mbtiles\"\n")
        #expect(old.first?.key == "map.mbtiles" && old.first?.line == 2)
    }

    @Test func aTilesFileThatIsNotATileSetIsAnError() throws {
        let dir = try tempDir()
        let junk = dir + "/junk.mbtiles"
        try Data("not a tile set at all".utf8).write(to: URL(fileURLWithPath: junk))
        let e = errors("[map]\ntiles = \"\(junk)\"\n")
        #expect(e.count == 1 && e[0].key == "map.tiles", "\(e)")
        #expect(errors("[map]\ntiles = \"\(CheckErrorsTests.raster)\"\n").isEmpty)
        #expect(errors("[map]\ntiles = \"\(CheckErrorsTests.pmtiles)\"\n").isEmpty)
    }

    @Test func aStyleThatDoesNotOpenIsAnError() throws {
        let dir = try tempDir()
        let bad = dir + "/style.json"
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: bad))
        for path in ["/nonexistent/style.json", bad] {
            let e = errors("[map]\ntiles = \"\(CheckErrorsTests.vectorMBTiles)\"\nstyle = \"\(path)\"\n")
            #expect(e.count == 1 && e[0].key == "map.style" && e[0].line == 3, "\(e)")
            #expect(e.first?.message.contains(path) == true, "\(e)")
        }
    }

    @Test func folderProblemsAreErrors() throws {
        let dir = try tempDir()
        let file = dir + "/plain-file"
        try Data().write(to: URL(fileURLWithPath: file))
        let e = errors("""
        [display]
        backend = "png"
        png_dir = "\(file)/frames"
        [control]
        socket = "/nonexistent-folder/control.sock"
        [log]
        events = "/nonexistent-folder/events.jsonl"
        """)
        #expect(e.map(\.key) == ["display.png_dir", "control.socket", "log.events"], "\(e)")
        #expect(e[0].message.contains(file) && e[1].message.contains("/nonexistent-folder") && e[1].message.contains("RuntimeDirectory"))
        // A png_dir that does not exist yet but can be made passes (run makes it).
        #expect(errors("[display]\nbackend = \"png\"\npng_dir = \"\(dir)/a/b/frames\"\n").isEmpty)
        #expect(errors("[control]\nsocket = \"\(dir)/control.sock\"\n[log]\nevents = \"\(dir)/events.jsonl\"\n").isEmpty)
    }

    @Test func devicesNamedByPathMustExist() {
        #expect(errors("[display]\nbackend = \"fbdev\"\nfbdev = \"/dev/fb-nonexistent\"\n").map(\.key) == ["display.fbdev"])
        #expect(errors("[display]\ncard = \"/dev/dri/card-nonexistent\"\n").map(\.key) == ["display.card"])
        // An absent touchscreen is no error: the kiosk waits for it (and says which).
        #expect(errors("[[touch]]\nmatch = \"/dev/input/event-nonexistent\"\n").isEmpty)
    }

    @Test func filesAreCheckedOnlyWhenAsked() throws {
        // `parse` alone (the SDK, the tests) reads the text; `load` and `check` check the files.
        let text = "[map]\ntiles = \"/nonexistent/city.mbtiles\"\n"
        #expect(throws: Never.self) { _ = try KioskConfiguration.parse(text: text, file: "f.toml") }
        let dir = try tempDir()
        try text.write(toFile: dir + "/k.toml", atomically: true, encoding: .utf8)
        #expect(throws: ConfigError.self) { _ = try KioskConfiguration.load(path: dir + "/k.toml") }
        #expect(throws: Never.self) { _ = try KioskConfiguration.load(path: dir + "/k.toml", checkFiles: false) }
    }

    @Test func boundsOrderAndLatitudes() {
        func boundsError(_ b: String) -> ConfigError? { errors("[map]\nbounds = \(b)\n").first }
        #expect(boundsError("[2.2, 48.8, 2.5, 48.9]") == nil)
        let southNorth = boundsError("[2.2, 48.9, 2.5, 48.8]")
        #expect(southNorth?.key == "map.bounds" && southNorth?.message.contains("south (48.9) must be below north (48.8)") == true, "\(String(describing: southNorth))")
        #expect(boundsError("[2.5, 48.8, 2.2, 48.9]")?.message.contains("west (2.5) must be below east (2.2)") == true)
        #expect(boundsError("[170.0, -20.0, -170.0, 0.0]")?.message.contains("antimeridian") == true)
        #expect(boundsError("[0.0, -89.0, 10.0, 10.0]")?.message.contains("85.05") == true)
        #expect(boundsError("[0.0, 10.0, 10.0]")?.message.contains("four numbers") == true)
    }

    @Test func swappedLatitudeAndLongitudeAreCaught() {
        // Paris's box written latitude first: a valid box over the Horn of Africa.
        let e = errors("[map]\nlatitude = 48.85\nlongitude = 2.35\nbounds = [48.8, 2.2, 48.9, 2.5]\n")
        #expect(e.count == 1 && e[0].key == "map.bounds" && e[0].line == 4, "\(e)")
        #expect(e.first?.message.contains("swapped") == true && e.first?.message.contains("[2.2, 48.8, 2.5, 48.9]") == true, "\(e)")
        // Markers tell the same when the start camera is not set.
        let m = errors("[map]\nbounds = [48.8, 2.2, 48.9, 2.5]\n[[markers]]\nlatitude = 48.85\nlongitude = 2.35\n")
        #expect(m.first?.message.contains("swapped") == true, "\(m)")
        // A start camera outside a right box is an error too, without the swap advice.
        let out = errors("[map]\nlatitude = 40.0\nlongitude = 2.35\nbounds = [2.2, 48.8, 2.5, 48.9]\n")
        #expect(out.count == 1 && out.first?.message.contains("outside bounds") == true && out.first?.message.contains("swapped") == false, "\(out)")
    }

    @Test func theTileContainerIsNamedByItsContent() {
        #expect(TileFileCheck.container(path: CheckErrorsTests.pmtiles) == "PMTiles")
        #expect(TileFileCheck.container(path: CheckErrorsTests.raster) == "MBTiles")
        #expect(TileFileCheck.container(path: "/nonexistent") == nil)
    }

    @Test func anAbsentTouchscreenIsNamedWithItsMatch() {
        var cfg = KioskConfiguration()
        cfg.touch = [KioskConfiguration.TouchSettings(match: .path("/dev/input/event-nonexistent")),
                     KioskConfiguration.TouchSettings(match: .name("Goodix"))]
        let lines = MapView.missingTouchscreens(cfg, found: [])
        #expect(lines.count == 2, "\(lines)")
        #expect(lines[0].contains("match = \"/dev/input/event-nonexistent\"") && lines[0].contains("does not exist"))
        #expect(lines[1].contains("name containing \"Goodix\""))
        // The path found (and a touchscreen open, which may be the name's): nothing to say.
        #expect(MapView.missingTouchscreens(cfg, found: ["/dev/input/event-nonexistent"]).isEmpty)
        #expect(MapView.missingTouchscreens(cfg, found: ["/dev/input/event7"]).count == 1)
        #expect(MapView.missingTouchscreens(KioskConfiguration(), found: ["/dev/input/event3"]).isEmpty)
        #expect(MapView.missingTouchscreens(KioskConfiguration(), found: []).count == 1)
    }
}
