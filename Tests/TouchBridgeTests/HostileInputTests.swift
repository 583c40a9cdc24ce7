import Foundation
import Testing
import MapEngine
import Platform
import Rendering
import Logging
import TileSources
import VectorTiles
@testable import TouchBridge
@testable import Kiosk

/// Issue 31, the rest of "hostile input": paths a control client names confined to the folders
/// the configuration allows (never through a symlink, never over a file the kiosk did not make),
/// request ids echoed exactly, `record --output` and `events | head`, files read with a size cap.
@Suite(.serialized) struct HostileInputTests {
    /// A temporary tree:
    ///   root/allowed/icon.png, allowed/sub/icon.png, allowed/fifo, allowed/dirlink -> root/outside,
    ///   allowed/filelink -> root/outside/secret.png, root/outside/secret.png
    final class Tree {
        let root: String
        var allowed: String { root + "/allowed" }
        var outside: String { root + "/outside" }
        init() throws {
            root = NSTemporaryDirectory() + "tb-hostile-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let fm = FileManager.default
            try fm.createDirectory(atPath: root + "/allowed/sub", withIntermediateDirectories: true)
            try fm.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
            for p in [allowed + "/icon.png", allowed + "/sub/icon.png", outside + "/secret.png"] { try Tree.png(8, 8).write(to: URL(fileURLWithPath: p)) }
            mkfifo(allowed + "/fifo", 0o600)
            try fm.createSymbolicLink(atPath: allowed + "/dirlink", withDestinationPath: outside)
            try fm.createSymbolicLink(atPath: allowed + "/filelink", withDestinationPath: outside + "/secret.png")
        }
        deinit { try? FileManager.default.removeItem(atPath: root) }

