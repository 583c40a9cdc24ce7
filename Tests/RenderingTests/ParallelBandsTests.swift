import Foundation
import Testing
import MapEngine
import TouchCore
import Platform
import CCairo
@testable import Rendering

/// The base map drawn in horizontal bands on several threads is the single-threaded frame,
/// byte for byte.
@Suite struct ParallelBandsTests {
    static func frame(_ scene: MapScene, bands: Int, cache: Bool, width: Int = 640, height: Int = 480,
                      quality: MapRenderer.Quality = .final) -> (OwnedFrameBuffer, MapRenderer.FrameKind) {
        let r = MapRenderer()
        r.bands = bands
        r.usesBaseMapCache = cache
        let f = OwnedFrameBuffer(width: width, height: height)
        r.render(scene, into: f.buffer, quality: quality)
        return (f, r.lastFrameKind)
    }

    static func differing(_ a: FrameBuffer, _ b: FrameBuffer) -> Int {
        var n = 0
        for y in 0..<a.height { for x in 0..<a.width where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { n += 1 } }
        return n
    }

    @Test(arguments: [(0.0, 0.0, 5.0), (30.0, 0.0, 5.0), (30.0, 60.0, 5.0), (0.0, 45.0, 3.0), (170.0, 70.0, 2.0)])
    func bandsDrawTheSingleThreadedFrame(bearing: Double, tilt: Double, zoom: Double) {
        let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 47, longitude: 8), zoom: zoom, bearing: bearing, tilt: tilt))
        let (one, kind) = Self.frame(scene, bands: 1, cache: false)
        #expect(kind == .full)
        for n in [2, 3, 4, 7] {
            let (banded, _) = Self.frame(scene, bands: n, cache: false)
            let d = Self.differing(one.buffer, banded.buffer)
            if d > 0 {
                let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-rendering-tests").path
                try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try? banded.buffer.writePNG(to: dir + "/bands-\(n)-b\(Int(bearing))-t\(Int(tilt)).png")
            }
            #expect(d == 0, "\(n) bands: \(d) pixels differ")
        }
        // Interactive (not antialiased) tilted frames too.
        if tilt > 0 {
            let (a, _) = Self.frame(scene, bands: 1, cache: false, quality: .interactive)
            let (b, _) = Self.frame(scene, bands: 4, cache: false, quality: .interactive)
            #expect(Self.differing(a.buffer, b.buffer) == 0)
        }
    }

    /// The world's names alone (no pins) are copied in bands cut by their pixels, the cut
    /// learning from the bands' times frame after frame: at a 4K-like aspect and a small one,
    /// north up (the names' copies) and turned (the place-name painter), every frame of a
    /// panning two-band renderer is the one-band renderer's frame.
    @Test func namesInBandsCutByTheirWorkDrawTheOneBandFrame() {
        for (w, h, bearing) in [(960, 540, 0.0), (640, 480, 0.0), (960, 540, 20.0)] {
            let two = MapRenderer(), one = MapRenderer()
            two.bands = 2; one.bands = 1
            two.usesBaseMapCache = false; one.usesBaseMapCache = false
            for round in 0..<8 {
                let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 50 - Double(round), longitude: 8 + Double(round)),
                                                            zoom: 4.5, bearing: bearing))
                let a = OwnedFrameBuffer(width: w, height: h), b = OwnedFrameBuffer(width: w, height: h)
                one.render(scene, into: a.buffer)
                two.render(scene, into: b.buffer)
                #expect(one.drawnPlaces.count >= 8, "\(w)x\(h) round \(round): names enough for the band path")
                #expect(Self.differing(a.buffer, b.buffer) == 0, "\(w)x\(h) bearing \(bearing) round \(round)")
            }
        }
    }

    /// Frame after frame the bands' cuts move with their times (`BandBalance`); every frame
    /// is still the one-thread frame (the overlay scene: world, shapes, names and pins).
    @Test func cutsLearntFromTimesDrawTheOneBandFrame() {
        var scene = ShapeBandCutsTests.scene()
        scene.markers = (0..<100).map { i in
            MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: 44 + Double(i % 10) * 0.6, longitude: 4 + Double(i / 10) * 1.2))
        }
        let one = MapRenderer(), two = MapRenderer()
        one.bands = 1; two.bands = 2
        one.usesBaseMapCache = false; two.usesBaseMapCache = false
        let a = OwnedFrameBuffer(width: 640, height: 480), b = OwnedFrameBuffer(width: 640, height: 480)
        for k in 0..<6 {
            scene.camera.target = Coordinate(latitude: 48 + 0.2 * Double(k), longitude: 9 - 0.3 * Double(k))
            one.render(scene, into: a.buffer)
            two.render(scene, into: b.buffer)
            #expect(Self.differing(a.buffer, b.buffer) == 0, "frame \(k)")
        }
    }

    @Test func theCachedBaseMapIsBuiltInBandsToo() {
        let scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 45, longitude: 5), zoom: 5))
        let (one, kind) = Self.frame(scene, bands: 1, cache: true)
        let (four, kind4) = Self.frame(scene, bands: 4, cache: true)
        #expect(kind == .cacheRebuilt && kind4 == .cacheRebuilt)
        #expect(Self.differing(one.buffer, four.buffer) == 0)
    }

    @Test func aTileSetKeepsTheBaseMapOnOneThread() throws {
        let world = MapRenderer()
        world.bands = 4
        #expect(world.paintsBaseInParallel)
        // The raster painter keeps a decoded-tile cache: one thread, whatever the band count.
        let raster = try #require(MapRenderer.openRaster(path: fixture("node-mbtiles_plain_1.mbtiles")).source)
        let tiles = MapRenderer(raster: raster)
        tiles.bands = 4
        #expect(!tiles.paintsBaseInParallel)
        let f = OwnedFrameBuffer(width: 320, height: 240)
        tiles.usesBaseMapCache = false
        tiles.render(MapScene(camera: CameraPosition(target: Coordinate(latitude: 20, longitude: 0), zoom: 1)), into: f.buffer)
        #expect(tiles.lastFrameKind == .full)
    }
}

