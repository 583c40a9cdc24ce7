import Foundation
import TouchBridge
import Kiosk
import MapEngine
import Rendering
import TouchCore

extension Benchmarks {
    /// The street map (vector tiles + the built-in style) at 1920x1080 over Vaduz: pan frames from
    /// the cached base map, full redraws, tilted frames, decoding one new tile, and memory.
    mutating func streetMap() {
        guard let path = options.streetTiles else { return }
        let opened = MapRenderer.openTiles(path: path)
        guard let vector = opened.vector else {
            progress("  (no street map: \(opened.warnings.first ?? "\(path) is not a vector tile set"))")
            return
        }
        let rssBefore = BenchSupport.currentRSSMiB() ?? 0
        let env = ProcessInfo.processInfo.environment
        let renderer = MapRenderer(vector: vector)
        // TOUCHBRIDGE_BENCH_HEIGHT=2160 (with TOUCHBRIDGE_BENCH_PROFILE): the profiled frames
        // on a 3840x2160 screen (the 4K keys' frames).
        let big = env["TOUCHBRIDGE_BENCH_PROFILE"] != nil && env["TOUCHBRIDGE_BENCH_HEIGHT"] == "2160"
        let frame = OwnedFrameBuffer(width: big ? 3840 : 1920, height: big ? 2160 : 1080)
        let vaduz = Self.vaduz
        var scene = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5))
        renderer.render(scene, into: frame.buffer)   // fonts, tiles, cache
        if let dir = env["TOUCHBRIDGE_BENCH_FRAMES"] {
            writeStreetFrames(renderer: renderer, vaduz: vaduz, frame: frame, into: dir)
            return
        }
        if let n = env["TOUCHBRIDGE_BENCH_PROFILE"].flatMap({ Int($0) }), n > 0 {
            // Only settled tilted frames (as the bench's tilted key), for a profiler: nothing
            // else. Each at a tilt of its own (45 to 55 degrees), so no frame repeats another's
            // label shapes (a settled frame after a real tilt gesture is a camera not seen before).
            // TOUCHBRIDGE_BENCH_VIEW=flat: full flat frames instead (as the full-frame key:
            // the view 40 px further east each frame, 7 places).
            // TOUCHBRIDGE_BENCH_VIEW=gesture: the tilt gesture's interactive frames (as the
            // interactive key: 0.4 degrees a frame, the ground cache on); =pinch: a pinch of a
            // map tilted 50 degrees, 0.05 zoom levels a frame from 15 to 17 and back.
            let flat = env["TOUCHBRIDGE_BENCH_VIEW"] == "flat", gesture = env["TOUCHBRIDGE_BENCH_VIEW"] == "gesture"
            let pinch = env["TOUCHBRIDGE_BENCH_VIEW"] == "pinch"
            // =turn: a two-finger turn of the map tilted 50 degrees, 0.5 degrees of bearing a
            // frame from 30 to 55 and back.
            let turn = env["TOUCHBRIDGE_BENCH_VIEW"] == "turn"
            // =pan: the pan key's frames (the cached base map moved 3 px a frame, 30 places).
            let pan = env["TOUCHBRIDGE_BENCH_VIEW"] == "pan"
            renderer.usesBaseMapCache = gesture || pinch || pan || turn
            // TOUCHBRIDGE_BENCH_GROUND_CACHE=0: those frames drawn in full, as before the ground cache.
            renderer.usesGroundCache = env["TOUCHBRIDGE_BENCH_GROUND_CACHE"] != "0"
            var profiled = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5, bearing: flat || pan ? 0 : 30, tilt: flat || pan ? 0 : 50))
            var times: [Double] = []
            for i in 0..<n {
                if pan {
                    profiled.camera.target = Self.streetPanTarget(vaduz, frame: i)
                    let t0 = BenchSupport.nanos()
                    renderer.render(profiled, into: frame.buffer, quality: .interactive)
                    times.append(Double(BenchSupport.nanos() - t0) / 1e6)
                    continue
                }
                if gesture || pinch || turn {
                    if turn {
                        let phase = (i + 1) % 100
                        profiled.camera.bearing = 30 + 0.5 * Double(phase < 50 ? phase : 100 - phase)
                    } else if gesture {
                        profiled.camera.tilt = Self.tiltGestureTilt(step: i + 1)
                    } else {
                        let phase = (i + 1) % 80
                        profiled.camera.zoom = 15 + 0.05 * Double(phase < 40 ? phase : 80 - phase)
                    }
                    let t0 = BenchSupport.nanos()
                    renderer.render(profiled, into: frame.buffer, quality: .interactive)
                    times.append(Double(BenchSupport.nanos() - t0) / 1e6)
                    continue
                }
                if flat {
                    profiled.camera.target = Self.streetFullTarget(vaduz, frame: i)
                } else {
                    profiled.camera.tilt = 45 + 10 * Double(i) / Double(n)
                }
                renderer.render(profiled, into: frame.buffer)
            }
            if !times.isEmpty {
                if env["TOUCHBRIDGE_BENCH_GESTURE_FRAMES"] != nil {
                    progress("  frames (ms): " + times.map { String(format: "%.1f", $0) }.joined(separator: " "))
                }
                progress(String(format: "  frames: median %.2f ms, 90th percentile %.2f, slowest %.2f; %d ground caches drawn",
                                BenchSupport.median(times), BenchSupport.percentile(times, 90), times.max() ?? 0, renderer.groundCacheBuilds))
            }
            progress("  \(n) \(flat ? "flat" : gesture ? "tilt gesture" : pinch ? "tilted pinch" : turn ? "tilted turn" : pan ? "pan" : "tilted") street frames drawn for profiling")
            return
        }
        var k = 0
        let pans = streetPans(renderer: renderer, scene: &scene, vaduz: vaduz, frame: frame, k: &k)
        streetFrames(renderer: renderer, vaduz: vaduz, frame: frame, k: &k)
        // POI icons: how many a full frame places, and full frames with and without them,
        // interleaved (a busy machine slows both alike). At zoom 17: the view above (15.5, style
        // zoom 14.5) shows no POIs, which the built-in style draws from style zoom 15.
        let poiScene = MapScene(camera: CameraPosition(target: vaduz, zoom: 17))
        renderer.render(poiScene, into: frame.buffer)
        add("street_icons_placed", Double(renderer.streetLabels.filter { $0.icon != nil }.count), "icons", "POI icons placed in a full frame (zoom 17)")
        var iconsOn: [Double] = [], iconsOff: [Double] = []
        for i in 0..<(options.quick ? 4 : 24) {
            renderer.showsStreetIcons = i % 2 == 0
            let t0 = MonotonicClock.now()
            renderer.render(poiScene, into: frame.buffer)
            let ms = (MonotonicClock.now() - t0) * 1e3
            if i % 2 == 0 { iconsOn.append(ms) } else { iconsOff.append(ms) }
        }
        renderer.showsStreetIcons = true
        add("street_full_icons_on_ms", BenchSupport.median(iconsOn), "ms", "street map full redraw at zoom 17 with POI icons (interleaved with the next)")
        add("street_full_icons_off_ms", BenchSupport.median(iconsOff), "ms", "the same without POI icons (showsStreetIcons = false)")
        // Decoding new tiles: a fresh set, every zoom-14 tile around Vaduz read, inflated and decoded.
        let fresh = MapRenderer.openTiles(path: path).vector
        if let fresh {
            for x in 8619...8631 { for y in 5750...5764 { _ = fresh.tile(.init(z: 14, x: x, y: y)) } }
            let d = fresh.decodeDurations.map { $0 * 1000 }
            add("street_tile_decode_ms", BenchSupport.median(d), "ms", "new vector tile: read + gunzip + protobuf + geometry (median)")
            add("street_tile_decode_max_ms", d.max() ?? 0, "ms", "new vector tile decode, slowest")
        }
        // A pan into new tiles as the kiosk draws it: tiles decoded on the worker (the second
        // core), the ring around the view prefetched; a frame that went without a tile is followed
        // by a rebuilt base map once it arrives (as MapView does). Against: decoding on the frame's path.
        for worker in [true, false] {
            guard let set = MapRenderer.openTiles(path: path).vector else { break }
            set.decodesOnWorker = worker
            let missed = MissedFlag()
            set.onMissingTilesDecoded = { missed.set() }
            let r = MapRenderer(vector: set)
            var cam = CameraPosition(target: vaduz, zoom: 15.5)
            r.render(MapScene(camera: cam), into: frame.buffer)
            set.waitForPrefetch()
            r.invalidateCache()
            r.render(MapScene(camera: cam), into: frame.buffer)
            _ = missed.take()   // the start's own tiles, drawn now
            var times: [Double] = []
            var rebuilds = 0
            let start = WebMercator.worldPoint(vaduz, zoom: 15.5)
            for i in 1...(options.quick ? 60 : 240) {
                // 12 px a frame eastwards (720 px/s at 60 Hz): a z14 tile (724 px here) a second.
                cam.target = WebMercator.coordinate(world: start + Point(x: Double(i) * 12, y: 0), zoom: 15.5)
                let t0 = MonotonicClock.now()
                if missed.take() { r.invalidateCache(); rebuilds += 1 }
                r.render(MapScene(camera: cam), into: frame.buffer, quality: .interactive)
                times.append((MonotonicClock.now() - t0) * 1e3)
                if !worker { continue }
                usleep(4000)   // the rest of a 60 Hz frame, when the worker runs
            }
            set.waitForPrefetch()
            let sorted = times.sorted()
            let p99 = sorted[min(sorted.count - 1, Int(Double(sorted.count) * 0.99))]
            add(worker ? "street_pan_new_tiles_max_ms" : "street_pan_new_tiles_sync_max_ms", sorted.last ?? 0, "ms",
                worker ? "pan into new tiles, slowest frame (tiles decoded on the worker)" : "pan into new tiles, slowest frame (decoded on the frame's path)")
            if worker {
                add("street_pan_new_tiles_p99_ms", p99, "ms", "pan into new tiles, 99th percentile frame (worker)")
                add("street_pan_new_tiles_rebuilds", Double(rebuilds), "frames", "pan frames that redrew the base map for a late tile (of \(times.count))")
            }
        }
        add("street_cache_mib", Double(vector.cachedBytes) / 1_048_576, "MiB", "decoded vector tiles kept (bench bound 48 MiB; the kiosk sizes it from the screen)")
        add("street_rss_growth_mib", (BenchSupport.currentRSSMiB() ?? 0) - rssBefore, "MiB", "resident memory added by the street map")
        add("street_peak_rss_mib", BenchSupport.peakRSSMiB() ?? 0, "MiB", "peak RSS of this bench process so far")
        // After the peak above, so that key keeps meaning a 1080p street map (a 2160p frame is
        // 32 MiB, the cold copy's 16 buffers 127 MiB).
        streetPanRatio(panMS: BenchSupport.median(pans))
        streetFull(vector: vector, vaduz: vaduz, width: 3840, height: 2160)
        streetInteractive(vector: vector, vaduz: vaduz, width: 3840, height: 2160)
    }

    /// Where the street map's full frames look (`street_full_<H>p_ms`, and the flat frames
    /// drawn for a profiler): frame k's view 40 px further east than Vaduz for each k mod 7.
    static func streetFullTarget(_ vaduz: Coordinate, frame k: Int) -> Coordinate {
        WebMercator.coordinate(world: WebMercator.worldPoint(vaduz, zoom: 15.5) + Point(x: Double(k % 7) * 40, y: 0), zoom: 15.5)
    }

    /// Where the street map's pan frames look (`street_pan_1080p_ms`, and the pan frames drawn
    /// for a profiler): frame k's view `step` px (3 at 1080p) further east than Vaduz for each
    /// k mod 30.
    static func streetPanTarget(_ vaduz: Coordinate, frame k: Int, step: Double = 3) -> Coordinate {
        WebMercator.coordinate(world: WebMercator.worldPoint(vaduz, zoom: 15.5) + Point(x: Double(k % 30) * step, y: 0), zoom: 15.5)
    }

    /// `street_pan_1080p_cold_copy_ratio`: the pan frame over a cold frame copy (the renderer
    /// stage's when it ran, else one measured here).
    mutating func streetPanRatio(panMS: Double) {
        let cold = figures.first { $0.key == "frame_copy_cold_1080p_ms" }?.value
            ?? BenchSupport.median(BenchSupport.coldFrameCopyMS(width: 1920, height: 1080))
        add("street_pan_1080p_cold_copy_ratio", panMS / cold, "x", "street map pan frame / frame copy (not in cache)")
    }

    /// The street frames after the pan (the renderer's base-map cache is turned off here): full redraws, settled tilted frames, and tilted frames as a
    /// tilt gesture draws them (interactive quality, the tilt a little different every frame).
    /// Also the one-core probe's street figures (`bench --probe-frames`).
    mutating func streetFrames(renderer: MapRenderer, vaduz: Coordinate, frame: OwnedFrameBuffer, k: inout Int) {
        renderer.usesBaseMapCache = false
        var scene = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5))
        let full = BenchSupport.timeRuns(minRuns: 5, minSeconds: minSeconds) {
            k += 1
            scene.camera.target = Self.streetFullTarget(vaduz, frame: k)
            renderer.render(scene, into: frame.buffer)
        }
        add("street_full_1080p_ms", BenchSupport.median(full), "ms", "street map full redraw (layers + label placement)")
        var tilted = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5, bearing: 30, tilt: 50))
        let tilts = BenchSupport.timeRuns(minRuns: 5, minSeconds: minSeconds) {
            k += 1
            tilted.camera.tilt = 45 + Double(k % 10)
            renderer.render(tilted, into: frame.buffer)
        }
        add("street_tilted_1080p_ms", BenchSupport.median(tilts), "ms", "street map tilted frame (50 deg, bearing 30)")
        // A tilt gesture: two fingers moving up and down tilt the view by a fraction of a degree
        // a frame (0.4 here, 40 to 60 degrees and back); every frame a camera not seen before,
        // drawn as the kiosk draws a frame while fingers are down. With the cache on, as in the
        // kiosk (a tilted frame is drawn in full whatever the cache holds).
        renderer.usesBaseMapCache = true
        let builds = renderer.groundCacheBuilds
        let gestureTilts = tiltGestureFrames(renderer: renderer, vaduz: vaduz, frame: frame)
        add("street_interactive_tilted_1080p_ms", BenchSupport.median(gestureTilts), "ms",
            "street map frame during a tilt gesture (40-60 deg, bearing 30, interactive)")
        // The frames that drew the ground cache first (one every few degrees) are the slowest.
        add("street_interactive_tilted_1080p_p90_ms", BenchSupport.percentile(gestureTilts, 90), "ms", "  90th percentile")
        add("street_interactive_tilted_1080p_max_ms", gestureTilts.max() ?? 0, "ms", "  slowest of \(gestureTilts.count)")
        if ProcessInfo.processInfo.environment["TOUCHBRIDGE_BENCH_GESTURE_FRAMES"] != nil {
            progress("  tilt gesture frames (ms): " + gestureTilts.map { String(format: "%.1f", $0) }.joined(separator: " "))
        }
        add("street_tilt_gesture_1080p_cache_builds_per_100", 100 * Double(renderer.groundCacheBuilds - builds) / Double(max(1, gestureTilts.count)),
            "frames", "  frames of 100 that drew the ground cache first")
        renderer.usesBaseMapCache = false
    }

    /// The bench's tilt gesture over Vaduz (bearing 30) drawn as the kiosk draws a frame while
    /// fingers are down: the frames' times (ms). No warm-up: the gesture's first frame (it
    /// draws the ground cache) is one of its frames.
    func tiltGestureFrames(renderer: MapRenderer, vaduz: Coordinate, frame: OwnedFrameBuffer) -> [Double] {
        var gesture = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5, bearing: 30, tilt: 50))
        var step = 0
        return BenchSupport.timeRuns(warmup: 0, minRuns: 5, minSeconds: minSeconds) {
            step += 1
            gesture.camera.tilt = Self.tiltGestureTilt(step: step)
            renderer.render(gesture, into: frame.buffer, quality: .interactive)
        }
    }

    /// The bench's tilt gesture: 0.4 degrees a frame from 40 to 60 and back (frame `step`).
    static func tiltGestureTilt(step: Int) -> Double {
        let phase = step % 100
        return 40 + 0.4 * Double(phase < 50 ? phase : 100 - phase)
    }

    /// `street_full_<H>p_ms`: full redraws of the street map over Vaduz as at 1080p, on a screen
    /// of `width` x `height` (a renderer and frame of its own, dropped after).
    /// `frames`: exactly that many, without a warm-up (for a profiler).
    mutating func streetFull(vector: VectorTileSet, vaduz: Coordinate, width: Int, height: Int, frames: Int? = nil) {
        let renderer = MapRenderer(vector: vector)
        renderer.usesBaseMapCache = false
        let frame = OwnedFrameBuffer(width: width, height: height)
        var scene = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5))
        var k = 0
        let full = fullRedraws(frames: frames) {
            k += 1
            scene.camera.target = Self.streetFullTarget(vaduz, frame: k)
            renderer.render(scene, into: frame.buffer)
        }
        add("street_full_\(height)p_ms", BenchSupport.median(full), "ms", "street map full redraw at \(width)x\(height)")
    }

    /// The street map's interactive frames on a screen of `width` x `height` (a renderer and
    /// frame of its own, the base-map cache on, as in the kiosk): `street_pan_<H>p_ms`, a
    /// finger's pan (3 px a frame at 1080p, scaled to the screen: the same hand), and
    /// `street_interactive_tilted_<H>p_ms` with its 90th percentile, the tilt gesture of the
    /// 1080p key (its first frame, which draws the ground cache, one of them). Issue 28 asks
    /// for these at 2160p on one core ("interactive frames").
    mutating func streetInteractive(vector: VectorTileSet, vaduz: Coordinate, width: Int, height: Int) {
        let renderer = MapRenderer(vector: vector)
        renderer.usesBaseMapCache = true
        let frame = OwnedFrameBuffer(width: width, height: height)
        var scene = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5))
        renderer.render(scene, into: frame.buffer)
        var i = 0
        let pans = BenchSupport.timeRuns(minRuns: 20, minSeconds: minSeconds) {
            i += 1
            scene.camera.target = Self.streetPanTarget(vaduz, frame: i, step: 3 * Double(height) / 1080)
            renderer.render(scene, into: frame.buffer, quality: .interactive)
        }
        add("street_pan_\(height)p_ms", BenchSupport.median(pans), "ms", "street map pan frame at \(width)x\(height) (cached base map)")
        let tilts = tiltGestureFrames(renderer: renderer, vaduz: vaduz, frame: frame)
        add("street_interactive_tilted_\(height)p_ms", BenchSupport.median(tilts), "ms",
            "street map frame during a tilt gesture at \(width)x\(height) (40-60 deg, bearing 30, interactive)")
        add("street_interactive_tilted_\(height)p_p90_ms", BenchSupport.percentile(tilts, 90), "ms", "  90th percentile")
    }

    /// `street_pan_1080p_ms`: interactive frames 3 px apart back and forth, within the cached
    /// base map as a finger pan's frames are. Returns the times (ms).
    mutating func streetPans(renderer: MapRenderer, scene: inout MapScene, vaduz: Coordinate, frame: OwnedFrameBuffer, k: inout Int) -> [Double] {
        var s = scene, i = k
        let pans = BenchSupport.timeRuns(minRuns: 20, minSeconds: minSeconds) {
            i += 1
            s.camera.target = Self.streetPanTarget(vaduz, frame: i)
            renderer.render(s, into: frame.buffer, quality: .interactive)
        }
        scene = s; k = i
        add("street_pan_1080p_ms", BenchSupport.median(pans), "ms", "street map pan frame (cached base map)")
        return pans
    }

    /// The frames of the one-core figures (`bench --probe-frames`, run pinned by `--cores 1`):
    /// the built-in world's full redraw at 1080p and 2160p, and the street map's pan, full,
    /// tilted and tilt-gesture frames at 1080p and full frame at 2160p, as the main run takes them.
    mutating func frameFigures() {
        worldFull(width: 1920, height: 1080)
        worldFull(width: 3840, height: 2160)
        guard let path = options.streetTiles, let vector = MapRenderer.openTiles(path: path).vector else { return }
        let renderer = MapRenderer(vector: vector)
        let frame = OwnedFrameBuffer(width: 1920, height: 1080)
        let vaduz = Self.vaduz
        var scene = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5))
        renderer.render(scene, into: frame.buffer)
        var k = 0
        let pans = streetPans(renderer: renderer, scene: &scene, vaduz: vaduz, frame: frame, k: &k)
        streetFrames(renderer: renderer, vaduz: vaduz, frame: frame, k: &k)
        streetPanRatio(panMS: BenchSupport.median(pans))
        streetFull(vector: vector, vaduz: vaduz, width: 3840, height: 2160)
        streetInteractive(vector: vector, vaduz: vaduz, width: 3840, height: 2160)
    }
}

