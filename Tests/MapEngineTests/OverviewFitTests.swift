import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// Overview mode and the fits: the route, else the overlays and markers, with room for the
/// controls and for the pins as drawn; per-side insets.
@Suite struct OverviewFitTests {
    @Test func perSideInsetsPutThePointsInTheFreeBox() throws {
        let pts = [Coordinate(latitude: 48.8, longitude: 2.2), Coordinate(latitude: 48.9, longitude: 2.5)]
        let insets = FitInsets(top: 150, left: 20, bottom: 60, right: 300)
        let cam = try #require(CameraFit.camera(fitting: pts, screen: testScreen, insets: insets,
                                                limits: CameraLimits(), maxZoom: 20))
        let proj = Projection(camera: cam, screen: testScreen)
        let a = proj.point(for: pts[0])!, b = proj.point(for: pts[1])!
        for p in [a, b] {
            #expect(p.x >= insets.left - 1e-6 && p.x <= testScreen.width - insets.right + 1e-6)
            #expect(p.y >= insets.top - 1e-6 && p.y <= testScreen.height - insets.bottom + 1e-6)
        }
        // Tight on one axis, centred in the free box on both.
        let tightX = abs(abs(b.x - a.x) - (testScreen.width - insets.left - insets.right)) < 1e-6
        let tightY = abs(abs(b.y - a.y) - (testScreen.height - insets.top - insets.bottom)) < 1e-6
        #expect(tightX || tightY)
        #expect(abs((a.x + b.x) / 2 - (insets.left + testScreen.width - insets.right) / 2) < 1e-6)
        #expect(abs((a.y + b.y) / 2 - (insets.top + testScreen.height - insets.bottom) / 2) < 1e-6)
        // Equal insets: the same camera as the padding variant.
        #expect(CameraFit.camera(fitting: pts, screen: testScreen, insets: FitInsets(all: 48), limits: CameraLimits(), maxZoom: 20)
                == CameraFit.camera(fitting: pts, screen: testScreen, padding: 48, limits: CameraLimits(), maxZoom: 20))
    }

    @Test func overviewShowsEveryPinAsDrawnClearOfTheControls() throws {
        var config = MapConfiguration()
        config.compassAlwaysVisible = true
        let c = controller(configuration: config)
        c.positionSource = .fixed(PositionFix(coordinate: paris))
        // North and south extremes: the northern pin's head would be cut off by a plain fit.
        let spots = [Coordinate(latitude: 49.5, longitude: 2.0), Coordinate(latitude: 48.0, longitude: 2.1),
                     Coordinate(latitude: 48.7, longitude: 3.4), Coordinate(latitude: 48.9, longitude: 1.0)]
        for (i, s) in spots.enumerated() { c.add(Marker(id: "m\(i)", position: s)) }
        c.setCameraMode(.overview, at: 0)
        runUntilIdle(c)
        let controls = c.controls
        #expect(controls.compassVisible && controls.recenterVisible)
        for m in c.markers {
            let box = m.iconFrame(at: screenPoint(c, m.position))
            #expect(box.minY >= config.overviewPadding - 1e-6, "\(m.id) head at \(box.minY)")
            #expect(box.minX >= config.overviewPadding - 1e-6 && box.maxX <= testScreen.width - config.overviewPadding + 1e-6)
            #expect(box.maxY <= controls.attributionFrame.minY - config.overviewPadding + 1e-6)
            for corner in [box.origin, Point(x: box.maxX, y: box.minY), Point(x: box.minX, y: box.maxY),
                           Point(x: box.maxX, y: box.maxY)] {
                #expect(!controls.compassFrame.contains(corner) && !controls.recenterFrame.contains(corner))
            }
        }
        // The tallest pin and the compass make the top inset: the northern pin's head is just clear.
        let north = c.markers[0]
        let head = north.iconFrame(at: screenPoint(c, north.position)).minY
        let sides = c.markers.map { m in screenPoint(c, m.position) }
        let tightX = abs(sides.map(\.x).max()! - sides.map(\.x).min()! - (testScreen.width - 2 * (config.overviewPadding + 12))) < 1e-6
        let topInset = config.overviewPadding + MapControls.margin + MapControls.compassSize.height
        #expect(tightX || abs(head - topInset) < 1e-6)
    }

    @Test func overviewFitsOverlaysAndMarkersWhenThereIsNoRoute() throws {
        let c = controller()
        let ring = [Coordinate(latitude: 45, longitude: 5), Coordinate(latitude: 45, longitude: 6),
                    Coordinate(latitude: 44, longitude: 6)]
        try c.add(Overlay(id: "zone", shapes: [OverlayShape(geometry: .polygon([ring]))]))
        try c.add(Overlay(id: "ring", shapes: [OverlayShape(geometry: .circle(center: Coordinate(latitude: 50, longitude: 0),
                                                                                radius: 20_000))]))
        c.add(Marker(id: "m", position: Coordinate(latitude: 47, longitude: 9)))
        c.setCameraMode(.overview, at: 0)
        runUntilIdle(c)
        let everything = ring + Geodesy.circle(center: Coordinate(latitude: 50, longitude: 0), radius: 20_000)
            + [Coordinate(latitude: 47, longitude: 9)]
        for p in everything {
            let s = screenPoint(c, p)
            #expect(s.x >= 48 - 1e-6 && s.x <= testScreen.width - 48 + 1e-6 && s.y >= 48 - 1e-6 && s.y <= testScreen.height - 48 + 1e-6)
        }
        // A route wins over everything else.
        c.setRoute([Coordinate(latitude: 40, longitude: -74), Coordinate(latitude: 34, longitude: -118)])
        c.setCameraMode(.overview, at: 5)
        runUntilIdle(c)
        #expect(c.camera.target.longitude < -70)
    }

    @Test func fitOverlayByID() throws {
        let c = controller()
        #expect(!c.fit(overlayID: "nope", padding: 20, duration: 0, at: 1))
        let line = [Coordinate(latitude: 40.7, longitude: -74), Coordinate(latitude: 40.8, longitude: -73.9)]
        try c.add(Overlay(id: "l", shapes: [OverlayShape(geometry: .polyline(line))],
                          markers: [Marker(id: "l/0", position: line[1])]))
        #expect(c.fit(overlayID: "l", padding: 20, duration: 0.5, at: 1))
        runUntilIdle(c)
        for p in line {
            let s = screenPoint(c, p)
            #expect(s.x >= 20 - 1e-6 && s.x <= testScreen.width - 20 + 1e-6 && s.y >= 20 - 1e-6 && s.y <= testScreen.height - 20 + 1e-6)
        }
        let pin = c.markers[0].iconFrame(at: screenPoint(c, line[1]))
        #expect(pin.minY >= 20 - 1e-6)
        #expect(c.fitMarkers(padding: 10, at: 3))
        #expect(!c.fitMarkers(ids: ["absent"], padding: 10, at: 4))
    }
}
