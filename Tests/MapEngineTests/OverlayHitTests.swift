import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// Overlays in the controller: the hit test (lines within the slop, areas, circles, ground images,
/// stacking, turned and tilted cameras, the antimeridian), the tap order and the event a finger
/// gets, limits and the markers an overlay brings.
@Suite struct OverlayHitTests {
    /// A 7 mm finger on a 5.9 px/mm panel (FeelStream's): the slop the façade would set.
    static let slop = 7 * FeelStream.ppm   // 41.3 px

    func setup(zoom: Double = 14, bearing: Double = 0, tilt: Double = 0, target: Coordinate = paris,
               slop: Double = OverlayHitTests.slop) -> (MapController, RecordingOverlayDelegate) {
        var config = MapConfiguration()
        config.overlayHitSlop = slop
        let c = MapController(camera: CameraPosition(target: target, zoom: zoom, bearing: bearing, tilt: tilt),
                              screenSize: testScreen, configuration: config)
        #expect(c.camera.tilt == tilt)
        let d = RecordingOverlayDelegate()
        c.delegate = d
        return (c, d)
    }

    /// The ground coordinates under screen points.
    func ground(_ c: MapController, _ pts: [(Double, Double)]) -> [Coordinate] {
        pts.map { c.projection.coordinate(at: Point(x: $0.0, y: $0.1))! }
    }

    func line(_ c: MapController, _ id: String, _ pts: [(Double, Double)], z: Int = 0, tappable: Bool = true) -> Overlay {
        Overlay(id: id, shapes: [OverlayShape(geometry: .polyline(ground(c, pts)))], zIndex: z, tappable: tappable)
    }

    func area(_ c: MapController, _ id: String, _ rings: [[(Double, Double)]], z: Int = 0) -> Overlay {
        Overlay(id: id, shapes: [OverlayShape(geometry: .polygon(rings.map { ground(c, $0) }))], zIndex: z)
    }

    func hitID(_ c: MapController, _ x: Double, _ y: Double) -> String? { c.overlayHit(at: Point(x: x, y: y))?.overlay.id }

    @Test func aLineIsHitWithinTheSlopAndNotBeyond() throws {
        let (c, _) = setup()
        try c.add(line(c, "l", [(200, 400), (1000, 400)]))
        let s = OverlayHitTests.slop
        #expect(hitID(c, 600, 400) == "l")
        #expect(hitID(c, 600, 400 + s - 1) == "l")
        #expect(hitID(c, 600, 400 - s + 1) == "l")
        #expect(hitID(c, 600, 400 + s + 1) == nil)
        #expect(hitID(c, 600, 400 - s - 1) == nil)
        // Past the end: the distance to the end point counts.
        #expect(hitID(c, 1000 + s - 1, 400) == "l")
        #expect(hitID(c, 1000 + s + 1, 400) == nil)
        #expect(hitID(c, 1000 + 0.7 * s, 400 + 0.7 * s + 1) == nil)   // 1.0 s diagonally off the end
        // The coordinate reported is the one under the finger.
        let hit = try #require(c.overlayHit(at: Point(x: 600, y: 410)))
        let want = c.projection.coordinate(at: Point(x: 600, y: 410))!
        #expect(abs(hit.coordinate.latitude - want.latitude) < 1e-12 && abs(hit.coordinate.longitude - want.longitude) < 1e-12)
    }

    @Test func aPolygonWithAHoleIsHitInsideItsRingButNotInTheHole() throws {
        let (c, _) = setup(slop: 10)
        try c.add(area(c, "p", [[(300, 200), (900, 200), (900, 600), (300, 600)],
                                [(500, 300), (700, 300), (700, 500), (500, 500)]]))
        #expect(hitID(c, 350, 400) == "p")
        #expect(hitID(c, 600, 250) == "p")
        #expect(hitID(c, 600, 400) == nil)          // the hole's middle
        #expect(hitID(c, 512, 400) == nil)          // in the hole, 12 px from its edge
        #expect(hitID(c, 508, 400) == "p")          // within the slop of the hole's outline
        #expect(hitID(c, 292, 400) == "p")          // just outside, within the slop
        #expect(hitID(c, 288, 400) == nil)
        #expect(hitID(c, 950, 650) == nil)
    }

