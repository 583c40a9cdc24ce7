import ArgumentParser
import Display
import Foundation
import MapEngine
import Rendering
import VectorTiles
import TouchCore
import TouchBridge

/// `touchbridge render`: draws one frame of the map for a camera into a PNG file (or onto a
/// display), headless. For screenshots, the README and the display e2e test.
struct RenderCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Draw the map for a camera into a PNG file.")

    @Option(help: "Camera: LAT,LON,ZOOM[,BEARING,TILT] (degrees, zoom level).")
    var camera: String = "20,0,1.5"

    @Option(help: "Frame size WxH in pixels.")
    var size: String = "1280x800"

    @Option(help: "Output PNG file.")
    var out: String = "map.png"

    @Option(help: "MBTiles raster tile set drawn over the built-in world map (same as --tiles).")
    var mbtiles: String?

    @Option(help: "Tile set drawn over the built-in world map: MBTiles or PMTiles, raster (PNG, JPEG, WebP) or vector (OpenMapTiles schema), told apart by content.")
    var tiles: String?

    @Option(help: "MapLibre style JSON for vector tiles (default: the built-in street style).")
    var style: String?

    @Option(help: "Scale of the map's label text, 0.5...3 (e.g. 1.3 for a panel seen from afar).")
    var textScale: Double = 1

    @Option(help: "Street map label language, e.g. ja: name:ja, else name_int, name:latin, name (default: the local names).")
    var language: String?

    @Option(help: "Markers: LAT,LON[;LAT,LON...] (default pins).")
    var markers: String?

    @Option(help: "Info window over the first marker: TITLE[|SNIPPET].")
    var info: String?

    @Flag(help: "Show the Re-center button.")
    var recenter = false

    @Option(help: "Where the frame goes: png (the --out file), drm (a DRM/KMS card) or fbdev (a Linux framebuffer).")
    var display: String = "png"

    @Option(help: "Device for --display drm or fbdev (default /dev/dri/card0 or /dev/fb0).")
    var device: String?

    @Option(help: "DRM connector name, e.g. Virtual-1 or HDMI-A-1 (default: the first connected one).")
    var connector: String?

    @Option(help: "DRM mode WxH[@Hz] (default: the connector's preferred mode).")
    var mode: String?

    @Option(help: "Keep the frame on the display this many seconds; negative (--hold=-1): until SIGTERM or SIGINT.")
    var hold: Double = 0

    @Option(help: "Pan the map for this many frames on the display, paced to its refresh, then report.")
    var panFrames: Int = 0

    @Flag(help: "Draw as an interactive frame: the cached north-up base map of the whole zoom below is scaled and turned (fast, coarser).")
    var interactive = false

    @Option(help: "Render this many frames and print milliseconds per frame (full, pan, memcpy).")
    var bench: Int?

    func run() throws {
        requireWorldMap()
        let cam = try parseCamera(camera)
        let sz = try parseSize(size, option: "--size", frame: true)
        checkSeconds(hold, option: "--hold", range: -1e9...1e9)
        checkCount(panFrames, option: "--pan-frames", range: 0...1_000_000)
        checkCount(bench, option: "--bench", range: 1...1_000_000)
        let parts = [Int(sz.width), Int(sz.height)]
        var raster: RasterTileSource?
        var vector: VectorTileSet?
        if let path = tiles ?? mbtiles {
            let opened = MapRenderer.openTiles(path: path)
            raster = opened.raster
            vector = opened.vector
            for w in opened.warnings { FileHandle.standardError.write(Data((w + "\n").utf8)) }
        }
        var streetStyle: StreetStyle?
        if let style {
            do { streetStyle = try StreetStyle.load(path: style) } catch {
                throw ValidationError("\(error)")
            }
            for n in streetStyle?.notices ?? [] {
                FileHandle.standardError.write(Data(("warning: " + (streetStyle?.message(n) ?? "\(n)") + "\n").utf8))
            }
        }
        guard textScale.isFinite, (0.5...3).contains(textScale) else {
            throw ValidationError("--text-scale must be within 0.5...3 (1 = normal size), got \(textScale)")
        }
        let renderer = MapRenderer(raster: raster, vector: vector, streetStyle: streetStyle)
        for w in renderer.spriteWarnings { FileHandle.standardError.write(Data(("warning: " + w + "\n").utf8)) }
        renderer.textScale = textScale
        if let language {
            guard let code = LabelLanguage.normalized(language) else {
                throw ValidationError("--language must be a language code such as ja, ar or zh-Hant, got '\(language)'")
            }
            renderer.labelLanguage = code
        }
        // The compass as the kiosk shows it: only while the map is turned or tilted
        // (MapController.controls), not on a flat north-up map.
        var scene = MapScene(camera: cam, showsCompass: cam.bearing != 0 || cam.tilt != 0, showsRecenterButton: recenter)
        if let markers {
            for (i, m) in markers.split(separator: ";").enumerated() {
                let v = m.split(separator: ",").compactMap { Double($0.trimmingCharacters(in: .whitespaces)) }
                guard v.count == 2, (-90...90).contains(v[0]), (-180...180).contains(v[1]) else {
                    fail("--markers wants LAT,LON;LAT,LON with latitude -90...90 and longitude -180...180 (got \(m))", code: 2)
                }
                scene.markers.append(MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: v[0], longitude: v[1])))
            }
        }
        let infoParts = info.map { $0.split(separator: "|", maxSplits: 1, omittingEmptySubsequences: false).map(String.init) }
        if let info, infoParts?.first?.isEmpty != false { fail("--info needs TITLE[|SNIPPET] with a title; got '\(info)'", code: 2) }
        if let t = infoParts, let title = t.first, let first = scene.markers.first {
            scene.infoWindow = InfoWindowScene(title: title, snippet: t.count > 1 ? t[1] : nil, coordinate: first.coordinate)
        }
        if display != "png" {
            try showOnDisplay(renderer: renderer, scene: scene)
            return
        }
        let frame = OwnedFrameBuffer(width: parts[0], height: parts[1])
        if let n = bench {
            print(RenderBenchmark.run(renderer: renderer, scene: scene, frame: frame.buffer, frames: max(n, 1)))
        }
        if interactive {
            var northUp = scene
            northUp.camera.bearing = 0
            northUp.camera.tilt = 0
            northUp.camera.zoom = scene.camera.zoom.rounded(.down)   // as if pinched from the whole zoom below
            renderer.render(northUp, into: frame.buffer)
        }
        renderer.render(scene, into: frame.buffer, quality: interactive ? .interactive : .final)
        try frame.buffer.writePNG(to: out)
        if let raster { for w in raster.warnings { FileHandle.standardError.write(Data(("warning: " + w + "\n").utf8)) } }
        if let vector { for w in vector.warnings { FileHandle.standardError.write(Data(("warning: " + w + "\n").utf8)) } }
    }

    /// Draws the scene on a DRM or fbdev display, also writes it to --out when given, keeps it
    /// shown (optionally panning), and on SIGTERM/SIGINT or when done restores the display.
    private func showOnDisplay(renderer: MapRenderer, scene start: MapScene) throws {
        let request: DisplayRequest
        switch display {
        case "drm":
            request = .drm(card: device ?? "/dev/dri/card0", connector: connector, mode: try mode.flatMap { try ConfigStrings.mode($0) })
        case "fbdev":
            request = .fbdev(path: device ?? "/dev/fb0")
        default:
            throw ValidationError("--display must be png, drm or fbdev (got \(display))")
        }
        let backend = try DisplayFactory.open(request)
        defer { backend.close(); log("closed \(backend.name)") }
        // One event loop: SIGTERM/SIGINT through its signalfd, page flips through the DRM fd,
        // frame pacing and --hold through its timers. `wait` runs it until something stops it.
        let loop = try EventLoop()
        var signalled = false
        try loop.handleSignals([SIGTERM, SIGINT]) { _ in signalled = true; loop.stop() }
        if let fd = backend.eventFileDescriptor {
            try loop.add(fd: fd) { _ in
                try? backend.handleEvents()
                if !backend.isFlipPending { loop.stop() }
            }
        }
        func wait(until time: Double) throws {
            guard !signalled, time > now() else { return }
            let t = loop.schedule(at: time) { loop.stop() }
            defer { loop.cancel(t) }
            try loop.run()
        }
        /// Presents and waits (at most a second) for the flip, so the frame is on screen.
        func present() throws {
            try backend.present()
            let limit = now() + 1
            while backend.isFlipPending && !signalled && now() < limit { try wait(until: limit) }
        }
        log("showing on \(backend.name)")
        func frame() -> FrameBuffer {
            let f = backend.backBuffer()
            return FrameBuffer(width: f.width, height: f.height, stride: f.stride, pixels: f.pixels)
        }
        renderer.render(start, into: frame())
        try frame().writePNG(to: out)
        try present()
        log("frame on screen")
        var pacer = FramePacer(refreshHz: backend.refreshHz)
        pacer.didPresent(at: now())
        var scene = start
        var presented = 1
        let t0 = now()
        for i in 0..<panFrames where !signalled {
            try wait(until: pacer.nextPresentTime)
            let p = Projection(camera: scene.camera, screen: Size(width: Double(backend.width), height: Double(backend.height)))
            if let c = p.coordinate(at: Point(x: Double(backend.width) / 2 + 4, y: Double(backend.height) / 2 + (i % 2 == 0 ? 1 : -1))) {
                scene.camera.target = c
            }
            renderer.render(scene, into: frame())
            try present()
            pacer.didPresent(at: now())
            presented += 1
        }
        if panFrames > 0 {
            let s = now() - t0
            log(String(format: "presented %d frames in %.2f s (%.1f frames/s, refresh %.1f Hz)", presented, s, Double(presented - 1) / max(s, 1e-9), backend.refreshHz))
            // Back to the first frame, so what stays on screen is what --out holds.
            renderer.render(start, into: frame())
            try present()
        }
        if hold < 0 {
            if !signalled { try loop.run() }   // until a signal stops it
        } else {
            try wait(until: now() + hold)
        }
        if signalled { log("signal received, restoring the display") }
    }

    private func now() -> Double { MonotonicClock.now() }

    private func log(_ s: String) { FileHandle.standardError.write(Data((s + "\n").utf8)) }

}
