import CSQLite
import Foundation

/// Why an MBTiles file cannot be used. Each message names the file and says what happens next.
public enum MBTilesError: Error, CustomStringConvertible, Equatable {
    /// The file is missing, unreadable, not SQLite or damaged.
    case unreadable(path: String, reason: String)
    /// It is SQLite but not an MBTiles tile set (no `tiles` table, ...).
    case notMBTiles(path: String, reason: String)
    /// A tile is in a format this build cannot decode (e.g. AVIF); such tiles are skipped and
    /// their parents or the built-in world show instead.
    case unsupportedTileFormat(path: String, format: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "cannot read the MBTiles file \(path): \(reason). Check that the file is complete and readable, or replace it."
        case let .notMBTiles(path, reason):
            return "\(path) is not an MBTiles tile set: \(reason). Use an MBTiles 1.x raster file (tables metadata and tiles)."
        case let .unsupportedTileFormat(path, format):
            return "\(path) holds \(format) tiles, which this build cannot decode (PNG, JPEG and WebP are supported); those tiles are skipped. Convert the tile set to PNG, JPEG or WebP."
        }
    }
}

/// An MBTiles tile set (raster or vector) opened read-only with SQLite: metadata and tile bytes
/// by XYZ address (the TMS row flip is done here).
///
/// The file is someone else's and is treated as hostile: it must be a regular file (a FIFO or
/// a device is refused before SQLite opens it), SQLite runs in defensive mode with an
/// untrusted schema, only real tables are read (a `tiles` VIEW is never run: the common
/// deduplicated layout, a view over tables `map` and `images`, is read with this file's own
/// join), every query has a step budget (a progress handler interrupts it), a tile's size is
/// read before its bytes, and no value longer than `TileLimits.maxSQLiteValueBytes` is loaded.
public final class MBTiles: TileSource, @unchecked Sendable {
    public typealias Metadata = TileSetMetadata

    /// How much work one query may do, in thousands of SQLite virtual-machine steps (about
    /// 5 ms each on a kiosk-class core). A tile lookup through an index takes well under one.
    public struct Limits: Sendable {
        /// Each query run while opening (metadata, zoom range, first tile).
        public var openQuerySteps: Int
        /// Each tile lookup.
        public var tileQuerySteps: Int
        public init(openQuerySteps: Int = 200_000, tileQuerySteps: Int = 20_000) {
            self.openQuerySteps = openQuerySteps
            self.tileQuerySteps = tileQuerySteps
        }
    }

    /// Where the tiles are read from: the `tiles` table, or the tables behind the usual
    /// deduplicating view (never the view itself).
    struct Layout {
        let from: String, z: String, x: String, y: String, data: String
        /// The table holding the zoom levels alone (for min and max through its index).
        let zooms: String
        static let table = Layout(from: "tiles", z: "zoom_level", x: "tile_column", y: "tile_row", data: "tile_data", zooms: "tiles")
        static let mapImages = Layout(from: "map JOIN images ON images.tile_id = map.tile_id", z: "map.zoom_level",
                                      x: "map.tile_column", y: "map.tile_row", data: "images.tile_data", zooms: "map")
    }

    public let path: String
    public let metadata: Metadata
    public let limits: Limits
    private var db: OpaquePointer?
    private var tileStatement: OpaquePointer?
    private let budget = QueryBudget()
    /// The connection is opened without SQLite's mutex; tiles may be read from a worker thread.
    private let lock = NSLock()

