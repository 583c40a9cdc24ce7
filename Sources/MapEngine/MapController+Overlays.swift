import Foundation
import TouchCore

/// Why an overlay was refused: a kiosk holds at most `OverlayLimits`.
public enum OverlayError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Adding it would make more than `limit` overlays.
    case tooManyOverlays(id: String, limit: Int)
    /// It has more than `limit` shapes.
    case tooManyShapes(id: String, count: Int, limit: Int)
    /// All overlays together would hold `total` coordinates, more than `limit`.
    case tooManyVertices(id: String, total: Int, limit: Int)

    public var description: String {
        switch self {
        case .tooManyOverlays(let id, let limit):
            return "overlay \"\(id)\" refused: the map holds at most \(limit) overlays; remove some "
                + "(removeOverlay or clearOverlays) or merge shapes into fewer overlays first"
        case .tooManyShapes(let id, let count, let limit):
            return "overlay \"\(id)\" refused: it has \(count) shapes, at most \(limit) are allowed in one overlay; "
                + "split it into several overlays"
        case .tooManyVertices(let id, let total, let limit):
            return "overlay \"\(id)\" refused: all overlays would hold \(total) coordinates, at most \(limit) are "
                + "allowed; simplify the lines (fewer points) or remove other overlays first"
        }
    }
}

/// Overlays (lines, areas, circles, ground images), their hit test and their fit.
extension MapController {
    /// Adds an overlay, or replaces the one with the same id in place (keeping its stacking
    /// order). Its `markers` become ordinary markers; replacing or removing the overlay removes
    /// the markers it brought. Throws `OverlayError` (and changes nothing) past `OverlayLimits`.
    public func add(_ overlay: Overlay, at time: Double? = nil) throws {
        let t = max(time ?? now, now)
        let existing = overlayPositions[overlay.id]
        if existing == nil && overlays.count >= OverlayLimits.maxOverlays {
            throw OverlayError.tooManyOverlays(id: overlay.id, limit: OverlayLimits.maxOverlays)
        }
        if overlay.shapes.count > OverlayLimits.maxShapesPerOverlay {
            throw OverlayError.tooManyShapes(id: overlay.id, count: overlay.shapes.count, limit: OverlayLimits.maxShapesPerOverlay)
        }
        let replaced = existing.map { overlays[$0].vertexCount } ?? 0
        let total = overlayVertexTotal - replaced + overlay.vertexCount
        if total > OverlayLimits.maxVertices {
            throw OverlayError.tooManyVertices(id: overlay.id, total: total, limit: OverlayLimits.maxVertices)
        }
        removeMarkers(broughtBy: overlay.id, at: t)
        if let i = existing { overlays[i] = overlay } else {
            overlayPositions[overlay.id] = overlays.count
            overlays.append(overlay)
        }
        overlayVertexTotal = total
        overlayHitData[overlay.id] = OverlayHitData(overlay)
        for m in overlay.markers { add(m, at: t) }
        overlayMarkerIDs[overlay.id] = overlay.markers.map(\.id)
        overlaysRevision &+= 1
    }

    /// Removes an overlay and the markers it brought; false when there is none with that id.
    @discardableResult
    public func removeOverlay(id: String, at time: Double? = nil) -> Bool {
        let t = max(time ?? now, now)
        guard let i = overlayPositions.removeValue(forKey: id) else { return false }
        removeMarkers(broughtBy: id, at: t)
        overlayVertexTotal -= overlays[i].vertexCount
        overlays.remove(at: i)
        for j in i..<overlays.count { overlayPositions[overlays[j].id] = j }
        overlayHitData[id] = nil
        overlaysRevision &+= 1
        return true
    }

    /// Removes every overlay and the markers they brought.
    public func clearOverlays(at time: Double? = nil) {
        let t = max(time ?? now, now)
        guard !overlays.isEmpty else { return }
        for o in overlays { removeMarkers(broughtBy: o.id, at: t) }
        overlays.removeAll()
        overlayPositions.removeAll()
        overlayHitData.removeAll()
        overlayMarkerIDs.removeAll()
        overlayVertexTotal = 0
        overlaysRevision &+= 1
    }

    public func overlay(id: String) -> Overlay? { overlayPositions[id].map { overlays[$0] } }

    /// Overlays bottom first, the order to draw them in: zIndex, then insertion order.
    public var overlaysInDrawingOrder: [Overlay] {
        overlays.enumerated().sorted { a, b in
            a.element.zIndex != b.element.zIndex ? a.element.zIndex < b.element.zIndex : a.offset < b.offset
        }.map(\.element)
    }

    func removeMarkers(broughtBy id: String, at t: Double) {
        guard let ids = overlayMarkerIDs.removeValue(forKey: id) else { return }
        for m in ids { removeMarker(id: m, at: t) }
    }

    /// Removes every marker (overlays' too); a shown info window closes (didCloseInfoWindow).
    public func clearMarkers(at time: Double? = nil) {
        let t = max(time ?? now, now)
        closeInfoWindow(at: t)
        guard !markers.isEmpty else { return }
        markers.removeAll()
        markerPositions.removeAll()
        overlayMarkerIDs.removeAll()
        markerIndex.invalidate()
    }

