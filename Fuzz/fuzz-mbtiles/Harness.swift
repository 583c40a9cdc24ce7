import Foundation
import TouchCore
import MapEngine
import Rendering
import TileSources

/// libFuzzer target: any bytes as an MBTiles file, through the public API: open it (metadata),
/// read and decode the tiles around its zoom range, and draw a small frame with it at its
/// minimum zoom as the kiosk would. It either opens or throws an MBTilesError; a tile either
/// decodes or is skipped; the frame is drawn.
let path = (FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm/" : NSTemporaryDirectory() + "/")
    + "fuzz-mbtiles-\(getpid()).mbtiles"
let frame = OwnedFrameBuffer(width: 64, height: 48)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMBTiles(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard FileManager.default.createFile(atPath: path, contents: Data(bytes: data, count: size)) else { return 0 }
    defer { unlink(path) }
    let tiles: MBTiles
    do { tiles = try MBTiles(path: path) } catch is MBTilesError { return 0 } catch {
        fatalError("MBTiles threw something other than an MBTilesError: \(error)")
    }
    let source = RasterTileSource(tiles: tiles, capacity: 8)
    let z0 = min(max(tiles.metadata.minZoom, 0), 22)
    for z in z0...min(z0 + 1, 22) {
        let n = 1 << z
        for (x, y) in [(0, 0), (n - 1, n - 1), (n / 2, n / 2), (-1, 0), (n, n)] {
            _ = try? tiles.tileData(z: z, x: x, y: y)
            _ = source.find(z: z, x: x, y: y)
        }
    }
    _ = try? tiles.tileData(z: tiles.metadata.maxZoom, x: 0, y: 0)
    _ = source.find(z: tiles.metadata.minZoom, x: 0, y: 0)
    _ = source.find(z: tiles.metadata.maxZoom, x: 1, y: 1)

    // The kiosk draws the world with the tile set over it, at any zoom, whatever the metadata says.
    let renderer = MapRenderer(raster: source)
    for zoom in [Double(z0), 3.5] {
        let camera = CameraPosition(target: Coordinate(latitude: 10, longitude: 20), zoom: zoom)
        renderer.render(MapScene(camera: camera), into: frame.buffer)
    }
    return 0
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
