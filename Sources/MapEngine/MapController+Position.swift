import Foundation
import TouchCore

/// The last `setPosition`: when, which fix, and the source it made (a later direct change of
/// `positionSource` is noticed by comparing with it).
struct PositionUpdate: Sendable {
    var time: Double
    var fix: PositionFix
    var source: PositionSource
    /// When the glide to `fix` ends.
    var end: Double
}

/// Live positions (`setPosition`) and the route.
extension MapController {
    /// A new position from a live source (GPS, a serial receiver, the control socket). The first
    /// becomes a fixed source; a later one glides: the source becomes a two-point track from the
    /// position shown now to the new one, over min(`positionTransition`, max(0.25 s, the time
    /// since the previous fix)), so the puck and following mode move smoothly, not in jumps.
    /// A fix without a known heading keeps the heading shown.
    public func setPosition(_ fix: PositionFix, at time: Double? = nil) {
        let t = programmaticTime(time)
        var source = PositionSource.fixed(fix)
        var end = t
        if let shown = positionFix(at: t), configuration.positionTransition > 0 {
            let since = positionUpdate.map { t - $0.time } ?? .infinity
            let duration = min(configuration.positionTransition, max(0.25, since))
            let heading = fix.headingKnown ? fix.heading : shown.heading
            if shown.coordinate != fix.coordinate || shown.heading != heading {
                source = .track([TrackPoint(time: t, coordinate: shown.coordinate, heading: shown.heading),
                                 TrackPoint(time: t + duration, coordinate: fix.coordinate, heading: heading)])
                end = t + duration
            }
        }
        positionSource = source
        positionUpdate = PositionUpdate(time: t, fix: fix, source: source, end: end)
        currentFix = positionFix(at: t)
    }

    /// The position source's value at a time, with the accuracy and heading-known flag of the
    /// fix `setPosition` gave (a track itself carries neither).
    public func positionFix(at t: Double) -> PositionFix? {
        guard let source = positionSource, var fix = source.fix(at: t) else { return nil }
        if let u = positionUpdate, u.source == source {
            fix.accuracy = u.fix.accuracy
            fix.headingKnown = u.fix.headingKnown
        }
        return fix
    }

    /// A `setPosition` glide still running at `now` (the puck needs frames in any mode).
    var positionGlideEnd: Double? {
        guard let u = positionUpdate, u.end > now, positionSource == u.source else { return nil }
        return u.end
    }

    /// Sets the route overview mode fits and the renderer draws (bumps `routeRevision`).
    public func setRoute(_ points: [Coordinate]) {
        route = points
    }

    /// Where the current position lies along the route (nil without a route or position).
    /// Kept while the route and the position stay (the renderer asks every frame; a
    /// 10,000-point route's projection is a pass over every segment).
    public var routeProgress: RouteProgress? {
        guard let fix = currentFix ?? positionFix(at: now) else { return nil }
        if let c = routeProgressCache, c.revision == routeRevision, c.at == fix.coordinate { return c.progress }
        let p = RouteProgress.of(fix.coordinate, on: route)
        routeProgressCache = (routeRevision, fix.coordinate, p)
        return p
    }
}
