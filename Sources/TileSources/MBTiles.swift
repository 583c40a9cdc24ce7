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

/// A raster MBTiles tile set opened read-only with SQLite: metadata and raw tile bytes by XYZ
/// address (the TMS row flip is done here).
public final class MBTiles: TileSource, @unchecked Sendable {
    public typealias Metadata = TileSetMetadata

    public let path: String
    public let metadata: Metadata
    private var db: OpaquePointer?
    private var tileStatement: OpaquePointer?
    /// The connection is opened without SQLite's mutex; tiles may be read from a worker thread.
    private let lock = NSLock()

    public init(path: String) throws {
        self.path = path
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw MBTilesError.unreadable(path: path, reason: FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")
        }
        var handle: OpaquePointer?
        let rc = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        guard rc == SQLITE_OK, let handle else {
            let msg = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "sqlite error \(rc)"
            sqlite3_close(handle)
            throw MBTilesError.unreadable(path: path, reason: msg)
        }
        db = handle
        do {
            metadata = try MBTiles.readMetadata(db: handle, path: path)
            var stmt: OpaquePointer?
            let sql = "SELECT tile_data FROM tiles WHERE zoom_level = ?1 AND tile_column = ?2 AND tile_row = ?3"
            guard sqlite3_prepare_v2(handle, sql, -1, &stmt, nil) == SQLITE_OK else {
                throw MBTiles.error(db: handle, path: path)
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
        lock.lock()
        defer { lock.unlock() }
        guard let stmt = tileStatement else { return nil }
        let n = 1 << z
        guard z >= 0, x >= 0, y >= 0, x < n, y < n else { return nil }
        let tmsRow = n - 1 - y   // MBTiles stores rows bottom-up (TMS)
        sqlite3_reset(stmt)
        sqlite3_bind_int(stmt, 1, Int32(z))
        sqlite3_bind_int(stmt, 2, Int32(x))
        sqlite3_bind_int(stmt, 3, Int32(tmsRow))
        let rc = sqlite3_step(stmt)
        defer { sqlite3_reset(stmt) }
        if rc == SQLITE_DONE { return nil }
        guard rc == SQLITE_ROW else { throw MBTiles.error(db: db, path: path) }
        let count = Int(sqlite3_column_bytes(stmt, 0))
        guard count > 0, let blob = sqlite3_column_blob(stmt, 0) else { return Data() }
        guard count <= TileLimits.maxStoredTileBytes else {
            throw TileSourceError.tileTooLarge(path: path, z: z, x: x, y: y, bytes: count, limit: TileLimits.maxStoredTileBytes)
        }
        let stored = Data(bytes: blob, count: count)
        // Vector tiles are usually gzip'd in MBTiles; images never start like gzip or zlib.
        guard Gzip.isCompressed(stored) else { return stored }
        do { return try Gzip.decompress(stored, limit: TileLimits.maxTileBytes) } catch {
            throw TileSourceError.badCompression(path: path, what: "tile \(z)/\(x)/\(y)", reason: "\(error)")
        }
    }

    static func error(db: OpaquePointer?, path: String) -> MBTilesError {
        let msg = db.map { String(cString: sqlite3_errmsg($0)) } ?? "unknown SQLite error"
        if msg.contains("no such table") || msg.contains("no such column") {
            return .notMBTiles(path: path, reason: msg)
        }
        return .unreadable(path: path, reason: msg)
    }

    private static func query(_ db: OpaquePointer, _ sql: String, path: String, row: (OpaquePointer) -> Void) throws {
        var stmt: OpaquePointer?
        guard sqlite3_prepare_v2(db, sql, -1, &stmt, nil) == SQLITE_OK else { throw error(db: db, path: path) }
        defer { sqlite3_finalize(stmt) }
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { break }
            guard rc == SQLITE_ROW, let stmt else { throw error(db: db, path: path) }
            row(stmt)
        }
    }

    private static func text(_ stmt: OpaquePointer, _ col: Int32) -> String? {
        sqlite3_column_text(stmt, col).map { String(cString: $0) }
    }

    private static func readMetadata(db: OpaquePointer, path: String) throws -> Metadata {
        var kv: [String: String] = [:]
        try query(db, "SELECT name, value FROM metadata", path: path) { stmt in
            if let k = text(stmt, 0), let v = text(stmt, 1) { kv[k] = v }
        }
        var minZ = kv["minzoom"].flatMap { Int($0) }
        var maxZ = kv["maxzoom"].flatMap { Int($0) }
        if minZ == nil || maxZ == nil {
            try query(db, "SELECT min(zoom_level), max(zoom_level) FROM tiles", path: path) { stmt in
                if sqlite3_column_type(stmt, 0) != SQLITE_NULL {
                    minZ = minZ ?? Int(sqlite3_column_int(stmt, 0))
                    maxZ = maxZ ?? Int(sqlite3_column_int(stmt, 1))
                }
            }
        }
        guard let minZ, let maxZ else { throw MBTilesError.notMBTiles(path: path, reason: "it holds no tiles") }
        var format = kv["format"]?.lowercased()
        if format == nil {
            try query(db, "SELECT tile_data FROM tiles LIMIT 1", path: path) { stmt in
                let n = Int(sqlite3_column_bytes(stmt, 0))
                if n >= 4, let p = sqlite3_column_blob(stmt, 0) {
                    format = TileImageFormat.sniff(Data(bytes: p, count: min(n, 16))).name
                }
            }
        }
        var kind: TileSetMetadata.Kind = format == "pbf" || format == "mvt" ? .vector : .raster
        if format == nil || kind == .vector {
            // Content decides: a gzip or protobuf first tile is vector, an image is raster.
            try query(db, "SELECT tile_data FROM tiles LIMIT 1", path: path) { stmt in
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