    @Test func aCircleIsHitInsideItsRingAndWithinTheSlop() throws {
        let (c, _) = setup(slop: 10)
        let centre = c.projection.coordinate(at: testScreen.center)!
        try c.add(Overlay(id: "c", shapes: [OverlayShape(geometry: .circle(center: centre, radius: 1000))]))
        // The radius on screen, east of the centre.
        let east = Geodesy.destination(from: centre, distance: 1000, bearing: 90)
        let r = c.projection.point(for: east)!.x - testScreen.center.x
        #expect(r > 100 && r < 400)
        #expect(hitID(c, testScreen.center.x, testScreen.center.y) == "c")
        #expect(hitID(c, testScreen.center.x + r - 5, testScreen.center.y) == "c")
        #expect(hitID(c, testScreen.center.x + r + 8, testScreen.center.y) == "c")
        #expect(hitID(c, testScreen.center.x + r + 13, testScreen.center.y) == nil)
        #expect(hitID(c, testScreen.center.x, testScreen.center.y - r - 13) == nil)
    }

    @Test func aGroundImageIsHitInsideItsTurnedBox() throws {
        let (c, _) = setup(slop: 10)
        // A square 300 px box round the centre, turned 45 degrees.
        let nw = c.projection.coordinate(at: Point(x: 490, y: 250))!, se = c.projection.coordinate(at: Point(x: 790, y: 550))!
        let b = CoordinateBounds(west: nw.longitude, south: se.latitude, east: se.longitude, north: nw.latitude)
        try c.add(Overlay(id: "img", shapes: [OverlayShape(geometry: .groundImage(path: "x.png", bounds: b, bearing: 45, opacity: 1))]))
        #expect(hitID(c, 640, 400) == "img")
        #expect(hitID(c, 500, 260) == nil)           // the unturned box's corner: outside the turned one
        #expect(hitID(c, 640, 400 - 200) == "img")   // the turned box reaches 212 px up
        #expect(hitID(c, 640, 400 - 220) == nil)     // no slop round an image
    }

    @Test func theTopmostTappableOverlayWins() throws {
        let (c, _) = setup(slop: 10)
        let square = [[(400.0, 200.0), (880.0, 200.0), (880.0, 600.0), (400.0, 600.0)]]
        try c.add(area(c, "high", square, z: 1))
        try c.add(area(c, "low", square, z: 0))
        #expect(hitID(c, 640, 400) == "high")                 // zIndex first
        try c.add(area(c, "later", square, z: 1))
        #expect(hitID(c, 640, 400) == "later")                // then the one added later
        #expect(c.overlaysInDrawingOrder.map(\.id) == ["low", "high", "later"])
        var hidden = c.overlay(id: "later")!
        hidden.tappable = false
        try c.add(hidden)                                     // replaced in place: same stacking
        #expect(c.overlays.map(\.id) == ["high", "low", "later"])
        #expect(hitID(c, 640, 400) == "high")                 // not tappable: the one below
        #expect(c.removeOverlay(id: "high"))
        #expect(!c.removeOverlay(id: "high"))
        #expect(hitID(c, 640, 400) == "low")
        c.clearOverlays()
        #expect(hitID(c, 640, 400) == nil && c.overlays.isEmpty)
    }

    @Test func aMarkerBeatsAnOverlayAndAnOverlayBeatsAPOIAndTheMap() throws {
        let (c, d) = setup(slop: 10)
        try c.add(area(c, "p", [[(400, 200), (880, 200), (880, 600), (400, 600)]]))
        c.add(Marker(id: "m", position: c.projection.coordinate(at: Point(x: 640, y: 400))!, title: "M"))
        c.pointsOfInterest = [PointOfInterest(name: "Café", coordinate: c.projection.coordinate(at: Point(x: 500, y: 300))!)]
        c.handle(tap(1, at: Point(x: 640, y: 380)))          // on the pin
        #expect(types(c.drainEvents()) == ["didTapMarker"])
        c.handle(tap(2, at: Point(x: 500, y: 300)))          // on the POI, inside the overlay
        #expect(types(c.drainEvents()) == ["didCloseInfoWindow", "didTapOverlay"])
        c.handle(tap(3, at: Point(x: 100, y: 100)))          // the map
        #expect(types(c.drainEvents()) == ["didTapAt"])
        #expect(d.overlayTaps.map(\.0) == ["p"])
        #expect(!d.calls.contains("didTapPOI(Café)"))
    }