    // MARK: hit test

    /// The topmost tappable overlay whose shape is under a screen point, and the coordinate
    /// there: a line within `overlayHitSlop` px of a segment, an area (polygon less its holes,
    /// circle) containing the point or within the slop of its outline, a ground image's turned
    /// box containing it. Works turned and tilted (distances on screen through `projection`;
    /// vertices that do not project are skipped), and across the antimeridian.
    public func overlayHit(at p: Point) -> (overlay: Overlay, coordinate: Coordinate)? {
        guard !overlays.isEmpty, let coordinate = projection.coordinate(at: p) else { return nil }
        let proj = projection
        let world = proj.worldSize
        guard let w = proj.worldPoint(screen: p) else { return nil }
        let u = Point(x: w.x / world, y: w.y / world)
        let slop = max(0, configuration.overlayHitSlop)
        // The ground under the slop's square: a screen rectangle lands as a convex quadrilateral,
        // its corners bound it. Part of it above the horizon: no box, every segment is tested.
        var tapBox: OverlayHitData.UnitBox? = OverlayHitData.UnitBox()
        for corner in [Point(x: p.x - slop, y: p.y - slop), Point(x: p.x + slop, y: p.y - slop),
                       Point(x: p.x - slop, y: p.y + slop), Point(x: p.x + slop, y: p.y + slop)] {
            guard let cw = proj.worldPoint(screen: corner) else { tapBox = nil; break }
            tapBox?.add(Point(x: cw.x / world, y: cw.y / world))
        }
        for o in overlaysInDrawingOrder.reversed() where o.tappable {
            guard let data = overlayHitData[o.id] else { continue }
            if data.hit(screen: p, unit: u, tapBox: tapBox, slop: slop, projection: proj) { return (o, coordinate) }
        }
        return nil
    }

    // MARK: fit

    /// Animates (over `duration` s; 0 jumps) to show a whole overlay, north up and flat, with
    /// `padding` px to spare and room for its pins as drawn. False when there is no such overlay.
    @discardableResult
    public func fit(overlayID: String, padding: Double, duration: Double = 0, at time: Double? = nil) -> Bool {
        guard let o = overlay(id: overlayID) else { return false }
        let points = o.extentCoordinates
        guard let target = CameraFit.camera(fitting: points, screen: screenSize,
                                            insets: fitInsets(padding: padding, pins: o.markers, controls: false),
                                            limits: configuration.limits, maxZoom: configuration.fitMaxZoom)
        else { return false }
        animate(to: target, duration: duration, at: time)
        return true
    }

    /// `padding` on every side, plus room for the pins as drawn (a pin's head sits above its
    /// coordinate: the top grows by the tallest icon, the sides by half the widest) and, with
    /// `controls`, for the on-screen controls a fitted (north-up, flat) camera shows.
    func fitInsets(padding: Double, pins: [Marker], controls: Bool) -> FitInsets {
        var insets = FitInsets(all: padding)
        var tallest = 0.0, below = 0.0, widest = 0.0
        for m in pins {
            let s = m.icon.size
            tallest = max(tallest, s.height * m.icon.anchor.y)
            below = max(below, s.height * (1 - m.icon.anchor.y))
            widest = max(widest, s.width)
        }
        insets.top += tallest
        insets.bottom += below
        insets.left += widest / 2
        insets.right += widest / 2
        if controls {
            if configuration.compassAlwaysVisible { insets.top += MapControls.margin + MapControls.compassSize.height }
            insets.bottom += MapControls.attributionHeight
            if positionSource != nil { insets.bottom += MapControls.margin + MapControls.recenterSize.height }
        }
        return insets
    }

    /// Shows the markers (all, or those with the given ids) with `padding` px to spare and room
    /// for their pins as drawn, north up and flat. False when there is none to fit.
    @discardableResult
    public func fitMarkers(ids: [String]? = nil, padding: Double, duration: Double = 0, at time: Double? = nil) -> Bool {
        let chosen = ids.map { $0.compactMap { marker(id: $0) } } ?? markers
        guard let target = CameraFit.camera(fitting: chosen.map(\.position), screen: screenSize,
                                            insets: fitInsets(padding: padding, pins: chosen, controls: false),
                                            limits: configuration.limits, maxZoom: configuration.fitMaxZoom)
        else { return false }
        animate(to: target, duration: duration, at: time)
        return true
    }

    /// What overview mode shows: the route when there is one, else every overlay's extent and
    /// the markers, with `overviewPadding` plus room for the controls and the pins as drawn.
    func overviewCamera() -> CameraPosition? {
        var points = route
        var pins: [Marker] = []
        if points.isEmpty {
            points = overlays.flatMap { $0.shapes.flatMap(\.extentCoordinates) } + markers.map(\.position)
            pins = markers
        }
        return CameraFit.camera(fitting: points, screen: screenSize,
                                insets: fitInsets(padding: configuration.overviewPadding, pins: pins, controls: true),
                                limits: configuration.limits, maxZoom: configuration.fitMaxZoom)
    }
}
