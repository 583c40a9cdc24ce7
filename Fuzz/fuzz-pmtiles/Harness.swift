import Foundation
import TileSources

/// libFuzzer target: any bytes as a PMTiles v3 file through `TileArchive.open` (header, root
/// directory, metadata), then tile reads that walk the directories and leaves: the first and
/// last tile of each zoom in the header's range, the centre tile, and addresses outside the
/// grid. It either opens or throws a `TileSourceError`; a read returns bytes, nil or a
/// `TileSourceError`; no tile comes back larger than `TileLimits.maxTileBytes`.
let path = (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory() + "/")
    + "fuzz-pmtiles-\(getpid()).pmtiles"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPMTiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else { return 0 }
    defer { unlink(path) }
    let tiles: any TileSource
    do { tiles = try TileArchive.open(path: path) } catch let e as TileSourceError {
        require(e.description.contains(path), "message without the file: \(e)")
        return 0
    } catch is MBTilesError { return 0 } catch {
        fatalError("open threw something other than a TileSourceError: \(error)")
    }
    let m = tiles.metadata
    require(m.minZoom >= 0 && m.minZoom <= m.maxZoom && m.maxZoom <= 30, "zoom range \(m.minZoom)...\(m.maxZoom)")
    func read(_ z: Int, _ x: Int, _ y: Int) {
        do {
            if let d = try tiles.tileData(z: z, x: x, y: y) {
                require(d.count <= TileLimits.maxTileBytes, "tile \(z)/\(x)/\(y) of \(d.count) bytes")
            }
        } catch is TileSourceError {
        } catch is MBTilesError {
        } catch {
            fatalError("tileData threw something other than a TileSourceError: \(error)")
        }
    }
    for z in m.minZoom...min(m.maxZoom, m.minZoom + 14) {
        let n = 1 << z
        for (x, y) in [(0, 0), (n - 1, n - 1), (n / 2, n / 2), (n / 3, (2 * n) / 3), (-1, 0), (n, 0)] { read(z, x, y) }
    }
    read(-1, 0, 0); read(31, 0, 0); read(Int.max, 0, 0)
    return 0
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
