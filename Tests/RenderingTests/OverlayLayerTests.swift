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
        #expect(renderer.overlayBuilds == 1, "pan frames copy the layer (scrolling it in strips)")
        #expect(renderer.overlayStrips >= 3, "120 px of pan scrolls the layer in strips of 32 px or more")
        // The names reported for taps are where the pan frame shows them.
        let p = Projection(camera: scene.camera, screen: Size(width: Double(Self.size.w), height: Double(Self.size.h)))
        for place in renderer.drawnPlaces {
            let exact = p.point(for: place.coordinate)!
            #expect(exact.distance(to: place.point) <= 0.75, "\(place.name) at \(place.point), projected \(exact)")
        }
        // The settled frame after the gesture is a copy too: the names are placed over the
        // world, so a scrolled layer shows what one drawn whole there shows (tested below).
        renderer.render(scene, into: frame.buffer, quality: .final)
        #expect(renderer.overlayBuilds == 1, "the settled frame copies the layer")
        // A changed marker set draws it whole again.
        scene.markers.append(MarkerSprite(id: "new", coordinate: Coordinate(latitude: 48, longitude: 9)))
        renderer.render(scene, into: frame.buffer, quality: .interactive)
        #expect(renderer.overlayBuilds == 2)
        // A jump of 400 px scrolls it (the strips that come in are drawn); one of more than half
        // the layer draws it whole.
        let strips = renderer.overlayStrips
        scene.camera = Self.panned(scene.camera, 400, 0)
        renderer.render(scene, into: frame.buffer, quality: .interactive)
        #expect(renderer.overlayBuilds == 2 && renderer.overlayStrips == strips + 1)
        scene.camera = Self.panned(scene.camera, 0, 500)
        renderer.render(scene, into: frame.buffer, quality: .interactive)
        #expect(renderer.overlayBuilds == 3)
    }

    /// The layer scrolled in strips through a pan (names, pins, an info window, pans of whole and
    /// fractional pixels in every direction) equals, byte for byte, the layer drawn whole at the
    /// same camera over the same base map; and it reports the same names. Over Europe, and over
    /// Fiji, where the pan crosses the antimeridian (names and pins on both sides of it).
    @Test(arguments: [(47.0, 8.0), (-17.5, 179.5)])
    func aStripScrolledLayerEqualsALayerDrawnWhole(lat: Double, lon: Double) {
        let renderer = MapRenderer()
        let frame = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let whole = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let start = CameraPosition(target: Coordinate(latitude: lat, longitude: lon), zoom: 5)
        let west = lon - 10, east = lon + 12
        var markers = Self.markers(400, lat: (lat - 7)...(lat + 8), lon: west...min(east, 180))
        if east > 180 { markers += Self.markers(100, lat: (lat - 7)...(lat + 8), lon: -180...(east - 360)) }
        var scene = MapScene(camera: start, markers: markers)
        scene.infoWindow = InfoWindowScene(title: "Here", snippet: "An info window over the pan",
                                                       coordinate: Coordinate(latitude: lat - 0.5, longitude: lon - 0.5))
        renderer.render(scene, into: frame.buffer)
        var compared = 0, lastStrips = 0
        for i in 1...36 {
            let a = Double(i) * .pi / 18
            scene.camera = Self.panned(start, 9.3 * Double(i) * cos(a), 7.1 * Double(i) * sin(a))
            renderer.render(scene, into: frame.buffer, quality: .interactive)
            guard i % 6 == 0 else { continue }
            let scrolled = renderer.drawnPlaces.map(\.name)
            #expect(renderer.overlayStrips > lastStrips, "frame \(i): the layer scrolls")
            // Where the pan crosses the antimeridian the view's world x jumps by the world's
            // width, and the base cache and the layer are drawn again there (one frame).
            if lon < 170 { #expect(renderer.overlayBuilds == 1 + compared, "frame \(i): not drawn whole") }
            lastStrips = renderer.overlayStrips
            let builds = renderer.overlayBuilds
            // The same renderer (so the same base-map cache), its layer drawn whole here.
            renderer.invalidateOverlayLayer()
            renderer.render(scene, into: whole.buffer, quality: .interactive)
            #expect(renderer.overlayBuilds == builds + 1)
            let differing = Self.differingPixels(frame.buffer, whole.buffer)
            if differing > 0 { Self.save(frame.buffer, "layer-strips-\(i)"); Self.save(whole.buffer, "layer-whole-\(i)") }
            #expect(differing == 0, "frame \(i): \(differing) pixels differ")
            #expect(renderer.drawnPlaces.map(\.name) == scrolled)
            #expect(!scrolled.isEmpty)
            compared += 1
            // The pan goes on scrolling the layer drawn whole here.
        }
        #expect(compared == 6)
    }

    /// The names at a camera do not depend on how the camera got there: a long pan, a jump, a
    /// zoom from another level and a fresh renderer all show the same names.
    @Test func theSameNamesWhicheverWayTheCameraArrived() {
        let target = CameraPosition(target: Coordinate(latitude: 50, longitude: 10), zoom: 5)
        let frame = OwnedFrameBuffer(width: Self.size.w, height: Self.size.h)
        let fresh = MapRenderer()
        fresh.render(MapScene(camera: target), into: frame.buffer)
        let expected = fresh.drawnPlaces.map(\.name)
        #expect(expected.count >= 5)
        // A long pan ending there (the layer scrolled in strips all the way, from 600 px off).
        let panned = MapRenderer()
        var scene = MapScene(camera: Self.panned(target, -600, 250))
        panned.render(scene, into: frame.buffer)
        for i in 1...60 {
            scene.camera = Self.panned(target, -600 + 10 * Double(i), 250 - 250 * Double(i) / 60)
            panned.render(scene, into: frame.buffer, quality: .interactive)
        }
        panned.render(scene, into: frame.buffer, quality: .final)
        #expect(panned.overlayBuilds == 1 && panned.overlayStrips > 10)
        #expect(panned.drawnPlaces.map(\.name) == expected)
        // From zoom 4 then a zoom step.
        let zoomed = MapRenderer()
        var z = MapScene(camera: target)
        z.camera.zoom = 4
        zoomed.render(z, into: frame.buffer)
        zoomed.render(MapScene(camera: target), into: frame.buffer)
        #expect(zoomed.drawnPlaces.map(\.name) == expected)
        // Every name drawn is where its place projects, whichever renderer drew it.
        let p = Projection(camera: target, screen: Size(width: Double(Self.size.w), height: Double(Self.size.h)))
        for place in panned.drawnPlaces {
            #expect(p.point(for: place.coordinate)!.distance(to: place.point) <= 0.75, "\(place.name)")
        }
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
        // The direct renderer draws its layer whole at the settled camera; the panned one
        // scrolled its layer in strips and copies the settled frame from it.
        direct.invalidateOverlayLayer()
        direct.render(s2, into: reference2.buffer, quality: .final)
        #expect(panned.overlayBuilds == 1 && panned.overlayStrips > 0 && direct.overlayBuilds == 2)
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
