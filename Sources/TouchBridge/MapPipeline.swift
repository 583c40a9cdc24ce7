import Foundation
import TouchCore
import Gestures
import MapEngine
import Rendering

/// The pure middle of the data flow, wired once for every user (run, demo, replay, tune, bench):
/// contact frames -> GestureRecognizer -> MapController, with every step written to the event
/// stream when something reads it. No fds and no clock: time comes with the frames or is
/// passed to `advance(to:)`.
package final class MapPipeline {
    public let screen: Size
    public private(set) var recognizer: GestureRecognizer
    public let controller: MapController
    public private(set) var encoder = EventStreamEncoder()
    /// Receives each line of the event stream (without newline). Nil: no line is encoded at all
    /// (formatting every gesture and map event was nearly all of the input path's cost).
    /// A new sink reads every line until `sinkHasReader` is set again.
    public var sink: ((String) -> Void)? { didSet { sinkHasReader = nil } }
    /// Whether the sink has a reader now (the kiosk: an event-stream file or a control-socket
    /// subscriber); while it answers false no line is encoded. Nil: the sink always reads.
    public var sinkHasReader: (() -> Bool)?
    /// The line being written, its memory reused from line to line.
    private var line = StreamLineBuffer()
    /// Also write a `contacts` line per frame.
    public var writesContacts = false
    /// Gesture events as they happen (for `tune`).
    public var gestureObserver: ((GestureEvent) -> Void)?
    /// Contact frames as they arrive (for `tune`).
    public var frameObserver: ((ContactFrame) -> Void)?
    /// The marker sprites drawn, kept until the markers change (not rebuilt and sorted every frame).
    private var sprites: (revision: Int, clustered: Bool, list: [MarkerSprite])?
    /// The overlays in drawing order, kept until they change (so the scene's array is the same
    /// buffer frame after frame and compares in O(1)).
    private var drawnOverlays: (revision: Int, list: [Overlay])?
    /// Touch prediction for the picture (nil: frames show the camera as the real input left it).
    public var prediction: FramePrediction?
    /// Set when something visible changed since `takeNeedsRedraw()`.
    private var dirty = true
    public private(set) var contactsDown = 0
    public private(set) var lastTime: Double?
    private var started = false

    public init(screen: Size, camera: CameraPosition, recognizer: GestureRecognizer,
                mapConfiguration: MapConfiguration, sink: ((String) -> Void)? = nil) {
        self.screen = screen
        self.recognizer = recognizer
        self.controller = MapController(camera: camera, screenSize: screen, configuration: mapConfiguration)
        self.sink = sink
    }

    /// Builds the recogniser and controller from a kiosk configuration.
    public convenience init(configuration cfg: KioskConfiguration, screen: Size, density: PixelDensity,
                            sink: ((String) -> Void)? = nil) {
        self.init(screen: screen, camera: cfg.map.camera, recognizer: cfg.gestures.recognizer(density: density, screen: screen),
                  mapConfiguration: cfg.mapConfiguration(density: density), sink: sink)
        for m in cfg.markers { controller.add(m.marker) }
        configMarkerIDs = Set(cfg.markers.map(\.id))
        applyOverlays(cfg)
        showsPosition = cfg.position.show
        controller.pointsOfInterest = BuiltInWorld.cities.map { PointOfInterest(name: $0.name, coordinate: $0.coordinate, minZoom: $0.minZoom, featureClass: "city") }
        switch cfg.camera.positionSource {
        case .fixed:
            if let p = cfg.camera.position {
                var fix = PositionFix(coordinate: p, heading: cfg.camera.heading)
                fix.accuracy = cfg.position.accuracyMeters
                controller.positionSource = .fixed(fix)
            }
        case .track:
            controller.positionSource = .track(DemoTrack.points)
        }
        startMode = cfg.camera.mode
    }

    /// The configured `[camera] mode`, applied when the clock starts (a track starts then).
    private var startMode: CameraMode = .free

    /// Applies a re-read configuration (SIGHUP): thresholds, gesture mask, map configuration
    /// (limits, auto-return) and markers. The camera stays where it is.
    /// A gesture running at that moment ends cleanly (ended, then idleAt) and the contacts down
    /// are kept; markers are replaced in place, so the open info window stays open unless its
    /// marker is gone.
    public func reconfigure(_ cfg: KioskConfiguration, at time: Double? = nil) {
        let t = max(time ?? lastTime ?? controller.now, controller.now)
        let g = cfg.gestures
        advance(to: t) // the last frame's didChange goes out before the gesture ends
        deliver(recognizer.reconfigure(thresholds: g.thresholds, mask: .all,
                                       twoFingerHorizontal: g.twoFingerHorizontal == .pan ? .pan : .rotate, at: t))
        controller.configuration = cfg.mapConfiguration(density: PixelDensity(pixelsPerMillimetre: recognizer.pixelsPerMillimetre, source: .assumed))
        controller.homeCamera = cfg.map.camera
        let keep = Set(cfg.markers.map(\.id))
        for m in controller.markers where configMarkerIDs.contains(m.id) && !keep.contains(m.id) {
            controller.removeMarker(id: m.id)
        }
        for m in cfg.markers { controller.add(m.marker) }
        configMarkerIDs = keep
        applyOverlays(cfg, at: t)
        showsPosition = cfg.position.show
        controller.advance(to: t)
        drainMapEvents()
        dirty = true
    }

    /// Changes which gestures move the map, at runtime. A gesture running at that moment ends
    /// cleanly (ended, then idleAt); fingers still down are ignored until they lift.
    public func setGestureMask(_ mask: GestureMask, at time: Double) {
        let t = interruptGesture(at: time, reason: "gesture mask changed")
        controller.configuration.gestureMask = mask
        controller.advance(to: t)
        drainMapEvents()
        dirty = true
    }

    /// Ends the running gesture cleanly (ended, then idleAt) and drops a pending one (a tap
    /// waiting for doubleTapTimeout is never confirmed); fingers still down are ignored until
    /// they lift. Returns the time it happened at (never before the pipeline's clock).
    @discardableResult
    public func interruptGesture(at time: Double, reason: String) -> Double {
        let t = max(time, controller.now)
        advance(to: t) // the last frame's didChange goes out before the gesture ends
        deliver(recognizer.interrupt(at: t, reason: reason))
        return t
    }

    /// The pixel density the gestures are judged at (thresholds are millimetres on the glass).
    public var pixelsPerMillimetre: Double { pendingDensity?.density.pixelsPerMillimetre ?? recognizer.pixelsPerMillimetre }
    /// A density waiting for the fingers to lift (`useDensity`).
    private var pendingDensity: (density: PixelDensity, gestures: KioskConfiguration.GestureSettings)?

    /// Judges gestures at another pixel density from now on: the touchscreen in use changed (a
    /// kiosk started before its panel, a panel plugged in later). Replay takes the density from
    /// the recording's device, so the live kiosk must take it from the device it reads, or the
    /// same touches give other gestures (a drag within a larger slop is a long press). Applied
    /// at once when no finger is down and no gesture is pending, else as soon as that is so:
    /// a gesture is never judged at two densities.
    public func useDensity(_ density: PixelDensity, gestures g: KioskConfiguration.GestureSettings) {
        pendingDensity = (density, g)
        applyPendingDensity()
    }

    private func applyPendingDensity() {
        guard let (density, g) = pendingDensity, contactsDown == 0, recognizer.state == .idle else { return }
        pendingDensity = nil
        guard density.pixelsPerMillimetre != recognizer.pixelsPerMillimetre else { return }
        let log = recognizer.log
        recognizer = g.recognizer(density: density, screen: screen)
        recognizer.log = log
        // The controller's figures that are millimetres on the glass (fling speeds, hit slop).
        var cfg = KioskConfiguration()
        cfg.gestures = g
        let m = cfg.mapConfiguration(density: density)
        controller.configuration.momentum.minStartSpeed = m.momentum.minStartSpeed
        controller.configuration.momentum.stopSpeed = m.momentum.stopSpeed
        controller.configuration.momentum.maxStartSpeed = m.momentum.maxStartSpeed
        controller.configuration.overlayHitSlop = m.overlayHitSlop
    }

    /// Markers that came from the configuration file (a reload replaces only these).
    private var configMarkerIDs: Set<String> = []
    /// Overlays that came from the configuration file (a reload replaces only these).
    private var configOverlayIDs: Set<String> = []
    /// Whether the puck is drawn at the position (`[position] show`).
    public var showsPosition = true
    /// Problems met applying the configuration's overlays (over a limit): the kiosk logs them.
    public private(set) var overlayWarnings: [String] = []

    /// The file's overlays and route: overlays from an earlier file that the new one drops are
    /// removed (those added over the socket stay), the rest added or replaced in place.
    private func applyOverlays(_ cfg: KioskConfiguration, at time: Double? = nil) {
        let keep = Set(cfg.overlays.map(\.id))
        for id in configOverlayIDs where !keep.contains(id) { controller.removeOverlay(id: id, at: time) }
        overlayWarnings = []
        for o in cfg.overlays {
            do { try controller.add(o, at: time) } catch { overlayWarnings.append("overlay '\(o.id)': \(error)") }
        }
        configOverlayIDs = keep
        if let r = cfg.route { controller.setRoute(r) } else if configRoute { controller.setRoute([]) }
        configRoute = cfg.route != nil
    }
    private var configRoute = false

    /// Every recogniser transition to the log: debug, and a recogniser bug (an input its state
    /// cannot receive) as a warning.
    public func logTransitions(_ write: @escaping @Sendable (KioskLog.Level, String) -> Void) {
        recognizer.log = { step in write(step.isBug ? .warning : .debug, "gesture: \(step)") }
    }

    /// Info-window taps are tested against the window as this renderer draws it.
    public func measureInfoWindows(with renderer: MapRenderer) {
        controller.infoWindowSize = { [unowned renderer, unowned controller] m in
            // The content shown, as asked when the window opened (not asked again per hit test).
            if m.id == controller.selectedMarker, let c = controller.infoWindowContent() {
                return renderer.infoWindowSize(c)
            }
            return renderer.infoWindowSize(InfoWindowContent(marker: m))
        }
    }

    /// The place names the renderer drew in its last frame become the tappable points of
    /// interest, so a POI tap matches the picture: the built-in world's cities, and the street
    /// map's place names and POIs (with their class, id and label box).
    public func usePlaces(_ places: [DrawnPlace], streetLabels: [PlacedStreetLabel] = []) {
        controller.pointsOfInterest = places.filter { $0.kind == .city }
            .map { PointOfInterest(name: $0.name, coordinate: $0.coordinate, minZoom: 0, featureClass: "city") }
            + streetLabels.compactMap(\.pointOfInterest)
    }

    /// Writes the `start` line (t = 0 is the first input event's time).
    public func start() {
        guard !started else { return }
        started = true
        // The camera the stream starts with is the one the start mode gives (following sits on
        // the position, overview shows the route or markers), and the line says the mode.
        if startMode != .free { controller.start(in: startMode) }
        emit { encoder, line in encoder.start(screen: screen, camera: controller.camera, mode: controller.cameraMode, into: &line) }
    }

    /// Marks where t = 0 is and sets the controller's clock without emitting anything.
    public func begin(at time: Double) {
        start()
        encoder.setOrigin(time)
        if lastTime == nil {
            lastTime = time
            // A scripted track starts with the input clock.
            if case .track = controller.positionSource { controller.positionSource = controller.positionSource?.shifted(by: time) }
            controller.advance(to: time)
            switch startMode {
            case .free: break
            case .following: controller.start(in: .following)
            case .overview: controller.start(in: .overview)
            }
            drainMapEvents()
        }
    }

    /// Runs deadlines (gesture timeouts, animations, momentum, auto-return) up to `time`, in order.
    public func advance(to time: Double) {
        begin(at: time)
        var guardCount = 0
        while let d = nextDeadline, d <= time, guardCount < 100_000 {
            guardCount += 1
            step(to: d)
        }
        step(to: time)
    }

    private func step(to time: Double) {
        if let rd = recognizer.nextDeadlineInPlace(), rd <= time {
            deliver(recognizer.expire(at: rd))
            if pendingDensity != nil { applyPendingDensity() }
        }
        controller.advance(to: max(time, controller.now))
        lastTime = max(lastTime ?? time, time)
        drainMapEvents()
    }

    /// One contact frame from the assembler.
    public func handle(_ frame: ContactFrame) {
        advance(to: frame.time)
        if writesContacts { emit { encoder, line in encoder.contacts(frame, into: &line) } }
        frameObserver?(frame)
        if frame.contacts.count != contactsDown {
            // Before the frame's gestures: a touch-down stops the camera in this frame.
            controller.touchesChanged(count: frame.contacts.count, at: frame.time)
        }
        prediction?.observe(frame)
        contactsDown = frame.contacts.count
        deliver(recognizer.process(frame))
        drainMapEvents()
        if pendingDensity != nil { applyPendingDensity() }
        dirty = true // contacts themselves are visible in `tune`
    }

    /// Builds a line with `encode` and hands it to the sink, only when something reads it.
    @inline(__always)
    private func emit(_ encode: (EventStreamEncoder, inout StreamLineBuffer) -> Void) {
        lastDidChange = nil
        guard let sink, sinkHasReader?() ?? true else { return }
        line.reset()
        encode(encoder, &line)
        if let lineMark {
            var s = line.string
            if s.hasSuffix("}") { s.removeLast(); s += lineMark + "}" }
            sink(s)
        } else {
            sink(line.string)
        }
    }

    /// Added to every line while set (JSON members with a leading comma): the attract tour's
    /// lines carry `"attract":true` so an app's analytics can tell them from a visitor's.
    public var lineMark: String?

    private func deliver(_ events: [GestureEvent]) {
        for e in events {
            emit { encoder, line in encoder.gesture(e, into: &line) }
            gestureObserver?(e)
            controller.handle(e)
            drainMapEvents()
        }
    }

    private func drainMapEvents() {
        controller.drainEvents { te in
            dirty = true
            if case .didChange(let c) = te.event {
                // A didChange with the camera of the line just before it says nothing: not repeated.
                if c == lastDidChange { return }
                emit { encoder, line in encoder.mapEvent(te.event, time: te.time, into: &line) }
                lastDidChange = c
            } else {
                emit { encoder, line in encoder.mapEvent(te.event, time: te.time, into: &line) }
            }
        }
    }
    /// The camera of the last line when it was a didChange (any other line clears it).
    private var lastDidChange: CameraPosition?

    /// The earliest time something must happen without input.
    public var nextDeadline: Double? {
        // No array: this runs for every input frame.
        // In place: `recognizer.nextDeadline` copied the whole recogniser first.
        switch (recognizer.nextDeadlineInPlace(), controller.nextDeadline) {
        case let (a?, b?): return min(a, b)
        case let (a, b): return a ?? b
        }
    }

    /// Whether a frame must be drawn; clears the flag.
    public func takeNeedsRedraw() -> Bool {
        defer { dirty = false }
        return dirty
    }
    public func setNeedsRedraw() { dirty = true }
    /// Whether a frame is due (without clearing the flag).
    public var needsRedraw: Bool { dirty }

    /// After the input is exhausted: run the clock on until nothing is pending (bounded), then `end`.
    public func finish(maxSeconds: Double = 60) {
        let t0 = lastTime ?? 0
        var t = t0
        while let d = nextDeadline, d - t0 < maxSeconds {
            t = max(t, d)
            advance(to: t)
        }
        let time = lastTime ?? t
        emit { encoder, line in encoder.end(time: time, contacts: contactsDown, camera: controller.camera, into: &line) }
    }

    /// What the renderer draws now.
    public func scene(attribution: String?) -> MapScene {
        // With clustering on, the revision follows the grouping (markers, zoom level, switch).
        let spriteRevision = controller.configuration.clusterMarkers ? -1 - controller.clusteringRevision : controller.markersRevision
        if sprites?.revision != spriteRevision || sprites?.clustered != controller.configuration.clusterMarkers {
            var shown = controller.markersInDrawingOrder
            var bubbles: [MarkerSprite] = []
            if controller.configuration.clusterMarkers {
                let (singles, clusters) = controller.markerClusters()
                let single = Set(singles.map(\.id))
                shown = shown.filter { single.contains($0.id) }
                bubbles = clusters.map { MarkerSprite(id: $0.id, coordinate: $0.coordinate, icon: .cluster(count: $0.count), zIndex: Int.max) }
            }
            sprites = (spriteRevision, controller.configuration.clusterMarkers, shown.map { m -> MarkerSprite in
                let icon: MarkerSprite.Icon
                switch m.icon {
                case .defaultPin: icon = .defaultPin(RGBColor(hex: m.pinColorRGB ?? 0xE53935))
                case .image(let name, _, let anchor): icon = .png(path: name, anchor: anchor)
                }
                return MarkerSprite(id: m.id, coordinate: m.position, icon: icon, zIndex: m.zIndex)
            } + bubbles)
        }
        let markers = sprites?.list ?? []
        var info: InfoWindowScene? = nil
        if let m = controller.infoWindowMarker, let content = controller.infoWindowContent(),
           let p = controller.projection.point(for: m.position) {
            let a = m.infoWindowAnchorPoint(at: p)
            info = InfoWindowScene(content: content, coordinate: m.position, anchorOffset: a - p)
        }
        let controls = controller.controls
        var scene = MapScene(camera: controller.camera, markers: markers, infoWindow: info,
                             showsCompass: controls.compassVisible, showsRecenterButton: controls.recenterVisible,
                             attribution: attribution)
        if drawnOverlays?.revision != controller.overlaysRevision {
            drawnOverlays = (controller.overlaysRevision, controller.overlaysInDrawingOrder)
        }
        scene.overlays = drawnOverlays?.list ?? []
        if controller.route.count > 1 {
            scene.route = RouteDrawing(points: controller.route, progress: controller.routeProgress)
        }
        if showsPosition, let fix = controller.currentFix {
            scene.puck = PuckDrawing(coordinate: fix.coordinate, heading: fix.headingKnown ? fix.heading : nil, accuracy: fix.accuracy)
        }
        return scene
    }
}

