import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// A window that would open off screen brings itself on (GMS's marker selection), and GMS's
/// info-window hooks in their fallback order.
@Suite struct InfoWindowOnScreenTests {
    let margin = MapController.infoWindowMargin

    func setup(bearing: Double = 0, tilt: Double = 0) -> (MapController, RecordingDelegate) {
        let c = controller(zoom: 12, bearing: bearing, tilt: tilt)
        let d = RecordingDelegate()
        c.delegate = d
        return (c, d)
    }

    func addMarker(_ c: MapController, _ id: String, at p: Point, title: String = "A title long enough to be wide") {
        c.add(Marker(id: id, position: c.projection.coordinate(at: p)!, title: title, snippet: "and a snippet under it"))
    }

    func frameRect(_ c: MapController) -> ScreenRect {
        let f = c.infoWindowFrame()!
        return ScreenRect(origin: f.origin, size: f.size)
    }

    func isInside(_ r: ScreenRect) -> Bool {
        r.minX >= margin - 1e-6 && r.minY >= margin - 1e-6
            && r.maxX <= testScreen.width - margin + 1e-6 && r.maxY <= testScreen.height - margin + 1e-6
    }

    @Test(arguments: [(640.0, 40.0), (10.0, 400.0), (1275.0, 300.0), (5.0, 60.0), (1270.0, 795.0)])
    func aTappedMarkersWindowIsBroughtOnScreenByJustTheOffset(x: Double, y: Double) throws {
        let (c, d) = setup()
        addMarker(c, "m", at: Point(x: x, y: y))
        let before = frameRectIfOpen(c, "m")
        #expect(!isInside(before))
        let pinTap = Point(x: min(max(x, 2), testScreen.width - 2), y: min(max(y - 2, 2), testScreen.height - 2))
        c.handle(tap(1, at: pinTap))
        #expect(c.selectedMarker == "m")
        #expect(c.nextDeadline != nil)
        runUntilIdle(c, limit: 3)
        let after = frameRect(c)
        #expect(isInside(after), "frame \(after)")
        // Just the offset: the window touches the margin on a side it crossed.
        let touches = abs(after.minX - margin) < 0.5 || abs(after.minY - margin) < 0.5
            || abs(after.maxX - (testScreen.width - margin)) < 0.5 || abs(after.maxY - (testScreen.height - margin)) < 0.5
        #expect(touches, "frame \(after)")
        #expect(d.calls == ["didTap(m)", "willMove(false)"] + Array(repeating: "didChange", count: d.calls.count - 3) + ["idleAt"])
        #expect(abs(c.now - (1 + MapController.infoWindowPanDuration)) < 1e-9)
    }

    /// The frame the window would have if shown now (opened and closed again quietly).
    func frameRectIfOpen(_ c: MapController, _ id: String) -> ScreenRect {
        let m = c.marker(id: id)!
        let a = m.infoWindowAnchorPoint(at: c.projection.point(for: m.position)!)
        let s = c.infoWindowSize(m)
        return ScreenRect(origin: Point(x: a.x - s.width / 2, y: a.y - s.height), size: s)
    }

    @Test func aWindowAlreadyOnScreenMovesNothing() {
        let (c, d) = setup()
        addMarker(c, "m", at: Point(x: 640, y: 400))
        c.handle(tap(1, at: Point(x: 640, y: 390)))
        #expect(d.calls == ["didTap(m)"])
        #expect(c.nextDeadline == nil)
    }

    @Test(arguments: [(30.0, 45.0), (200.0, 60.0)])
    func turnedAndTiltedAndProgrammaticSelectionToo(bearing: Double, tilt: Double) {
        let (c, d) = setup(bearing: bearing, tilt: tilt)
        addMarker(c, "m", at: Point(x: 1250, y: 120))
        c.select("m", at: 1)
        #expect(c.selectedMarker == "m")
        #expect(d.calls.first == "willMove(false)")
        runUntilIdle(c, limit: 3)
        #expect(isInside(frameRect(c)), "frame \(frameRect(c))")
        #expect(d.calls.last == "idleAt" && d.calls.filter { $0 == "idleAt" }.count == 1)
    }

    @Test func infoHooksFallBackInGMSOrder() {
        let c = controller()
        let d = HookDelegate()
        c.delegate = d
        let here = c.camera.target
        c.add(Marker(id: "w", position: here, title: "T"))
        c.add(Marker(id: "k", position: here, title: "T", snippet: "S"))
        c.add(Marker(id: "t", position: here, title: "T", snippet: "S"))
        c.add(Marker(id: "bare", position: here))
        c.add(Marker(id: "none", position: here))
        d.windows["w"] = InfoWindowContent(title: "window", backgroundRGB: 0x202020)
        d.contents["w"] = InfoWindowContent(title: "contents")
        d.contents["k"] = InfoWindowContent(title: "contents", lines: ["x"], backgroundRGB: 0x123456)
        d.contents["bare"] = InfoWindowContent(title: "only contents")

        c.select("w", at: 1)
        #expect(c.infoWindowContent() == InfoWindowContent(title: "window", backgroundRGB: 0x202020))
        #expect(c.infoWindowSource == .customWindow)
        #expect(d.asked == ["window(w)"])              // contents not asked when the window is given
        c.select("k", at: 2)
        #expect(c.infoWindowContent() == InfoWindowContent(title: "contents", lines: ["x"]))   // background ignored
        #expect(c.infoWindowSource == .customContents)
        #expect(d.asked.suffix(2) == ["window(k)", "contents(k)"])
        c.select("t", at: 3)
        #expect(c.infoWindowContent() == InfoWindowContent(title: "T", lines: ["S"]))
        #expect(c.infoWindowSource == .titleAndSnippet)
        c.select("bare", at: 4)
        #expect(c.selectedMarker == "bare" && c.infoWindowContent()?.title == "only contents")
        c.select("none", at: 5)
        #expect(c.selectedMarker == nil && c.infoWindowSource == nil)
        // Contents tracked like a custom window: asked again only for a tracking marker.
        c.select("k", at: 6)
        d.contents["k"] = InfoWindowContent(title: "new")
        c.add(Marker(id: "k", position: here, title: "T2", snippet: "S"), at: 7)
        #expect(c.infoWindowContent()?.title == "contents")
        var tracking = Marker(id: "k", position: here, title: "T2", snippet: "S")
        tracking.tracksInfoWindowChanges = true
        c.add(tracking, at: 8)
        #expect(c.infoWindowContent()?.title == "new")
        #expect(c.infoWindowSource == .customContents)
    }
}

final class HookDelegate: MapViewDelegate {
    var windows: [String: InfoWindowContent] = [:]
    var contents: [String: InfoWindowContent] = [:]
    var asked: [String] = []
    func markerInfoWindow(_ marker: Marker) -> InfoWindowContent? { asked.append("window(\(marker.id))"); return windows[marker.id] }
    func markerInfoContents(_ marker: Marker) -> InfoWindowContent? { asked.append("contents(\(marker.id))"); return contents[marker.id] }
}