/// One band per CPU the process may run on, from the affinity mask (issue 28): under `taskset -c 0`
/// or `bench --cores 1` a renderer draws on one thread, where Foundation's `activeProcessorCount`
/// (the machine's count) gave two bands.
@Suite struct BandCountTests {
    @Test func aRendererMadeOnAThreadPinnedToOneCPUDrawsOneBand() {
        final class Box: @unchecked Sendable { var bands: (Int, Int, Int?) = (0, 0, nil); let done = DispatchSemaphore(value: 0) }
        let box = Box()
        let t = Thread {
            let kept = CPUAffinity.pin(toFirst: 1)
            box.bands = (MapRenderer.defaultBands(), MapRenderer().bands, kept)
            box.done.signal()
        }
        t.start()
        box.done.wait()
        #expect(box.bands.2 == 1)
        #expect(box.bands.0 == 1)
        #expect(box.bands.1 == 1)
    }

    @Test func unpinnedTheBandsFollowTheMask() {
        #expect(MapRenderer.defaultBands() == max(1, min(CPUAffinity.usableCount(), 8)))
        #expect(MapRenderer().bands == MapRenderer.defaultBands())
    }
}

/// The built-in world's names as band copies (`WorldLabels.copies`: each city's dot, then its
/// haloed name from the name's sprite) are the names `WorldLabels.paint` draws through cairo,
/// byte for byte, whole or a band at a time; and a frame with names and markers drawn in bands
/// is the one-band frame.
@Suite struct WorldNameCopiesTests {
    @Test(arguments: [(47.0, 8.0, 5.0, 0.0), (40.0, -100.0, 4.0, 0.37), (35.0, 139.5, 6.5, 0.5)])
    func copiesDrawWhatCairoDraws(latitude: Double, longitude: Double, zoom: Double, fraction: Double) throws {
        let renderer = MapRenderer()
        let text = renderer.textRenderer
        let labels = WorldLabels(world: renderer.world, zoom: zoom, textScale: renderer.textScale, text: text)
        let width = 640, height = 480
        let centre = WebMercator.worldPoint(Coordinate(latitude: latitude, longitude: longitude), zoom: zoom)
        // A view whose corner is not on a whole world pixel: the dots keep their fractions.
        let x = (centre.x - Double(width) / 2).rounded() + fraction, y = (centre.y - Double(height) / 2).rounded() + fraction / 2
        func drawn(_ draw: (OpaquePointer) -> Void) -> OwnedFrameBuffer {
            let f = OwnedFrameBuffer(width: width, height: height)
            for py in 0..<height {
                for px in 0..<width { f.buffer.pixels.storeBytes(of: 0xFF44_6688 &+ UInt32(px % 7), toByteOffset: py * f.buffer.stride + 4 * px, as: UInt32.self) }
            }
            let s = cairo_image_surface_create_for_data(f.buffer.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                        Int32(width), Int32(height), Int32(f.buffer.stride))!
            let cr = cairo_create(s)!
            draw(cr)
            cairo_destroy(cr)
            cairo_surface_flush(s)
            cairo_surface_destroy(s)
            return f
        }
        let painted = drawn { labels.paint(cr: $0, x: x, y: y, w: Double(width), h: Double(height), style: renderer.style, text: text) }
        var copies: [LabelCopy] = []
        let whole = drawn { cr in
            copies = labels.copies(cr: cr, x: x, y: y, w: Double(width), h: Double(height), style: renderer.style, text: text) ?? []
            LabelCopy.copy(copies, cr: cr)
        }
        let dots = copies.filter { if case .dot = $0 { return true } else { return false } }.count
        #expect(dots > 0 && copies.count > dots, "\(copies.count) copies, \(dots) dots")
        #expect(ParallelBandsTests.differing(painted.buffer, whole.buffer) == 0)
        // Three bands, each clipped to its rows (a dot or a name across a cut is drawn in both).
        let banded = drawn { cr in
            for b in 0..<3 {
                cairo_save(cr)
                cairo_rectangle(cr, 0, Double(height * b / 3), Double(width), Double(height / 3))
                cairo_clip(cr)
                LabelCopy.copy(copies, cr: cr)
                cairo_restore(cr)
            }
        }
        #expect(ParallelBandsTests.differing(painted.buffer, banded.buffer) == 0)
        // The names changed the picture (the test is not comparing two empty frames).
        let bare = drawn { _ in }
        #expect(ParallelBandsTests.differing(bare.buffer, painted.buffer) > 500)
    }

