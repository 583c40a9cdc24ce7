import Foundation
import TouchCore
import MapEngine
import Rendering
import TileSources
import VectorTiles

/// libFuzzer target: any bytes as one Mapbox Vector Tile, as a tile set hands it over (gzip'd
/// or plain). It either decodes or throws `VectorTile.DecodeError`; a decoded tile's features
/// have even point lists and parts that start inside them in order; its byte estimate stays
/// within a fixed multiple of the input. A decoded tile is then drawn as the whole street map
/// (every tile of the view is this tile) in a 64x48 frame, flat and tilted.
final class OneTile: TileSource, @unchecked Sendable {
    let path = "fuzz.mvt"
    let metadata = TileSetMetadata(format: "pbf", minZoom: 0, maxZoom: 14, kind: .vector)
    var data = Data()
    func tileData(z: Int, x: Int, y: Int) throws -> Data? { data }
}

let frame = OwnedFrameBuffer(width: 64, height: 48)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMVT(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var data = Data(bytes: bytes, count: size)
    if Gzip.isCompressed(data) {
        do { data = try Gzip.decompress(data, limit: TileLimits.maxTileBytes) } catch { return 0 }
    }
    let tile: VectorTile
    do { tile = try VectorTile(data: data) } catch is VectorTile.DecodeError { return 0 } catch {
        fatalError("VectorTile threw something other than a DecodeError: \(error)")
    }
    var points = 0
    for (name, layer) in tile.layers {
        require(layer.name == name && layer.extent > 0, "layer \(name): extent \(layer.extent)")
        for f in layer.features {
            require(f.points.count % 2 == 0, "odd point list")
            require(!f.parts.isEmpty && f.parts[0] == 0, "parts \(f.parts.prefix(3))")
            for i in f.parts.indices {
                let r = f.partRange(i)
                require(r.lowerBound <= r.upperBound && r.upperBound <= f.points.count / 2, "part \(i) is \(r)")
            }
            points += f.points.count / 2
        }
    }
    // Every point came from at least two varint bytes of input (a MoveTo/LineTo delta pair).
    require(points <= data.count, "\(points) points from \(data.count) bytes")
    require(tile.approximateBytes <= 64 * data.count + 4096, "\(tile.approximateBytes) bytes estimated for \(data.count) bytes")

    let source = OneTile()
    source.data = data
    let renderer = MapRenderer(vector: VectorTileSet(tiles: source, maxBytes: 1 << 20))
    for camera in [CameraPosition(target: Coordinate(latitude: 47.1, longitude: 9.5), zoom: 14.3),
                   CameraPosition(target: Coordinate(latitude: 47.1, longitude: 9.5), zoom: 15.5, bearing: 30, tilt: 50)] {
        renderer.render(MapScene(camera: camera), into: frame.buffer)
    }
    return 0
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
