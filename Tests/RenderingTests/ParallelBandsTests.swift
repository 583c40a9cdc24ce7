import Foundation
import Testing
import MapEngine
import TouchCore
import Platform
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