    @Test(arguments: [(60.0, 45.0), (200.0, 60.0), (315.0, 30.0)])
    func hitsFollowTheTurnedAndTiltedCamera(bearing: Double, tilt: Double) throws {
        let (c, _) = setup(bearing: bearing, tilt: tilt)
        // Straight on the ground is straight on screen: the line between two screen points.
        try c.add(line(c, "l", [(200, 500), (1100, 650)]))
        let s = OverlayHitTests.slop
        let a = Point(x: 200, y: 500), b = Point(x: 1100, y: 650)
        let mid = Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
        let len = b.distance(to: a)
        let normal = Point(x: -(b.y - a.y) / len, y: (b.x - a.x) / len)
        #expect(c.overlayHit(at: mid + normal * (s - 1))?.overlay.id == "l")
        #expect(c.overlayHit(at: mid - normal * (s - 1))?.overlay.id == "l")
        #expect(c.overlayHit(at: mid + normal * (s + 1)) == nil)
        #expect(c.overlayHit(at: mid - normal * (s + 1)) == nil)
        // An area under the horizon-side of the screen.
        try c.add(area(c, "p", [[(300, 250), (500, 250), (500, 350), (300, 350)]]))
        #expect(hitID(c, 400, 300) == "p")
        #expect(hitID(c, 400, 300 - 50 - s - 1) == nil)
    }

    @Test func aLineAcrossTheAntimeridianIsTakenTheShortWay() throws {
        let (c, _) = setup(zoom: 6, target: Coordinate(latitude: 0, longitude: 180), slop: 10)
        try c.add(Overlay(id: "dateline", shapes: [OverlayShape(geometry: .polyline(
            [Coordinate(latitude: 0, longitude: 179), Coordinate(latitude: 0, longitude: -179)]))]))
        let centre = testScreen.center
        #expect(hitID(c, centre.x, centre.y) == "dateline")
        #expect(hitID(c, centre.x - 30, centre.y + 5) == "dateline")
        #expect(hitID(c, centre.x + 30, centre.y - 5) == "dateline")
        #expect(hitID(c, centre.x + 70, centre.y) == nil)   // past its end (one degree is 45.5 px)
        // Drawn westward too.
        try c.add(Overlay(id: "dateline", shapes: [OverlayShape(geometry: .polyline(
            [Coordinate(latitude: 0, longitude: -179), Coordinate(latitude: 0, longitude: 179)]))]))
        #expect(hitID(c, centre.x, centre.y) == "dateline")
        #expect(hitID(c, centre.x + 30, centre.y - 5) == "dateline")
        #expect(hitID(c, centre.x, centre.y + 12) == nil)
        // A square astride the line, and the camera on either side of it.
        try c.add(Overlay(id: "square", shapes: [OverlayShape(geometry: .polygon([[
            Coordinate(latitude: 10, longitude: 178), Coordinate(latitude: 10, longitude: -178),
            Coordinate(latitude: 5, longitude: -178), Coordinate(latitude: 5, longitude: 178)]]))]))
        for lon in [179.5, -179.5, 180.0] {
            c.move(to: CameraPosition(target: Coordinate(latitude: 7.5, longitude: lon), zoom: 6))
            #expect(hitID(c, centre.x, centre.y) == "square", "camera at \(lon)")
            let west = c.projection.point(for: Coordinate(latitude: 7.5, longitude: 177))!
            #expect(hitID(c, west.x, west.y) == nil, "camera at \(lon)")
        }
        // The same square listed from its eastern side.
        c.clearOverlays()
        try c.add(Overlay(id: "square", shapes: [OverlayShape(geometry: .polygon([[
            Coordinate(latitude: 10, longitude: -178), Coordinate(latitude: 10, longitude: 178),
            Coordinate(latitude: 5, longitude: 178), Coordinate(latitude: 5, longitude: -178)]]))]))
        #expect(hitID(c, centre.x, centre.y) == "square")
    }

