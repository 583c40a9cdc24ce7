import Foundation
import TouchCore
import Gestures

/// Where the shown info window's content came from (GMS's fallback order).
public enum InfoWindowSource: String, Sendable, Hashable, Codable {
    /// The delegate's `markerInfoWindow`: a whole custom window (its background as it says).
    case customWindow
    /// The delegate's `markerInfoContents`: custom contents in the default white frame.
    case customContents
    /// The marker's title and snippet in the default frame.
    case titleAndSnippet
}

/// Markers, the one info window, points of interest and what a tap or long press hits.
extension MapController {
    // MARK: markers

    /// Adds a marker, or replaces the one with the same id in place (keeping its stacking order).
    /// A shown info window follows the new value, and closes when it has nothing left to show.
    public func add(_ marker: Marker, at time: Double? = nil) {
        if let i = markerPositions[marker.id] { markers[i] = marker } else {
            markerPositions[marker.id] = markers.count
            markers.append(marker)
        }
        markerIndex.invalidate()
        guard shownInfoWindowID == marker.id else { return }
        // A replaced marker's default window shows its new title and snippet; custom content
        // is asked again only when the marker tracks info-window changes.
        if shownInfoIsCustom && !marker.tracksInfoWindowChanges { return }
        refreshInfoWindow(of: marker, at: max(time ?? now, now))
    }

    /// The app says the content of a marker's info window changed. When that window is shown
    /// and the marker has `tracksInfoWindowChanges`, its content is asked again (and the window
    /// closes when there is none); otherwise nothing happens, as in GMS. Returns whether the
    /// window must be redrawn.
    @discardableResult
    public func infoWindowContentDidChange(markerID: String, at time: Double? = nil) -> Bool {
        guard shownInfoWindowID == markerID, let m = marker(id: markerID), m.tracksInfoWindowChanges else { return false }
        refreshInfoWindow(of: m, at: max(time ?? now, now))
        return true
    }

    func refreshInfoWindow(of m: Marker, at t: Double) {
        guard let (c, source) = infoWindowContent(for: m) else {
            closeInfoWindow(at: t)
            return
        }
        if c != shownInfoContent || source != infoWindowSource { infoWindowRevision += 1 }
        shownInfoContent = c
        shownInfoIsCustom = source != .titleAndSnippet
        infoWindowSource = source
    }

    /// GMS's order: the delegate's whole window (`markerInfoWindow`), else its contents in the
    /// default frame (`markerInfoContents`, background ignored), else title and snippet.
    func infoWindowContent(for m: Marker) -> (InfoWindowContent, InfoWindowSource)? {
        if let w = delegate?.markerInfoWindow(m) { return (w, .customWindow) }
        if var c = delegate?.markerInfoContents(m) {
            c.backgroundRGB = nil
            return (c, .customContents)
        }
        return m.hasInfo ? (InfoWindowContent(marker: m), .titleAndSnippet) : nil
    }

    /// Removes a marker; its info window closes (didCloseInfoWindow) if shown.
    public func removeMarker(id: String, at time: Double? = nil) {
        let t = max(time ?? now, now)
        if shownInfoWindowID == id { closeInfoWindow(at: t) }
        guard let i = markerPositions.removeValue(forKey: id) else { return }
        markers.remove(at: i)
        for j in i..<markers.count { markerPositions[markers[j].id] = j }   // the last one: nothing to shift
        markerIndex.invalidate()
    }

    public func marker(id: String) -> Marker? { markerPositions[id].map { markers[$0] } }

    /// Markers bottom first, the order to draw them in: zIndex, then insertion order.
    public var markersInDrawingOrder: [Marker] {
        markers.enumerated().sorted { a, b in
            a.element.zIndex != b.element.zIndex ? a.element.zIndex < b.element.zIndex : a.offset < b.offset
        }.map(\.element)
    }

