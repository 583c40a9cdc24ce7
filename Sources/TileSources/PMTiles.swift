import Foundation

/// A PMTiles v3 archive (https://github.com/protomaps/PMTiles/blob/main/spec/v3/spec.md) read
/// from a local file: the 127-byte header, the root and leaf directories (varint-encoded,
/// delta tile ids, run lengths, offsets), JSON metadata, and tiles addressed by Hilbert tile id.
/// Internal and tile compression: none or gzip (zlib); brotli and zstd are reported clearly.
public final class PMTiles: TileSource, @unchecked Sendable {
    public enum Compression: UInt8, Sendable { case unknown = 0, none = 1, gzip = 2, brotli = 3, zstd = 4 }
    public enum TileType: UInt8, Sendable { case unknown = 0, mvt = 1, png = 2, jpeg = 3, webp = 4, avif = 5 }

    public struct Header: Sendable, Equatable {
        public var rootOffset: UInt64, rootLength: UInt64
        public var metadataOffset: UInt64, metadataLength: UInt64
        public var leafOffset: UInt64, leafLength: UInt64
        public var dataOffset: UInt64, dataLength: UInt64
        public var addressedTiles: UInt64, tileEntries: UInt64, tileContents: UInt64
        public var clustered: Bool
        public var internalCompression: Compression
        public var tileCompression: Compression
        public var tileType: TileType
        public var minZoom: Int, maxZoom: Int
        public var minLon: Double, minLat: Double, maxLon: Double, maxLat: Double
        public var centerZoom: Int, centerLon: Double, centerLat: Double
    }

    struct Entry: Equatable {
        var tileID: UInt64
        var offset: UInt64
        var length: UInt64
        var runLength: UInt64
    }

    public let path: String
    public let header: Header
    public let metadata: TileSetMetadata
    private let file: FileHandle
    private let fileSize: UInt64
    private let root: [Entry]
    private let lock = NSLock()
    /// Leaf directories read so far (a handful for a city extract), least recently used dropped.
    private var leaves: [UInt64: [Entry]] = [:]
    private var leafOrder: [UInt64] = []
    private static let leafCacheSize = 64
    private static let leafCacheEntries = 1_000_000
    private var cachedEntries = 0

