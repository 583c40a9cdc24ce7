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
        // The settled frame after the gesture draws the layer again, centred on the view; an
        // unchanged settled frame after it is a copy.
        renderer.render(scene, into: frame.buffer, quality: .final)
        #expect(renderer.overlayBuilds == 2, "settled away from the layer's centre: drawn centred on the view")
        renderer.render(scene, into: frame.buffer, quality: .final)
        #expect(renderer.overlayBuilds == 2)
        // A changed marker set draws it again.
        scene.markers.append(MarkerSprite(id: "new", coordinate: Coordinate(latitude: 48, longitude: 9)))
        renderer.render(scene, into: frame.buffer, quality: .interactive)
        #expect(renderer.overlayBuilds == 3)
        // So does leaving it.
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
        let settled = Self.differences(frame.buffer, reference.buffer)
        if settled.count > 0 { Self.save(frame.buffer, "layer-settled"); Self.save(reference.buffer, "layer-settled-fresh") }
        // The names and pins are the fresh frame's. The base map under them is not quite: the
        // fresh renderer drew its base-map cache around another centre (and this one scrolled
        // its cache with the pan), and cairo's antialiasing of the rivers and borders differs by
        // a few levels in a few pixels with the projection's centre (as before the overlay layer).
        #expect(settled.count <= 100 && settled.maxDelta <= 8, "settled frame: \(settled.count) pixels differ, by up to \(settled.maxDelta)")
        #expect(renderer.drawnPlaces.map(\.name) == fresh.drawnPlaces.map(\.name))
        // With the same base-map cache (a renderer that drew the start, then the settled camera
        // straight away, no pan frames between), a pan that ends settled gives that frame exactly.
        let panned = MapRenderer(), direct = MapRenderer()
        let reference2 = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        var s2 = scene
        s2.camera = start
        panned.render(s2, into: frame.buffer)
        direct.render(s2, into: reference2.buffer)
        for i in 1...10 {
            s2.camera = Self.panned(start, Double(i) * 5.3, Double(i) * 3.1)
            panned.render(s2, into: frame.buffer, quality: .interactive)
        }
        panned.render(s2, into: frame.buffer, quality: .final)
        direct.render(s2, into: reference2.buffer, quality: .final)
        #expect(panned.overlayBuilds == 2 && direct.overlayBuilds == 2)
        let exact = Self.differences(frame.buffer, reference2.buffer)
        #expect(exact.count == 0, "\(exact.count) pixels differ")
    }

    static func differences(_ a: FrameBuffer, _ b: FrameBuffer) -> (count: Int, maxDelta: Int) {
        var n = 0, d = 0
        for y in 0..<a.height { for x in 0..<a.width {
            let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
            guard p != q else { continue }
            n += 1
            for shift in [0, 8, 16] { d = max(d, abs(Int((p >> UInt32(shift)) & 0xff) - Int((q >> UInt32(shift)) & 0xff))) }
        } }
        return (n, d)
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
        // Pins are drawn at the whole-pixel offset of the copied base map in the layer and at
        // their projected points without it (up to half a pixel apart): their antialiased edges
        // differ. Everywhere else the frames are the same.
        let p = Projection(camera: scene.camera, screen: Size(width: Double(Self.size.w), height: Double(Self.size.h)))
        let tips = scene.markers.compactMap { p.point(for: $0.coordinate) }
        var outside = 0, inside = 0
        for y in 0..<Self.size.h { for x in 0..<Self.size.w where a.buffer.pixel(x: x, y: y) != b.buffer.pixel(x: x, y: y) {
            let onPin = tips.contains { abs(Double(x) - $0.x) <= 15 && Double(y) >= $0.y - 45 && Double(y) <= $0.y + 3 }
            if onPin { inside += 1 } else { outside += 1 }
        } }
        #expect(outside == 0, "\(outside) pixels away from the pins differ")
        #expect(inside > 0, "the pins' edges move by the sub-pixel offset")
    }
}
