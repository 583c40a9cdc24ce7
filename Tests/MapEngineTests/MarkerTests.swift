import Testing
import TouchCore
import Gestures
@testable import MapEngine

@Suite struct MarkerTests {
    /// A controller at zoom 12 over Paris with markers at given screen offsets from the centre.
    func setup(_ markers: [(id: String, dx: Double, dy: Double, title: String?, z: Int)],
               bearing: Double = 0) -> (MapController, RecordingDelegate) {
        let c = controller(zoom: 12, bearing: bearing)
        let d = RecordingDelegate()
        c.delegate = d
        for m in markers {
            let coord = c.projection.coordinate(at: testScreen.center + Point(x: m.dx, y: m.dy))!
            c.add(Marker(id: m.id, position: coord, title: m.title, zIndex: m.z))
        }
        return (c, d)
    }

    /// A point on the pin's head for a marker.
    func head(_ c: MapController, _ id: String) -> Point {
        PinGeometry.headCenter(tip: screenPoint(c, c.marker(id: id)!.position))
    }

    @Test func tapOnAMarkerOpensItsInfoWindow() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0)])
        c.handle(tap(1, at: head(c, "a")))
        #expect(c.selectedMarker == "a")
        #expect(d.calls == ["didTap(a)"])
        #expect(types(c.drainEvents()) == ["didTapMarker"])
        #expect(c.infoWindowContent() == InfoWindowContent(title: "Alpha"))
    }

    @Test func tappingAnotherMarkerSwitches() {
        let (c, d) = setup([("a", -200, 0, "Alpha", 0), ("b", 200, 0, "Beta", 0)])
        c.handle(tap(1, at: head(c, "a")))
        c.handle(tap(2, at: head(c, "b")))
        #expect(c.selectedMarker == "b")
        #expect(d.calls == ["didTap(a)", "didTap(b)", "didCloseInfoWindowOf(a)"])
    }

    @Test func tappingTheShownMarkerClosesAndReopens() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0)])
        c.handle(tap(1, at: head(c, "a")))
        c.handle(tap(2, at: head(c, "a")))
        #expect(c.selectedMarker == "a")
        #expect(d.calls == ["didTap(a)", "didTap(a)", "didCloseInfoWindowOf(a)"])
        #expect(types(c.drainEvents()) == ["didTapMarker", "didTapMarker", "didCloseInfoWindow"])
    }

    @Test func markerWithNoTitleOrSnippetOpensNone() {
        let (c, d) = setup([("a", -200, 0, "Alpha", 0), ("bare", 200, 0, nil, 0)])
        c.handle(tap(1, at: head(c, "bare")))
        #expect(c.selectedMarker == nil)
        c.handle(tap(2, at: head(c, "a")))
        c.handle(tap(3, at: head(c, "bare")))
        #expect(c.selectedMarker == nil)
        #expect(d.calls == ["didTap(bare)", "didTap(a)", "didTap(bare)", "didCloseInfoWindowOf(a)"])
    }

    @Test func customContentOpensAWindowForABareMarker() {
        let (c, d) = setup([("bare", 0, 0, nil, 0)])
        d.customContent["bare"] = InfoWindowContent(title: "Custom", lines: ["drawn by the app"])
        c.handle(tap(1, at: head(c, "bare")))
        #expect(c.selectedMarker == "bare")
        #expect(c.infoWindowContent()?.title == "Custom")
    }

    @Test func tapOnTheMapClosesTheWindowAndReportsTheTap() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0)])
        c.handle(tap(1, at: head(c, "a")))
        c.handle(tap(2, at: Point(x: 100, y: 700)))
        #expect(c.selectedMarker == nil)
        #expect(d.calls == ["didTap(a)", "didCloseInfoWindowOf(a)", "didTapAt"])
    }

    @Test func delegateHandlingTheTapSkipsTheDefault() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0)])
        d.handlesMarkerTaps = true
        c.handle(tap(1, at: head(c, "a")))
        #expect(c.selectedMarker == nil)
        #expect(d.calls == ["didTap(a)"])
    }

    @Test func selectedMarkerShowsAndHides() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0), ("b", 100, 0, "Beta", 0)])
        c.selectedMarker = "a"
        #expect(c.infoWindowFrame() != nil)
        c.selectedMarker = "b"
        c.selectedMarker = nil
        #expect(c.infoWindowFrame() == nil)
        #expect(d.calls == ["didCloseInfoWindowOf(a)", "didCloseInfoWindowOf(b)"])
    }

    @Test func infoWindowTapAndLongPressGoToTheWindow() {
        let (c, d) = setup([("a", 0, 100, "Alpha", 0)])
        c.selectedMarker = "a"
        let f = c.infoWindowFrame()!
        let inside = f.origin + Point(x: f.size.width / 2, y: f.size.height / 3)
        c.handle(tap(1, at: inside))
        c.handle(gesture(.longPress, .recognized, 2, at: inside))
        #expect(d.calls == ["didTapInfoWindowOf(a)", "didLongPressInfoWindowOf(a)"])
        #expect(c.selectedMarker == "a")
    }

    @Test func theInfoWindowIsAboveEveryMarker() {
        let (c, d) = setup([("a", 0, 100, "Alpha", 0), ("b", 0, 60, "Beta", 50)])
        c.infoWindowSize = { _ in Size(width: 200, height: 80) }
        c.selectedMarker = "a"
        let onB = head(c, "b")
        #expect(ScreenRect(origin: c.infoWindowFrame()!.origin, size: c.infoWindowFrame()!.size).contains(onB))
        c.handle(tap(1, at: onB))
        #expect(d.calls == ["didTapInfoWindowOf(a)"])
    }

    @Test(arguments: [0.0, 90.0, 217.0])
    func infoWindowSitsUprightAboveThePinWhateverTheBearing(bearing: Double) {
        let (c, _) = setup([("a", 50, 120, "Alpha", 0)], bearing: bearing)
        c.infoWindowSize = { _ in Size(width: 200, height: 60) }
        c.selectedMarker = "a"
        let tip = screenPoint(c, c.marker(id: "a")!.position)
        let f = c.infoWindowFrame()!
        #expect(f.size == Size(width: 200, height: 60))
        #expect(abs(f.origin.x + 100 - tip.x) < 1e-9)
        #expect(abs(f.origin.y + 60 - (tip.y - PinGeometry.size.height)) < 1e-9)
    }

    @Test func topmostMarkerIsHitFirst() {
        let (c, d) = setup([("low", 0, 0, "L", 5), ("high", 0, 0, "H", 9), ("later", 0, 0, "X", 5)])
        c.handle(tap(1, at: head(c, "low")))
        #expect(d.calls == ["didTap(high)"])
        c.removeMarker(id: "high")
        c.handle(tap(2, at: head(c, "low")))
        #expect(d.calls.last == "didTap(later)")   // same zIndex: the one added later is on top
        #expect(c.markersInDrawingOrder.map(\.id) == ["low", "later"])
    }

    @Test func hitTestUsesThePinsWholeBox() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0)])
        let tip = screenPoint(c, c.marker(id: "a")!.position)
        let box = PinGeometry.size
        // Anywhere in the icon's box (Google Maps and HERE test the box), off the pin's outline too.
        #expect(c.marker(at: tip + Point(x: 0, y: -2))?.id == "a")
        #expect(c.marker(at: tip + Point(x: 4, y: -2))?.id == "a")
        #expect(c.marker(at: tip + Point(x: -PinGeometry.headRadius + 1, y: -box.height + 2))?.id == "a")
        #expect(c.marker(at: tip + Point(x: box.width / 2 - 0.5, y: -0.5))?.id == "a")
        // Just outside the box: the map.
        #expect(c.marker(at: tip + Point(x: box.width / 2 + 1, y: -2)) == nil)
        #expect(c.marker(at: tip + Point(x: 0, y: 2)) == nil)
        #expect(c.marker(at: tip + Point(x: 0, y: -box.height - 1)) == nil)
        c.handle(tap(1, at: tip + Point(x: 4, y: -2)))
        #expect(d.calls == ["didTap(a)"])
        c.handle(tap(2, at: tip + Point(x: box.width / 2 + 1, y: -2)))
        #expect(d.calls.last == "didTapAt")
    }

    @Test func customIconIsHitOnItsBox() {
        let c = controller()
        let coord = c.projection.coordinate(at: Point(x: 300, y: 300))!
        c.add(Marker(id: "img", position: coord, icon: .image(name: "flag", size: Size(width: 40, height: 20),
                                                            anchor: Point(x: 0, y: 1))))
        #expect(c.marker(at: Point(x: 339, y: 281))?.id == "img")
        #expect(c.marker(at: Point(x: 299, y: 290)) == nil)
        #expect(c.marker(at: Point(x: 320, y: 302)) == nil)
    }

    @Test func removingTheShownMarkerClosesItsWindow() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0)])
        c.selectedMarker = "a"
        c.removeMarker(id: "a", at: 3)
        #expect(c.selectedMarker == nil)
        #expect(d.calls == ["didCloseInfoWindowOf(a)"])
    }

    @Test func updatingTheShownMarkerKeepsOrClosesItsWindow() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0)])
        c.selectedMarker = "a"
        var m = c.marker(id: "a")!
        m.title = "Alpha 2"
        c.add(m)
        #expect(c.infoWindowContent()?.title == "Alpha 2")
        m.title = nil
        c.add(m)
        #expect(c.selectedMarker == nil)
        #expect(d.calls == ["didCloseInfoWindowOf(a)"])
    }

    @Test func poiTapNearTheDotWhenVisible() {
        let c = controller(zoom: 12)
        let d = RecordingDelegate()
        c.delegate = d
        let dot = Point(x: 900, y: 300)
        let city = PointOfInterest(name: "Somewhere", coordinate: c.projection.coordinate(at: dot)!, minZoom: 10)
        c.pointsOfInterest = [city]
        c.handle(tap(1, at: dot + Point(x: 8, y: 8)))          // 11.3 px away: hit
        c.handle(tap(2, at: dot + Point(x: 10, y: 10)))        // 14.1 px away: miss
        #expect(d.calls == ["didTapPOI(Somewhere)", "didTapAt"])
        c.pointsOfInterest = [PointOfInterest(name: "Far", coordinate: city.coordinate, minZoom: 13)]
        c.handle(tap(3, at: dot))                              // hidden below zoom 13
        #expect(d.calls.last == "didTapAt")
    }

    @Test func poiTapAnywhereOnItsLabelBoxGivesClassAndID() {
        let c = controller(zoom: 16)
        final class Full: MapViewDelegate { var got: [PointOfInterest] = []; func didTapPOI(_ poi: PointOfInterest) { got.append(poi) } }
        let d = Full()
        c.delegate = d
        let anchor = Point(x: 600, y: 400)
        // A street-map label: 120 x 20 px, centred on its anchor.
        let cafe = PointOfInterest(name: "Café", coordinate: c.projection.coordinate(at: anchor)!, featureClass: "cafe", id: 77,
                                   labelBox: ScreenRect(x: -60, y: -10, width: 120, height: 20))
        c.pointsOfInterest = [cafe]
        c.handle(tap(1, at: anchor + Point(x: 55, y: 0)))      // on the box's right end, 55 px from the anchor: hit
        c.handle(tap(2, at: anchor + Point(x: 0, y: 16)))      // below the box and 16 px from the anchor: miss
        #expect(d.got.map(\.name) == ["Café"])
        #expect(d.got.first?.featureClass == "cafe" && d.got.first?.id == 77)
        let events = c.drainEvents().map(\.event)
        #expect(events.contains(.didTapPOI(name: "Café", coordinate: cafe.coordinate, featureClass: "cafe", id: 77)))
        #expect(events.contains { $0.typeName == "didTapAt" })
    }

    @Test func markerOverAPoiWins() {
        let (c, d) = setup([("a", 0, 0, "Alpha", 0)])
        let tip = screenPoint(c, c.marker(id: "a")!.position)
        c.pointsOfInterest = [PointOfInterest(name: "Under", coordinate: c.projection.coordinate(at: tip + Point(x: 0, y: -5))!)]
        c.handle(tap(1, at: tip + Point(x: 0, y: -5)))
        #expect(d.calls == ["didTap(a)"])
    }

    @Test func estimatedInfoWindowSizeGrowsWithText() {
        let short = MapController.estimatedInfoWindowSize(Marker(id: "s", position: paris, title: "Hi"))
        let long = MapController.estimatedInfoWindowSize(Marker(id: "l", position: paris, title: "A much longer title",
                                                                snippet: "and a snippet"))
        #expect(short.width == 80)
        #expect(long.width > short.width && long.height > short.height)
    }
}

@Suite struct MarkerHitMaskTests {
    @Test func aTapOnATransparentPartOfTheIconFallsThroughToTheMap() {
        let c = controller()
        let d = RecordingDelegate()
        c.delegate = d
        let coord = c.projection.coordinate(at: Point(x: 300, y: 300))!
        // A 20x20 "L": the left column and the bottom row drawn, the rest transparent.
        var m = Marker(id: "L", position: coord, icon: .image(name: "L", size: Size(width: 20, height: 20), anchor: Point(x: 0, y: 1)))
        m.iconHitMask = IconHitMask(width: 20, height: 20) { x, y in x < 5 || y >= 15 }
        c.add(m)
        // The box is (300, 280)...(320, 300).
        c.handle(tap(1, at: Point(x: 302, y: 282)))     // on the drawn stem
        c.handle(tap(2, at: Point(x: 315, y: 285)))     // inside the box, transparent
        c.handle(tap(3, at: Point(x: 318, y: 298)))     // on the drawn foot
        #expect(d.calls == ["didTap(L)", "didTapAt", "didTap(L)"])
    }
}
