import Foundation
import Testing
import TouchCore
import Gestures
import MapEngine
#if canImport(Glibc)
import Glibc
#endif
@testable import TouchBridge
@testable import Kiosk

/// SIGHUP re-reads the configuration: a good file is applied, a bad one keeps the old one.
@Suite(.serialized) struct ReloadTests {
    func tempConfig(_ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-reload-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("kiosk.toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    let base = """
    [[touch]]
    match = "/nonexistent/event99"
    [gestures]
    tap_slop_mm = 3.0
    [[markers]]
    id = "a"
    latitude = 1.0
    longitude = 2.0
    title = "A"
    """

    /// Runs the view's loop, sends itself SIGHUP once the first frame is up (after `edit`), and
    /// stops shortly after.
    func runWithHangup(_ view: Kiosk, edit: @escaping () -> Void) throws {
        var sent = false
        view.onFramePresented = { _, _ in
            guard !sent else { return }
            sent = true
            edit()
            raise(SIGHUP) // blocked by the loop on this thread: delivered through its signalfd
            view.stopTime = MonotonicClock.now() + 0.2
        }
        view.stopTime = MonotonicClock.now() + 5
        try view.run()
        #expect(sent)
    }

    @Test func aGoodNewFileIsApplied() throws {
        let path = try tempConfig(base)
        let view = try Kiosk(configuration: try KioskConfiguration.load(path: path), configPath: path,
                               display: MemoryDisplay(width: 640, height: 400), log: KioskLog(level: .error))
        #expect(view.pipeline.recognizer.thresholds.tapMaxMovement == 3)
        try runWithHangup(view) {
            try? (self.base.replacingOccurrences(of: "tap_slop_mm = 3.0", with: "tap_slop_mm = 4.5")
                  .replacingOccurrences(of: "id = \"a\"", with: "id = \"b\"")).write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(view.pipeline.recognizer.thresholds.tapMaxMovement == 4.5)
        #expect(view.controller.markers.map(\.id) == ["b"])
    }

    @Test func aBadNewFileKeepsTheRunningConfiguration() throws {
        let path = try tempConfig(base)
        let view = try Kiosk(configuration: try KioskConfiguration.load(path: path), configPath: path,
                               display: MemoryDisplay(width: 640, height: 400), log: KioskLog(level: .error))
        try runWithHangup(view) {
            try? (self.base + "\n[gestures]\ntap_slop_mm = \"wide\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(view.pipeline.recognizer.thresholds.tapMaxMovement == 3)
        #expect(view.controller.markers.map(\.id) == ["a"])
    }

    func view(_ path: String) throws -> Kiosk {
        try Kiosk(configuration: try KioskConfiguration.load(path: path), configPath: path,
                    display: MemoryDisplay(width: 640, height: 400), log: KioskLog(level: .error))
    }

    /// Issue 30: reload applies a new tiles file, style and text scale; a tiles file that does not
    /// open keeps the running map and says why.
    @Test func reloadSwitchesTheTilesFileAndTextScale() throws {
        let path = try tempConfig(base)
        let view = try view(path)
        #expect(view.renderer.raster == nil && view.renderer.vector == nil)
        try (base + "\n[map]\ntiles = \"\(CheckErrorsTests.raster)\"\ntext_scale = 1.5\n").write(toFile: path, atomically: true, encoding: .utf8)
        let r = view.reload()
        #expect(r.error == nil && r.restartNeeded == [], "\(r)")
        #expect(r.applied.contains("tiles") && r.applied.contains("text scale"), "\(r)")
        #expect(view.renderer.raster != nil && view.renderer.textScale == 1.5)
        #expect(view.configuration.map.source == .mbtiles(CheckErrorsTests.raster))
        // Vector tiles (PMTiles): the street map, with its tile worker.
        try (base + "\n[map]\ntiles = \"\(CheckErrorsTests.pmtiles)\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(view.reload().error == nil)
        #expect(view.renderer.vector != nil && view.renderer.raster == nil && view.tileWorker != nil && view.renderer.textScale == 1)
        let street = ObjectIdentifier(view.renderer)
        // A tiles file that is not there: refused (as check refuses it), the running map stays.
        try (base.replacingOccurrences(of: "id = \"a\"", with: "id = \"b\"") + "\n[map]\ntiles = \"/nonexistent/x.mbtiles\"\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let bad = view.reload()
        #expect(bad.error?.contains("/nonexistent/x.mbtiles") == true, "\(bad)")
        #expect(ObjectIdentifier(view.renderer) == street && view.controller.markers.map(\.id) == ["a"])
        // Back to the built-in world.
        try base.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(view.reload().error == nil)
        #expect(view.renderer.vector == nil && view.renderer.raster == nil && view.tileWorker == nil)
    }

    @Test func keysThatNeedARestartAreListedNotIgnored() throws {
        let path = try tempConfig(base)
        let view = try view(path)
        try (base.replacingOccurrences(of: "/nonexistent/event99", with: "/nonexistent/event98")
             + "\n[display]\nbackend = \"png\"\nsize = \"800x600\"\nmax_fps = 30\n[log]\nlevel = \"debug\"\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        let r = view.reload()
        #expect(r.error == nil)
        #expect(r.restartNeeded == ["display.backend", "display.size", "touch", "log.level"], "\(r)")
        #expect(r.applied.contains("max_fps") && view.configuration.display.maxFPS == 30)
        // The same file again: still listed (the running kiosk still has the old values).
        #expect(view.reload().restartNeeded == ["display.backend", "display.size", "touch", "log.level"])
        try base.write(toFile: path, atomically: true, encoding: .utf8)
        #expect(view.reload().restartNeeded == [])
    }

    @Test func cameraSettingsAreApplied() throws {
        let path = try tempConfig(base)
        let view = try view(path)
        view.pipeline.begin(at: MonotonicClock.now())
        #expect(view.controller.cameraMode == .free && view.controller.positionSource == nil)
        try (base + "\n[camera]\nposition = [47.14, 9.52]\nheading = 90.0\nmode = \"following\"\nfollowing_zoom = 15.0\n")
            .write(toFile: path, atomically: true, encoding: .utf8)
        #expect(view.reload().error == nil)
        #expect(view.controller.cameraMode == .following)
        #expect(view.controller.configuration.followingZoom == 15)
        let fix = view.controller.positionFix(at: MonotonicClock.now() + 5)
        #expect(fix.map { abs($0.coordinate.latitude - 47.14) < 1e-9 && abs($0.coordinate.longitude - 9.52) < 1e-9 } == true, "\(String(describing: fix))")
    }

    @Test func countersSurviveAReloadThatSwitchesTiles() throws {
        let path = try tempConfig(base)
        let view = try view(path)
        var framesAtHangup = 0
        try runWithHangup(view) {
            framesAtHangup = view.framesPresented
            try? (self.base + "\n[map]\ntiles = \"\(CheckErrorsTests.raster)\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(framesAtHangup >= 1)
        #expect(view.renderer.raster != nil)
        // The frame counter went on from where it was (the reload drew a frame with the new map).
        #expect(view.framesPresented > framesAtHangup)
        #expect(view.firstFrameTime != nil)
    }

    /// A new style for the vector tiles is applied too; one that does not parse is refused.
    @Test func reloadAppliesANewStyleAndRefusesABrokenOne() throws {
        let style = repoRoot.appendingPathComponent("Sources/VectorTiles/Resources/street-style.json").path
        let path = try tempConfig(base + "\n[map]\ntiles = \"\(CheckErrorsTests.pmtiles)\"\n")
        let view = try view(path)
        let first = ObjectIdentifier(view.renderer)
        try (base + "\n[map]\ntiles = \"\(CheckErrorsTests.pmtiles)\"\nstyle = \"\(style)\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        let r = view.reload()
        #expect(r.error == nil && r.applied.contains("style"), "\(r)")
        #expect(ObjectIdentifier(view.renderer) != first && view.configuration.map.style == style)
        let styled = ObjectIdentifier(view.renderer)
        let broken = (path as NSString).deletingLastPathComponent + "/broken-style.json"
        try "{ \"version\": 8, \"layers\": [ ".write(toFile: broken, atomically: true, encoding: .utf8)
        try (base + "\n[map]\ntiles = \"\(CheckErrorsTests.pmtiles)\"\nstyle = \"\(broken)\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        let bad = view.reload()
        #expect(bad.error?.contains("broken-style.json") == true, "\(bad)")
        #expect(ObjectIdentifier(view.renderer) == styled && view.configuration.map.style == style)
    }

    /// The stats' tile cache counters go on through a reload that replaces the tile set.
    @Test func tileCountersSurviveATilesSwitch() throws {
        let path = try tempConfig(base + "\n[map]\ntiles = \"\(CheckErrorsTests.raster)\"\nzoom = 3.0\n")
        let view = try view(path)
        view.pipeline.begin(at: MonotonicClock.now())
        view.drawAndPresent(now: MonotonicClock.now())
        let before = view.statsSnapshot(now: MonotonicClock.now())
        #expect(before.tileHits + before.tileMisses > 0)
        try (base + "\n[map]\ntiles = \"\(CheckErrorsTests.pmtiles)\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        #expect(view.reload().error == nil)
        let after = view.statsSnapshot(now: MonotonicClock.now())
        #expect(after.tileHits >= before.tileHits && after.tileMisses >= before.tileMisses, "\(before) -> \(after)")
    }

    /// A tiles file replaced under the same name (a new map version copied in and renamed over
    /// the old one) is reopened by reload; the same file again is not.
    @Test func aTilesFileReplacedUnderTheSameNameIsReopened() throws {
        let path = try tempConfig(base)
        let tiles = (path as NSString).deletingLastPathComponent + "/city.mbtiles"
        try FileManager.default.copyItem(atPath: CheckErrorsTests.raster, toPath: tiles)
        try (base + "\n[map]\ntiles = \"\(tiles)\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        let view = try view(path)
        #expect(view.renderer.raster != nil && view.renderer.vector == nil)
        let first = ObjectIdentifier(view.renderer)
        // Nothing changed: the open tile set (and its caches) stays.
        let same = view.reload()
        #expect(same.error == nil && !same.applied.contains("tiles"), "\(same)")
        #expect(ObjectIdentifier(view.renderer) == first)
        // The new version (vector tiles, so the switch shows) written beside it and renamed over it.
        let next = tiles + ".new"
        try FileManager.default.copyItem(atPath: CheckErrorsTests.pmtiles, toPath: next)
        #expect(rename(next, tiles) == 0)
        let r = view.reload()
        #expect(r.error == nil && r.applied.contains("tiles") && !r.applied.contains("style"), "\(r)")
        #expect(view.renderer.vector != nil && view.renderer.raster == nil && view.tileWorker != nil)
        #expect(view.configuration.map.source == .mbtiles(tiles))
        // Replaced by something that is not a tile set: refused, the running map stays.
        let street = ObjectIdentifier(view.renderer)
        try Data("not a tile set".utf8).write(to: URL(fileURLWithPath: next))
        #expect(rename(next, tiles) == 0)
        let bad = view.reload()
        #expect(bad.error?.contains("city.mbtiles") == true, "\(bad)")
        #expect(ObjectIdentifier(view.renderer) == street)
    }

    /// A style edited in place is reapplied by reload.
    @Test func aStyleEditedInPlaceIsReapplied() throws {
        let shipped = try String(contentsOfFile: repoRoot.appendingPathComponent("Sources/VectorTiles/Resources/street-style.json").path, encoding: .utf8)
        let path = try tempConfig(base)
        let style = (path as NSString).deletingLastPathComponent + "/style.json"
        try shipped.write(toFile: style, atomically: false, encoding: .utf8)
        try (base + "\n[map]\ntiles = \"\(CheckErrorsTests.pmtiles)\"\nstyle = \"\(style)\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        let view = try view(path)
        #expect(view.renderer.streetStyle.name == "TouchBridge Street")
        let unchanged = view.reload()
        #expect(unchanged.error == nil && !unchanged.applied.contains("style") && !unchanged.applied.contains("tiles"), "\(unchanged)")
        // Rewritten in place (not atomically: the same inode, a new size).
        try shipped.replacingOccurrences(of: "\"TouchBridge Street\"", with: "\"Shop window, edited\"")
            .write(toFile: style, atomically: false, encoding: .utf8)
        let r = view.reload()
        #expect(r.error == nil && r.applied.contains("style") && !r.applied.contains("tiles"), "\(r)")
        #expect(view.renderer.streetStyle.name == "Shop window, edited")
    }

    /// `[control] screenshot_dir` and `files_dir` are checked at each request: a reload applies
    /// them (neither ignored nor left for a restart); the socket itself needs a restart.
    @Test func theControlFoldersAreAppliedTheSocketNeedsARestart() throws {
        let path = try tempConfig(base)
        let dir = (path as NSString).deletingLastPathComponent
        try FileManager.default.createDirectory(atPath: dir + "/shots", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/icons", withIntermediateDirectories: true)
        let control = "\n[control]\nsocket = \"\(dir)/c.sock\"\n"
        try (base + control).write(toFile: path, atomically: true, encoding: .utf8)
        let view = try view(path)
        #expect(view.configuration.control.screenshotFolder == dir && view.filesFolder.folder == dir)
        try (base + control + "screenshot_dir = \"\(dir)/shots\"\nfiles_dir = \"\(dir)/icons\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        let r = view.reload()
        #expect(r.error == nil && r.applied.contains("control folders") && r.restartNeeded == [], "\(r)")
        #expect(view.configuration.control.screenshotFolder == dir + "/shots" && view.filesFolder.folder == dir + "/icons")
        try (base + "\n[control]\nsocket = \"\(dir)/other.sock\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        let moved = view.reload()
        #expect(moved.restartNeeded == ["control.socket"], "\(moved)")
        // The folders follow the socket the kiosk still serves, not the new one.
        #expect(view.configuration.control.screenshotFolder == dir)
    }
}
