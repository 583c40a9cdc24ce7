import Foundation
import TouchCore
import MapEngine
import Rendering
import TileSources
import VectorTiles

/// libFuzzer target: the street painter, tile + style -> frame. The input is a MapLibre style
/// document, a NUL byte, then one vector tile (gzip'd or plain, as a tile set hands it over);
/// without a NUL the whole input is the tile and the built-in style draws it. A style that
/// parses and a tile that decodes are drawn as the whole street map (every tile of the view is
/// this tile) into a 64x48 frame: flat at two zooms, tilted and turned, and once more with the
/// labels of a settled frame. The budget per input (Fuzz/options/fuzz-street.options) is
/// libFuzzer's -timeout and -rss_limit_mb: a style and a tile that together take longer or more
/// memory are a finding.
final class OneTile: TileSource, @unchecked Sendable {
    let path = "fuzz.mvt"
    let metadata = TileSetMetadata(format: "pbf", minZoom: 0, maxZoom: 14, kind: .vector)
    var data = Data()
    func tileData(z: Int, x: Int, y: Int) throws -> Data? { data }
}

let frame = OwnedFrameBuffer(width: 64, height: 48)
let standard = StreetStyle.standard()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStreet(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: bytes, count: size)
    let style: StreetStyle
    var tile: Data
    if let nul = input.firstIndex(of: 0) {
        do { style = try StreetStyle.parse(Data(input[..<nul]), file: "fuzz.json") } catch is StyleError { return 0 } catch {
            fatalError("StreetStyle.parse threw something other than a StyleError: \(error)")
        }
        tile = Data(input[(nul + 1)...])
    } else {
        style = standard
        tile = Data(input)
    }
    let source = OneTile()
    source.data = tile
    let renderer = MapRenderer(vector: VectorTileSet(tiles: source, maxBytes: 1 << 20), streetStyle: style)
    let here = Coordinate(latitude: 47.1, longitude: 9.5)
    for camera in [CameraPosition(target: here, zoom: 14.3), CameraPosition(target: here, zoom: 8.7),
                   CameraPosition(target: here, zoom: 15.5, bearing: 30, tilt: 50)] {
        renderer.render(MapScene(camera: camera), into: frame.buffer, quality: .interactive)
    }
    renderer.render(MapScene(camera: CameraPosition(target: here, zoom: 16.2)), into: frame.buffer, quality: .final)
    return 0
}