    @Test func aTenThousandPointLineIsHitQuickly() throws {
        let (c, _) = setup(zoom: 12, slop: 10)
        // A zigzag over the screen and far beyond it.
        var pts: [Coordinate] = []
        for i in 0..<10_000 {
            let x = -4000 + Double(i) * 1.0, y = 400 + (i % 2 == 0 ? -300.0 : 300.0)
            pts.append(c.projection.coordinate(at: Point(x: x, y: y))!)
        }
        try c.add(Overlay(id: "long", shapes: [OverlayShape(geometry: .polyline(pts))]))
        let start = DispatchTime.now().uptimeNanoseconds
        var hits = 0
        for k in 0..<200 {
            if c.overlayHit(at: Point(x: 100 + Double(k * 5), y: 400)) != nil { hits += 1 }
            if c.overlayHit(at: Point(x: 100 + Double(k * 5), y: 760)) != nil { hits += 1 }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        #expect(hits == 200)                // the zigzag crosses y = 400 every pixel; y = 760 is off it
        #expect(seconds < 2, "400 hit tests took \(seconds) s")
    }

    @Test func aFingerTapOnAnOverlayGivesOneDidTapOverlayLine() throws {
        var config = MapConfiguration()
        config.overlayHitSlop = OverlayHitTests.slop
        let run = FeelRun(configuration: config)
        let c = run.controller
        let od = RecordingOverlayDelegate()
        c.delegate = od
        let pts = [(200.0, 400.0), (1000.0, 400.0)].map { c.projection.coordinate(at: Point(x: $0.0, y: $0.1))! }
        try c.add(Overlay(id: "route \"A\"", shapes: [OverlayShape(geometry: .polyline(pts))]))
        var s = FeelStream(hz: 120)
        // 3 mm below the line (17.7 px): well within a 7 mm finger's slop.
        s.tap(1, 600 / FeelStream.ppm, 400 / FeelStream.ppm + 3)
        run.play(s.frames)
        let events = c.drainEvents()
        #expect(types(events) == ["didTapOverlay"])
        let e = try #require(events.first)
        guard case .didTapOverlay(let id, let coord) = e.event else { Issue.record("not didTapOverlay"); return }
        #expect(id == "route \"A\"")
        let line = e.event.jsonLine(t: 1.5)
        #expect(line == "{\"t\":1.500,\"type\":\"didTapOverlay\",\"overlay\":\"route \\\"A\\\"\""
                + ",\"lat\":\(MapEvent.number(coord.latitude, 7)),\"lon\":\(MapEvent.number(coord.longitude, 7))}")
        #expect(od.overlayTaps.count == 1 && od.overlayTaps[0].0 == "route \"A\"")
        #expect(!od.calls.contains("didTapAt"))
        // The same finger 10 mm below the line: the map.
        var far = FeelStream(hz: 120)
        far.wait(5)
        far.tap(1, 600 / FeelStream.ppm, 400 / FeelStream.ppm + 10)
        run.play(far.frames)
        #expect(types(c.drainEvents()) == ["didTapAt"])
    }

    @Test func jsonLineOfDidTapOverlay() {
        let line = MapEvent.didTapOverlay(id: "zone-1", coordinate: Coordinate(latitude: 48.8566, longitude: 2.3522)).jsonLine(t: 2)
        #expect(line == #"{"t":2.000,"type":"didTapOverlay","overlay":"zone-1","lat":48.8566000,"lon":2.3522000}"#)
        #expect(MapEvent.didTapOverlay(id: "a", coordinate: paris).typeName == "didTapOverlay")
    }