    @Test func aFrameWithNamesAndMarkersInBandsIsTheOneBandFrame() {
        var scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 48, longitude: 10), zoom: 5))
        scene.markers = (0..<200).map { i in
            MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: 44 + Double(i % 20) * 0.5, longitude: 2 + Double(i / 20) * 1.7))
        }
        var places: [[String]] = []
        var frames: [OwnedFrameBuffer] = []
        for bands in [1, 2, 3] {
            let r = MapRenderer()
            r.bands = bands
            r.usesBaseMapCache = false
            let f = OwnedFrameBuffer(width: 800, height: 600)
            r.render(scene, into: f.buffer)
            #expect(r.lastFrameKind == .full)
            places.append(r.drawnPlaces.map(\.name))
            frames.append(f)
        }
        #expect(places[0].count > 5 && places[1] == places[0] && places[2] == places[0])
        #expect(ParallelBandsTests.differing(frames[0].buffer, frames[1].buffer) == 0)
        #expect(ParallelBandsTests.differing(frames[0].buffer, frames[2].buffer) == 0)
    }

    /// Names and markers are blitted in bands of equal estimated work (`markerWork`): pins
    /// crowded in the bottom quarter move the cut there, and frames drawn as the cuts learn
    /// from the bands' times are still the one-band frame.
    @Test func theNamesAndMarkersCutMovesToWhereThePinsCrowd() {
        let plan = (0..<300).map { i -> OverlayPainter.PlacedMarker in
            let y = 460 + Double(i % 100)
            return OverlayPainter.PlacedMarker(image: nil, x: Double(i), y: y, fallbackTip: nil, top: y, bottom: y + 40)
        }
        let cuts = BandWork.cuts(rowCosts: MapRenderer.markerWork([], plan, width: 800, height: 600), bands: 2)
        #expect(cuts[1] > 450 && cuts[1] < 600, "\(cuts)")
        var scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 48, longitude: 10), zoom: 5))
        scene.markers = (0..<200).map { i in
            MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: 41 + Double(i % 10) * 0.3, longitude: 2 + Double(i / 10) * 0.8))
        }
        let (one, _) = ParallelBandsTests.frame(scene, bands: 1, cache: false, width: 800, height: 600)
        let r = MapRenderer()
        r.bands = 2
        r.usesBaseMapCache = false
        for round in 0..<6 {
            let f = OwnedFrameBuffer(width: 800, height: 600)
            r.render(scene, into: f.buffer)
            #expect(ParallelBandsTests.differing(one.buffer, f.buffer) == 0, "round \(round)")
        }
    }
}

