import Testing
import Foundation
import MapEngine
@testable import Rendering

/// `[map] text_scale` (MapRenderer.textScale) makes the world map's place labels bigger for a
/// panel seen from afar or a HiDPI panel: the placed label boxes grow with it.
@Suite struct TextScaleTests {
    func labels(scale: Double) -> [DrawnPlace] {
        let renderer = MapRenderer()
        renderer.textScale = scale
        let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 46, longitude: 5), zoom: 4, bearing: 0, tilt: 0))
        _ = RenderedFrame(scene, width: 800, height: 600, renderer: renderer, name: "text-scale-\(scale)")
        return renderer.drawnPlaces
    }

    @Test func worldLabelBoxesGrowWithTheTextScale() throws {
        let normal = labels(scale: 1), big = labels(scale: 2), small = labels(scale: 0.5)
        for name in ["Paris", "Madrid"] {
            let n = try #require(normal.first { $0.name == name }).frame
            let b = try #require(big.first { $0.name == name }, "\(name) at scale 2").frame
            let s = try #require(small.first { $0.name == name }, "\(name) at scale 0.5").frame
            #expect(b.height > 1.7 * n.height && b.height < 2.3 * n.height, "\(name): \(n) -> \(b)")
            #expect(b.width > 1.7 * n.width && b.width < 2.3 * n.width, "\(name): \(n) -> \(b)")
            #expect(s.height < 0.7 * n.height && s.width < 0.7 * n.width, "\(name): \(n) -> \(s)")
        }
        let country = try #require(normal.first { $0.kind == .country }, "a country name at scale 1")
        if let grown = big.first(where: { $0.name == country.name }) {
            #expect(grown.frame.height > 1.7 * country.frame.height)
        }
        // Bigger labels leave less room: fewer of them fit, and none overlap.
        #expect(big.count < normal.count && normal.count < small.count)
        for a in big { for b in big where a.name != b.name {
            let overlap = a.frame.x < b.frame.x + b.frame.width && b.frame.x < a.frame.x + a.frame.width
                && a.frame.y < b.frame.y + b.frame.height && b.frame.y < a.frame.y + a.frame.height
            #expect(!overlap, "\(a.name) / \(b.name)")
        } }
    }
}