extension Benchmarks {
    /// TOUCHBRIDGE_BENCH_FRAMES=DIR (with TOUCHBRIDGE_BENCH_ONLY=street): the street bench's
    /// frames as PNG files, to compare two binaries: full frames, tilted frames at the timed
    /// tilts, zoom 17 (icons) and a pan frame from the cache.
    func writeStreetFrames(renderer: MapRenderer, vaduz: Coordinate, frame: OwnedFrameBuffer, into dir: String) {
        var cams: [(String, CameraPosition)] = []
        for k in [0, 3] {
            let t = WebMercator.coordinate(world: WebMercator.worldPoint(vaduz, zoom: 15.5) + Point(x: Double(k) * 40, y: 0), zoom: 15.5)
            cams.append(("full-\(k)", CameraPosition(target: t, zoom: 15.5)))
        }
        for tilt in [45.0, 50, 54] { cams.append(("tilted-\(Int(tilt))", CameraPosition(target: vaduz, zoom: 15.5, bearing: 30, tilt: tilt))) }
        cams.append(("turned-135", CameraPosition(target: vaduz, zoom: 16, bearing: 135)))
        cams.append(("zoom17", CameraPosition(target: vaduz, zoom: 17)))
        renderer.usesBaseMapCache = false
        for (name, c) in cams {
            renderer.render(MapScene(camera: c), into: frame.buffer)
            try? frame.buffer.writePNG(to: dir + "/" + name + ".png")
        }
        let cached = MapRenderer(vector: renderer.vector!)
        var s = MapScene(camera: CameraPosition(target: vaduz, zoom: 15.5))
        cached.render(s, into: frame.buffer)
        s.camera.target = WebMercator.coordinate(world: WebMercator.worldPoint(vaduz, zoom: 15.5) + Point(x: 37, y: 11), zoom: 15.5)
        cached.render(s, into: frame.buffer, quality: .interactive)
        try? frame.buffer.writePNG(to: dir + "/pan.png")
        progress("  street frames written to \(dir)")
    }
}

/// Set by the tile worker, read by the frame loop.
final class MissedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.lock(); flag = true; lock.unlock() }
    func take() -> Bool { lock.lock(); defer { flag = false; lock.unlock() }; return flag }
}
