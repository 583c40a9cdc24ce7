import Foundation
import TouchCore
import Gestures

/// The map's brain, pure: gesture events, programmatic calls and time go in; camera positions,
/// delegate calls and recorded `MapEvent`s come out. It never reads a clock: every input carries
/// its time (seconds, one monotonic clock) and the event loop calls `advance(to:)` at
/// `nextDeadline` for animation frames, flings, the pending `idleAt` and the auto-return timer.
///
/// Delegate sequence: `willMove(gesture:)` before any change, `didChange` while moving, one
/// `idleAt` once every gesture, fling and animation has stopped (see `MapViewDelegate`).
public final class MapController {
    public internal(set) var camera: CameraPosition
    public internal(set) var screenSize: Size
    public var configuration: MapConfiguration
    public weak var delegate: MapViewDelegate?
    /// Sees every raw gesture first (after on-screen controls); return true to replace the
    /// default map behaviour for it (HERE's usesGestureRecognizers).
    public var gestureHandler: ((GestureEvent) -> Bool)?
    /// Size (px, including any tail) of a marker's info window. The default is an estimate from
    /// title and snippet; the renderer sets it to measured sizes so hit tests match the drawing.
    public var infoWindowSize: (Marker) -> Size = MapController.estimatedInfoWindowSize
    /// Labelled places of the base map that report `didTapPOI`.
    public var pointsOfInterest: [PointOfInterest] = []
    /// A route polyline that overview mode fits (overlays and markers when empty). Setting it
    /// (or `setRoute`) bumps `routeRevision`.
    public var route: [Coordinate] = [] { didSet { routeRevision &+= 1 } }
    /// Changes whenever `route` is set.
    public internal(set) var routeRevision = 0
    /// The last `routeProgress`, with the route revision and position it was worked out for.
    var routeProgressCache: (revision: Int, at: Coordinate, progress: RouteProgress?)?
    /// Where "you" are; following mode tracks it.
    public var positionSource: PositionSource?
    public internal(set) var cameraMode: CameraMode = .free
    /// Markers in insertion order.
    public internal(set) var markers: [Marker] = []
    /// The markers' spatial grid for hit tests (MarkerGrid.swift), made again after they change.
    let markerIndex = MarkerIndex()
    /// Index of each marker id in `markers`, so adding and finding one is not a linear search.
    var markerPositions: [String: Int] = [:]
    /// The latest time the controller has seen (seconds).
    public internal(set) var now: Double
    /// The position source's value at `now`, for the renderer's "you are here" puck.
    public internal(set) var currentFix: PositionFix?

    // Motion state (CameraMotion.swift).
    /// What moves the camera by itself: an animation, a fling, following a moving source, or nothing.
    var motion = CameraMotion.still
    /// The continuous gestures between began and ended/cancelled, with their focus and pan lift.
    var gestures = GestureMotion()
    /// Where the willMove ... idleAt report stands (with a held didChange).
    var report = MoveReport.idle
    /// Where the running camera animation ends (nil when none runs).
    public var animationTarget: CameraPosition? { motion.animation?.to }
    /// Start of the quiet interval that ends free mode.
    var quietSince: Double?
    /// Marker whose info window is shown.
    var shownInfoWindowID: String?
    var events: [TimedMapEvent] = []
    /// The content of the shown info window, asked of the delegate once when it opened (again
    /// only for a marker with `tracksInfoWindowChanges` when the app says it changed).
    var shownInfoContent: InfoWindowContent?
    /// Whether that content came from the delegate (else it is the marker's title and snippet).
    var shownInfoIsCustom = false
    /// Bumped whenever the info window's content changes: the renderer redraws it then.
    public internal(set) var infoWindowRevision = 0

    // Touch and feel (see MapController+Touch.swift).
    /// Contacts on the glass, as the event loop last reported them.
    public internal(set) var fingersDown = 0
    /// When the last finger lifted (a gesture's `ended` may come a lift grace later).
    var lastLift: Double?
    /// A gesture moved the camera in free mode: auto-return counts from the last finger lift.
    /// Programmatic moves disarm it.
    var returnArmed = false
    /// A zoom step a touch-down stopped, with the camera it stopped at: a following step adds
    /// to its target while the camera has not moved since.
    var stoppedZoomStep: (zoom: Double, camera: CameraPosition, time: Double)?
    /// Home reset: fingers on the screen now, and since when nothing has held the timer.
    var homeQuietSince: Double?
    /// Where the home reset returns to (the start camera unless the app sets another).
    public var homeCamera: CameraPosition
    // Overlays (MapController+Overlays.swift).
    /// Overlays in insertion order.
    public internal(set) var overlays: [Overlay] = []
    /// Bumped on every change to `overlays`.
    public internal(set) var overlaysRevision = 0
    /// Index of each overlay id in `overlays`.
    var overlayPositions: [String: Int] = [:]
    /// The ids of the markers each overlay brought (its Point features).
    var overlayMarkerIDs: [String: [String]] = [:]
    /// Each overlay's shapes prepared for hit tests, by id.
    var overlayHitData: [String: OverlayHitData] = [:]
    /// Coordinates held by all overlays (`OverlayLimits.maxVertices`).
    var overlayVertexTotal = 0

