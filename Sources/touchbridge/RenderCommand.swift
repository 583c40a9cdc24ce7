import ArgumentParser
import Foundation
import MapEngine
import Rendering

/// `touchbridge render`: draws one frame of the map for a camera into a PNG file (or onto a
/// display), headless. For screenshots, the README and the display e2e test.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw the map for a camera into a PNG file.")

    @Option(help: "Camera: LAT,LON,ZOOM[,BEARING,TILT] (degrees, zoom level).")
    var camera: String = "20,0,1.5"

    @Option(help: "Frame size WxH in pixels.")
    var size: String = "1280x800"

    @Option(help: "Output PNG file.")
    var out: String = "map.png"

    @Option(help: "MBTiles raster tile set drawn over the built-in world map.")
    var mbtiles: String?

    @Option(help: "Markers: LAT,LON[;LAT,LON...] (default pins).")
    var markers: String?

    @Option(help: "Info window over the first marker: TITLE[|SNIPPET].")
    var info: String?

    @Flag(help: "Show the Re-center button.")
    var recenter = false

    @Option(help: "Render this many frames and print milliseconds per frame (full, pan, memcpy).")
    var bench: Int?

    func run() throws {
        let cam = try RenderCommand.parseCamera(camera)
        let parts = size.lowercased().split(separator: "x").compactMap { Int($0) }
        guard parts.count == 2, parts[0] > 0, parts[1] > 0 else {
            throw ValidationError("--size must be WxH in pixels, e.g. 1280x800 (got \(size))")
        }
        var raster: RasterTileSource?
        if let path = mbtiles {
            let opened = MapRenderer.openRaster(path: path)
            raster = opened.source
            if let w = opened.warning { FileHandle.standardError.write(Data((w + "\n").utf8)) }
        }
        let renderer = MapRenderer(raster: raster)
        var scene = MapScene(camera: cam, showsRecenterButton: recenter)
        if let markers {
            for (i, m) in markers.split(separator: ";").enumerated() {
                let v = m.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard v.count == 2 else { throw ValidationError("--markers wants LAT,LON;LAT,LON (got \(m))") }
                scene.markers.append(MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: v[0], longitude: v[1])))
            }
        }
        if let info, let first = scene.markers.first {
            let t = info.split(separator: "|", maxSplits: 1).map(String.init)
            scene.infoWindow = InfoWindowContent(title: t[0], snippet: t.count > 1 ? t[1] : nil, coordinate: first.coordinate)
        }
        let frame = OwnedFrameBuffer(width: parts[0], height: parts[1])
        if let n = bench {
            print(RenderBenchmark.run(renderer: renderer, scene: scene, frame: frame.buffer, frames: max(n, 1)))
        }
        renderer.render(scene, into: frame.buffer)
        try frame.buffer.writePNG(to: out)
        if let raster { for w in raster.warnings { FileHandle.standardError.write(Data(("warning: " + w + "\n").utf8)) } }
    }

    static func parseCamera(_ s: String) throws -> CameraPosition {
        let v = s.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 3 || v.count == 5, v.allSatisfy({ $0 != nil }) else {
            throw ValidationError("--camera must be LAT,LON,ZOOM[,BEARING,TILT] (got \(s))")
        }
        let d = v.map { $0! }
        return CameraPosition(target: Coordinate(latitude: d[0], longitude: d[1]), zoom: d[2],
                              bearing: d.count == 5 ? d[3] : 0, tilt: d.count == 5 ? d[4] : 0)
    }
}
