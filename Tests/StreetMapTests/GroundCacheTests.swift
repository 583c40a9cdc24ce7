import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering

/// Interactive frames over a tilted map take their ground from the ground cache through the
/// homography between the cameras (`GroundCache`): the map a finger tilts, turns or pans stays
/// where a full frame puts it, the cache is drawn once every few degrees, and any other frame
/// lets it go.
@Suite struct GroundCacheTests {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)

    static func streetRenderer(bands: Int = 2) -> MapRenderer {
        let r = MapRenderer(vector: MapRenderer.openTiles(path: mbtilesPath).vector)
        r.bands = bands
        return r
    }

    static func save(_ f: FrameBuffer, _ name: String) {
        if let dir = ProcessInfo.processInfo.environment["TB_TEST_OUT"] { try? f.writePNG(to: dir + "/" + name + ".png") }
    }

    static func camera(tilt: Double, bearing: Double = 30, zoom: Double = 15.5, east: Double = 0) -> CameraPosition {
        let target = WebMercator.coordinate(world: WebMercator.worldPoint(vaduz, zoom: zoom) + Point(x: east, y: 0), zoom: zoom)
        return CameraPosition(target: target, zoom: zoom, bearing: bearing, tilt: tilt)
    }

    // MARK: the map

    /// The homography is the projections' composition: frame pixel -> ground -> world -> the
    /// cache's screen, for cameras that differ in tilt, bearing, zoom and target.
    @Test(arguments: [(44.0, 30.0, 15.5, 0.0), (52.0, 37.0, 15.5, 0.0), (50.0, 30.0, 15.7, 0.0), (48.0, 25.0, 15.4, 90.0), (20.0, 0.0, 15.5, -60.0)])
    func theMapIsTheProjectionsComposition(tilt: Double, bearing: Double, zoom: Double, east: Double) throws {
        let screen = Size(width: 1920, height: 1080)
        let cache = Projection(camera: Self.camera(tilt: 48), screen: Size(width: 1920 + 270, height: 1080 + 270), cameraDistance: 1620)
        let frame = Projection(camera: Self.camera(tilt: tilt, bearing: bearing, zoom: zoom, east: east), screen: screen)
        let h = Homography.between(frame: frame, cache: cache)
        let s = pow(2, cache.camera.zoom - frame.camera.zoom)
        for y in stride(from: 0.0, through: 1080, by: 135) { for x in stride(from: 0.0, through: 1920, by: 240) {
            let world = try #require(frame.worldPoint(screen: Point(x: x, y: y)))
            let want = try #require(cache.screenPoint(world: world * s))
            let got = try #require(h.apply(x, y))
            #expect(abs(got.0 - want.x) < 1e-6 && abs(got.1 - want.y) < 1e-6, "(\(x), \(y)): \(got) against \(want)")
        } }
    }

    /// The warp steps linearly between exact points as far apart as the map allows
    /// (`GroundCache.spanLength`): at 1080p, for the cameras a gesture gives, no sample lies
    /// a fiftieth of a pixel from the exact map; a change of tilt alone (rows mapped affinely)
    /// is one span a row, a turn needs shorter ones.
    @Test func spansStepWithinAFiftiethOfAPixel() {
        let cache = Projection(camera: Self.camera(tilt: 50), screen: Size(width: 2190, height: 1350), cameraDistance: 1620)
        for c in [Self.camera(tilt: 54), Self.camera(tilt: 46, bearing: 36), Self.camera(tilt: 50, zoom: 15.7, east: 80)] {
            let p = Projection(camera: c, screen: Size(width: 1920, height: 1080))
            let h = Homography.between(frame: p, cache: cache)
            let e = Self.spanError(h, width: 1920, rows: 0..<1080)
            #expect(e < 0.02, "\(c): \(e) px")
            let spans = (0..<1080).map { GroundCache.spanLength(h, row: Double($0) + 0.5, width: 1920) }
            if c.bearing == 30 {
                #expect(spans.allSatisfy { $0 == 1920 }, "\(c): a row is one span")
            } else {
                #expect(spans.allSatisfy { $0 >= 32 } && spans.contains { $0 < 1920 }, "\(c): \(spans.min()!)...\(spans.max()!)")
            }
        }
    }

    /// The warp itself (its fixed-point steps, its four-pixel stores and the pixels left over):
    /// every pixel is the cache pixel under the exact map, or its neighbour where the exact map
    /// lies within the tolerance of a pixel's edge. A cache whose pixels are their own index.
    @Test(arguments: [Homography(m: [0.93, 0.02, 40, 0.01, 1.1, 30, 0.0002, 0.0005, 1]),
                      Homography(m: [1.05, 0, 20.3, 0, 0.8, 10.7, 0, 0.0009, 1]),
                      Homography(m: [0.7, -0.4, 200, 0.4, 0.7, 15, -0.0004, 0.0002, 1.1])])
    func theWarpTakesThePixelUnderTheExactMap(h: Homography) throws {
        let sw = 600, sh = 500
        let src = OwnedFrameBuffer(width: sw, height: sh)
        for y in 0..<sh { for x in 0..<sw { (src.buffer.pixels + y * src.buffer.stride + 4 * x).storeBytes(of: UInt32(y * sw + x), as: UInt32.self) } }
        let w = 437, rows = 0..<301
        let dst = OwnedFrameBuffer(width: w, height: rows.count)
        GroundCache.warp(h, from: UnsafeRawPointer(src.buffer.pixels), srcStride: src.buffer.stride, srcWidth: sw, srcHeight: sh,
                         into: dst.buffer.pixels, stride: dst.buffer.stride, width: w, rows: rows)
        let t = 0.02
        var wrong = 0
        for y in rows { for x in 0..<w {
            let (u, v) = try #require(h.apply(Double(x) + 0.5, Double(y) + 0.5))
            let p = Int(dst.buffer.pixel(x: x, y: y))
            let (px, py) = (p % sw, p / sw)
            let okU = (Int(floor(max(0, u - t)))...Int(floor(min(Double(sw) - 1e-9, u + t)))).contains(px)
            let okV = (Int(floor(max(0, v - t)))...Int(floor(min(Double(sh) - 1e-9, v + t)))).contains(py)
            if !(okU && okV) { wrong += 1; if wrong < 4 { Issue.record("(\(x), \(y)): took (\(px), \(py)), the map gives (\(u), \(v))") } }
        } }
        #expect(wrong == 0)
    }

    /// Reads are clamped into the cache whatever the map: a map that points outside it gives
    /// the nearest edge's pixels, never a read out of bounds.
    @Test func aMapPointingOutsideTheCacheReadsItsEdges() {
        let src = OwnedFrameBuffer(width: 8, height: 4)
        for y in 0..<4 { for x in 0..<8 { (src.buffer.pixels + y * src.buffer.stride + 4 * x).storeBytes(of: UInt32(y * 8 + x), as: UInt32.self) } }
        let dst = OwnedFrameBuffer(width: 50, height: 6)
        // x -> x * 3 - 40, y -> y + 100: left of the cache, then across it, then right; all below it.
        let h = Homography(m: [3, 0, -40, 0, 1, 100, 0, 0, 1])
        GroundCache.warp(h, from: UnsafeRawPointer(src.buffer.pixels), srcStride: src.buffer.stride, srcWidth: 8, srcHeight: 4,
                         into: dst.buffer.pixels, stride: dst.buffer.stride, width: 50, rows: 0..<6)
        for y in 0..<6 {
            #expect(dst.buffer.pixel(x: 0, y: y) == 24, "bottom left")
            #expect(dst.buffer.pixel(x: 49, y: y) == 31, "bottom right")
            for x in 0..<50 { #expect((24...31).contains(dst.buffer.pixel(x: x, y: y)), "(\(x), \(y)): the cache's bottom row") }
        }
    }

    // MARK: the frames

    /// A tilt gesture from 40 to 60 degrees, 0.4 a frame as the bench's: every frame takes its
    /// ground from the cache, the cache is drawn again only every few degrees, and the final
    /// frame after the gesture is drawn in full and lets the cache go.
    @Test func aTiltGestureDrawsTheCacheOnceEveryFewDegrees() {
        let r = Self.streetRenderer()
        let f = OwnedFrameBuffer(width: 960, height: 540)
        r.render(MapScene(camera: Self.camera(tilt: 40)), into: f.buffer)
        #expect(r.lastFrameKind == .full && r.groundCacheBuilds == 0)
        var builds: [Int] = []
        for i in 1...50 {
            r.render(MapScene(camera: Self.camera(tilt: 40 + 0.4 * Double(i))), into: f.buffer, quality: .interactive)
            #expect(r.lastFrameKind == .reprojected)
            builds.append(r.groundCacheBuilds)
        }
        #expect(builds.first == 1, "the gesture's first frame draws the cache")
        #expect(builds.last! >= 3 && builds.last! <= 8, "20 degrees, about 4.5 each way a cache: \(builds)")
        // Consecutive builds at least 8 frames (3.2 degrees) apart.
        let buildFrames = builds.indices.filter { $0 == 0 || builds[$0] != builds[$0 - 1] }
        #expect(zip(buildFrames, buildFrames.dropFirst()).allSatisfy { $1 - $0 >= 8 }, "\(buildFrames)")
        r.render(MapScene(camera: Self.camera(tilt: 60)), into: f.buffer)
        #expect(r.lastFrameKind == .full && r.groundCache == nil)
    }

    /// Pixels whose largest channel differs by more than `levels`, outside every label either
    /// renderer drew (their boxes and 4 px round them): the ground alone. An interactive frame
    /// keeps the labels where the last frame placed them, a final one places them afresh.
    static func groundDiffering(_ a: FrameBuffer, _ b: FrameBuffer, labels: [PlacedStreetLabel], by levels: Int) -> Int {
        var masked = [Bool](repeating: false, count: a.width * a.height)
        for l in labels { for f in l.boxes + [l.frame] {
            let x0 = max(0, Int(f.x) - 4), x1 = min(a.width, Int(f.x + f.width) + 5)
            let y0 = max(0, Int(f.y) - 4), y1 = min(a.height, Int(f.y + f.height) + 5)
            guard x0 < x1, y0 < y1 else { continue }
            for y in y0..<y1 { for x in x0..<x1 { masked[y * a.width + x] = true } }
        } }
        var n = 0
        for y in 0..<a.height { for x in 0..<a.width where !masked[y * a.width + x] {
            let p = a.pixel(x: x, y: y), q = b.pixel(x: x, y: y)
            var d = 0
            for s in [0, 8, 16] { d = max(d, abs(Int((p >> UInt32(s)) & 0xff) - Int((q >> UInt32(s)) & 0xff))) }
            if d > levels { n += 1 }
        } }
        return n
    }

    /// The next cache is drafted before the frames leave the old one and drawn a slice a
    /// frame: the frames keep warping the old one meanwhile, and the drafted cache is the one
    /// drawn whole for its camera, byte for byte (any split of the rows draws the same bytes).
    @Test func theNextCacheIsDraftedASliceAFrame() throws {
        let r = Self.streetRenderer()
        let f = OwnedFrameBuffer(width: 640, height: 360)
        r.render(MapScene(camera: Self.camera(tilt: 45)), into: f.buffer, quality: .interactive)
        #expect(r.groundCacheBuilds == 1 && r.groundDraft == nil)
        var tilt = 45.0
        while r.groundDraft == nil && tilt < 52 {
            tilt += 0.4
            r.render(MapScene(camera: Self.camera(tilt: tilt)), into: f.buffer, quality: .interactive)
        }
        let draft = try #require(r.groundDraft, "a draft by 52 degrees")
        #expect(tilt > 45.5, "not before the frames have used some of the room: \(tilt)")
        let first = try #require(r.groundCache?.image)
        var frames = 0
        while r.groundDraft != nil {
            tilt += 0.4
            r.render(MapScene(camera: Self.camera(tilt: tilt)), into: f.buffer, quality: .interactive)
            #expect(r.lastFrameKind == .reprojected)
            frames += 1
        }
        #expect(frames == GroundCache.draftSlices, "a slice a frame")
        #expect(r.groundCacheBuilds == 2 && r.groundCache?.image === draft.cache.image && r.groundSpare === first)
        let whole = Self.streetRenderer().drawGroundCache(projection: Projection(camera: draft.cache.projection.camera, screen: Size(width: 640, height: 360)),
                                                          meanwhile: nil)
        let a = draft.cache.image, b = whole.image
        #expect(a.width == b.width && a.height == b.height)
        var differing = 0
        for y in 0..<a.height { for x in 0..<a.width where a.pixel(x: x, y: y) != b.pixel(x: x, y: y) { differing += 1 } }
        #expect(differing == 0)
    }

    /// A frame that leaves the old cache before the draft is done has the draft's other slices
    /// drawn at once, and is taken from the draft.
    @Test func aFrameThatLeavesTheOldCacheFinishesTheDraft() throws {
        let r = Self.streetRenderer()
        let f = OwnedFrameBuffer(width: 640, height: 360)
        r.render(MapScene(camera: Self.camera(tilt: 45)), into: f.buffer, quality: .interactive)
        var tilt = 45.0
        while r.groundDraft == nil && tilt < 52 {
            tilt += 0.4
            r.render(MapScene(camera: Self.camera(tilt: tilt)), into: f.buffer, quality: .interactive)
        }
        let draft = try #require(r.groundDraft)
        let old = try #require(r.groundCache)
        // A jump in one frame beyond the old cache, within the draft's.
        func fits(_ c: GroundCache, _ t: Double) -> Bool {
            c.mapping(for: Projection(camera: Self.camera(tilt: t), screen: Size(width: 640, height: 360)), fromRow: 0) != nil
        }
        let jump = try #require(stride(from: tilt + 0.2, to: tilt + 6, by: 0.2).first { !fits(old, $0) && fits(draft.cache, $0) })
        r.render(MapScene(camera: Self.camera(tilt: jump)), into: f.buffer, quality: .interactive)
        #expect(r.lastFrameKind == .reprojected && r.groundDraft == nil && r.groundCacheBuilds == 2)
        #expect(r.groundCache?.image === draft.cache.image && draft.done)
    }

    /// At the camera the cache was drawn for, the interactive frame's ground is the final
    /// frame's: the same pixels, but for dashes cut where the larger view clips their lines.
    /// A tilt, a turn, a pan and a pinch away, the ground is the full frame's of that camera
    /// but for edges moved by a fraction of a pixel (nearest-neighbour samples of antialiased
    /// edges): under 0.3 % of the pixels differ by more than a quarter of the range (0.1 to
    /// 0.15 % at 960x540 when this was written; 0.016 % at the cache's own camera).
    @Test func reprojectedFramesAreTheFullFramesOfTheirCameras() {
        let r = Self.streetRenderer()
        let f = OwnedFrameBuffer(width: 960, height: 540), g = OwnedFrameBuffer(width: 960, height: 540)
        r.render(MapScene(camera: Self.camera(tilt: 50)), into: f.buffer)
        var limits: [(CameraPosition, Double)] = [(Self.camera(tilt: 50), 0.0005)]
        for c in [Self.camera(tilt: 52), Self.camera(tilt: 48.5, bearing: 33), Self.camera(tilt: 50, east: 40), Self.camera(tilt: 50, zoom: 15.6)] {
            limits.append((c, 0.003))
        }
        for (i, (c, limit)) in limits.enumerated() {
            // A cache that served fewer than `minimumServed` frames is not redrawn but given up
            // (`aGestureTooFastForTheCacheIsDrawnInFull`): the cache's camera is held a while.
            if i == 0 { for _ in 0..<GroundCache.minimumServed { r.render(MapScene(camera: c), into: f.buffer, quality: .interactive) } }
            r.render(MapScene(camera: c), into: f.buffer, quality: .interactive)
            #expect(r.lastFrameKind == .reprojected && r.groundCacheBuilds == 1)
            let full = Self.streetRenderer()
            full.render(MapScene(camera: c), into: g.buffer)
            Self.save(f.buffer, "ground-cache-\(i)")
            Self.save(g.buffer, "ground-cache-\(i)-full")
            let far = Self.groundDiffering(f.buffer, g.buffer, labels: r.streetLabels + full.streetLabels, by: 64)
            #expect(Double(far) / Double(960 * 540) < limit, "\(c): \(far) pixels differ by more than 64 levels")
        }
    }

    /// A camera the cache does not cover (tilted 15 degrees further, turned 40, panned a
    /// screen away) draws it again, for that camera.
    @Test func aCameraTheCacheDoesNotCoverDrawsItAgain() {
        let r = Self.streetRenderer()
        let f = OwnedFrameBuffer(width: 640, height: 360)
        // Each camera held for `minimumServed` frames (a cache that served fewer is given up).
        func hold(_ c: CameraPosition) {
            for _ in 0..<GroundCache.minimumServed { r.render(MapScene(camera: c), into: f.buffer, quality: .interactive) }
        }
        hold(Self.camera(tilt: 45))
        #expect(r.groundCacheBuilds == 1)
        var expected = 1
        for c in [Self.camera(tilt: 60), Self.camera(tilt: 60, bearing: 70), Self.camera(tilt: 60, bearing: 70, east: 700),
                  Self.camera(tilt: 60, bearing: 70, zoom: 16, east: 1400)] {
            hold(c)
            expected += 1
            #expect(r.lastFrameKind == .reprojected && r.groundCacheBuilds == expected, "\(c)")
            #expect(r.groundCache?.projection.camera == c)
        }
        // A flat frame, interactive or not, lets the cache go.
        r.render(MapScene(camera: Self.camera(tilt: 0)), into: f.buffer, quality: .interactive)
        #expect(r.groundCache == nil)
    }

    /// The warp in bands on several threads is the one-thread warp, byte for byte, frame after
    /// frame (the parallel path run many times against the serial one).
    @Test func theWarpInBandsIsTheOneBandWarp() {
        let renderers = [1, 2, 3].map { Self.streetRenderer(bands: $0) }
        let frames = renderers.map { _ in OwnedFrameBuffer(width: 640, height: 360) }
        for (r, f) in zip(renderers, frames) { r.render(MapScene(camera: Self.camera(tilt: 50)), into: f.buffer, quality: .interactive) }
        for i in 0..<24 {
            let c = Self.camera(tilt: 50 + 0.15 * Double(i % 12), bearing: 30 + 0.2 * Double(i % 5), east: Double(i % 3))
            for (r, f) in zip(renderers, frames) {
                r.render(MapScene(camera: c), into: f.buffer, quality: .interactive)
                #expect(r.lastFrameKind == .reprojected)
            }
            #expect(StreetLinesTests.differing(frames[0].buffer, frames[1].buffer) == 0, "frame \(i), 2 bands")
            #expect(StreetLinesTests.differing(frames[0].buffer, frames[2].buffer) == 0, "frame \(i), 3 bands")
        }
        #expect(renderers.allSatisfy { $0.groundCacheBuilds == 1 })
    }

    /// A camera too fast for the cache (a pinch of a tilted map at 0.05 levels a frame: a cache
    /// every 2.5 frames) gives it up for the rest of the gesture: those frames are drawn in
    /// full, as before the cache; the final frame after the gesture lets the choice go.
    @Test func aGestureTooFastForTheCacheIsDrawnInFull() {
        let r = Self.streetRenderer()
        let f = OwnedFrameBuffer(width: 640, height: 360)
        var kinds: [MapRenderer.FrameKind] = []
        for i in 0..<12 {
            r.render(MapScene(camera: Self.camera(tilt: 50, zoom: 15 + 0.05 * Double(i))), into: f.buffer, quality: .interactive)
            kinds.append(r.lastFrameKind)
        }
        let firstFull = kinds.firstIndex(of: .full)
        #expect(firstFull != nil && firstFull! >= 1 && firstFull! <= GroundCache.minimumServed, "\(kinds)")
        #expect(kinds[firstFull!...].allSatisfy { $0 == .full }, "declined for the rest of the gesture: \(kinds)")
        #expect(r.groundCacheBuilds == 1 && r.groundCache == nil && r.groundDeclined)
        r.render(MapScene(camera: Self.camera(tilt: 50, zoom: 15.6)), into: f.buffer)
        #expect(!r.groundDeclined)
        // The next gesture, a slow tilt, takes its frames from the cache again.
        for i in 1...6 {
            r.render(MapScene(camera: Self.camera(tilt: 50 + 0.4 * Double(i), zoom: 15.6)), into: f.buffer, quality: .interactive)
            #expect(r.lastFrameKind == .reprojected)
        }
    }

    /// `usesGroundCache` off (or the base-map cache off): tilted interactive frames are drawn
    /// in full, as before.
    @Test func withoutTheGroundCacheTiltedFramesAreDrawnInFull() {
        let r = Self.streetRenderer()
        r.usesGroundCache = false
        let f = OwnedFrameBuffer(width: 320, height: 200)
        r.render(MapScene(camera: Self.camera(tilt: 50)), into: f.buffer, quality: .interactive)
        #expect(r.lastFrameKind == .full && r.groundCacheBuilds == 0)
    }
}