    /// The topmost marker whose icon contains a screen point: the icon's box (an image's drawn
    /// pixels when it has a hit mask).
    /// With clustering on, markers inside a cluster are not hit (their bubble is).
    public func marker(at p: Point) -> Marker? {
        let proj = projection
        let clustered = configuration.clusterMarkers ? clusterResult().clusteredIDs : []
        if markers.count >= MapController.markerGridThreshold,
           let found = markerThroughGrid(at: p, projection: proj, skipping: clustered) {
            return found
        }
        for m in markersInDrawingOrder.reversed() where !clustered.contains(m.id) {
            guard let s = proj.point(for: m.position) else { continue }
            if m.iconContains(p, markerAt: s) { return m }
        }
        return nil
    }

    // MARK: the info window

    /// Id of the marker whose info window is shown (GMS's selectedMarker). Setting it shows that
    /// marker's window (closing any other), nil hides it; a marker with nothing to show opens none,
    /// so the value then reads nil. Events are stamped with `now`.
    public var selectedMarker: String? {
        get { shownInfoWindowID }
        set { select(newValue, at: now) }
    }

    public func select(_ id: String?, at time: Double? = nil) {
        let t = max(time ?? now, now)
        guard id != shownInfoWindowID else { return }
        closeInfoWindow(at: t)
        if let id, let m = marker(id: id) {
            openInfoWindow(m)
            bringInfoWindowOnScreen(byUser: false, at: t)
        }
    }

    /// The marker whose info window is shown.
    public var infoWindowMarker: Marker? { shownInfoWindowID.flatMap { marker(id: $0) } }

    /// What the shown info window holds: the delegate's custom content, else title and snippet,
    /// as asked when the window opened (the delegate is not asked per frame or per hit test).
    public func infoWindowContent() -> InfoWindowContent? {
        infoWindowMarker == nil ? nil : shownInfoContent
    }

    /// Where the info window is drawn: upright whatever the bearing, its bottom centre at the
    /// marker's `infoWindowAnchor`, `infoWindowSize(marker)` large. The renderer draws it here and
    /// taps are tested against it.
    public func infoWindowFrame() -> (origin: Point, size: Size)? {
        guard let m = infoWindowMarker, let p = projection.point(for: m.position) else { return nil }
        let a = m.infoWindowAnchorPoint(at: p)
        let s = infoWindowSize(m)
        return (Point(x: a.x - s.width / 2, y: a.y - s.height), s)
    }

    func infoWindowContains(_ p: Point) -> Bool {
        guard let f = infoWindowFrame() else { return false }
        return ScreenRect(origin: f.origin, size: f.size).contains(p)
    }

    /// Opens a marker's window: the one place the delegate is asked for its content.
    func openInfoWindow(_ m: Marker) {
        guard let (c, source) = infoWindowContent(for: m) else { return }
        shownInfoWindowID = m.id
        shownInfoContent = c
        shownInfoIsCustom = source != .titleAndSnippet
        infoWindowSource = source
        infoWindowRevision += 1
    }

    func closeInfoWindow(at t: Double) {
        guard let id = shownInfoWindowID else { return }
        shownInfoWindowID = nil
        shownInfoContent = nil
        infoWindowSource = nil
        infoWindowRevision += 1
        emit(.didCloseInfoWindow(id), at: t, marker: marker(id: id))
    }

    /// When the shown window reaches outside the screen (less `infoWindowMargin`), the camera
    /// animates (willMove(gesture: false), `infoWindowPanDuration` s) by just the offset that
    /// brings it all on screen, as GMS does when it selects a marker. A window larger than the
    /// screen is aligned at its top left.
    func bringInfoWindowOnScreen(byUser: Bool, at t: Double) {
        guard let m = infoWindowMarker, let f = infoWindowFrame(),
              let tip = projection.point(for: m.position) else { return }
        let margin = MapController.infoWindowMargin
        func shift(_ lo: Double, _ hi: Double, _ size: Double) -> Double {
            if lo < margin { return margin - lo }
            if hi > size - margin { return max(size - margin - hi, margin - lo) }
            return 0
        }
        let d = Point(x: shift(f.origin.x, f.origin.x + f.size.width, screenSize.width),
                      y: shift(f.origin.y, f.origin.y + f.size.height, screenSize.height))
        guard d.length > 0.01,
              let target = framing(m.position, at: tip + d, from: camera) else { return }
        if byUser { userTookOver(at: t) } else { appTookOver(at: t) }
        startAnimation(to: target, duration: MapController.infoWindowPanDuration, byGesture: false, at: t)
    }