    // Position (MapController+Position.swift).
    /// The last `setPosition`: its time, the fix and the source it made.
    var positionUpdate: PositionUpdate?

    // Marker clusters (MarkerClusters.swift).
    var clusterCache: ClusterCache?
    var clusterRevisionCounter = 0
    /// How the shown info window's content was made.
    public internal(set) var infoWindowSource: InfoWindowSource?

    /// Whether emitted events are kept for `drainEvents()`. An app that only uses the delegate
    /// and never drains should turn this off, or the list grows for as long as the map runs.
    public var recordsEvents = true

    public init(camera: CameraPosition, screenSize: Size, configuration: MapConfiguration = MapConfiguration(),
                time: Double = 0) {
        self.configuration = configuration
        self.camera = configuration.limits.clamp(camera)
        self.homeCamera = camera
        self.screenSize = screenSize
        self.now = time
    }

    /// The projection for the current camera and screen.
    public var projection: Projection { Projection(camera: camera, screen: screenSize) }

    /// Hands each event emitted since the last drain to `body`, oldest first (events `body`
    /// causes come after them), then forgets them and keeps the list's memory: unlike
    /// `drainEvents()`, no allocation per frame.
    public func drainEvents(_ body: (TimedMapEvent) -> Void) {
        guard !events.isEmpty else { return }
        var i = 0
        while i < events.count {
            let e = events[i]
            i += 1
            body(e)
        }
        events.removeAll(keepingCapacity: true)
    }

    /// Events emitted since the last call, oldest first (the delegate has already been called).
    public func drainEvents() -> [TimedMapEvent] {
        defer { events.removeAll() }
        return events
    }

    /// Whether a gesture, fling or animation is moving the camera (willMove sent, idleAt not yet).
    public var isMoving: Bool { report.isMoving }

    // MARK: time

    /// Runs animations, flings, following mode and the auto-return timer up to `time`, and sends
    /// a pending idleAt.
    public func advance(to time: Double) {
        step(to: time, emitIdleAtSameTime: true)
    }

    /// When the loop must call `advance(to:)` next: the next animation frame (every
    /// `frameInterval` s while anything moves), a pending idleAt, or the auto-return time.
    public var nextDeadline: Double? {
        // The earliest, kept as they come (an array of them was a malloc on every frame).
        var deadlines = EarliestTime()
        if let p = report.idleDue { deadlines.append(p) }
        if let p = report.changeDue { deadlines.append(p) }
        var tracking = false
        if cameraMode == .following, gestures.isEmpty, let change = positionSource?.nextChange(after: now) {
            if change > now { deadlines.append(change) } else { tracking = true }
        }
        // A position gliding to a new fix moves the puck: frames until it arrives.
        if !tracking, positionGlideEnd != nil { tracking = true }
        if motion.isTimed || tracking {
            var next = now + configuration.frameInterval
            if let g = positionGlideEnd { next = min(next, g) }
            if let a = motion.animation, a.end > now { next = min(next, a.end) }
            if let m = motion.momentum, m.end > now { next = min(next, m.end) }
            deadlines.append(next)
        }
        if let r = autoReturnTime { deadlines.append(r) }
        if let h = homeTime { deadlines.append(h) }
        return deadlines.min
    }

    var autoReturnTime: Double? {
        guard cameraMode == .free, gestures.isEmpty, fingersDown == 0, returnArmed, positionSource != nil,
              let interval = configuration.autoReturnInterval, let q = quietSince else { return nil }
        return q + interval
    }

