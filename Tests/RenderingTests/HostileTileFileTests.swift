import CCairo
import CSQLite
import CZlib
import Foundation
import MapEngine
import Platform
import Testing
import TouchCore
@testable import Rendering
@testable import TileSources

/// Tile files written by someone else (issue 19): each crafted file gets a clear message naming
/// it, is refused or has its bad part skipped, and the rest of the map is drawn. None of these
/// may hang or allocate without bound.
@Suite struct HostileTileFileTests {
    // MARK: crafted files

    /// A temporary SQLite file made by `statements`; tiles given as (z, x, tmsRow, bytes).
    static func mbtiles(_ statements: [String], tiles: [(Int, Int, Int, Data)] = [], table: String = "tiles") throws -> String {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("tb-hostile-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).mbtiles").path
        var db: OpaquePointer?
        guard sqlite3_open(path, &db) == SQLITE_OK else { throw CocoaError(.fileWriteUnknown) }
        defer { sqlite3_close(db) }
        for sql in statements {
            guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
                Issue.record("\(sql): \(String(cString: sqlite3_errmsg(db)))")
                throw CocoaError(.fileWriteUnknown)
            }
        }
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO \(table) (zoom_level, tile_column, tile_row, tile_data) VALUES (?1, ?2, ?3, ?4)", -1, &stmt, nil)
        defer { sqlite3_finalize(stmt) }
        for (z, x, y, data) in tiles {
            sqlite3_reset(stmt)
            sqlite3_bind_int(stmt, 1, Int32(z)); sqlite3_bind_int(stmt, 2, Int32(x)); sqlite3_bind_int(stmt, 3, Int32(y))
            _ = data.withUnsafeBytes { sqlite3_bind_blob(stmt, 4, $0.baseAddress, Int32($0.count), tb_sqlite_transient()) }
            #expect(sqlite3_step(stmt) == SQLITE_DONE)
        }
        return path
    }

    static let plainSchema = ["CREATE TABLE metadata (name text, value text)",
                              "CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)",
                              "CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row)"]

    /// A 256x256 PNG of one colour, encoded by cairo.
    static func png(_ rgb: UInt32, width: Int = 256, height: Int = 256) -> Data {
        let s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))!
        defer { cairo_surface_destroy(s) }
        let cr = cairo_create(s)!
        cairo_set_source_rgb(cr, Double(rgb >> 16 & 0xff) / 255, Double(rgb >> 8 & 0xff) / 255, Double(rgb & 0xff) / 255)
        cairo_paint(cr)
        cairo_destroy(cr)
        let path = NSTemporaryDirectory() + "tb-png-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).png"
        defer { unlink(path) }
        cairo_surface_write_to_png(s, path)
        return FileManager.default.contents(atPath: path) ?? Data()
    }

    /// A PNG whose header claims width x height (RGB) with a tiny, valid zlib stream of zero rows:
    /// a few hundred bytes that would decode into width * height * 4 bytes.
    static func pngBomb(width: UInt32, height: UInt32) -> Data {
        func chunk(_ type: String, _ body: [UInt8]) -> [UInt8] {
            let typed = Array(type.utf8) + body
            let crc = UInt32(typed.withUnsafeBufferPointer { crc32(0, $0.baseAddress, uInt($0.count)) })
            return be(UInt32(body.count)) + typed + be(crc)
        }
        func be(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }
        var zero = [UInt8](repeating: 0, count: 4096)
        var out = [UInt8](repeating: 0, count: 8192)
        var outLen = uLongf(out.count)
        _ = compress(&out, &outLen, &zero, uLong(zero.count))
        let ihdr = be(width) + be(height) + [8, 2, 0, 0, 0]
        let bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr)
            + chunk("IDAT", Array(out[0..<Int(outLen)])) + chunk("IEND", [])
        return Data(bytes)
    }

    /// A WebP (lossless) header claiming 16384 x 16384 pixels.
    static func webpBomb() -> Data {
        // VP8L: signature 0x2f, then 14 bits width-1, 14 bits height-1, alpha, version (LSB first).
        let bits: UInt32 = 16383 | 16383 << 14
        let vp8l: [UInt8] = [0x2f, UInt8(bits & 0xff), UInt8(bits >> 8 & 0xff), UInt8(bits >> 16 & 0xff), UInt8(bits >> 24 & 0xff)]
            + [UInt8](repeating: 0, count: 20)
        func le(_ v: Int) -> [UInt8] { [UInt8(v & 0xff), UInt8(v >> 8 & 0xff), UInt8(v >> 16 & 0xff), UInt8(v >> 24 & 0xff)] }
        let body = Array("WEBP".utf8) + Array("VP8L".utf8) + le(vp8l.count) + vp8l
        return Data(Array("RIFF".utf8) + le(body.count) + body)
    }

    /// A JPEG header (SOF0) claiming 60000 x 60000 pixels, one component, then scan and end.
    static func jpegBomb() -> Data {
        var b: [UInt8] = [0xFF, 0xD8]
        b += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)           // a quantisation table
        b += [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0xEA, 0x60, 0xEA, 0x60, 0x01, 0x01, 0x11, 0x00] // 60000 x 60000
        b += [0xFF, 0xC4, 0x00, 0x14, 0x00, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]  // a DC table
        b += [0xFF, 0xC4, 0x00, 0x14, 0x10, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]  // an AC table
        b += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00, 0x00, 0xFF, 0xD9]
        return Data(b)
    }

    /// A frame at zoom 1 over 512x512: the screen is exactly the four tiles of zoom 1.
    static func zoomOneFrame(_ renderer: MapRenderer, name: String) -> RenderedFrame {
        RenderedFrame(MapScene(camera: CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 1), showsCompass: false,
                               showsScaleBar: false), width: 512, height: 512, renderer: renderer, name: name)
    }

    // MARK: not a regular file

    @Test func aFIFOIsRefusedWithoutBlocking() throws {
        let path = NSTemporaryDirectory() + "tb-fifo-\(getpid()).mbtiles"
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        defer {
            // Release a writer still waiting for a reader, then remove the FIFO.
            let fd = open(path, O_RDONLY | O_NONBLOCK); if fd >= 0 { close(fd) }
            unlink(path)
        }
        // A writer that only comes when something opens the FIFO: should the code under test ever
        // open it blocking, the writer unblocks it and the test fails on the message, not hangs.
        let writer = Thread { let fd = open(path, O_WRONLY); if fd >= 0 { close(fd) } }
        writer.start()
        for open in [{ _ = try TileArchive.open(path: path) }, { _ = try MBTiles(path: path) }, { _ = try PMTiles(path: path) }] as [() throws -> Void] {
            do { try open(); Issue.record("a FIFO opened") } catch {
                #expect("\(error)".contains(path) && "\(error)".contains("FIFO (named pipe), not a regular file"), "\(error)")
            }
        }
        let opened = MapRenderer.openTiles(path: path)
        #expect(opened.raster == nil && opened.vector == nil)
        #expect(opened.warnings.first?.contains("FIFO") == true && opened.warnings.first?.contains("built-in world") == true)
    }

    @Test func devicesAndFoldersAreRefused() {
        for (path, kind) in [("/dev/zero", "a character device"), ("/dev/null", "a character device"), (NSTemporaryDirectory(), "a folder")] {
            for open in [{ _ = try TileArchive.open(path: path) }, { _ = try MBTiles(path: path) }, { _ = try PMTiles(path: path) }] as [() throws -> Void] {
                do { try open(); Issue.record("\(path) opened") } catch {
                    #expect("\(error)".contains(path) && "\(error)".contains("it is \(kind), not a regular file"), "\(error)")
                }
            }
        }
    }

    // MARK: SQL the file brings along

    @Test func aRecursiveTilesViewIsRefusedNotRun() throws {
        // Run, this view never ends (min() over an endless recursion).
        let path = try Self.mbtiles(["CREATE TABLE metadata (name text, value text)",
                                     "CREATE VIEW tiles AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
                                         + "SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM r"])
        defer { unlink(path) }
        #expect(throws: MBTilesError.self) { try MBTiles(path: path) }
        do { _ = try MBTiles(path: path) } catch {
            #expect("\(error)".contains(path) && "\(error)".contains("its tiles are a SQL view") && "\(error)".contains("never run"), "\(error)")
        }
        let opened = MapRenderer.openTiles(path: path)
        #expect(opened.raster == nil && opened.warnings.first?.contains(path) == true)
        // The kiosk goes on with the built-in world.
        let f = RenderedFrame(MapScene(camera: CameraPosition(target: Coordinate(latitude: 38, longitude: -12), zoom: 4)),
                              renderer: MapRenderer(raster: opened.raster))
        #expect(f.count(of: MapStyle.standard.sea, around: f.screenPoint(38.0, -16.0)) == 49)
    }

    @Test func aMetadataViewIsRefusedNotRun() throws {
        let path = try Self.mbtiles(["CREATE VIEW metadata AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT 'k' AS name, i AS value FROM r",
                                     "CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)"])
        defer { unlink(path) }
        do { _ = try MBTiles(path: path); Issue.record("opened") } catch {
            #expect("\(error)".contains(path) && "\(error)".contains("its metadata is a SQL view"), "\(error)")
        }
    }

    @Test func theDeduplicatedLayoutIsReadThroughItsTablesNeverItsView() throws {
        // mb-util's layout: tiles is a view over map and images. Here the view is an endless
        // recursion, so reading through it would hang; the tables behind it hold the real tiles.
        let red = Self.png(0xE00000), blue = Self.png(0x0000E0)
        let path = try Self.mbtiles(["CREATE TABLE metadata (name text, value text)",
                                     "INSERT INTO metadata VALUES ('format', 'png'), ('name', 'dedup')",
                                     "CREATE TABLE map (zoom_level integer, tile_column integer, tile_row integer, tile_id text)",
                                     "CREATE UNIQUE INDEX map_index ON map (zoom_level, tile_column, tile_row)",
                                     "CREATE TABLE images (tile_data blob, tile_id text)",
                                     "CREATE UNIQUE INDEX images_id ON images (tile_id)",
                                     "INSERT INTO map VALUES (0, 0, 0, 'a'), (1, 0, 0, 'a'), (1, 0, 1, 'b'), (1, 1, 0, 'b'), (1, 1, 1, 'a')",
                                     "CREATE VIEW tiles AS WITH RECURSIVE r(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM r) "
                                         + "SELECT 0 AS zoom_level, 0 AS tile_column, 0 AS tile_row, x'00' AS tile_data FROM r"],
                                    tiles: [], table: "images")
        defer { unlink(path) }
        var db: OpaquePointer?
        sqlite3_open(path, &db)
        var stmt: OpaquePointer?
        sqlite3_prepare_v2(db, "INSERT INTO images VALUES (?1, ?2)", -1, &stmt, nil)
        for (data, id) in [(red, "a"), (blue, "b")] {
            sqlite3_reset(stmt)
            _ = data.withUnsafeBytes { sqlite3_bind_blob(stmt, 1, $0.baseAddress, Int32($0.count), tb_sqlite_transient()) }
            sqlite3_bind_text(stmt, 2, id, -1, tb_sqlite_transient())
            sqlite3_step(stmt)
        }
        sqlite3_finalize(stmt)
        sqlite3_close(db)

        let tiles = try MBTiles(path: path)
        #expect(tiles.metadata.minZoom == 0 && tiles.metadata.maxZoom == 1 && tiles.metadata.name == "dedup")
        #expect(try tiles.tileData(z: 1, x: 0, y: 0) == blue, "XYZ 1/0/0 is TMS row 1: image b")
        #expect(try tiles.tileData(z: 1, x: 0, y: 1) == red)
        #expect(try tiles.tileData(z: 1, x: 1, y: 1) == blue)
        let f = Self.zoomOneFrame(MapRenderer(raster: RasterTileSource(tiles: tiles)), name: "hostile-dedup")
        #expect(f.pixel(100, 100) == 0x0000E0 && f.pixel(100, 400) == 0xE00000 && f.pixel(400, 100) == 0xE00000)
    }

    @Test func everyQueryHasAStepBudget() throws {
        // 30,000 rows, no index and no zoom range in the metadata: finding the zoom range scans them all.
        var statements = ["CREATE TABLE metadata (name text, value text)", "INSERT INTO metadata VALUES ('format', 'png')",
                          "CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)",
                          "WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i < 29999) "
                              + "INSERT INTO tiles SELECT 15, i, 0, x'00' FROM r"]
        statements.append("INSERT INTO tiles VALUES (0, 0, 0, x'00')")
        let path = try Self.mbtiles(statements)
        defer { unlink(path) }
        do { _ = try MBTiles(path: path, limits: .init(openQuerySteps: 20)); Issue.record("opened within 20,000 steps") } catch {
            #expect("\(error)".contains(path) && "\(error)".contains("ran past its budget (20000 SQLite steps)"), "\(error)")
        }
        // The usual budget is enough to open it; a tile lookup (a scan without the index) is then stopped.
        let tiles = try MBTiles(path: path, limits: .init(tileQuerySteps: 20))
        #expect(tiles.metadata.minZoom == 0 && tiles.metadata.maxZoom == 15)
        do { _ = try tiles.tileData(z: 15, x: 29999, y: 32767); Issue.record("a full scan fitted 20,000 steps") } catch {
            #expect("\(error)".contains(path) && "\(error)".contains("reading tile 15/29999/32767") && "\(error)".contains("budget"), "\(error)")
        }
        #expect(try tiles.tileData(z: 15, x: 7, y: 32767) == Data([0]), "the budget is armed afresh for each query")
    }

    // MARK: sizes

    @Test func aTileLargerThanTheLimitIsSkippedBeforeItsBytesAreRead() throws {
        let red = Self.png(0xE00000)
        // Tile 1/0/0 (TMS row 1) is 20 MB: more than the tile limit and than SQLite may load at all.
        let path = try Self.mbtiles(Self.plainSchema + ["INSERT INTO metadata VALUES ('minzoom', '1'), ('maxzoom', '1')",
                                                        "INSERT INTO tiles VALUES (1, 0, 1, zeroblob(20000000))"],
                                    tiles: [(1, 0, 0, red), (1, 1, 0, red), (1, 1, 1, red)])
        defer { unlink(path) }
        let tiles = try MBTiles(path: path)
        #expect(tiles.metadata.format == "png", "sniffed from the first tile small enough to read")
        do { _ = try tiles.tileData(z: 1, x: 0, y: 0); Issue.record("read") } catch {
            #expect(error as? TileSourceError == .tileTooLarge(path: path, z: 1, x: 0, y: 0, bytes: 20_000_000, limit: TileLimits.maxStoredTileBytes))
        }
        let source = RasterTileSource(tiles: tiles)
        let f = Self.zoomOneFrame(MapRenderer(raster: source), name: "hostile-large-tile")
        #expect(source.warnings.count == 1 && source.warnings[0].contains(path) && source.warnings[0].contains("tile 1/0/0 is 20000000 bytes"))
        #expect(f.pixel(400, 100) == 0xE00000 && f.pixel(100, 400) == 0xE00000 && f.pixel(400, 400) == 0xE00000, "the other tiles")
        #expect(f.pixel(100, 100) != 0xE00000)
    }

    @Test func imageTilesAreMeasuredFromTheirHeadersBeforeDecoding() throws {
        let red = Self.png(0xE00000)
        let bomb = Self.pngBomb(width: 20000, height: 20000)   // would be 1.6 GB decoded
        #expect(bomb.count < 1000)
        let path = try Self.mbtiles(Self.plainSchema + ["INSERT INTO metadata VALUES ('format', 'png'), ('minzoom', '1'), ('maxzoom', '1')"],
                                    tiles: [(1, 0, 1, bomb), (1, 1, 1, Self.jpegBomb()), (1, 0, 0, Self.webpBomb()), (1, 1, 0, red)])
        defer { unlink(path) }
        let source = RasterTileSource(tiles: try MBTiles(path: path))
        let before = ProcessMemory.residentBytes() ?? 0
        let f = Self.zoomOneFrame(MapRenderer(raster: source), name: "hostile-image-bombs")
        #expect((ProcessMemory.residentBytes() ?? 0) - before < 200 << 20, "no image was decoded at its claimed size")
        #expect(f.pixel(400, 400) == 0xE00000, "the good tile is drawn")
        let w = source.warnings.joined(separator: "\n")
        #expect(source.warnings.count == 3, "\(w)")
        #expect(w.contains("\(path): tile 1/0/0 is skipped: its image is 20000x20000 px, larger than the 1024 px allowed"), "\(w)")
        #expect(w.contains("\(path): tile 1/1/0 is skipped: its image is 60000x60000 px"), "\(w)")
        #expect(w.contains("\(path): tile 1/0/1 is skipped: its image is 16384x16384 px"), "\(w)")
    }

    @Test func zoomLevelsOutsideZeroToThirtyAreNotTrusted() throws {
        let red = Self.png(0xE00000)
        let path = try Self.mbtiles(Self.plainSchema + ["INSERT INTO metadata VALUES ('format', 'png'), ('minzoom', '40'), ('maxzoom', '-3')"],
                                    tiles: [(1, 0, 0, red), (2, 0, 0, red)])
        defer { unlink(path) }
        let tiles = try MBTiles(path: path)
        #expect(tiles.metadata.minZoom == 1 && tiles.metadata.maxZoom == 2, "from the tiles table instead")
        #expect(try tiles.tileData(z: 40, x: 0, y: 0) == nil && tiles.tileData(z: -1, x: 0, y: 0) == nil)
    }
}