/// The demo's scripted position track: a loop through central Europe (following mode).
package enum DemoTrack {
    public static let points: [TrackPoint] = {
        let stops = [(48.8566, 2.3522), (49.6, 6.1), (50.1109, 8.6821), (48.1351, 11.582), (47.3769, 8.5417), (48.8566, 2.3522)]
        var out: [TrackPoint] = []
        for (i, s) in stops.enumerated() {
            let next = stops[min(i + 1, stops.count - 1)]
            let heading = atan2((next.1 - s.1) * cos(s.0 * .pi / 180), next.0 - s.0) * 180 / .pi
            out.append(TrackPoint(time: Double(i) * 20, coordinate: Coordinate(latitude: s.0, longitude: s.1),
                                  heading: CameraPosition.normalizedBearing(heading)))
        }
        return out
    }()
}

extension KioskConfiguration.MarkerSettings {
    public var marker: Marker {
        var m = Marker(id: id, position: coordinate, title: title, snippet: snippet, zIndex: zIndex)
        MarkerLook.apply(icon, to: &m)
        m.pinColorRGB = color
        return m
    }
}

extension KioskConfiguration.GestureSettings {
    /// A recogniser with these thresholds, mask and two-finger choice.
    public func recognizer(density: PixelDensity, screen: Size) -> GestureRecognizer {
        // Every gesture is recognised: the map's mask (`enabled`) decides what moves the camera,
        // and a disabled gesture still reaches the app's gesture hook.
        GestureRecognizer(thresholds: thresholds, mask: .all, density: density, screen: screen,
                          twoFingerHorizontal: twoFingerHorizontal == .pan ? .pan : .rotate)
    }

}

