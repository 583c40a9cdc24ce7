import Foundation

/// The one seam the map renderers read tiles through: an archive of tiles by XYZ address
/// (y grows south), raster images or vector tiles, whatever the container (MBTiles, PMTiles).
/// `tileData` returns the tile's bytes as stored, compression already removed (gzip'd vector
/// tiles come back as plain protobuf), so a painter never sees the container.
public protocol TileSource: AnyObject, Sendable {
    /// The file the tiles come from, for messages.
    var path: String { get }
    var metadata: TileSetMetadata { get }
    /// Tile bytes, uncompressed; nil when the archive has no such tile. Throws a
    /// `TileSourceError` naming the file and the tile when the tile cannot be read.
    /// Safe to call from any one thread at a time per tile source (implementations lock).
    func tileData(z: Int, x: Int, y: Int) throws -> Data?
}

/// What a tile set says about itself, whatever its container.
public struct TileSetMetadata: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable { case raster, vector }
    public var name: String?
    /// "png", "jpg", "webp", "pbf", ... from the metadata, or sniffed from a tile.
    public var format: String?
    /// west, south, east, north in degrees.
    public var bounds: (west: Double, south: Double, east: Double, north: Double)?
    public var minZoom: Int
    public var maxZoom: Int
    public var attribution: String?
    /// Raster images or vector tiles, told from a tile's content when it matters.
    public var kind: Kind
    /// The source layers a vector tile set declares (`vector_layers`), if any.
    public var vectorLayers: [String]

    public init(name: String? = nil, format: String? = nil,
                bounds: (west: Double, south: Double, east: Double, north: Double)? = nil,
                minZoom: Int, maxZoom: Int, attribution: String? = nil, kind: Kind = .raster, vectorLayers: [String] = []) {
        self.name = name
        self.format = format
        self.bounds = bounds
        self.minZoom = minZoom
        self.maxZoom = maxZoom
        self.attribution = attribution
        self.kind = kind
        self.vectorLayers = vectorLayers
    }

    public static func == (a: TileSetMetadata, b: TileSetMetadata) -> Bool {
        a.name == b.name && a.format == b.format && a.minZoom == b.minZoom && a.maxZoom == b.maxZoom
            && a.attribution == b.attribution && a.kind == b.kind && a.vectorLayers == b.vectorLayers
            && a.bounds.map { [$0.west, $0.south, $0.east, $0.north] } == b.bounds.map { [$0.west, $0.south, $0.east, $0.north] }
    }

    /// The layer ids of a TileJSON-style `{"vector_layers": [{"id": ...}]}` document.
    static func vectorLayerIDs(json: String?) -> [String] {
        guard let data = json?.data(using: .utf8),
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return [] }
        return vectorLayerIDs(object: obj)
    }

    static func vectorLayerIDs(object: [String: Any]) -> [String] {
        // Converted archives may keep the MBTiles "json" row as a string inside the metadata.
        if object["vector_layers"] == nil, let nested = object["json"] as? String { return vectorLayerIDs(json: nested) }
        guard let layers = object["vector_layers"] as? [Any] else { return [] }
        return layers.compactMap { ($0 as? [String: Any])?["id"] as? String }
    }
}

/// Upper bounds that keep one bad tile from taking the kiosk's memory.
public enum TileLimits {
    /// Largest tile accepted as stored (compressed).
    public static let maxStoredTileBytes = 4 << 20
    /// Largest tile after decompression.
    public static let maxTileBytes = 16 << 20
    /// Largest PMTiles leaf directory after decompression (at most 2 million entries by the
    /// four-bytes-an-entry rule; real leaves are well under 1 MiB).
    public static let maxDirectoryBytes = 8 << 20
    /// Largest PMTiles root directory after decompression. The spec keeps header and root within
    /// the file's first 16 KiB; a 65 KB gzip root expanding to 64 MiB took 670 MB (issue 31).
    public static let maxRootDirectoryBytes = 1 << 20
    /// The most entries of one PMTiles directory (32 bytes each once read).
    public static let maxDirectoryEntries = 500_000
    /// Largest PMTiles metadata JSON after decompression.
    public static let maxMetadataBytes = 4 << 20
    /// Largest raster tile side in pixels (checked from the header, before decoding).
    public static let maxImageSide = 1024
    /// Longest value SQLite loads from an MBTiles file (tile, metadata text): longer is an error
    /// ("string or blob too big"), never an allocation.
    public static let maxSQLiteValueBytes = 16 << 20
    /// Zoom levels a tile set may name (tile addresses fit 2^30 per side).
    public static let zoomRange = 0...30
}

/// Why a tile set or one of its tiles cannot be used; each message names the file and what to do.
public enum TileSourceError: Error, CustomStringConvertible, Equatable {
    case unreadable(path: String, reason: String)
    case unknownContainer(path: String)
    case invalidPMTiles(path: String, reason: String)
    case tileTooLarge(path: String, z: Int, x: Int, y: Int, bytes: Int, limit: Int)
    case badCompression(path: String, what: String, reason: String)
    case unsupportedCompression(path: String, what: String, compression: String)

    public var description: String {
        switch self {
        case let .unreadable(path, reason):
            return "cannot read the tile set \(path): \(reason). Check that the file is complete and readable."
        case let .unknownContainer(path):
            return "\(path) is neither an MBTiles (SQLite) nor a PMTiles v3 tile set (judged by its first bytes, not its name). Give a .mbtiles or .pmtiles file."
        case let .invalidPMTiles(path, reason):
            return "\(path) is not a usable PMTiles v3 archive: \(reason). Re-create it (e.g. pmtiles convert)."
        case let .tileTooLarge(path, z, x, y, bytes, limit):
            return "\(path): tile \(z)/\(x)/\(y) is \(bytes) bytes, more than the \(limit) allowed; skipped (the rest of the map is drawn)."
        case let .badCompression(path, what, reason):
            return "\(path): \(what) cannot be decompressed (\(reason)); skipped (the rest of the map is drawn)."
        case let .unsupportedCompression(path, what, compression):
            return "\(path): \(what) is \(compression)-compressed, which this build does not decode (gzip or none only). Re-create the archive with gzip compression."
        }
    }
}

/// Opens tile sets by their content.
public enum TileArchive {
    /// Opens an MBTiles or PMTiles v3 file, told apart by its first bytes (never its name).
    public static func open(path: String) throws -> any TileSource {
        let fd: Int32
        switch TileFile.openRegular(path) {
        case let .success(d): fd = d
        case let .failure(f): throw TileSourceError.unreadable(path: path, reason: f.reason)
        }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        let head = (try? handle.read(upToCount: 16)) ?? Data()
        try? handle.close()
        if head.starts(with: Array("SQLite format 3".utf8)) { return try MBTiles(path: path) }
        if head.starts(with: Array("PMTiles".utf8)) { return try PMTiles(path: path) }
        throw TileSourceError.unknownContainer(path: path)
    }
}
