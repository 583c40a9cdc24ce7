import Platform
import Foundation
import TouchCore
import MapEngine
import Rendering

extension Benchmarks {
    /// Set TOUCHBRIDGE_BENCH_ONLY=overlays to run only `overlayShapes` (and the cold-copy floor
    /// it is compared with).
    static var onlyOverlays: Bool { ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_ONLY"] == "overlays" }

    /// The overlay scene: over the built-in world at zoom 5 (Europe, 1920x1080), a 10,000-vertex
    /// route with its progress a third of the way, 500 translucent polygons (8-gons with an
    /// outline), 1,000 default pins, all in view (a fixed sequence).
    static func overlayScene() -> MapScene {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return Double(x % 1_000_000) / 1_000_000 }
        let camera = CameraPosition(target: Coordinate(latitude: 48.5, longitude: 9.0), zoom: 5)
        let markers = (0..<1_000).map { i in
            MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: 38 + 20 * next(), longitude: -20 + 58 * next()))
        }
        var scene = MapScene(camera: camera, markers: markers)
        // A winding route west to east and back, 10,000 points.
        let route = (0..<10_000).map { i -> Coordinate in
            let t = Double(i) / 9_999
            return Coordinate(latitude: 48 + 8 * sin(t * 9 * .pi) * cos(t * 2 * .pi), longitude: -18 + 54 * (0.5 - 0.5 * cos(t * 3 * .pi)))
        }
        scene.route = RouteDrawing(points: route, progress: RouteProgress(segment: 3_300, point: route[3_300]))
        let colors: [UInt32] = [0xE53935, 0x43A047, 0x1E88E5, 0xFB8C00, 0x8E24AA]
        let polygons = (0..<500).map { i -> OverlayShape in
            let c = Coordinate(latitude: 39 + 18 * next(), longitude: -18 + 54 * next())
            let r = 0.25 + 0.5 * next()
            let ring = (0..<8).map { k -> Coordinate in
                let a = Double(k) * .pi / 4
                return Coordinate(latitude: c.latitude + r * 0.7 * sin(a), longitude: c.longitude + r * cos(a))
            }
            return OverlayShape(geometry: .polygon([ring]),
                                style: ShapeStyle(stroke: colors[i % 5], strokeWidth: 1.5, fill: colors[i % 5], fillOpacity: 0.35))
        }
        scene.overlays = [Overlay(id: "zones", shapes: polygons)]
        return scene
    }

    /// `pan_frame_overlays_1080p_ms` (pan frames over the cached base map and overlay layer,
    /// which hold the shapes: a copy) and `full_frame_overlays_1080p_ms` (a full redraw: base
    /// map, polygons, route, names, pins) for `overlayScene`.
    mutating func overlayShapes() {
        let width = 1920, height = 1080
        let screen = Size(width: Double(width), height: Double(height))
        let frame = OwnedFrameBuffer(width: width, height: height)
        let scene = Self.overlayScene()
        if Self.onlyOverlays {
            let cold = BenchSupport.median(BenchSupport.coldFrameCopyMS(width: width, height: height))
            progress(String(format: "  (plain copy of one frame's bytes, buffers not in cache: %.3f ms)", cold))
        }
        let renderer = MapRenderer()
        renderer.render(scene, into: frame.buffer)
        while renderer.prepareWhileIdle() {}
        let proj = Projection(camera: scene.camera, screen: screen)
        // Where full frame k looks (the key's frames and the profiler's): 40 px further east
        // for each k mod 7.
        let fullTarget = { (k: Int) in proj.coordinate(at: Point(x: screen.width / 2 + Double(k % 7) * 40, y: screen.height / 2))! }
        if let frames = ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_FRAMES"] {
            writeOverlayFrames(scene: scene, projection: proj, frame: frame, into: frames)
            return
        }
        if let n = ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_PROFILE"].flatMap({ Int($0) }), n > 0 {
            // Only full frames, for a profiler (perf, callgrind): nothing else in the run.
            renderer.usesBaseMapCache = false
            var pan = scene
            // With TOUCHBRIDGE_BENCH_SPLIT=NAME, only that part of the scene (`splitParts`).
            if let part = ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_SPLIT"],
               let cut = Self.splitParts.first(where: { $0.0 == part })?.1 {
                cut(&pan)
                renderer.render(pan, into: frame.buffer)
                while renderer.prepareWhileIdle() {}
            }
            for k in 0..<n {
                pan.camera.target = fullTarget(k)
                renderer.render(pan, into: frame.buffer)
            }
            progress("  \(n) full frames drawn for profiling")
            return
        }
        renderer.render(scene, into: frame.buffer)
        var pan = scene
        var i = 0
        let pans = BenchSupport.timeRuns(minRuns: 20, minSeconds: minSeconds) {
            i += 1
            let off = Double(i % 60) * 2
            if let c = proj.coordinate(at: Point(x: screen.width / 2 + off, y: screen.height / 2 + off / 3)) { pan.camera.target = c }
            renderer.render(pan, into: frame.buffer, quality: .interactive)
        }
        add("pan_frame_overlays_1080p_ms", BenchSupport.median(pans), "ms",
            "pan frame, 10,000-vertex route + 500 polygons + 1,000 pins")
        renderer.usesBaseMapCache = false
        var k = 0
        let full = BenchSupport.timeRuns(minRuns: 5, minSeconds: minSeconds) {
            k += 1
            pan.camera.target = fullTarget(k)
            renderer.render(pan, into: frame.buffer)
        }
        add("full_frame_overlays_1080p_ms", BenchSupport.median(full), "ms",
            "full redraw, 10,000-vertex route + 500 polygons + 1,000 pins")
        if Self.onlyOverlays {
            // On a shared machine the fastest frame and the CPU time a frame takes (both
            // cores) tell more than the median.
            func cpuMS() -> Double {
                var ts = timespec()
                clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
                return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1e6
            }
            let before = cpuMS()
            var m = 0
            let t0 = MonotonicClock.now()
            while m < 10 || MonotonicClock.now() - t0 < minSeconds {
                m += 1
                pan.camera.target = fullTarget(m)
                renderer.render(pan, into: frame.buffer)
            }
            let cpu = (cpuMS() - before) / Double(m)
            progress(String(format: "  full frame: fastest %.2f ms, CPU %.2f ms a frame (%d frames)", full.min() ?? 0, cpu, m))
        }
        if ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_SPLIT"] != nil {
            for (name, cut) in Self.splitParts
                where ["1", name].contains(ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_SPLIT"]!) {
                var part = pan
                cut(&part)
                let r = MapRenderer()
                r.usesBaseMapCache = false
                r.render(part, into: frame.buffer)
                while r.prepareWhileIdle() {}
                let t = BenchSupport.timeRuns(minRuns: 5, minSeconds: name == "base only" ? minSeconds : 4 * minSeconds) { r.render(part, into: frame.buffer) }
                progress(String(format: "  split %@: %.2f ms", name, BenchSupport.median(t)))
            }
        }
    }

    /// The parts of `overlayScene` TOUCHBRIDGE_BENCH_SPLIT times on their own (or profiles, with
    /// TOUCHBRIDGE_BENCH_PROFILE): the scene cut down to one kind of thing.
    static let splitParts: [(String, @Sendable (inout MapScene) -> Void)] = [
        ("base only", { s in s.overlays = []; s.route = nil; s.markers = [] }),
        ("polygons", { s in s.route = nil; s.markers = [] }),
        ("route", { s in s.overlays = []; s.markers = [] }),
        ("pins", { s in s.overlays = []; s.route = nil }),
        ("fills", { s in s.route = nil; s.markers = []
            s.overlays[0].shapes = s.overlays[0].shapes.map { var x = $0; x.style.stroke = nil; return x } }),
        ("outlines", { s in s.route = nil; s.markers = []
            s.overlays[0].shapes = s.overlays[0].shapes.map { var x = $0; x.style.fill = nil; return x } }),
    ]

    /// TOUCHBRIDGE_BENCH_FRAMES=DIR: the overlay scene's frames as PNG files, to compare two
    /// binaries byte for byte: full frames at the bench's seven cameras, turned, tilted, at
    /// zoom 6.5, and a pan frame (through the overlay layer).
    func writeOverlayFrames(scene: MapScene, projection proj: Projection, frame: OwnedFrameBuffer, into dir: String) {
        let screen = proj.screen
        let r = MapRenderer()
        r.usesBaseMapCache = false
        var cams: [(String, CameraPosition)] = (0..<7).map { k in
            var c = scene.camera
            c.target = proj.coordinate(at: Point(x: screen.width / 2 + Double(k) * 40, y: screen.height / 2))!
            return ("full-\(k)", c)
        }
        var turned = scene.camera; turned.bearing = 30
        var tilted = scene.camera; tilted.bearing = 20; tilted.tilt = 45
        var deeper = scene.camera; deeper.zoom = 6.5
        cams += [("turned", turned), ("tilted", tilted), ("zoom6.5", deeper)]
        for (name, c) in cams {
            var s = scene
            s.camera = c
            r.render(s, into: frame.buffer)
            try? frame.buffer.writePNG(to: dir + "/" + name + ".png")
        }
        let cached = MapRenderer()
        cached.render(scene, into: frame.buffer)
        var s = scene
        s.camera.target = proj.coordinate(at: Point(x: screen.width / 2 + 37, y: screen.height / 2 + 11))!
        cached.render(s, into: frame.buffer)
        try? frame.buffer.writePNG(to: dir + "/pan.png")
        progress("  frames written to \(dir)")
    }
}