extension KioskConfiguration {
    /// How far from a line (mm on the glass) a tap still hits it: half a finger pad.
    public static let overlayHitSlopMM = 4.0

    /// The controller's configuration for a panel of this density: the one place the file's
    /// fling speeds (mm/s on the glass) become MomentumLaw's px/s. The slowest fling is the
    /// recogniser's own momentumMinVelocity, so a release the recogniser gives a velocity is
    /// never dropped by a px/s figure meant for another panel size.
    public func mapConfiguration(density: PixelDensity) -> MapConfiguration {
        var m = MapConfiguration()
        let ppm = density.pixelsPerMillimetre
        m.momentum.minStartSpeed = gestures.thresholds.momentumMinVelocity * ppm
        m.momentum.stopSpeed = gestures.momentumStopSpeed * ppm
        m.momentum.maxStartSpeed = gestures.momentumMaxSpeed * ppm
        m.limits.minZoom = map.minZoom
        m.limits.maxZoom = map.maxZoom
        m.gestureMask = gestures.enabled
        m.autoReturnInterval = camera.autoReturnSeconds > 0 ? camera.autoReturnSeconds : nil
        m.homeAfterInterval = camera.homeAfterSeconds > 0 ? camera.homeAfterSeconds : nil
        m.limits.targetBounds = map.bounds
        m.followingTilt = camera.followingTilt
        m.followingZoom = camera.followingZoom
        m.clusterMarkers = map.clusterMarkers
        // A line is hit within half a finger pad (8 mm wide on the glass) of its centre.
        m.overlayHitSlop = KioskConfiguration.overlayHitSlopMM * ppm
        return m
    }
}