/// PMTiles archives written here: header, an uncompressed root directory, tile data.
@Suite struct HostilePMTilesTests {
    static func varints(_ values: [UInt64]) -> [UInt8] {
        var out: [UInt8] = []
        for var v in values {
            while v >= 0x80 { out.append(UInt8(v & 0x7f) | 0x80); v >>= 7 }
            out.append(UInt8(v))
        }
        return out
    }

    /// tiles: (tile id, length as the directory says, bytes stored).
    static func archive(directory: [UInt8], data: [UInt8], tileCompression: UInt8 = 1) throws -> String {
        func u64(_ v: Int) -> [UInt8] { (0..<8).map { UInt8((v >> (8 * $0)) & 0xff) } }
        var h = Array("PMTiles".utf8) + [3]
        h += u64(127) + u64(directory.count)                              // root
        h += u64(127 + directory.count) + u64(0)                          // metadata
        h += u64(127 + directory.count) + u64(0)                          // leaves
        h += u64(127 + directory.count) + u64(data.count)                 // tile data
        h += u64(1) + u64(1) + u64(1) + [1, 1, tileCompression, 2, 0, 2]  // counts, clustered, compressions, png, zooms 0...2
        h += [UInt8](repeating: 0, count: 127 - h.count)
        let path = NSTemporaryDirectory() + "tb-hostile-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).pmtiles"
        try Data(h + directory + data).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func aDirectoryClaimingMoreEntriesThanItsBytesIsRefused() throws {
        let path = try Self.archive(directory: Self.varints([1_000_000_000, 1, 1, 1, 1]), data: [0])
        defer { unlink(path) }
        do { _ = try PMTiles(path: path); Issue.record("opened") } catch {
            #expect("\(error)".contains(path) && "\(error)".contains("claims 1000000000 entries"), "\(error)")
        }
    }

    @Test func aTileLargerThanTheLimitIsRefusedBeforeItIsRead() throws {
        // Tile 0/0/0 claims 100 MB; tile 1/0/0 (id 1) is a real PNG.
        let png = [UInt8](HostileTileFileTests.png(0xE00000))
        let dir = Self.varints([2, 0, 1, 1, 1, 100_000_000, UInt64(png.count), 1, 1])   // ids 0, 1; runs; lengths; offsets 0, 0 (+1)
        let path = try Self.archive(directory: dir, data: png)
        defer { unlink(path) }
        let tiles = try PMTiles(path: path)
        do { _ = try tiles.tileData(z: 0, x: 0, y: 0); Issue.record("read") } catch {
            #expect(error as? TileSourceError == .tileTooLarge(path: path, z: 0, x: 0, y: 0, bytes: 100_000_000, limit: TileLimits.maxStoredTileBytes))
        }
        #expect(try tiles.tileData(z: 1, x: 0, y: 0) == Data(png))
    }

    @Test func aGzipBombTileStopsAtTheLimit() throws {
        // 40 MB of zeros gzip'd into about 40 KB: more than the 16 MB a tile may expand to.
        let zeros = Data(count: 40 << 20)
        let gz = try #require(gzip(zeros))
        #expect(gz.count < 100_000)
        let path = try Self.archive(directory: Self.varints([1, 0, 1, UInt64(gz.count), 1]), data: [UInt8](gz), tileCompression: 2)
        defer { unlink(path) }
        let tiles = try PMTiles(path: path)
        do { _ = try tiles.tileData(z: 0, x: 0, y: 0); Issue.record("read") } catch {
            #expect("\(error)".contains(path) && "\(error)".contains("expands beyond \(TileLimits.maxTileBytes) bytes"), "\(error)")
        }
    }

    /// A gzip member made with zlib.
    func gzip(_ d: Data) -> Data? {
        var stream = z_stream()
        guard deflateInit2_(&stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(d.count))))
        var input = [UInt8](d)
        let rc = input.withUnsafeMutableBufferPointer { i in out.withUnsafeMutableBufferPointer { o -> Int32 in
            stream.next_in = i.baseAddress; stream.avail_in = uInt(i.count)
            stream.next_out = o.baseAddress; stream.avail_out = uInt(o.count)
            return deflate(&stream, Z_FINISH)
        } }
        guard rc == Z_STREAM_END else { return nil }
        return Data(out[0..<Int(stream.total_out)])
    }
}