/// The overlays' shapes are drawn in bands of equal estimated work (`ShapePainter.bandWork`):
/// where they crowd, the cut moves there; and whatever the cut, the frame is the one-band frame.
@Suite struct ShapeBandCutsTests {
    /// 150 polygons in the view's bottom quarter, a line across the middle.
    static func scene() -> MapScene {
        var scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 48, longitude: 10), zoom: 5))
        let polygons = (0..<150).map { i -> OverlayShape in
            let c = Coordinate(latitude: 41.5 + Double(i % 5) * 0.6, longitude: 1 + Double(i / 5) * 0.6)
            let ring = (0..<8).map { k -> Coordinate in
                let a = Double(k) * .pi / 4
                return Coordinate(latitude: c.latitude + 0.3 * sin(a), longitude: c.longitude + 0.4 * cos(a))
            }
            return OverlayShape(geometry: .polygon([ring]), style: ShapeStyle(stroke: 0xE53935, strokeWidth: 1.5, fill: 0x1E88E5, fillOpacity: 0.35))
        }
        let line = OverlayShape(geometry: .polyline((0..<40).map { Coordinate(latitude: 48 + sin(Double($0) / 4), longitude: 1 + Double($0) * 0.5) }),
                                style: ShapeStyle(stroke: 0x43A047, strokeWidth: 4))
        scene.overlays = [Overlay(id: "zones", shapes: polygons + [line])]
        return scene
    }

    @Test func theCutMovesToWhereTheShapesCrowd() {
        let scene = Self.scene()
        let view = GroundView(projection: Projection(camera: scene.camera, screen: Size(width: 800, height: 600)))
        let shapes = scene.overlays[0].shapes.map { s -> PreparedShape in
            switch s.geometry {
            case .polygon(let rings): return PreparedShape(kind: .polygon, style: s.style, rings: rings, closed: true)
            case .polyline(let points): return PreparedShape(kind: .line, style: s.style, rings: [points], closed: false)
            default: Issue.record("unexpected geometry"); return PreparedShape(kind: .line, style: s.style, rings: [], closed: false)
            }
        }
        let painter = ShapePainter(view: view)
        let cuts = painter.bandWork(shapes, width: 800, height: 600)?.cuts(bands: 2, pixelCost: 0.01)
        // The polygons lie below row 450 (the line about row 300): the halves of equal work meet
        // in the polygons' rows.
        #expect(cuts?.count == 3 && cuts!.first == 0 && cuts!.last == 600)
        #expect((cuts?[1] ?? 0) > 450, "cuts \(cuts ?? [])")
        // Without the polygons, the line's rows alone.
        let lineOnly = painter.bandWork([shapes.last!], width: 800, height: 600)?.cuts(bands: 2, pixelCost: 0.01)
        #expect((250...350).contains(lineOnly?[1] ?? 0), "cuts \(lineOnly ?? [])")
        // A tilted view keeps equal rows (nil).
        let tilted = GroundView(projection: Projection(camera: CameraPosition(target: scene.camera.target, zoom: 5, tilt: 50),
                                                       screen: Size(width: 800, height: 600)))
        #expect(ShapePainter(view: tilted).bandWork(shapes, width: 800, height: 600) == nil)
    }

    @Test func shapesInBandsAreTheOneBandFrame() {
        var scene = Self.scene()
        let frames = [1, 2, 3].map { ParallelBandsTests.frame(scene, bands: $0, cache: false, width: 800, height: 600).0 }
        #expect(ParallelBandsTests.differing(frames[0].buffer, frames[1].buffer) == 0)
        #expect(ParallelBandsTests.differing(frames[0].buffer, frames[2].buffer) == 0)
        scene.overlays = []
        let bare = ParallelBandsTests.frame(scene, bands: 2, cache: false, width: 800, height: 600).0
        #expect(ParallelBandsTests.differing(bare.buffer, frames[0].buffer) > 5_000, "the shapes are drawn")
    }
}

/// `RowChunks`, which shares the copy of the cached base map into a frame between the pool's
/// thread and the drawing thread (`MapRenderer.present`): every row is given out once, to one
/// thread, however the threads come and go.
@Suite struct RowChunksTests {
    @Test func oneThreadGetsTheRowsInOrderThenNothing() {
        let chunks = RowChunks(rows: 150, step: 64)
        #expect(chunks.take() == 0..<64)
        #expect(chunks.take() == 64..<128)
        #expect(chunks.take() == 128..<150)
        #expect(chunks.take() == nil)
        #expect(chunks.take() == nil)
    }

    @Test func noRowsOrNoStepGiveNothingOrARowAtATime() {
        #expect(RowChunks(rows: 0, step: 64).take() == nil)
        #expect(RowChunks(rows: -5, step: 64).take() == nil)
        let single = RowChunks(rows: 2, step: 0)
        #expect(single.take() == 0..<1)
        #expect(single.take() == 1..<2)
        #expect(single.take() == nil)
    }

    @Test(arguments: [(1080, 64), (2160, 64), (1081, 7), (31, 64)])
    func threadsTakingAtOnceGetEachRowOnce(rows: Int, step: Int) {
        for _ in 0..<20 {
            let chunks = RowChunks(rows: rows, step: step)
            let taken = ParallelSlots<[Range<Int>]>(count: 4, initial: [])
            DispatchQueue.concurrentPerform(iterations: 4) { i in
                var mine: [Range<Int>] = []
                while let r = chunks.take() { mine.append(r) }
                taken[i] = mine
            }
            var covered = [Int](repeating: 0, count: rows)
            for r in taken.values.joined() { for y in r { covered[y] += 1 } }
            #expect(covered.allSatisfy { $0 == 1 }, "\(rows) rows by \(step): a row taken \(covered.max() ?? 0) times, or never")
            #expect(taken.values.joined().allSatisfy { $0.count == step || $0.upperBound == rows })
        }
    }
}
