import Foundation
import TouchBridge
import Kiosk
import TouchDevices
import TouchCore
import Gestures
import MapEngine
import Rendering

/// `touchbridge demo`: the scripted tour through the whole pipeline (synthetic evdev frames ->
/// assembler -> recogniser -> controller -> renderer), written as PNG frames, a captioned
/// contact sheet and the JSON event stream.
package struct DemoRunner {
    public struct Result {
        public var frames: [(path: String, caption: String)]
        public var contactSheet: String
        public var eventStream: String
        public var evemuDescription: String
        public var evemuEvents: String
        /// Gesture names recognised during each step.
        public var gesturesPerStep: [[String]]
        public var finalCamera: CameraPosition
    }

    public var outputDirectory: String
    /// Called with each frame after it is drawn (e.g. to show it on a display).
    public var onFrame: ((FrameBuffer) -> Void)?

    /// A vector tile set of Vaduz (the Liechtenstein tiles): the tour runs over the street map there.
    public var streetTiles: String?

    public init(outputDirectory: String, streetTiles: String? = nil) {
        self.outputDirectory = outputDirectory
        self.streetTiles = streetTiles
    }

    public static func configuration(streetTiles: String? = nil) -> KioskConfiguration {
        var cfg = KioskConfiguration()
        cfg.map.camera = streetTiles == nil ? DemoTour.startCamera : DemoTour.streetCamera
        cfg.markers = streetTiles == nil ? DemoTour.markers : DemoTour.streetMarkers
        if let streetTiles { cfg.map.source = .mbtiles(streetTiles) }
        cfg.camera.autoReturnSeconds = 0
        cfg.camera.followingZoom = streetTiles == nil ? 6.5 : 17
        return cfg
    }

    /// The tour's route, puck track, shapes and overlay tap.
    public static func overlays(streetTiles: String?) -> DemoOverlays { streetTiles == nil ? .world : .street }

    /// The demo's map setup as a configuration file for `touchbridge run`.
    public static func configurationText(streetTiles: String? = nil) -> String {
        let cfg = configuration(streetTiles: streetTiles)
        let c = cfg.map.camera
        var t = """
        # The demo tour's map: play tour-steps/*.events into a panel named "\(TouchScript.virtualPanel(screen: DemoTour.screen).name)"
        [display]
        backend = "drm"

        [[touch]]
        match = "name:\(TouchScript.virtualPanel(screen: DemoTour.screen).name)"

        [map]
        latitude = \(c.target.latitude)
        longitude = \(c.target.longitude)
        zoom = \(c.zoom)
        \(streetTiles.map { "source = \"tiles\"\ntiles = \"\($0)\"" } ?? "")

        [camera]
        auto_return_s = 0.0

        """
        for m in cfg.markers {
            t += "\n[[markers]]\nid = \"\(m.id)\"\nlatitude = \(m.coordinate.latitude)\nlongitude = \(m.coordinate.longitude)\n"
            if let title = m.title { t += "title = \"\(title)\"\n" }
            if let s = m.snippet { t += "snippet = \"\(s)\"\n" }
            t += "z_index = \(m.zIndex)\n"
        }
        return t
    }

    public func run() throws -> Result {
        let fm = FileManager.default
        let framesDir = (outputDirectory as NSString).appendingPathComponent("frames")
        try fm.createDirectory(atPath: framesDir, withIntermediateDirectories: true)
        if let old = try? fm.contentsOfDirectory(atPath: framesDir) {
            for f in old where f.hasSuffix(".png") { try? fm.removeItem(atPath: (framesDir as NSString).appendingPathComponent(f)) }
        }
        var cfg = DemoRunner.configuration(streetTiles: streetTiles)
        let shown = DemoRunner.overlays(streetTiles: streetTiles)
        let floorPlan = (outputDirectory as NSString).appendingPathComponent("floor-plan.png")
        try DemoOverlays.writeFloorPlan(to: floorPlan)
        cfg.overlays = shown.with(floorPlan: floorPlan)
        cfg.route = shown.route
        cfg.position.accuracyMeters = shown.accuracy
        let tour = DemoTour(camera: cfg.map.camera, markers: cfg.markers, overlayTap: shown.tapped.at)
        let screen = DemoTour.screen
        let caps = tour.script.device
        var lines: [String] = []
        var gestureNames: [String] = []
        let pipeline = MapPipeline(configuration: cfg, screen: screen,
                                   density: Replay.density(for: caps, screen: screen)) { line in
            lines.append(line)
        }
        // The puck walks the route while the tour runs (the track starts with the first input).
        pipeline.controller.positionSource = .track(shown.track.map {
            TrackPoint(time: $0.time, coordinate: $0.coordinate, heading: $0.heading)
        })
        pipeline.gestureObserver = { e in
            if e.phase == .recognized || e.phase == .began { gestureNames.append(e.kind.rawValue) }
        }
        var assembler = FrameAssembler(capabilities: caps, screen: screen)
        var vector: VectorTileSet? = nil
        if let streetTiles {
            let opened = MapRenderer.openTiles(path: streetTiles)
            guard let v = opened.vector else {
                throw DemoError(description: opened.warnings.first ?? "\(streetTiles) is not a vector tile set")
            }
            vector = v
        }
        let renderer = MapRenderer(vector: vector)
        pipeline.measureInfoWindows(with: renderer)
        let frame = OwnedFrameBuffer(width: Int(screen.width), height: Int(screen.height))
        var frames: [(String, String)] = []
        var perStep: [[String]] = []

        func snapshot(_ index: Int, _ caption: String) throws {
            renderer.render(pipeline.scene(attribution: nil), into: frame.buffer)
            pipeline.usePlaces(renderer.drawnPlaces, streetLabels: renderer.streetLabels)
            onFrame?(frame.buffer)
            let slug = caption.lowercased().prefix(while: { $0 != ":" }).map { $0.isLetter || $0.isNumber ? $0 : "-" }
            let path = (framesDir as NSString).appendingPathComponent(String(format: "%02d-", index) + String(slug) + ".png")
            try frame.buffer.writePNG(to: path)
            frames.append((path, caption))
        }

        let events = tour.script.events
        pipeline.start()
        if let first = events.first { pipeline.begin(at: first.time) }
        try snapshot(0, streetTiles == nil ? "Start: the built-in world map, three markers" : "Start: Vaduz on the street map, three markers")
        var next = 0
        for (i, step) in tour.steps.enumerated() {
            gestureNames = []
            if i == DemoTour.gestureSteps, let first = events.first(where: { $0.time >= step.start }) {
                // The overlay tap is scripted from the start camera: go back there first.
                pipeline.controller.move(to: cfg.map.camera, at: first.time - 0.5)
                pipeline.advance(to: first.time - 0.4)
            }
            while next < events.count && events[next].time <= step.end {
                if let f = assembler.process(events[next]) { pipeline.handle(f) }
                next += 1
            }
            // Let timeouts, animations and momentum run to just before the next step.
            pipeline.advance(to: step.end + 0.85)
            perStep.append(gestureNames)
            try snapshot(i + 1, step.caption)
        }
        // Following mode, as the Navigation SDK defines it: tilted, behind the puck, facing its way.
        let t = (events.last?.time ?? 0) + 1
        pipeline.advance(to: t)
        pipeline.controller.setCameraMode(.following, at: t)
        pipeline.advance(to: t + 2.5)
        perStep.append([])
        try snapshot(tour.steps.count + 1, "Following: the camera behind the puck on the route, the travelled part grey")
        pipeline.finish()

        let eventsPath = (outputDirectory as NSString).appendingPathComponent("events.jsonl")
        try (lines.joined(separator: "\n") + "\n").write(toFile: eventsPath, atomically: true, encoding: .utf8)
        let sheet = (outputDirectory as NSString).appendingPathComponent("contact-sheet.png")
        try ContactSheet.write(frames: frames, to: sheet)
        let desc = (outputDirectory as NSString).appendingPathComponent("tour.desc")
        try Evemu.describe(caps).write(toFile: desc, atomically: true, encoding: .utf8)
        let ev = (outputDirectory as NSString).appendingPathComponent("tour.events")
        try tour.script.evemuEvents().write(toFile: ev, atomically: true, encoding: .utf8)
        // The tour again, one evemu file per step (times from the step's start), and a
        // configuration with the demo's map and markers: the kiosk e2e test plays these into a
        // real uinput panel, and a person can do the same on a bench kiosk.
        let stepsDir = (outputDirectory as NSString).appendingPathComponent("tour-steps")
        try fm.createDirectory(atPath: stepsDir, withIntermediateDirectories: true)
        for (i, step) in tour.steps.enumerated() {
            let part = events.filter { $0.time >= step.start && $0.time <= step.end }
            // From 1 s: evemu-play takes a timestamp of exactly 0 as "not set" and loses the first gap.
            let sub = TouchScript.evemuLines(part, from: step.start, offset: 1)
            try sub.write(toFile: (stepsDir as NSString).appendingPathComponent(String(format: "%02d.events", i + 1)),
                          atomically: true, encoding: .utf8)
        }
        try DemoRunner.configurationText(streetTiles: streetTiles).write(toFile: (outputDirectory as NSString).appendingPathComponent("tour.toml"),
                                                 atomically: true, encoding: .utf8)
        return Result(frames: frames, contactSheet: sheet, eventStream: eventsPath, evemuDescription: desc,
                      evemuEvents: ev, gesturesPerStep: perStep, finalCamera: pipeline.controller.camera)
    }
}

/// Why the demo cannot run (a street-map tile set that is not usable).
package struct DemoError: Error, CustomStringConvertible {
    public let description: String
}