    @Test func anOverlayBringsItsMarkersAndTakesThemAway() throws {
        let (c, d) = setup()
        let m1 = Marker(id: "zones/0", position: paris, title: "Gate")
        let m2 = Marker(id: "zones/1", position: Coordinate(latitude: 48.86, longitude: 2.36))
        try c.add(Overlay(id: "zones", shapes: [], markers: [m1, m2]))
        c.add(Marker(id: "own", position: paris))
        #expect(c.markers.map(\.id) == ["zones/0", "zones/1", "own"])
        c.select("zones/0", at: 1)
        // Replaced: the old markers go (the shown window closes), the new ones come.
        try c.add(Overlay(id: "zones", shapes: [], markers: [Marker(id: "zones/9", position: paris)]), at: 2)
        #expect(c.markers.map(\.id) == ["own", "zones/9"])
        #expect(d.calls.contains("didCloseInfoWindowOf(zones/0)"))
        let rev = c.overlaysRevision
        #expect(c.removeOverlay(id: "zones", at: 3))
        #expect(c.overlaysRevision > rev)
        #expect(c.markers.map(\.id) == ["own"])
        c.select("own", at: 4)
        #expect(c.selectedMarker == nil)   // no title: no window
        c.add(Marker(id: "own", position: paris, title: "Own"))
        c.select("own", at: 5)
        #expect(c.selectedMarker == "own")
        c.clearMarkers(at: 6)
        #expect(c.markers.isEmpty && c.selectedMarker == nil)
        #expect(d.calls.last == "didCloseInfoWindowOf(own)")
    }

    @Test func limitsAreEnforcedWithAClearError() throws {
        let (c, _) = setup()
        let big = (0..<(OverlayLimits.maxVertices / 2 + 1)).map { i in
            Coordinate(latitude: 48 + Double(i) * 1e-6, longitude: 2)
        }
        try c.add(Overlay(id: "a", shapes: [OverlayShape(geometry: .polyline(big))]))
        #expect(throws: OverlayError.self) { try c.add(Overlay(id: "b", shapes: [OverlayShape(geometry: .polyline(big))])) }
        do {
            try c.add(Overlay(id: "b", shapes: [OverlayShape(geometry: .polyline(big))]))
        } catch let e as OverlayError {
            #expect(e.description.contains("\(OverlayLimits.maxVertices)"))
            #expect(e.description.contains("\"b\""))
            #expect(e.description.contains("remove"))
        }
        #expect(c.overlays.map(\.id) == ["a"])
        // Replacing "a" by itself is within the limit (its own vertices are given back).
        try c.add(Overlay(id: "a", shapes: [OverlayShape(geometry: .polyline(big))]))
        c.clearOverlays()
        for i in 0..<OverlayLimits.maxOverlays {
            try c.add(Overlay(id: "o\(i)", shapes: []))
        }
        #expect(throws: OverlayError.tooManyOverlays(id: "one more", limit: OverlayLimits.maxOverlays)) {
            try c.add(Overlay(id: "one more", shapes: []))
        }
        try c.add(Overlay(id: "o5", shapes: []))   // a replacement still fits
        #expect(c.overlays.count == OverlayLimits.maxOverlays)
    }
}

/// Records overlay taps besides everything RecordingDelegate records.
final class RecordingOverlayDelegate: MapViewDelegate {
    var calls: [String] = []
    var overlayTaps: [(String, Coordinate)] = []
    func willMove(gesture: Bool) { calls.append("willMove(\(gesture))") }
    func didChange(_ camera: CameraPosition) { calls.append("didChange") }
    func idleAt(_ camera: CameraPosition) { calls.append("idleAt") }
    func didTapAt(_ coordinate: Coordinate) { calls.append("didTapAt") }
    func didTap(marker: Marker) -> Bool { calls.append("didTap(\(marker.id))"); return false }
    func didCloseInfoWindowOf(_ marker: Marker) { calls.append("didCloseInfoWindowOf(\(marker.id))") }
    func didTapPOI(name: String, coordinate: Coordinate) { calls.append("didTapPOI(\(name))") }
    func didTapOverlay(_ overlay: Overlay, at coordinate: Coordinate) {
        calls.append("didTapOverlay(\(overlay.id))")
        overlayTaps.append((overlay.id, coordinate))
    }
}