    /// Room (px) kept between a window brought on screen and the screen's edges.
    public static let infoWindowMargin = 8.0
    /// Seconds for that move.
    public static let infoWindowPanDuration = 0.3

    /// A guess at an info window's size from its text (about 8 px per title character, 7 per
    /// snippet character, 20 and 18 px lines, 12 px padding, a 10 px tail), 80...320 px wide.
    public static func estimatedInfoWindowSize(_ m: Marker) -> Size {
        let title = Double((m.title ?? "").count), snippet = Double((m.snippet ?? "").count)
        let width = min(max(max(title * 8, snippet * 7) + 24, 80), 320)
        var height = 24.0 + 10
        if title > 0 { height += 20 }
        if snippet > 0 { height += 18 }
        return Size(width: width, height: height)
    }

    // MARK: points of interest

    /// The visible point of interest (zoom >= its minZoom) nearest a screen point: within
    /// `poiHitRadius` px of its dot, or inside its label box (the box's centre counts as the
    /// distance, so of two touching labels the one tapped nearer its middle wins).
    public func pointOfInterest(at p: Point) -> PointOfInterest? {
        let proj = projection
        var best: (PointOfInterest, Double)?
        for poi in pointsOfInterest where camera.zoom >= poi.minZoom {
            guard let s = proj.point(for: poi.coordinate) else { continue }
            var d = s.distance(to: p)
            if let box = poi.labelBox {
                let onScreen = ScreenRect(origin: s + box.origin, size: box.size)
                if onScreen.contains(p) { d = min(d, onScreen.center.distance(to: p)) } else if d > configuration.poiHitRadius { continue }
            } else if d > configuration.poiHitRadius {
                continue
            }
            if d < (best?.1 ?? .infinity) { best = (poi, d) }
        }
        return best?.0
    }

    // MARK: taps

    /// A tap: the info window, else the topmost marker (or cluster bubble), else the topmost
    /// tappable overlay, else a point of interest, else the map.
    func handleTap(at p: Point, time t: Double) {
        if let m = infoWindowMarker, infoWindowContains(p) {
            emit(.didTapInfoWindow(m.id), at: t, marker: m)
            return
        }
        if let m = marker(at: p) {
            emit(.didTapMarker(m.id), at: t, marker: m)
            let handled = delegate?.didTap(marker: m) ?? false
            guard !handled else { return }
            // Another marker switches; the shown one closes and reopens; no info opens none.
            closeInfoWindow(at: t)
            openInfoWindow(m)
            bringInfoWindowOnScreen(byUser: true, at: t)
            return
        }
        if let cluster = markerCluster(at: p) {
            closeInfoWindow(at: t)
            zoomInto(cluster, at: t)
            return
        }
        if let hit = overlayHit(at: p) {
            closeInfoWindow(at: t)
            emit(.didTapOverlay(id: hit.overlay.id, coordinate: hit.coordinate), at: t, overlay: hit.overlay)
            return
        }
        if let poi = pointOfInterest(at: p) {
            closeInfoWindow(at: t)
            emit(.didTapPOI(name: poi.name, coordinate: poi.coordinate, featureClass: poi.featureClass, id: poi.id), at: t)
            return
        }
        closeInfoWindow(at: t)
        if let c = projection.coordinate(at: p) { emit(.didTapAt(c), at: t) }
    }

    /// A long press: on the info window, else on the map (markers do not take long presses).
    func handleLongPress(at p: Point, time t: Double) {
        if let m = infoWindowMarker, infoWindowContains(p) {
            emit(.didLongPressInfoWindow(m.id), at: t, marker: m)
            return
        }
        if let c = projection.coordinate(at: p) { emit(.didLongPressAt(c), at: t) }
    }
}