extension GroundCacheTests {
    /// The stretch is the Jacobian's: a map scaling x by 2 and y by 0.5 stretches by 0.5 and 2
    /// everywhere; a projective one as finite differences say.
    @Test func theStretchIsTheMapsJacobian() throws {
        let scale = try #require(Homography(m: [2, 0, 5, 0, 0.5, -3, 0, 0, 1]).stretch(10, 20))
        #expect(abs(scale.0 - 0.5) < 1e-12 && abs(scale.1 - 2) < 1e-12)
        let p = Projection(camera: Self.camera(tilt: 55), screen: Size(width: 800, height: 600))
        let c = Projection(camera: Self.camera(tilt: 45, bearing: 40), screen: Size(width: 900, height: 700), cameraDistance: 900)
        let h = Homography.between(frame: p, cache: c)
        for (x, y) in [(100.0, 100.0), (700, 500), (400, 300)] {
            let s = try #require(h.stretch(x, y))
            let o = try #require(h.apply(x, y)), dx = try #require(h.apply(x + 1e-4, y)), dy = try #require(h.apply(x, y + 1e-4))
            let j = [(dx.0 - o.0) / 1e-4, (dx.1 - o.1) / 1e-4, (dy.0 - o.0) / 1e-4, (dy.1 - o.1) / 1e-4]
            // The singular values' product is |det J|, the sum of their squares J's Frobenius norm.
            #expect(abs(s.0 * s.1 - abs(j[0] * j[3] - j[1] * j[2])) < 1e-3)
            #expect(abs(s.0 * s.0 + s.1 * s.1 - j.map { $0 * $0 }.reduce(0, +)) < 1e-3)
        }
    }
}

extension GroundCacheTests {
    /// The farthest a sample stepped linearly over the warp's spans of `rows`
    /// (`GroundCache.spanLength`) lies from the exact map, in cache pixels.
    static func spanError(_ h: Homography, width: Int, rows: Range<Int>) -> Double {
        var worst = 0.0
        for y in rows {
            let fy = Double(y) + 0.5
            let span = GroundCache.spanLength(h, row: fy, width: width)
            var x = 0
            while x < width {
                let n = min(span, width - x)
                guard let a = h.apply(Double(x) + 0.5, fy), let b = h.apply(Double(x + n) + 0.5, fy) else { x += n; continue }
                for i in 0..<n {
                    guard let e = h.apply(Double(x + i) + 0.5, fy) else { continue }
                    let t = Double(i) / Double(n)
                    worst = max(worst, abs(a.0 + t * (b.0 - a.0) - e.0), abs(a.1 + t * (b.1 - a.1) - e.1))
                }
                x += n
            }
        }
        return worst
    }
}
