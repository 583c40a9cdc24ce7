import Foundation
import TouchBridge
import TouchCore
import Gestures
import MapEngine
import Rendering

extension Benchmarks {
    /// Markers scattered over and around a 1080p view of central Europe (a fixed sequence, the
    /// same every run).
    static func scatteredMarkers(_ n: Int) -> [Marker] {
        var x: UInt64 = 0x2545F4914F6CDD1D
        func next() -> Double { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return Double(x % 1_000_000) / 1_000_000 }
        return (0..<n).map { i in
            Marker(id: "m\(i)", position: Coordinate(latitude: 30 + 36 * next(), longitude: -40 + 100 * next()))
        }
    }

    /// `pan_frame_<n>_markers_ms` and `hit_test_<n>_markers_us`: a pan frame at 1080p with n
    /// markers (about half of them on screen), and one tap's marker hit test.
    mutating func markerScale() {
        let screen = Size(width: 1920, height: 1080)
        let frame = OwnedFrameBuffer(width: 1920, height: 1080)
        let camera = CameraPosition(target: Coordinate(latitude: 48.5, longitude: 9.0), zoom: 5)
        for n in [1_000, 10_000] {
            let pipeline = MapPipeline(screen: screen, camera: camera, recognizer: GestureRecognizer(screen: screen),
                                       mapConfiguration: MapConfiguration())
            for m in Self.scatteredMarkers(n) { pipeline.controller.add(m) }
            let renderer = MapRenderer()
            renderer.render(pipeline.scene(attribution: nil), into: frame.buffer)
            let proj = Projection(camera: camera, screen: screen)
            var i = 0
            // Frames with 10,000 pins take a second under load: the quick run takes two.
            let pans = BenchSupport.timeRuns(warmup: options.quick ? 1 : 3, minRuns: options.quick ? 2 : 10,
                                             minSeconds: options.quick ? 0 : minSeconds) {
                i += 1
                let off = Double(i % 60) * 2
                var scene = pipeline.scene(attribution: nil)
                if let c = proj.coordinate(at: Point(x: screen.width / 2 + off, y: screen.height / 2 + off / 3)) { scene.camera.target = c }
                renderer.render(scene, into: frame.buffer, quality: .interactive)
            }
            add("pan_frame_\(n)_markers_ms", BenchSupport.median(pans), "ms", "pan frame with \(n) markers (scene + render, 1080p)")
            // What a pan pays every `OverlayLayer.margin` px, and the settled frame: the layer
            // (names, pins) drawn again around the view.
            let builds = BenchSupport.timeRuns(warmup: 1, minRuns: options.quick ? 2 : 5, minSeconds: options.quick ? 0 : minSeconds / 2) {
                renderer.invalidateOverlayLayer()
                renderer.render(pipeline.scene(attribution: nil), into: frame.buffer, quality: .interactive)
            }
            add("overlay_build_\(n)_markers_ms", BenchSupport.median(builds), "ms", "overlay layer drawn again with \(n) markers (1080p)")
            var k = 0
            var hits = 0
            let taps = BenchSupport.timeRuns(warmup: 1, minRuns: 10, minSeconds: minSeconds / 4) {
                k += 1
                if pipeline.controller.marker(at: Point(x: Double(k * 37 % 1920), y: Double(k * 53 % 1080))) != nil { hits += 1 }
            }
            add("hit_test_\(n)_markers_us", BenchSupport.median(taps) * 1000, "us", "marker hit test of one tap, \(n) markers")
        }
    }
}
