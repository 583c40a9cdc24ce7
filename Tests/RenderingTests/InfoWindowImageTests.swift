import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// A custom info window's image is drawn (left of the text, inside the window) and the window
/// is measured with it, so taps find the window as drawn.
struct InfoWindowImageTests {
    /// A 32 x 32 magenta PNG in the temporary folder.
    static func magentaPNG() throws -> String {
        let img = OwnedFrameBuffer(width: 32, height: 32)
        for y in 0..<32 {
            for x in 0..<32 {
                img.buffer.pixels.storeBytes(of: UInt32(0xFF00FF), toByteOffset: y * img.buffer.stride + 4 * x, as: UInt32.self)
            }
        }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-info-image-\(getpid()).png").path
        try img.buffer.writePNG(to: path)
        return path
    }

    @Test func customWindowImageIsDrawnInsideTheWindow() throws {
        let path = try Self.magentaPNG()
        defer { try? FileManager.default.removeItem(atPath: path) }
        let coord = Coordinate(latitude: 30, longitude: -30)
        func scene(image: String?) -> MapScene {
            MapScene(camera: CameraPosition(target: coord, zoom: 5), markers: [MarkerSprite(id: "m", coordinate: coord)],
                     infoWindow: InfoWindowScene(content: InfoWindowContent(title: "Cafe", lines: ["Open"], imageName: image), coordinate: coord))
        }
        let with = RenderedFrame(scene(image: path), name: "info-image")
        let without = RenderedFrame(scene(image: nil))
        func magenta(_ f: RenderedFrame) -> Int {
            var n = 0
            for y in 0..<600 { for x in 0..<800 where f.pixel(x, y) == 0xFF00FF { n += 1 } }
            return n
        }
        #expect(magenta(with) == 32 * 32, "the whole image, unscaled")
        #expect(magenta(without) == 0)
        // Measured wider with the image: the image and its gap.
        let renderer = MapRenderer()
        let plain = renderer.infoWindowSize(InfoWindowContent(title: "Cafe", lines: ["Open"]))
        let withImage = renderer.infoWindowSize(InfoWindowContent(title: "Cafe", lines: ["Open"], imageName: path))
        #expect(withImage.width == plain.width + 32 + OverlayPainter.infoImageGap)
    }
}