    public init(path: String) throws {
        self.path = path
        let file: FileHandle
        switch TileFile.openRegular(path) {
        case let .success(fd): file = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        case let .failure(f): throw TileSourceError.unreadable(path: path, reason: f.reason)
        }
        self.file = file
        fileSize = (try? file.seekToEnd()) ?? 0
        let raw = try PMTiles.read(file, path: path, offset: 0, length: 127, fileSize: fileSize)
        header = try PMTiles.parseHeader(raw, path: path)
        for (name, off, len) in [("root directory", header.rootOffset, header.rootLength),
                                 ("metadata", header.metadataOffset, header.metadataLength),
                                 ("leaf directories", header.leafOffset, header.leafLength),
                                 ("tile data", header.dataOffset, header.dataLength)] {
            guard off <= fileSize, len <= fileSize - off else {
                throw TileSourceError.invalidPMTiles(path: path, reason: "the \(name) (\(off)+\(len)) lies beyond the end of the \(fileSize)-byte file; it may be truncated")
            }
        }
        guard header.rootLength <= UInt64(TileLimits.maxRootDirectoryBytes) else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "a root directory of \(header.rootLength) bytes: at most \(TileLimits.maxRootDirectoryBytes >> 10) KiB are read (the spec keeps it within 16 KiB)")
        }
        guard header.metadataLength <= UInt64(TileLimits.maxMetadataBytes) else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "metadata of \(header.metadataLength) bytes: at most \(TileLimits.maxMetadataBytes >> 20) MiB are read")
        }
        let rootBytes = try PMTiles.read(file, path: path, offset: header.rootOffset, length: header.rootLength, fileSize: fileSize)
        root = try PMTiles.parseDirectory(PMTiles.decompress(rootBytes, header.internalCompression, path: path, what: "the root directory",
                                                              limit: TileLimits.maxRootDirectoryBytes), path: path)
        var meta: [String: Any] = [:]
        if header.metadataLength > 0 {
            let m = try PMTiles.read(file, path: path, offset: header.metadataOffset, length: header.metadataLength, fileSize: fileSize)
            let json = try PMTiles.decompress(m, header.internalCompression, path: path, what: "the metadata", limit: TileLimits.maxMetadataBytes)
            meta = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any] ?? [:]
        }
        let kind: TileSetMetadata.Kind = header.tileType == .mvt ? .vector : .raster
        let format: String? = switch header.tileType {
        case .mvt: "pbf"; case .png: "png"; case .jpeg: "jpg"; case .webp: "webp"; case .avif: "avif"; case .unknown: nil
        }
        metadata = TileSetMetadata(
            name: meta["name"] as? String, format: format,
            bounds: (west: header.minLon, south: header.minLat, east: header.maxLon, north: header.maxLat),
            minZoom: header.minZoom, maxZoom: header.maxZoom,
            attribution: (meta["attribution"] as? String).map(MBTiles.plainText).flatMap { $0.isEmpty ? nil : $0 },
            kind: kind, vectorLayers: TileSetMetadata.vectorLayerIDs(object: meta))
    }

    deinit { try? file.close() }

    // MARK: tiles

    public func tileData(z: Int, x: Int, y: Int) throws -> Data? {
        guard z >= 0, z <= 26, x >= 0, y >= 0, x < 1 << z, y < 1 << z else { return nil }
        guard z >= header.minZoom, z <= header.maxZoom else { return nil }
        let id = PMTiles.tileID(z: z, x: x, y: y)
        lock.lock()
        defer { lock.unlock() }
        var dir = root
        for _ in 0..<4 {   // root + at most three levels of leaves, as the spec allows
            guard let e = PMTiles.find(id, in: dir) else { return nil }
            if e.runLength > 0 {
                guard e.length <= UInt64(TileLimits.maxStoredTileBytes) else {
                    throw TileSourceError.tileTooLarge(path: path, z: z, x: x, y: y, bytes: Int(clamping: e.length), limit: TileLimits.maxStoredTileBytes)
                }
                let raw = try PMTiles.read(file, path: path, offset: header.dataOffset &+ e.offset, length: e.length, fileSize: fileSize)
                return try PMTiles.decompress(raw, header.tileCompression, path: path, what: "tile \(z)/\(x)/\(y)", limit: TileLimits.maxTileBytes)
            }
            dir = try leaf(offset: e.offset, length: e.length)
        }
        throw TileSourceError.invalidPMTiles(path: path, reason: "leaf directories nest deeper than the spec allows")
    }

    private func leaf(offset: UInt64, length: UInt64) throws -> [Entry] {
        if let hit = leaves[offset] { return hit }
        guard length <= UInt64(TileLimits.maxDirectoryBytes) else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "a leaf directory of \(length) bytes is too large")
        }
        let raw = try PMTiles.read(file, path: path, offset: header.leafOffset &+ offset, length: length, fileSize: fileSize)
        let entries = try PMTiles.parseDirectory(PMTiles.decompress(raw, header.internalCompression, path: path, what: "a leaf directory",
                                                                    limit: TileLimits.maxDirectoryBytes), path: path)
        // Bounded by leaves and by entries (32 bytes each): a few huge leaves cannot fill memory.
        while !leafOrder.isEmpty && (leafOrder.count >= PMTiles.leafCacheSize || cachedEntries + entries.count > PMTiles.leafCacheEntries) {
            cachedEntries -= leaves.removeValue(forKey: leafOrder.removeFirst())?.count ?? 0
        }
        leaves[offset] = entries
        leafOrder.append(offset)
        cachedEntries += entries.count
        return entries
    }

    /// The last entry whose id is at most `id`, if it covers `id` (tiles by run length, leaves always).
    static func find(_ id: UInt64, in entries: [Entry]) -> Entry? {
        var lo = 0, hi = entries.count - 1
        while lo <= hi {
            let mid = (lo + hi) / 2
            if entries[mid].tileID == id { return entries[mid] }
            if entries[mid].tileID < id { lo = mid + 1 } else { hi = mid - 1 }
        }
        guard hi >= 0 else { return nil }
        let e = entries[hi]
        if e.runLength == 0 { return e }                    // a leaf directory: look inside
        return id - e.tileID < e.runLength ? e : nil
    }

    /// The Hilbert tile id: tiles of all lower zooms first, then the Hilbert index in this zoom.
    public static func tileID(z: Int, x: Int, y: Int) -> UInt64 {
        var acc: UInt64 = ((1 << (2 * UInt64(z))) - 1) / 3
        let n = 1 << z
        var x = x, y = y
        var s = n >> 1
        while s > 0 {
            let rx = (x & s) > 0 ? 1 : 0, ry = (y & s) > 0 ? 1 : 0
            acc += UInt64(s) * UInt64(s) * UInt64((3 * rx) ^ ry)
            if ry == 0 {
                if rx == 1 { x = n - 1 - x; y = n - 1 - y }
                swap(&x, &y)
            }
            s >>= 1
        }
        return acc
    }

    // MARK: parsing

    static func parseHeader(_ d: Data, path: String) throws -> Header {
        let b = [UInt8](d)
        guard b.count == 127, b.starts(with: Array("PMTiles".utf8)) else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "the header is missing or short")
        }
        guard b[7] == 3 else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "it is PMTiles version \(b[7]); only version 3 is read")
        }
        func u64(_ o: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 | UInt64(b[o + $1]) << (8 * UInt64($1)) } }
        func i32(_ o: Int) -> Double {
            let u = (0..<4).reduce(UInt32(0)) { $0 | UInt32(b[o + $1]) << (8 * UInt32($1)) }
            return Double(Int32(bitPattern: u)) / 10_000_000
        }
        func comp(_ v: UInt8, _ what: String) throws -> Compression {
            guard let c = Compression(rawValue: v) else {
                throw TileSourceError.invalidPMTiles(path: path, reason: "unknown \(what) compression code \(v)")
            }
            return c
        }
        let h = Header(rootOffset: u64(8), rootLength: u64(16), metadataOffset: u64(24), metadataLength: u64(32),
                       leafOffset: u64(40), leafLength: u64(48), dataOffset: u64(56), dataLength: u64(64),
                       addressedTiles: u64(72), tileEntries: u64(80), tileContents: u64(88), clustered: b[96] == 1,
                       internalCompression: try comp(b[97], "internal"), tileCompression: try comp(b[98], "tile"),
                       tileType: TileType(rawValue: b[99]) ?? .unknown, minZoom: Int(b[100]), maxZoom: Int(b[101]),
                       minLon: i32(102), minLat: i32(106), maxLon: i32(110), maxLat: i32(114),
                       centerZoom: Int(b[118]), centerLon: i32(119), centerLat: i32(123))
        guard h.minZoom <= h.maxZoom, h.maxZoom <= 30 else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "zoom range \(h.minZoom)...\(h.maxZoom) is impossible")
        }
        guard h.rootLength > 0 else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "the root directory is empty")
        }
        return h
    }

    /// A directory: entry count, then per column (tile id deltas, run lengths, lengths, offsets)
    /// one varint per entry; offset 0 after the first entry means "right after the previous tile".
    static func parseDirectory(_ d: Data, path: String) throws -> [Entry] {
        var reader = VarintReader(bytes: [UInt8](d))
        func next() throws -> UInt64 {
            guard let v = reader.next() else {
                throw TileSourceError.invalidPMTiles(path: path, reason: "a directory ends in the middle of a number")
            }
            return v
        }
        let count = try next()
        // Each entry takes at least 4 bytes (four varints), so a count beyond that is a corrupt directory.
        guard count <= UInt64(max(d.count - 1, 0) / 4) else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "a directory claims \(count) entries in \(d.count) bytes")
        }
        guard count <= UInt64(TileLimits.maxDirectoryEntries) else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "a directory of \(count) entries: at most \(TileLimits.maxDirectoryEntries) are read (docs/limits.md)")
        }
        var entries = [Entry](repeating: Entry(tileID: 0, offset: 0, length: 0, runLength: 0), count: Int(count))
        var last: UInt64 = 0
        for i in entries.indices {
            let (sum, overflow) = last.addingReportingOverflow(try next())
            guard !overflow else { throw TileSourceError.invalidPMTiles(path: path, reason: "tile ids overflow") }
            last = sum
            entries[i].tileID = sum
        }
        for i in entries.indices { entries[i].runLength = try next() }
        for i in entries.indices { entries[i].length = try next() }
        for i in entries.indices {
            let v = try next()
            if v == 0 && i > 0 {
                entries[i].offset = entries[i - 1].offset &+ entries[i - 1].length
            } else {
                entries[i].offset = v &- 1
            }
        }
        return entries
    }

    static func decompress(_ d: Data, _ c: Compression, path: String, what: String, limit: Int) throws -> Data {
        switch c {
        case .none: return d
        case .unknown: return Gzip.isCompressed(d) ? try gunzip(d, path: path, what: what, limit: limit) : d
        case .gzip: return try gunzip(d, path: path, what: what, limit: limit)
        case .brotli: throw TileSourceError.unsupportedCompression(path: path, what: what, compression: "brotli")
        case .zstd: throw TileSourceError.unsupportedCompression(path: path, what: what, compression: "zstd")
        }
    }

    private static func gunzip(_ d: Data, path: String, what: String, limit: Int) throws -> Data {
        do { return try Gzip.decompress(d, limit: limit) } catch {
            throw TileSourceError.badCompression(path: path, what: what, reason: "\(error)")
        }
    }

    static func read(_ file: FileHandle, path: String, offset: UInt64, length: UInt64, fileSize: UInt64) throws -> Data {
        guard offset <= fileSize, length <= fileSize - offset else {
            throw TileSourceError.invalidPMTiles(path: path, reason: "a read at \(offset)+\(length) goes beyond the end of the \(fileSize)-byte file")
        }
        do {
            try file.seek(toOffset: offset)
            let d = try file.read(upToCount: Int(length)) ?? Data()
            guard d.count == Int(length) else { throw TileSourceError.unreadable(path: path, reason: "short read at \(offset)") }
            return d
        } catch let e as TileSourceError {
            throw e
        } catch {
            throw TileSourceError.unreadable(path: path, reason: "\(error)")
        }
    }
}

/// Unsigned LEB128 varints, as protobuf and PMTiles write them.
struct VarintReader {
    let bytes: [UInt8]
    var position = 0

    mutating func next() -> UInt64? {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while position < bytes.count {
            let b = bytes[position]
            position += 1
            guard shift < 64 else { return nil }
            value |= UInt64(b & 0x7f) << shift
            if b & 0x80 == 0 { return value }
            shift += 7
        }
        return nil
    }
}