    func step(to time: Double, emitIdleAtSameTime: Bool) {
        let t = max(time, now)
        now = t
        if let p = report.changeDue, p < t { flushChange() }
        if let p = report.idleDue, p < t { emitIdle(at: p) }
        currentFix = positionFix(at: t)

        if let r = autoReturnTime, t >= r {
            quietSince = nil
            enterFollowing(at: t)
        }
        checkHome(at: t)
        if var m = motion.momentum {
            let d = m.law.displacement(m.velocity, after: t - m.start)
            var stop = t >= m.end
            if (d - m.applied).length > 0 {
                if let cam = cameraKeeping(screen: m.origin + m.applied, at: m.origin + d,
                                           zoom: camera.zoom, bearing: camera.bearing, tilt: camera.tilt) {
                    let before = camera
                    changeCamera(to: cam, at: t)
                    // Held at the target bounds on both axes: the fling ends at the edge.
                    if camera == before && configuration.limits.targetBounds != nil { stop = true }
                } else {
                    stop = true   // the dragged point went above the horizon: nothing left to drag
                }
            }
            m.applied = d
            // (A delegate's didChange may have started an animation meanwhile: it stays.)
            if motion.animation == nil { motion = stop ? .still : .flinging(m) }
        }
        if var a = motion.animation {
            if a.endFollowsSource, let f = followingCamera(at: t) { a.to = f }
            changeCamera(to: cameraOf(a, at: t), at: t)
            motion = t >= a.end ? .still : .animating(a)
        }
        trackPositionSource(at: t)
        checkIdle(at: t)
        if emitIdleAtSameTime {
            flushChange()
            if let p = report.idleDue, p <= t { emitIdle(at: p) }
        }
    }

    /// The camera an animation shows at a time.
    func cameraOf(_ a: CameraAnimation, at t: Double) -> CameraPosition {
        let f = a.fraction(at: t)
        if f >= 1 { return a.to }
        if let focus = a.focus,
           let cam = cameraKeeping(focus.coordinate, at: focus.screen,
                                   zoom: a.from.zoom + f * (a.to.zoom - a.from.zoom),
                                   bearing: a.from.bearing + f * CameraInterpolation.shortestTurn(from: a.from.bearing, to: a.to.bearing),
                                   tilt: a.from.tilt + f * (a.to.tilt - a.from.tilt)) {
            return cam
        }
        return CameraInterpolation.camera(from: a.from, to: a.to, fraction: f)
    }

    // MARK: motion bookkeeping

    /// A movement starts: willMove unless one is already under way; again when the new movement
    /// interrupts an animation or fling.
    func beginMotion(gesture: Bool, interrupting: Bool, at t: Double) {
        let wasMoving = report.isMoving
        report = .moving(changeDue: report.changeDue)   // a pending idleAt is off
        if !wasMoving || interrupting {
            emit(.willMove(gesture: gesture), at: t)
        }
    }

    /// Moves the camera (clamped), sending didChange when it changed. With `coalesce` (gesture
    /// increments) the didChange waits until the input frame is over, so a frame whose transform
    /// the recogniser split over several events gives one didChange: it goes out when time moves
    /// on or the loop advances (`nextDeadline` is then that time).
    func changeCamera(to newCamera: CameraPosition, at t: Double, coalesce: Bool = false) {
        let c = configuration.limits.clamp(newCamera)
        guard c != camera else { return }
        if !report.isMoving { beginMotion(gesture: false, interrupting: false, at: t) }
        camera = c
        if coalesce {
            report.changeDue = report.changeDue ?? t
        } else {
            report.changeDue = nil   // this didChange carries the pending one's camera too
            emit(.didChange(c), at: t)
        }
    }

    /// Sends a didChange held back by `changeCamera(coalesce:)`.
    func flushChange() {
        guard let p = report.changeDue else { return }
        report.changeDue = nil
        emit(.didChange(camera), at: p)
    }

    /// Marks the idle time once nothing moves any more.
    func checkIdle(at t: Double) {
        guard case let .moving(changeDue) = report, gestures.isEmpty, motion.isStill else { return }
        report = .stopped(idleDue: t, changeDue: changeDue)
    }

    func emitIdle(at t: Double) {
        flushChange()
        guard report.isMoving else { return }
        report = .idle
        emit(.idleAt(camera), at: t)
    }

    /// Stops animations and flings (a gesture takes over); returns whether one was running.
    @discardableResult
    func stopMotion() -> Bool {
        let was = !motion.isStill
        motion = .still
        return was
    }

