import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// The overlay layer: place names and markers drawn once into a layer that moves with the map,
/// so a pan frame is a copy of it plus the screen furniture.
@Suite struct OverlayLayerTests {
    static let size = (w: 800, h: 600)

    /// Markers scattered over a box (a fixed sequence).
    static func markers(_ n: Int, lat: ClosedRange<Double>, lon: ClosedRange<Double>) -> [MarkerSprite] {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return Double(x % 1_000_000) / 1_000_000 }
        return (0..<n).map { i in
            MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: lat.lowerBound + (lat.upperBound - lat.lowerBound) * next(),
                                                             longitude: lon.lowerBound + (lon.upperBound - lon.lowerBound) * next()))
        }
    }

    /// The camera `dx`, `dy` screen px from `c` (a pan).
    static func panned(_ c: CameraPosition, _ dx: Double, _ dy: Double) -> CameraPosition {
        let p = Projection(camera: c, screen: Size(width: Double(size.w), height: Double(size.h)))
        var out = c
        out.target = p.coordinate(at: Point(x: Double(size.w) / 2 + dx, y: Double(size.h) / 2 + dy))!
        return out
    }

    static func differingPixels(_ a: FrameBuffer, _ b: FrameBuffer) -> Int {
        var n = 0
        for y in 0..<a.height { for x in 0..<a.width where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { n += 1 } }
        return n
    }

    static func save(_ f: FrameBuffer, _ name: String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-rendering-tests")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try? f.writePNG(to: dir.appendingPathComponent(name + ".png").path)
    }

    @Test func panFramesCopyTheLayerAndDrawNoMarkerOrNameAgain() {
        let renderer = MapRenderer()
        let frame = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let start = CameraPosition(target: Coordinate(latitude: 48.5, longitude: 9), zoom: 5)
        var scene = MapScene(camera: start, markers: Self.markers(2_000, lat: 40...57, lon: -5...23))
        renderer.render(scene, into: frame.buffer)
        #expect(renderer.overlayBuilds == 1)
        #expect(!renderer.drawnPlaces.isEmpty)
        // 40 pan frames, up to 120 px from the start: inside the layer's margin, nothing is drawn again.
        for i in 1...40 {
            scene.camera = Self.panned(start, Double(i * 3), -Double(i * 2))
            renderer.render(scene, into: frame.buffer, quality: .interactive)
            #expect([.cached, .scrolled].contains(renderer.lastFrameKind))
        }
        #expect(renderer.overlayBuilds == 1, "pan frames copy the layer")
        // The names reported for taps are where the pan frame shows them.
        let p = Projection(camera: scene.camera, screen: Size(width: Double(Self.size.w), height: Double(Self.size.h)))
        for place in renderer.drawnPlaces {
            let exact = p.point(for: place.coordinate)!
            #expect(exact.distance(to: place.point) <= 0.75, "\(place.name) at \(place.point), projected \(exact)")
        }
        // A changed marker set, and the settled frame after the gesture, draw the layer again.
        scene.markers.append(MarkerSprite(id: "new", coordinate: Coordinate(latitude: 48, longitude: 9)))
        renderer.render(scene, into: frame.buffer, quality: .interactive)
        #expect(renderer.overlayBuilds == 2)
        renderer.render(scene, into: frame.buffer, quality: .final)
        #expect(renderer.overlayBuilds == 3, "settled away from the layer's centre: drawn centred on the view")
        renderer.render(scene, into: frame.buffer, quality: .final)
        #expect(renderer.overlayBuilds == 3, "an unchanged settled frame is a copy")
        // Leaving the layer draws it again around the view.
        scene.camera = Self.panned(scene.camera, 400, 0)
        renderer.render(scene, into: frame.buffer, quality: .interactive)
        #expect(renderer.overlayBuilds == 4)
    }

    /// Markers over the open Atlantic (no names): a pan frame from the layer equals, byte for
    /// byte, the frame a fresh renderer draws at the same camera.
    @Test func aPanFrameEqualsAFreshFrameAtTheSameCamera() {
        let renderer = MapRenderer()
        let frame = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let start = CameraPosition(target: Coordinate(latitude: 30, longitude: -50), zoom: 6)
        var scene = MapScene(camera: start, markers: Self.markers(300, lat: 22...38, lon: -60...(-40)))
        renderer.render(scene, into: frame.buffer)
        for (i, step) in [(13.0, 7.0), (41.3, -22.6), (87.5, -60.2), (-55.25, 101.7)].enumerated() {
            scene.camera = Self.panned(start, step.0, step.1)
            renderer.render(scene, into: frame.buffer, quality: .interactive)
            #expect(renderer.overlayBuilds == 1)
            let fresh = MapRenderer()
            let reference = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
            fresh.render(scene, into: reference.buffer)
            let differing = Self.differingPixels(frame.buffer, reference.buffer)
            if differing > 0 { Self.save(frame.buffer, "layer-pan-\(i)"); Self.save(reference.buffer, "layer-fresh-\(i)") }
            #expect(differing == 0, "step \(i): \(differing) pixels differ")
        }
    }

    /// With names: the settled frame after a pan is the frame a fresh renderer draws; the pan
    /// frames before it differ from that only where names near the layer's edge were placed
    /// differently.
    @Test func theSettledFrameEqualsAFreshFrame() {
        let renderer = MapRenderer()
        let frame = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let start = CameraPosition(target: Coordinate(latitude: 48.5, longitude: 9), zoom: 5)
        var scene = MapScene(camera: start, markers: Self.markers(200, lat: 40...57, lon: -5...23))
        renderer.render(scene, into: frame.buffer)
        for i in 1...20 {
            scene.camera = Self.panned(start, Double(i) * 5.3, Double(i) * 3.1)
            renderer.render(scene, into: frame.buffer, quality: .interactive)
        }
        let fresh = MapRenderer()
        let reference = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        fresh.render(scene, into: reference.buffer)
        let panDiffering = Self.differingPixels(frame.buffer, reference.buffer)
        #expect(Double(panDiffering) < 0.03 * Double(Self.size.w * Self.size.h), "pan frame: \(panDiffering) pixels differ")
        renderer.render(scene, into: frame.buffer, quality: .final)
        let settledDiffering = Self.differingPixels(frame.buffer, reference.buffer)
        if settledDiffering > 0 { Self.save(frame.buffer, "layer-settled"); Self.save(reference.buffer, "layer-settled-fresh") }
        #expect(settledDiffering == 0, "settled frame: \(settledDiffering) pixels differ")
        #expect(renderer.drawnPlaces.map(\.name) == fresh.drawnPlaces.map(\.name))
    }

    /// The layer off: names and markers drawn over every frame as before, the same picture.
    @Test func layerOffDrawsTheSameSettledFrame() {
        let on = MapRenderer(), off = MapRenderer()
        off.usesOverlayLayer = false
        let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 30, longitude: -50), zoom: 6),
                             markers: Self.markers(100, lat: 22...38, lon: -60...(-40)))
        let a = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let b = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        on.render(scene, into: a.buffer)
        off.render(scene, into: b.buffer)
        #expect(on.overlayBuilds == 1 && off.overlayBuilds == 0)
        // Markers are drawn at the whole-pixel offset of the copied base map in the layer and
        // at their exact projected points without it: their antialiased edges differ by a pixel.
        let differing = Self.differingPixels(a.buffer, b.buffer)
        #expect(Double(differing) < 0.02 * Double(Self.size.w * Self.size.h), "\(differing) pixels differ")
    }
}