        /// A small RGB PNG (stored zlib blocks), as the e2e tests write one.
        static func png(_ w: Int, _ h: Int) -> Data {
            func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] }
            func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
                let tb = Array(type.utf8) + body
                var c: UInt32 = 0xFFFF_FFFF
                for b in tb { c ^= UInt32(b); for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 } }
                return be32(UInt32(body.count)) + tb + be32(~c)
            }
            var raw: [UInt8] = []
            for _ in 0..<h { raw.append(0); for _ in 0..<w { raw += [20, 40, 230] } }
            var a: UInt32 = 1, b: UInt32 = 0
            for x in raw { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
            let z: [UInt8] = [0x78, 0x01, 1, UInt8(raw.count & 255), UInt8(raw.count >> 8), ~UInt8(raw.count & 255), ~UInt8(raw.count >> 8)] + raw + be32(b << 16 | a)
            return Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", be32(UInt32(w)) + be32(UInt32(h)) + [8, 2, 0, 0, 0])
                        + chunk("IDAT", z) + chunk("IEND", []))
        }
    }

    func kiosk(_ tree: Tree, files: String? = nil, shots: String? = nil) throws -> Kiosk {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        cfg.control.filesDir = files ?? tree.allowed
        cfg.control.screenshotDir = shots ?? tree.allowed
        return try Kiosk(configuration: cfg, display: MemoryDisplay(width: 64, height: 48), log: KioskLog(level: .error))
    }

    func reply(_ view: Kiosk, _ line: String) throws -> JSONValue { try JSONValue.parse(view.answerControlLine(line)) }

    // MARK: confined paths

    @Test func pathsOutsideTheFolderAreRefusedFromTheirTextAlone() throws {
        let tree = try Tree()
        let c = ConfinedPath(folder: tree.allowed + "/", key: "control.files_dir")
        #expect(try c.components(of: tree.allowed + "/sub/icon.png") == ["sub", "icon.png"])
        // The same answer for a file that exists outside and for one that does not.
        func message(_ p: String) -> String {
            do { _ = try c.components(of: p); return "accepted" } catch let e as ControlError { return e.message.replacingOccurrences(of: p, with: "PATH") } catch { return "\(error)" }
        }
        let exists = message(tree.outside + "/secret.png"), missing = message(tree.outside + "/nothing.png")
        #expect(exists == missing && exists.contains("paths from clients must lie in control.files_dir"))
        for p in [tree.allowed + "/../outside/secret.png", tree.allowed + "/./icon.png", tree.allowed + "//icon.png", tree.allowed, tree.allowed + "x/icon.png", "relative.png"] {
            #expect(message(p) != "accepted", "\(p)")
        }
        #expect(throws: ControlError.self) { try ConfinedPath(folder: "", key: "control.files_dir").components(of: tree.allowed + "/icon.png") }
    }

    @Test func symlinksBelowTheFolderAreNeverFollowed() throws {
        let tree = try Tree()
        let c = ConfinedPath(folder: tree.allowed, key: "control.files_dir")
        try c.checkReadable(tree.allowed + "/icon.png", maxBytes: 1 << 20, what: "marker icon")
        try c.checkReadable(tree.allowed + "/sub/icon.png", maxBytes: 1 << 20, what: "marker icon")
        for (p, says) in [("/dirlink/secret.png", "symbolic link"), ("/filelink", "symbolic link"), ("/fifo", "not a regular file"), ("/nothing.png", "no such file")] {
            do { try c.checkReadable(tree.allowed + p, maxBytes: 1 << 20, what: "marker icon"); Issue.record("\(p) accepted") } catch let e as ControlError {
                #expect(e.message.contains(says), "\(p): \(e.message)")
            }
        }
        do { try c.checkReadable(tree.allowed + "/icon.png", maxBytes: 10, what: "marker icon"); Issue.record("size") } catch let e as ControlError {
            #expect(e.message.contains("may be at most"))
        }
        #expect(try c.read(tree.allowed + "/icon.png", maxBytes: 1 << 20, what: "icon") == Tree.png(8, 8))
    }

    @Test func iconsAndGroundImagesOverTheSocketComeFromFilesDir() throws {
        let tree = try Tree()
        let view = try kiosk(tree)
        let ok = try reply(view, #"{"id":1,"cmd":"add_marker","marker":"a","latitude":1,"longitude":2,"icon":"\#(tree.allowed)/sub/icon.png"}"#)
        #expect(ok["ok"] == .bool(true), "\(ok.text)")
        for icon in [tree.outside + "/secret.png", tree.allowed + "/filelink", tree.allowed + "/dirlink/secret.png", tree.allowed + "/fifo"] {
            let r = try reply(view, #"{"id":2,"cmd":"add_marker","marker":"b","latitude":1,"longitude":2,"icon":"\#(icon)"}"#)
            #expect(r["ok"] == .bool(false), "\(icon)")
        }
        let outside = try reply(view, #"{"id":3,"cmd":"add_overlay","overlay":"g","image":"\#(tree.outside)/secret.png","bounds":[9,47,10,48]}"#)
        #expect(outside["error"]?.string?.contains("must lie in control.files_dir") == true)
        let inside = try reply(view, #"{"id":4,"cmd":"add_overlay","overlay":"g","image":"\#(tree.allowed)/icon.png","bounds":[9,47,10,48]}"#)
        #expect(inside["ok"] == .bool(true), "\(inside.text)")
        let link = try reply(view, #"{"id":5,"cmd":"add_overlay","overlay":"h","image":"\#(tree.allowed)/dirlink/secret.png","bounds":[9,47,10,48]}"#)
        #expect(link["error"]?.string?.contains("symbolic link") == true)
    }

    @Test func screenshotsStayInScreenshotDirAndReplaceOnlyTheKiosksOwnFiles() throws {
        let tree = try Tree()
        let view = try kiosk(tree)
        let shot = tree.allowed + "/shot.png"
        #expect(try reply(view, #"{"id":1,"cmd":"screenshot","path":"\#(shot)"}"#)["ok"] == .bool(true))
        #expect(try reply(view, #"{"id":2,"cmd":"screenshot","path":"\#(shot)"}"#)["ok"] == .bool(true)) // its own file again
        for (p, says) in [(tree.outside + "/x.png", "must lie in control.screenshot_dir"), (tree.allowed + "/filelink", "symbolic link"),
                          (tree.allowed + "/dirlink/x.png", "symbolic link"), (tree.allowed + "/fifo", "not a regular file")] {
            let r = try reply(view, #"{"id":3,"cmd":"screenshot","path":"\#(p)"}"#)
            #expect(r["error"]?.string?.contains(says) == true, "\(p): \(r.text)")
            // A refusal on purpose does not send the reader to check the folder (seen in the VM test).
            #expect(r["error"]?.string?.contains("Check that its folder") == false, "\(p): \(r.text)")
        }
        // Nothing was written through the links; the FIFO is still a FIFO.
        #expect(try Data(contentsOf: URL(fileURLWithPath: tree.outside + "/secret.png")) == Tree.png(8, 8))
        #expect(!FileManager.default.fileExists(atPath: tree.outside + "/x.png"))
        var st = stat()
        #expect(lstat(tree.allowed + "/fifo", &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
        // A file with a second hard link (someone else's name for it) is not the kiosk's.
        link(tree.allowed + "/icon.png", tree.allowed + "/icon-link.png")
        let linked = try reply(view, #"{"id":4,"cmd":"screenshot","path":"\#(tree.allowed)/icon.png"}"#)
        #expect(linked["error"]?.string?.contains("hard links") == true)
        if geteuid() == 0 {
            chown(tree.allowed + "/sub/icon.png", 65534, 65534)
            let other = try reply(view, #"{"id":5,"cmd":"screenshot","path":"\#(tree.allowed)/sub/icon.png"}"#)
            #expect(other["error"]?.string?.contains("another user") == true)
        }
        // No temporary file is left behind by a refusal.
        let left = try FileManager.default.contentsOfDirectory(atPath: tree.allowed).filter { $0.hasSuffix(".tmp") }
        #expect(left.isEmpty)
    }

    @Test func theFoldersDefaultToTheSocketsFolderAndEmptyTurnsPathsOff() throws {
        var c = KioskConfiguration.ControlSettings()
        c.socket = "/run/touchbridge/control.sock"
        #expect(c.screenshotFolder == "/run/touchbridge" && c.filesFolder == "/run/touchbridge")
        c.filesDir = ""
        #expect(c.filesFolder == "")
        let cfg = try KioskConfiguration.parse(text: "[control]\nsocket = \"/run/tb/c.sock\"\nscreenshot_dir = \"/var/lib/tb/shots\"\nfiles_dir = \"\"\n", file: "k.toml")
        #expect(cfg.control.screenshotFolder == "/var/lib/tb/shots" && cfg.control.filesFolder == "")
        #expect(throws: ConfigError.self) { try KioskConfiguration.parse(text: "[control]\nfiles_dir = \"relative\"\n", file: "k.toml") }
    }

    // MARK: promises

    @Test func requestIdsAreEchoedExactly() throws {
        for id in ["12345678901234567890", "-0.10", "1e400", "12345678901234567E889", "3.14159265358979323846", "0"] {
            guard case .success(let r) = ControlRequest.parse(line: #"{"id": \#(id), "cmd": "help"}"#) else { Issue.record("\(id) did not parse"); continue }
            let reply = ControlReply.ok(id: r.id)
            #expect(reply.hasPrefix(#"{"id":\#(id),"ok":true"#), "\(id)")
            // fuzz-control's first finding: a reply echoing an id beyond a double reads back
            // when its id is read as text, as the request's was.
            #expect(try JSONValue.parse(reply, keepingNumberText: "id")["id"] == .numberText(id))
        }
        // Nested numbers are values, as before; only the top-level id keeps its text.
        guard case .success(let r) = ControlRequest.parse(line: #"{"id": {"n": 1.50}, "cmd": "help", "zoom": 12.50}"#) else { Issue.record("parse"); return }
        #expect(r.id == .object([("n", .number(1.5))]) && r.arguments[0].1 == .number(12.5))
        let tree = try Tree()
        #expect(try kiosk(tree).answerControlLine(#"{"id":98765432109876543210,"cmd":"nope"}"#).hasPrefix(#"{"id":98765432109876543210,"ok":false"#))
    }

    @Test func recordOutputRefusesFIFOsSymlinksAndDevices() throws {
        let tree = try Tree()
        for (p, says) in [(tree.allowed + "/fifo", "not a regular file"), (tree.allowed + "/filelink", "symbolic link"),
                          ("/dev/null", "not a regular file"), (tree.allowed + "/sub", "folder")] {
            #expect(throws: EventStreamWriter.CreateError.self) { try EventStreamWriter.createFile(path: p) }
            do { _ = try EventStreamWriter.createFile(path: p) } catch { #expect("\(error)".contains(says), "\(p): \(error)") }
        }
        var st = stat()
        #expect(lstat(tree.allowed + "/fifo", &st) == 0 && (st.st_mode & S_IFMT) == S_IFIFO)
        #expect(lstat(tree.allowed + "/filelink", &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK)
        #expect(try Data(contentsOf: URL(fileURLWithPath: tree.outside + "/secret.png")) == Tree.png(8, 8))
        // A regular file is emptied and written; a new one is made.
        let w = try EventStreamWriter.createFile(path: tree.allowed + "/icon.png")
        #expect(w.write("E: 1\n") == nil)
        #expect(try String(contentsOfFile: tree.allowed + "/icon.png", encoding: .utf8) == "E: 1\n")
        _ = try EventStreamWriter.createFile(path: tree.allowed + "/new.evemu")
        #expect(FileManager.default.fileExists(atPath: tree.allowed + "/new.evemu"))
    }

    @Test func aClosedReaderIsSeenWithoutWriting() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[1]) }
        #expect(!OutputWatch.waitForClose(fd: fds[1], timeout: 0.1)) // the reader is there
        close(fds[0])                                                 // `head -1` exits
        let start = MonotonicClock.now()
        #expect(OutputWatch.waitForClose(fd: fds[1], timeout: 5))
        #expect(MonotonicClock.now() - start < 1)
        #expect(!OutputWatch.waitForClose(fd: open("/dev/null", O_WRONLY), timeout: 0.1)) // never fires on a file
    }

    // MARK: file sizes

    @Test func filesAreReadOnlyWithinTheirSizeLimits() throws {
        let tree = try Tree()
        let big = tree.root + "/big.toml"
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, off_t(KioskConfiguration.maxFileBytes + 1)) == 0)   // sparse: no disk
        do { _ = try KioskConfiguration.load(path: big); Issue.record("loaded") } catch let e as ConfigError {
            #expect(e.message.contains("at most 8 MiB"), "\(e)")
        }
        #expect(truncate(big, off_t(1 << 30)) == 0)    // 1 GiB trapped on allocation
        #expect(throws: ConfigError.self) { try KioskConfiguration.load(path: big) }
        do { _ = try GeoJSONFile.read(big); Issue.record("read") } catch { #expect("\(error)".contains("at most 16 MiB")) }
        #expect(throws: ConfigError.self) { try KioskConfiguration.load(path: tree.allowed + "/fifo") }  // no hang on a FIFO
        #expect(CairoImage.pngFile(big) == nil)
    }
}

/// A tile over the vector tile budget in the running kiosk: the log names it once, and the rest
/// of the map is drawn.
@Suite struct TileBudgetLogTests {
    final class Tiles: TileSource, @unchecked Sendable {
        let path = "hostile.mbtiles"
        let metadata = TileSetMetadata(format: "pbf", minZoom: 0, maxZoom: 14, kind: .vector)
        let bad: Data
        init() {
            // One layer with VectorTile.maxFeatures + 1 point features (protobuf by hand):
            // feature = {type: POINT, geometry: [MoveTo 1, 2, 2]}
            let feature: [UInt8] = [0x18, 0x01, 0x22, 0x03, 0x09, 0x02, 0x02]
            var layer: [UInt8] = [0x0A, 0x03] + Array("poi".utf8) + [0x28, 0x80, 0x20, 0x78, 0x02]
            for _ in 0...VectorTile.maxFeatures { layer += [0x12, UInt8(feature.count)] + feature }
            var n = layer.count, len: [UInt8] = []
            while n >= 0x80 { len.append(UInt8(n & 0x7F) | 0x80); n >>= 7 }
            len.append(UInt8(n))
            bad = Data([0x1A] + len + layer)
        }
        func tileData(z: Int, x: Int, y: Int) throws -> Data? { bad }
    }

    @Test func aTileOverTheBudgetIsLoggedByNameOnce() throws {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47.14, longitude: 9.52), zoom: 12)
        let out = WrittenText()
        let logger = Logger(label: "touchbridge") { JournalLogHandler(label: $0, style: .plain, write: out.append) }
        let view = try Kiosk(configuration: cfg, display: MemoryDisplay(width: 320, height: 200), log: KioskLog(level: .info, logger: logger))
        view.view.renderer = MapRenderer(vector: VectorTileSet(tiles: Tiles()))
        view.drawAndPresent(now: 10)
        view.drawAndPresent(now: 11)
        let lines = out.text.split(separator: "\n").filter { $0.contains("over the tile budget") }
        #expect(!lines.isEmpty, "\(out.text)")
        #expect(lines.allSatisfy { $0.contains("tiles: hostile.mbtiles: tile ") && $0.contains("is skipped: over the tile budget: 100001 features") })
        #expect(Set(lines).count == lines.count) // each tile once, not once a frame
        #expect(view.stats.framesDrawn == 2)      // the map was drawn without it
    }
}
