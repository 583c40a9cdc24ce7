import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// A pan across the antimeridian: the camera's longitude wraps there, so its world x jumps by
/// the world's width, but the map repeats with that period. The base-map cache and the overlay
/// layer follow the view's nearest copy and keep scrolling, instead of being rebuilt and drawn
/// whole (a refresh's worth of work at 1080p) on the frame that crosses.
@Suite struct AntimeridianPanTests {
    static let size = (w: 800, h: 600)

    /// The camera whose view's top left is world x (any real number: taken modulo the world).
    static func camera(worldX: Double, worldY: Double, zoom: Double) -> CameraPosition {
        let w = WebMercator.worldSize(zoom: zoom)
        let cx = (worldX + Double(size.w) / 2).truncatingRemainder(dividingBy: w)
        let centre = Point(x: cx < 0 ? cx + w : cx, y: worldY + Double(size.h) / 2)
        return CameraPosition(target: WebMercator.coordinate(world: centre, zoom: zoom), zoom: zoom)
    }

    /// At a whole zoom, eastward then back west across the antimeridian (over Fiji): every frame
    /// comes from the cache (cached or scrolled, never rebuilt) and is a fresh renderer's frame
    /// of the same camera but for a few antialiased pixels where strips of the cache meet (as
    /// on any pan: 6 to 9 pixels on the same pan over Europe). A copy taken from the wrong turn
    /// of the world, or a pixel off, differs in thousands.
    @Test(arguments: [3.0, 4.0])
    func aPanAcrossTheAntimeridianKeepsTheCache(zoom: Double) {
        let panning = MapRenderer()
        let a = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let b = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let start = WebMercator.worldPoint(Coordinate(latitude: -17.5, longitude: 170), zoom: zoom)
        var x = start.x.rounded() - Double(Self.size.w) / 2, y = start.y.rounded() - Double(Self.size.h) / 2
        var scene = MapScene(camera: Self.camera(worldX: x, worldY: y, zoom: zoom))
        panning.render(scene, into: a.buffer)
        var crossed = 0, lastLongitude = scene.camera.target.longitude
        var kinds: [MapRenderer.FrameKind] = []
        for (i, step) in ([40, 55, 70, 90, 60, 75, 33, 80] + [-120, -150, -130, -140, -110]).enumerated() {
            x += Double(step); y += i % 3 == 0 ? 3 : -2
            scene.camera = Self.camera(worldX: x, worldY: y, zoom: zoom)
            if (scene.camera.target.longitude < 0) != (lastLongitude < 0) && abs(scene.camera.target.longitude) > 90 { crossed += 1 }
            lastLongitude = scene.camera.target.longitude
            panning.render(scene, into: a.buffer, quality: .interactive)
            kinds.append(panning.lastFrameKind)
            let fresh = MapRenderer()
            fresh.render(scene, into: b.buffer)
            let n = OverlayLayerTests.differingPixels(a.buffer, b.buffer)
            if n > 0 { OverlayLayerTests.save(a.buffer, "antimeridian-pan-\(i)"); OverlayLayerTests.save(b.buffer, "antimeridian-fresh-\(i)") }
            #expect(n <= 40, "zoom \(zoom), step \(i): \(n) pixels differ from a fresh frame")
        }
        #expect(crossed >= 2, "the pan crosses the antimeridian and back (\(crossed))")
        #expect(kinds.allSatisfy { $0 == .cached || $0 == .scrolled }, "\(kinds)")
        #expect(panning.overlayBuilds == 1, "the layer was drawn whole once, at the first frame (\(panning.overlayBuilds))")
    }

    /// At a fractional zoom the world is not a whole number of pixels wide: the pan frames
    /// keep the cache (a fraction of a pixel off a fresh frame, as any pan frame may be), and
    /// the final frame rebuilds it, so the still picture is a fresh frame's.
    @Test func atAFractionalZoomTheFinalFrameRebuildsTheCache() {
        let zoom = 3.5
        let panning = MapRenderer()
        let a = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let b = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let start = WebMercator.worldPoint(Coordinate(latitude: -17.5, longitude: 172), zoom: zoom)
        var x = start.x.rounded() - Double(Self.size.w) / 2
        let y = start.y.rounded() - Double(Self.size.h) / 2
        var scene = MapScene(camera: Self.camera(worldX: x, worldY: y, zoom: zoom))
        panning.render(scene, into: a.buffer)
        var kinds: [MapRenderer.FrameKind] = []
        for _ in 0..<8 {
            x += 60
            scene.camera = Self.camera(worldX: x, worldY: y, zoom: zoom)
            panning.render(scene, into: a.buffer, quality: .interactive)
            kinds.append(panning.lastFrameKind)
        }
        #expect(scene.camera.target.longitude < 0, "the pan crossed the antimeridian")
        #expect(kinds.allSatisfy { $0 == .cached || $0 == .scrolled }, "\(kinds)")
        panning.render(scene, into: a.buffer, quality: .final)
        #expect(panning.lastFrameKind == .cacheRebuilt)
        MapRenderer().render(scene, into: b.buffer)
        #expect(OverlayLayerTests.differingPixels(a.buffer, b.buffer) == 0)
        // Panning on from the rebuilt cache: pan frames again.
        x += 30
        scene.camera = Self.camera(worldX: x, worldY: y, zoom: zoom)
        panning.render(scene, into: a.buffer, quality: .interactive)
        #expect(panning.lastFrameKind == .cached || panning.lastFrameKind == .scrolled)
    }
}
