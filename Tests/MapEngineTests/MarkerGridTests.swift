import Testing
import TouchCore
@testable import MapEngine

/// The grid-backed hit test gives exactly the answer of testing every marker in drawing order.
@Suite struct MarkerGridTests {
    /// The hit test as it was before the grid: every marker, topmost first.
    func linearHit(_ c: MapController, _ p: Point) -> String? {
        let proj = c.projection
        for m in c.markersInDrawingOrder.reversed() {
            guard let s = proj.point(for: m.position) else { continue }
            if m.iconContains(p, markerAt: s) { return m.id }
        }
        return nil
    }

    /// Deterministic positions in -1...1.
    struct Sequence {
        var x: UInt64 = 0x853C49E6748FEA9B
        mutating func next() -> Double {
            x = x &* 6364136223846793005 &+ 1442695040888963407
            return Double((x >> 33) % 2_000_001) / 1_000_000 - 1
        }
    }

    @Test(arguments: [
        CameraPosition(target: Coordinate(latitude: 48.85, longitude: 2.35), zoom: 11),
        CameraPosition(target: Coordinate(latitude: 48.85, longitude: 2.35), zoom: 11, bearing: 35, tilt: 50),
        CameraPosition(target: Coordinate(latitude: -16.5, longitude: 179.95), zoom: 10, bearing: 200), // the antimeridian
    ])
    func gridHitsWhatTheLinearTestHits(camera: CameraPosition) {
        let c = MapController(camera: camera, screenSize: testScreen)
        var r = Sequence()
        // Dense enough that pins overlap, with stacking orders and one big image icon.
        for i in 0..<1500 {
            guard let coord = c.projection.coordinate(at: Point(x: testScreen.width * (0.5 + 0.6 * r.next()),
                                                                y: testScreen.height * (0.5 + 0.6 * r.next()))) else { continue }
            var m = Marker(id: "m\(i)", position: coord, zIndex: Int(3 * r.next()))
            if i % 97 == 0 { m.icon = .image(name: "big.png", size: Size(width: 120, height: 90), anchor: Point(x: 0.5, y: 1)) }
            c.add(m)
        }
        #expect(c.markers.count > 1000)
        var hits = 0
        for _ in 0..<600 {
            let p = Point(x: testScreen.width * (0.5 + 0.5 * r.next()), y: testScreen.height * (0.5 + 0.5 * r.next()))
            let expected = linearHit(c, p)
            #expect(c.marker(at: p)?.id == expected, "at \(p)")
            if expected != nil { hits += 1 }
        }
        #expect(hits > 100)   // the comparison covered real hits, not only misses
        // Moving and removing markers rebuilds the grid.
        let moved = c.markers[10]
        let target = c.projection.coordinate(at: testScreen.center)!
        c.add(Marker(id: moved.id, position: target, zIndex: 99))
        #expect(c.marker(at: PinGeometry.headCenter(tip: c.projection.point(for: target)!))?.id == moved.id)
        c.removeMarker(id: moved.id)
        #expect(c.marker(at: PinGeometry.headCenter(tip: c.projection.point(for: target)!))?.id
                == linearHit(c, PinGeometry.headCenter(tip: c.projection.point(for: target)!)))
    }

    @Test func theGridFindsMarkersAcrossTheAntimeridianAndOnlyInTheBox() {
        let g = MarkerGrid(positions: [Coordinate(latitude: 0, longitude: 179.99), Coordinate(latitude: 0, longitude: -179.99),
                                       Coordinate(latitude: 0, longitude: 0), Coordinate(latitude: 60, longitude: 179.99)], side: 1024)
        var found: [Int] = []
        // A box straddling x = 1 (the antimeridian seen from the east) around the equator.
        g.forEach(inUnitBox: 0.999, 0.499, 1.001, 0.501) { found.append($0) }
        #expect(found.sorted() == [0, 1])
        found = []
        g.forEach(inUnitBox: -0.001, 0.499, 0.001, 0.501) { found.append($0) }
        #expect(found.sorted() == [0, 1])
        found = []
        g.forEach(inUnitBox: 0.49, 0.49, 0.51, 0.51) { found.append($0) }
        #expect(found == [2])
    }
}
