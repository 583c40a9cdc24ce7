import CCairo
import Platform
import Foundation
import MapEngine
import TouchCore

/// Measures frame costs on this machine: a full redraw, a pan frame from the cached base map,
/// and a plain memcpy of one frame (the floor).
public enum RenderBenchmark {
    public static func run(renderer: MapRenderer, scene: MapScene, frame: FrameBuffer, frames: Int) -> String {
        func ms(_ f: () -> Void) -> [Double] {
            (0..<frames).map { _ in
                let t0 = MonotonicClock.now()
                f()
                return (MonotonicClock.now() - t0) * 1e3
            }
        }
        func stats(_ v: [Double]) -> String {
            let s = v.sorted()
            return String(format: "min %.2f median %.2f ms", s.first!, s[s.count / 2])
        }
        // Warm up: fonts, cache.
        renderer.render(scene, into: frame)
        renderer.render(scene, into: frame)
        let saved = renderer.usesBaseMapCache
        renderer.usesBaseMapCache = false
        let full = ms { renderer.render(scene, into: frame) }
        renderer.usesBaseMapCache = true
        renderer.render(scene, into: frame)
        var pan = scene
        var i = 0
        let panTimes = ms {
            i += 1
            // Pan by a few pixels per frame, within the cached area.
            let p = Projection(camera: scene.camera, screen: Size(width: Double(frame.width), height: Double(frame.height)))
            let off = Double((i % 40) * 3)
            if let c = p.coordinate(at: Point(x: Double(frame.width) / 2 + off, y: Double(frame.height) / 2 + off / 2)) {
                pan.camera.target = c
            }
            renderer.render(pan, into: frame)
        }
        var turn = scene
        turn.camera.tilt = 0
        turn.camera.bearing = 0
        var deg = 0.0
        renderer.render(turn, into: frame)   // a final north-up frame builds the cache
        let rotateTimes = ms {
            deg += 7
            turn.camera.bearing = CameraPosition.normalizedBearing(scene.camera.bearing + deg)
            renderer.render(turn, into: frame, quality: .interactive)
        }
        let interactiveFull = ms { renderer.render(scene, into: frame, quality: .interactive) }
        renderer.usesBaseMapCache = saved
        let bytes = frame.stride * frame.height
        let other = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        other.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        defer { other.deallocate() }
        let copy = ms { other.copyMemory(from: frame.pixels, byteCount: bytes) }
        return """
        \(frame.width)x\(frame.height), \(frames) frames, camera \(scene.camera)
          full redraw: \(stats(full))
          pan frame (cached base map when flat and north-up, else full): \(stats(panTimes))
          rotation frame (interactive: cached base map turned, fast filter): \(stats(rotateTimes))
          same camera as an interactive frame (\(renderer.lastFrameKind)): \(stats(interactiveFull))
          memcpy of one frame: \(stats(copy))
        \(split(renderer: renderer, scene: scene, frame: frame, frames: frames))
        """
    }

    /// Where a full redraw of a flat north-up frame goes: the base map's paths built (projection,
    /// culling, clipping, on the calling thread), the base map filled and stroked in bands
    /// (paths included), the names placed over the world at the zoom, the names drawn, the pins.
    static func split(renderer: MapRenderer, scene: MapScene, frame: FrameBuffer, frames: Int) -> String {
        var flat = scene
        flat.camera.tilt = 0
        flat.camera.bearing = 0
        let screen = Size(width: Double(frame.width), height: Double(frame.height))
        let projection = Projection(camera: flat.camera, screen: screen)
        let view = GroundView(projection: projection)
        let zoom = flat.camera.zoom
        func ms(_ f: () -> Void) -> String {
            let v = (0..<frames).map { _ in
                let t0 = MonotonicClock.now()
                f()
                return (MonotonicClock.now() - t0) * 1e3
            }.sorted()
            return String(format: "median %.2f ms", v[v.count / 2])
        }
        let painter = VectorMapPainter(world: renderer.world, style: renderer.style, antialias: true)
        let paths = ms { painter.paths(view: view, zoom: zoom).free() }
        let bands = ms {
            renderer.paintBaseInBands(into: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride,
                                      view: view, zoom: zoom, antialias: true)
        }
        // The base map's parts on one thread, from paths built once: land filled, rivers and
        // borders stroked (what the bands share out).
        let built = painter.paths(view: view, zoom: zoom)
        defer { built.free() }
        let scratch = cairo_image_surface_create_for_data(frame.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                          Int32(frame.width), Int32(frame.height), Int32(frame.stride))!
        let sc = cairo_create(scratch)!
        func part(_ keep: (inout VectorMapPainter.Paths) -> Void) -> String {
            var only = built
            keep(&only)
            return ms { painter.paint(cr: sc, paths: only, zoom: zoom) }
        }
        let land = part { $0.rivers = nil; $0.borders = nil }
        let rivers = part { $0.land = nil; $0.borders = nil }
        let borders = part { $0.land = nil; $0.rivers = nil }
        cairo_destroy(sc)
        cairo_surface_destroy(scratch)
        let text = renderer.textRenderer
        let place = ms { _ = WorldLabels(world: renderer.world, zoom: zoom, textScale: renderer.textScale, text: text) }
        let labels = WorldLabels(world: renderer.world, zoom: zoom, textScale: renderer.textScale, text: text)
        let surface = cairo_image_surface_create_for_data(frame.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                          Int32(frame.width), Int32(frame.height), Int32(frame.stride))!
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr); cairo_surface_destroy(surface) }
        let x = projection.centerWorld.x - screen.width / 2, y = projection.centerWorld.y - screen.height / 2
        let names = ms { labels.paint(cr: cr, x: x, y: y, w: screen.width, h: screen.height, style: renderer.style, text: text) }
        let count = labels.meeting(x: x, y: y, w: screen.width, h: screen.height, pad: labels.paintPad).count
        let icons = IconCache()
        let pins = ms { OverlayPainter(style: renderer.style).paintMarkers(cr: cr, scene: flat, view: view, icons: icons) }
        return """
          split of a full north-up redraw (\(renderer.bands) bands):
            base map paths built (one thread): \(paths)
            base map in bands (paths, fill, stroke): \(bands)
              one thread: land filled \(land), rivers stroked \(rivers), borders stroked \(borders)
              (\(built.riverSegments.count / 4) river segments, \(built.borderSegments.count / 4) border segments)
            names placed over the world at zoom \(zoom) (\(labels.labels.count) names): \(place)
            names drawn (\(count) reach the screen): \(names)
            pins drawn (\(flat.markers.count) markers): \(pins)
        """
    }
}