    /// Starts an animation from the current camera.
    func startAnimation(to target: CameraPosition, duration: Double, focus: CameraAnimation.Focus? = nil,
                        byGesture: Bool, endFollowsSource: Bool = false, isZoomStep: Bool = false, at t: Double) {
        let interrupting = stopMotion()
        beginMotion(gesture: byGesture, interrupting: interrupting, at: t)
        let a = CameraAnimation(from: camera, to: configuration.limits.clamp(target), start: t,
                                duration: max(duration, 0), focus: focus, byGesture: byGesture,
                                endFollowsSource: endFollowsSource, isZoomStep: isZoomStep)
        if a.duration == 0 {
            changeCamera(to: a.to, at: t)
        } else {
            motion = .animating(a)
        }
        checkIdle(at: t)
    }

    // MARK: programmatic moves (gesture: false; the map leaves following/overview for free)

    /// Animates to a camera over `duration` seconds (ease in-out).
    public func animate(to target: CameraPosition, duration: Double, at time: Double? = nil) {
        let t = programmaticTime(time)
        appTookOver(at: t)
        homeQuietSince = nil   // the home timer restarts from this move
        startAnimation(to: target, duration: duration, byGesture: false, at: t)
    }

    /// Jumps to a camera.
    public func move(to target: CameraPosition, at time: Double? = nil) {
        animate(to: target, duration: 0, at: time)
    }

    /// Shows every coordinate with `padding` px to spare on each side, north up and flat;
    /// animated when `duration` > 0.
    public func fit(coordinates: [Coordinate], padding: Double, duration: Double = 0, at time: Double? = nil) {
        guard let target = CameraFit.camera(fitting: coordinates, screen: screenSize, padding: padding,
                                            limits: configuration.limits, maxZoom: configuration.fitMaxZoom)
        else { return }
        animate(to: target, duration: duration, at: time)
    }

    func programmaticTime(_ time: Double?) -> Double {
        let t = max(time ?? now, now)
        step(to: t, emitIdleAtSameTime: false)
        return t
    }

    // MARK: camera arithmetic (all through Projection)

    /// The camera with the given zoom, bearing and tilt (clamped) that shows `coordinate` at the
    /// screen point `s`; nil when `s` is above that camera's horizon.
    public func cameraKeeping(_ coordinate: Coordinate, at s: Point, zoom: Double, bearing: Double,
                              tilt: Double) -> CameraPosition? {
        let limits = configuration.limits
        var cam = limits.clamp(CameraPosition(target: camera.target, zoom: zoom, bearing: bearing, tilt: tilt))
        let proj = Projection(camera: cam, screen: screenSize)
        guard let g = proj.groundOffset(screen: s) else { return nil }
        // World offset from the target to the point under s, for the new bearing and tilt.
        let offset = proj.worldPoint(ground: g) - proj.centerWorld
        let world = WebMercator.worldPoint(coordinate, zoom: cam.zoom)
        cam.target = WebMercator.coordinate(world: world - offset, zoom: cam.zoom)
        return limits.clamp(cam)
    }

    /// The camera that moves the map point under screen point `from` to screen point `to`.
    func cameraKeeping(screen from: Point, at to: Point, zoom: Double, bearing: Double, tilt: Double) -> CameraPosition? {
        guard let c = projection.coordinate(at: from) else { return nil }
        return cameraKeeping(c, at: to, zoom: zoom, bearing: bearing, tilt: tilt)
    }

    // MARK: events

    func emit(_ event: MapEvent, at t: Double, marker: Marker? = nil, overlay: Overlay? = nil) {
        if recordsEvents { events.append(TimedMapEvent(time: t, event: event)) }
        guard let d = delegate else { return }
        switch event {
        case .willMove(let g): d.willMove(gesture: g)
        case .didChange(let c): d.didChange(c)
        case .idleAt(let c): d.idleAt(c)
        case .didTapAt(let c): d.didTapAt(c)
        case .didLongPressAt(let c): d.didLongPressAt(c)
        case .didTapMarker: break   // the caller asks `didTap(marker:)` itself for its answer
        case .didTapInfoWindow: if let m = marker { d.didTapInfoWindowOf(m) }
        case .didLongPressInfoWindow: if let m = marker { d.didLongPressInfoWindowOf(m) }
        case .didCloseInfoWindow: if let m = marker { d.didCloseInfoWindowOf(m) }
        case .didTapPOI(let name, let c, let cls, let id): d.didTapPOI(PointOfInterest(name: name, coordinate: c, featureClass: cls, id: id))
        case .cameraMode(let m): d.cameraModeDidChange(m)
        case .didTapOverlay(_, let c): if let o = overlay { d.didTapOverlay(o, at: c) }
        }
    }
}
