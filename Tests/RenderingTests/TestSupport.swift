import CCairo
import Foundation
import MapEngine
import TouchCore
@testable import Rendering

/// A rendered frame with helpers for pixel assertions.
final class RenderedFrame {
    let owned: OwnedFrameBuffer
    var buffer: FrameBuffer { owned.buffer }
    let projection: Projection

    init(_ scene: MapScene, width: Int = 800, height: Int = 600, renderer: MapRenderer = MapRenderer(), name: String? = nil) {
        owned = OwnedFrameBuffer(width: width, height: height)
        projection = Projection(camera: scene.camera, screen: Size(width: Double(width), height: Double(height)))
        renderer.render(scene, into: owned.buffer)
        if let name {
            // Kept for looking at: /tmp/touchbridge-rendering-tests/NAME.png
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-rendering-tests")
            try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try? owned.buffer.writePNG(to: dir.appendingPathComponent(name + ".png").path)
        }
    }

    func pixel(_ p: Point) -> UInt32 { buffer.pixel(x: Int(p.x.rounded(.down)), y: Int(p.y.rounded(.down))) }
    func pixel(_ x: Int, _ y: Int) -> UInt32 { buffer.pixel(x: x, y: y) }

    /// How many pixels of the (2r+1)^2 square around p have exactly this colour.
    func count(of color: RGBColor, around p: Point, radius r: Int = 3) -> Int {
        let want = color.pixel & 0x00ff_ffff
        var n = 0
        for dy in -r...r { for dx in -r...r where pixel(Int(p.x) + dx, Int(p.y) + dy) == want { n += 1 } }
        return n
    }

    func screenPoint(_ lat: Double, _ lon: Double) -> Point {
        projection.point(for: Coordinate(latitude: lat, longitude: lon))!
    }
}

func rgb(_ pixel: UInt32) -> (r: Int, g: Int, b: Int) {
    (Int((pixel >> 16) & 0xff), Int((pixel >> 8) & 0xff), Int(pixel & 0xff))
}

func isReddish(_ pixel: UInt32) -> Bool {
    let c = rgb(pixel)
    return c.r > 180 && c.g < 110 && c.b < 110
}

func fixture(_ name: String) -> String {
    Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")!.path
}
