import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// The info window's content is asked of the delegate once, when the marker is selected; again
/// only when the marker tracks info-window changes and the app says the content changed.
struct InfoWindowContentTests {
    final class CountingDelegate: MapViewDelegate {
        var asked: [String] = []
        var title = "Open 9-17"
        func markerInfoWindow(_ marker: Marker) -> InfoWindowContent? {
            asked.append(marker.id)
            return InfoWindowContent(title: title, lines: ["Cafe"], imageName: "/tmp/cafe.png")
        }
    }

    func setUp(tracks: Bool) -> (MapController, CountingDelegate, Point) {
        let c = controller()
        let d = CountingDelegate()
        c.delegate = d
        c.add(Marker(id: "cafe", position: paris, tracksInfoWindowChanges: tracks))
        return (c, d, screenPoint(c, paris))
    }

    @Test func contentIsAskedOnceWhenSelectedNotPerFrameOrHitTest() {
        let (c, d, p) = setUp(tracks: false)
        c.handle(tap(1, at: p + Point(x: 0, y: -20)))   // on the pin's head: selects it
        #expect(c.selectedMarker == "cafe")
        #expect(d.asked == ["cafe"])
        let revision = c.infoWindowRevision
        for k in 0..<100 {   // frames and hit tests
            _ = c.infoWindowContent()
            _ = c.infoWindowFrame()
            c.handle(gesture(.pan, .changed, 2 + Double(k) / 60, at: Point(x: 641, y: 400), from: Point(x: 640, y: 400)))
        }
        c.handle(tap(5, at: Point(x: 10, y: 10)))         // elsewhere: closes
        #expect(d.asked == ["cafe"])
        #expect(c.infoWindowRevision > revision, "closing changes what is drawn")
    }

    @Test func aChangeIsRedrawnOnlyWhenTheMarkerTracksIt() {
        let (c, d, p) = setUp(tracks: false)
        c.handle(tap(1, at: p + Point(x: 0, y: -20)))
        let revision = c.infoWindowRevision
        d.title = "Closed"
        #expect(c.infoWindowContentDidChange(markerID: "cafe") == false)
        #expect(d.asked == ["cafe"] && c.infoWindowContent()?.title == "Open 9-17" && c.infoWindowRevision == revision)

        let (t, dt, pt) = setUp(tracks: true)
        t.handle(tap(1, at: pt + Point(x: 0, y: -20)))
        let r = t.infoWindowRevision
        dt.title = "Closed"
        #expect(t.infoWindowContentDidChange(markerID: "cafe"))
        #expect(dt.asked == ["cafe", "cafe"] && t.infoWindowContent()?.title == "Closed" && t.infoWindowRevision == r + 1)
        #expect(t.infoWindowContent()?.imageName == "/tmp/cafe.png", "the custom window's image goes to the renderer")
    }
}