    public init(path: String, limits: Limits = Limits()) throws {
        self.path = path
        self.limits = limits
        if let f = TileFile.checkRegular(path) { throw MBTilesError.unreadable(path: path, reason: f.reason) }
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let msg = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "sqlite error \(rc)"
            sqlite3_close(handle)
            throw MBTilesError.unreadable(path: path, reason: msg)
        }
        db = handle
        do {
            try MBTiles.harden(handle, budget: budget, path: path)
            budget.arm(limits.openQuerySteps)
            let layout = try MBTiles.layout(db: handle, path: path, budget: budget)
            metadata = try MBTiles.readMetadata(db: handle, path: path, layout: layout, budget: budget, steps: limits.openQuerySteps)
            var stmt: OpaquePointer?
            // The size first (length() does not load a blob), the bytes only when within the limit.
            let sql = "SELECT length(\(layout.data)), CASE WHEN length(\(layout.data)) <= \(TileLimits.maxStoredTileBytes) THEN \(layout.data) END"
                + " FROM \(layout.from) WHERE \(layout.z) = ?1 AND \(layout.x) = ?2 AND \(layout.y) = ?3 LIMIT 1"
            guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK else {
                throw MBTiles.error(db: handle, path: path, budget: budget)
            }
            tileStatement = stmt
        } catch {
            sqlite3_close(handle)
            db = nil
            throw error
        }
    }

    deinit {
        sqlite3_finalize(tileStatement)
        sqlite3_close(db)
    }

    /// The raw bytes of tile (z, x, y) in XYZ addressing (y grows south), or nil when absent.
    public func tileData(z: Int, x: Int, y: Int) throws -> Data? {
        guard z >= 0, z <= 30, x >= 0, y >= 0, x < 1 << z, y < 1 << z else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let stmt = tileStatement else { return nil }
        let tmsRow = (1 << z) - 1 - y   // MBTiles stores rows bottom-up (TMS)
        sqlite3_reset(stmt)
        sqlite3_bind_int(stmt, 1, Int32(z))
        sqlite3_bind_int(stmt, 2, Int32(x))
        sqlite3_bind_int(stmt, 3, Int32(tmsRow))
        budget.arm(limits.tileQuerySteps)
        let rc = sqlite3_step(stmt)
        defer { sqlite3_reset(stmt) }
        if rc == SQLITE_DONE { return nil }
        guard rc == SQLITE_ROW else { throw MBTiles.error(db: db, path: path, budget: budget, what: "tile \(z)/\(x)/\(y)") }
        let length = sqlite3_column_int64(stmt, 0)
        guard length <= Int64(TileLimits.maxStoredTileBytes) else {
            throw TileSourceError.tileTooLarge(path: path, z: z, x: x, y: y, bytes: Int(clamping: length), limit: TileLimits.maxStoredTileBytes)
        }
        let count = Int(sqlite3_column_bytes(stmt, 1))
        guard count > 0, let blob = sqlite3_column_blob(stmt, 1) else { return Data() }
        guard count <= TileLimits.maxStoredTileBytes else {   // text counted in characters by length()
            throw TileSourceError.tileTooLarge(path: path, z: z, x: x, y: y, bytes: count, limit: TileLimits.maxStoredTileBytes)
        }
        let stored = Data(bytes: blob, count: count)
        // Vector tiles are usually gzip'd in MBTiles; images never start like gzip or zlib.
        guard Gzip.isCompressed(stored) else { return stored }
        do { return try Gzip.decompress(stored, limit: TileLimits.maxTileBytes) } catch {
            throw TileSourceError.badCompression(path: path, what: "tile \(z)/\(x)/\(y)", reason: "\(error)")
        }
    }

    /// Defensive mode, an untrusted schema, cell checks on every page, a bound on any value's
    /// length and the step budget on every statement.
    private static func harden(_ db: OpaquePointer, budget: QueryBudget, path: String) throws {
        guard tb_sqlite_untrusted(db) == SQLITE_OK else {
            throw MBTilesError.unreadable(path: path, reason: "SQLite refused defensive mode: \(String(cString: sqlite3_errmsg(db)))")
        }
        sqlite3_limit(db, SQLITE_LIMIT_LENGTH, Int32(TileLimits.maxSQLiteValueBytes))
        sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0)
        sqlite3_progress_handler(db, QueryBudget.stepsPerCall, { ctx in
            guard let ctx else { return 1 }
            return Unmanaged<QueryBudget>.fromOpaque(ctx).takeUnretainedValue().spend() ? 0 : 1
        }, Unmanaged.passUnretained(budget).toOpaque())
        for pragma in ["PRAGMA trusted_schema = OFF", "PRAGMA cell_size_check = ON", "PRAGMA query_only = ON"] {
            guard sqlite3_exec(db, pragma, nil, nil, nil) == SQLITE_OK else { throw error(db: db, path: path, budget: budget) }
        }
    }

    /// Where the tiles are: a real `tiles` table, or the tables behind the deduplicating view.
    /// Any other view (or a virtual table) is refused without being run.
    static func layout(db: OpaquePointer, path: String, budget: QueryBudget) throws -> Layout {
        func object(_ name: String) throws -> (type: String, sql: String)? {
            var found: (String, String)?
            try query(db, "SELECT type, coalesce(sql, '') FROM sqlite_master WHERE lower(name) = '\(name)' AND type IN ('table', 'view')",
                      path: path, budget: budget) { stmt in
                if found == nil { found = (text(stmt, 0) ?? "", text(stmt, 1) ?? "") }
            }
            return found.map { (type: $0.0, sql: $0.1) }
        }
        func isPlainTable(_ o: (type: String, sql: String)?) -> Bool {
            guard let o, o.type == "table" else { return false }
            return !o.sql.uppercased().hasPrefix("CREATE VIRTUAL")
        }
        if let meta = try object("metadata"), !isPlainTable(meta) {
            throw MBTilesError.notMBTiles(path: path, reason: "its metadata is a SQL \(meta.type == "view" ? "view" : "virtual table"), not a table; views and virtual tables in tile files are never run")
        }
        guard let tiles = try object("tiles") else {
            throw MBTilesError.notMBTiles(path: path, reason: "it has no tiles table")
        }
        if isPlainTable(tiles) { return .table }
        if tiles.type == "view", isPlainTable(try object("map")), isPlainTable(try object("images")) { return .mapImages }
        throw MBTilesError.notMBTiles(path: path, reason: "its tiles are a SQL \(tiles.type == "view" ? "view" : "virtual table") (\(tiles.sql.prefix(80))...), not a table; views and virtual tables in tile files are never run (one can make every read hang). Re-create the file with a plain tiles table, or with tables map and images")
    }

    static func error(db: OpaquePointer?, path: String, budget: QueryBudget, what: String? = nil) -> MBTilesError {
        if budget.exhausted {
            let steps = budget.granted * Int(QueryBudget.stepsPerCall)
            return .unreadable(path: path, reason: "\(what.map { "reading \($0): " } ?? "")a query ran past its budget (\(steps) SQLite steps) and was stopped (a damaged file, a tiles table without its index, or one built to hang a reader)")
        }
        let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "unknown SQLite error"
        if msg.contains("no such table") || msg.contains("no such column") {
            return .notMBTiles(path: path, reason: msg)
        }
        return .unreadable(path: path, reason: what.map { "\($0): \(msg)" } ?? msg)
    }

    private static func query(_ db: OpaquePointer, _ sql: String, path: String, budget: QueryBudget, row: (OpaquePointer) -> Void) throws {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK else { throw error(db: db, path: path, budget: budget) }
        defer { sqlite3_finalize(stmt) }
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW, let stmt else { throw error(db: db, path: path, budget: budget) }
            row(stmt)
        }
    }

    private static func text(_ stmt: OpaquePointer, _ col: Int32) -> String? {
        sqlite3_column_text(stmt, col).map { String(cString: $0) }
    }

    private static func readMetadata(db: OpaquePointer, path: String, layout: Layout, budget: QueryBudget, steps: Int) throws -> Metadata {
        func query(_ sql: String, row: (OpaquePointer) -> Void) throws {
            budget.arm(steps)
            try MBTiles.query(db, sql, path: path, budget: budget, row: row)
        }
        var kv: [String: String] = [:]
        try query("SELECT name, value FROM metadata LIMIT 10000") { stmt in
            if let k = text(stmt, 0), let v = text(stmt, 1) { kv[k] = v }
        }
        // Zooms outside 0...30 or a min above the max are ignored: the tiles table decides.
        var minZ = kv["minzoom"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { TileLimits.zoomRange.contains($0) ? $0 : nil }
        var maxZ = kv["maxzoom"].flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.flatMap { TileLimits.zoomRange.contains($0) ? $0 : nil }
        if let a = minZ, let b = maxZ, a > b { minZ = nil; maxZ = nil }
        if minZ == nil || maxZ == nil {
            // One aggregate per query: SQLite answers a lone min() or max() from the index in a
            // few page reads; both in one query scan the whole index (hundreds of MB in a big set).
            let r = TileLimits.zoomRange
            for (aggregate, isMin) in [("min", true), ("max", false)] {
                try query("SELECT \(aggregate)(zoom_level) FROM \(layout.zooms)") { stmt in
                    guard sqlite3_column_type(stmt, 0) != SQLITE_NULL else { return }
                    let z = min(max(Int(sqlite3_column_int64(stmt, 0)), r.lowerBound), r.upperBound)
                    if isMin { minZ = minZ ?? z } else { maxZ = maxZ ?? z }
                }
            }
        }
        guard let minZ, let maxZ else { throw MBTilesError.notMBTiles(path: path, reason: "it holds no tiles") }
        guard minZ <= maxZ else {
            throw MBTilesError.notMBTiles(path: path, reason: "its zoom range \(minZ)...\(maxZ) is empty")
        }
        // The first tile that is not too large to read (its size is read without its bytes).
        let firstTile = "SELECT substr(\(layout.data), 1, 16) FROM \(layout.from) WHERE length(\(layout.data)) <= \(TileLimits.maxStoredTileBytes) LIMIT 1"
        var format = kv["format"]?.lowercased()
        if format == nil {
            try query(firstTile) { stmt in
                let n = Int(sqlite3_column_bytes(stmt, 0))
                if n >= 4, let p = sqlite3_column_blob(stmt, 0) {
                    format = TileImageFormat.sniff(Data(bytes: p, count: min(n, 16))).name
                }
            }
        }
        var kind: TileSetMetadata.Kind = format == "pbf" || format == "mvt" ? .vector : .raster
        if format == nil || kind == .vector {
            // Content decides: a gzip or protobuf first tile is vector, an image is raster.
            try query(firstTile) { stmt in
                let n = Int(sqlite3_column_bytes(stmt, 0))
                if n >= 2, let p = sqlite3_column_blob(stmt, 0) {
                    let d = Data(bytes: p, count: min(n, 16))
                    kind = TileImageFormat.sniff(d) == .unknown ? .vector : .raster
                    if kind == .vector && format == nil { format = "pbf" }
                }
            }
        }
        var bounds: (Double, Double, Double, Double)?
        if let b = kv["bounds"] {
            let v = b.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
            if v.count == 4 { bounds = (v[0], v[1], v[2], v[3]) }
        }
        let attribution = kv["attribution"].map(MBTiles.plainText).flatMap { $0.isEmpty ? nil : $0 }
        return Metadata(name: kv["name"], format: format, bounds: bounds.map { (west: $0.0, south: $0.1, east: $0.2, north: $0.3) },
                        minZoom: minZ, maxZoom: maxZ, attribution: attribution, kind: kind,
                        vectorLayers: TileSetMetadata.vectorLayerIDs(json: kv["json"]))
    }

    /// Attribution metadata is often HTML: keep the text, drop the tags, decode a few entities.
    public static func plainText(_ html: String) -> String {
        var out = ""
        var inTag = false
        for ch in html {
            if ch == "<" { inTag = true } else if ch == ">" { inTag = false } else if !inTag { out.append(ch) }
        }
        return out.replacingOccurrences(of: "&copy;", with: "©").replacingOccurrences(of: "&amp;", with: "&")
            .replacingOccurrences(of: "&nbsp;", with: " ").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Image formats recognised by their first bytes.
public enum TileImageFormat: Equatable, Sendable {
    case png, jpeg, webp, unknown
    public static func sniff(_ d: Data) -> TileImageFormat {
        let b = [UInt8](d.prefix(12))
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return .png }
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if b.count >= 12, b[0...3] == [0x52, 0x49, 0x46, 0x46], b[8...11] == [0x57, 0x45, 0x42, 0x50] { return .webp }
        return .unknown
    }
    public var name: String {
        switch self { case .png: "png"; case .jpeg: "jpg"; case .webp: "webp"; case .unknown: "unknown" }
    }
}
