import CCairo
import Foundation
import MapEngine
import TouchCore

/// The base map of a tilted view drawn once with a margin round the screen, so that the
/// interactive frames of a gesture over a tilted map (a tilt, a turn, a small pinch, a pan)
/// take their ground from it instead of drawing it again.
///
/// The ground is a plane, and a camera maps it to its screen by a projective map; so the way
/// from a frame's pixel to the ground and on to the cache's pixel is one 3x3 homography,
/// exact whatever changed between the two cameras (`GroundCache.mapping`). What is not exact:
/// lines keep the widths the cache's camera gave them (their perspective thinning), and pixels
/// are taken nearest-neighbour, as the flat cache's rotation frames are. The final frame after
/// the gesture draws the ground exactly.
struct GroundCache {
    let image: CairoImage
    /// The camera the cache was drawn for, on the frame's screen grown by `margin` on each side,
    /// with the eye at the frame's distance: the cache holds that frame's pixels at
    /// (margin, margin) and `margin` pixels more all round.
    let projection: Projection
    let margin: Int
    /// Cache row from which down the ground is drawn (above it: beyond the far line, no ground).
    let groundTop: Double

    /// A cache drawn for `view` (its ground from the far line down).
    init(image: CairoImage, projection: Projection, margin: Int, view: GroundView) {
        self.image = image; self.projection = projection; self.margin = margin
        groundTop = max(0, view.farLineY ?? 0)
    }

    /// Pixels the cache extends beyond each screen edge: an eighth of the screen's height (135 at
    /// 1080p) holds a tilt about 4.5 degrees either way, a turn of about 7 degrees, a pan of the
    /// margin, before the cache is drawn again.
    static func margin(width: Int, height: Int) -> Int { max(32, height / 8) }

    /// Zoom change (levels) a cache serves: beyond it the samples stretch or squeeze too far
    /// (2^0.25 = 1.19).
    static let maxZoomChange = 0.25

    /// The frame pixel -> cache pixel map for a frame of `p` (pixel centres at +0.5), or nil
    /// when `p`'s ground from row `top` down is not all inside the cache's drawn ground (or the
    /// zoom moved too far).
    /// `room`: the part of the margin (0...1) to keep unused, and of the stretch range: whether
    /// the cache still serves with room to spare (a new one is drafted before it runs out).
    func mapping(for p: Projection, fromRow top: Double, room: Double = 0) -> Homography? {
        guard abs(p.camera.zoom - projection.camera.zoom) <= GroundCache.maxZoomChange * (1 - room) else { return nil }
        let h = Homography.between(frame: p, cache: projection)
        let w = p.screen.width, bottom = p.screen.height
        let inset = room * Double(margin)
        let cacheW = Double(image.width) - inset, cacheH = Double(image.height) - inset
        let left = inset, groundTop = self.groundTop + inset
        let least = pow(GroundCache.stretchRange.lowerBound, 1 - room), most = pow(GroundCache.stretchRange.upperBound, 1 - room)
        // The map is projective: if every corner of the rectangle lands in front of the eye
        // (w > 0; w is affine over the rectangle, so it is positive inside too), the rectangle
        // lands on the convex quadrilateral of its corners, inside the cache's (convex) drawn
        // ground when the corners are.
        for (x, y) in [(0.0, top), (w, top), (0.0, bottom), (w, bottom)] {
            guard let (u, v) = h.apply(x, y), u >= left, u <= cacheW, v >= groundTop, v <= cacheH else { return nil }
        }
        // Covered is not enough: the far ground of a steep cache, brought near by a pan or a
        // lower tilt, would be its few pixels blown up. A frame pixel must span between 0.7 and
        // 1.43 cache pixels in every direction (checked at the corners and the centre; the
        // stretch of a homography changes monotonically along w, affine over the rectangle).
        for (x, y) in [(0.0, top), (w, top), (0.0, bottom), (w, bottom), (w / 2, (top + bottom) / 2)] {
            guard let (lo, hi) = h.stretch(x, y), lo >= least, hi <= most else { return nil }
        }
        return h
    }

    /// How far a frame pixel may span in cache pixels, in any direction, for the cache to serve.
    static let stretchRange = 0.7...1.43

    /// The room (`mapping`) below which the next cache is drafted, and in how many slices of
    /// rows of about equal work (one a frame): at 0.4 degrees of tilt a frame, half the room
    /// lasts about 5 frames.
    /// (Tried: 6 slices from 0.6 of the room, 8 from 0.7: a draft was then always under way,
    /// and the gesture's median frame doubled.)
    static let draftRoom = 0.5
    static let draftSlices = 4

    /// Frames a cache must serve before the next is drafted or drawn, or the gesture's frames
    /// are drawn in full: a pinch of a tilted map at 0.05 levels a frame needed a cache every
    /// 2.5 frames, and its frames were slower with the cache (90th percentile 31 to 34 ms,
    /// slowest 90 to 96) than drawn in full (26 to 28, 39 to 47).
    static let minimumServed = 4

    /// Fills `rows` of the frame with the cache's pixels through `h` (nearest neighbour).
    /// A row in spans (`spanLength`): the exact map at the span's ends, stepped linearly between
    /// in 32.32 fixed point (within `spanTolerance` of the exact map: `GroundCacheTests`). Every
    /// read is clamped into the cache. Written with streaming stores (`tb_gather_streaming`, or
    /// `tb_gather2_streaming` for a span that crosses cache rows: the frame is written, not
    /// read, and the labels drawn over it after touch little of it), fenced at the end.
    /// A row that reads one cache row (every row of a tilt gesture's frames: a change of tilt
    /// alone maps rows to rows, affinely) is one span. The others (a turned map's) cross cache
    /// rows, one every few pixels: drawn row by row, each frame row read a cache page per
    /// cache row it crossed, and a turn's frames spent most of their time waiting on the
    /// address translations. So they are drawn in blocks of `blockRows` rows by `block`
    /// columns, whose reads stay within a few pages.
    static func warp(_ h: Homography, from src: UnsafeRawPointer, srcStride: Int, srcWidth: Int, srcHeight: Int,
                     into dst: UnsafeMutableRawPointer, stride: Int, width: Int, rows: Range<Int>) {
        let srcWords = srcStride / 4
        let source = src.assumingMemoryBound(to: UInt32.self)
        let one = 4_294_967_296.0
        let maxU = Double(srcWidth) - 1.0 / 65536, maxV = Double(srcHeight) - 1.0 / 65536
        let m = h.m
        let (m0, m3, m6) = (m[0], m[3], m[6])
        /// Row y's homogeneous coordinates at x = 0 (their step in x is m0, m3, m6), and how
        /// long its spans may be.
        @inline(__always) func row(_ y: Int) -> (bu: Double, bv: Double, bw: Double, span: Int) {
            let fy = Double(y) + 0.5
            return (m[1] * fy + m[2], m[4] * fy + m[5], m[7] * fy + m[8], spanLength(h, row: fy, width: width))
        }
        /// The exact map at x of a row, clamped into the cache, in 32.32.
        @inline(__always) func fixed(_ x: Double, _ r: (bu: Double, bv: Double, bw: Double, span: Int)) -> (Int, Int) {
            let w = m6 * x + r.bw
            guard w > 1e-12 else { return (0, 0) }
            let u = (m0 * x + r.bu) / w, v = (m3 * x + r.bv) / w
            return (Int(min(max(u, 0), maxU) * one), Int(min(max(v, 0), maxV) * one))
        }
        /// Pixels x0..<x1 of row y in spans of `span` from x0.
        @inline(__always) func spans(_ y: Int, _ r: (bu: Double, bv: Double, bw: Double, span: Int), from x0: Int, to x1: Int, span: Int) {
            let out = (dst + y * stride).assumingMemoryBound(to: UInt32.self)
            var x = x0
            var (u0, v0) = fixed(Double(x) + 0.5, r)
            while x < x1 {
                let n = min(span, x1 - x)
                let (u1, v1) = fixed(Double(x + n) + 0.5, r)
                // Truncated steps keep every sample between the span's two clamped ends,
                // which bound every index.
                let du = (u1 - u0) / n, dv = (v1 - v0) / n
                if dv == 0 {
                    tb_gather_streaming(out + x, source + (v0 &>> 32) &* srcWords, u0, du, UInt(n))
                } else {
                    tb_gather2_streaming(out + x, source, srcWords, u0, v0, du, dv, UInt(n))
                }
                x += n
                u0 = u1; v0 = v1
            }
        }
        /// Whether row r reads one cache row, affinely: drawn whole.
        @inline(__always) func straight(_ r: (bu: Double, bv: Double, bw: Double, span: Int)) -> Bool {
            r.span >= width && fixed(0.5, r).1 == fixed(Double(width) + 0.5, r).1
        }
        // A group's rows that cross cache rows, with their parameters (worked out once a row).
        var slanted: [(y: Int, r: (bu: Double, bv: Double, bw: Double, span: Int))] = []
        slanted.reserveCapacity(blockRows)
        var g = rows.lowerBound
        while g < rows.upperBound {
            let g1 = min(g + blockRows, rows.upperBound)
            slanted.removeAll(keepingCapacity: true)
            for y in g..<g1 {
                let r = row(y)
                if straight(r) { spans(y, r, from: 0, to: width, span: width) } else { slanted.append((y, r)) }
            }
            for x0 in Swift.stride(from: 0, to: slanted.isEmpty ? 0 : width, by: block) {
                for (y, r) in slanted {
                    // The row's part of the next block asked for now, every 4 pixels (a
                    // turned row walks the cache diagonally, which the hardware's
                    // prefetcher does not follow): read after this block's other rows.
                    let next = x0 + block
                    if next < width {
                        let end = min(next + block, width), k = (end - next + 3) / 4
                        let (pu0, pv0) = fixed(Double(next) + 0.5, r), (pu1, pv1) = fixed(Double(end) + 0.5, r)
                        let su = (pu1 - pu0) / k, sv = (pv1 - pv0) / k
                        var pu = pu0, pv = pv0
                        for _ in 0...k {
                            let at: Int = (pv &>> 32) &* srcWords &+ (pu &>> 32)
                            tb_prefetch_read(source + at)
                            pu &+= su; pv &+= sv
                        }
                    }
                    // A power of two (at least 4) that divides the block: spans never
                    // straddle one, and a row's spans are the same whatever its band.
                    let s = 1 << (Int.bitWidth - 1 - min(r.span, block).leadingZeroBitCount)
                    spans(y, r, from: x0, to: min(x0 + block, width), span: s)
                }
            }
            g = g1
        }
        tb_store_fence()
    }

    /// A cache image, asked of the kernel in huge pages where it gives them (`madvise`, before
    /// the pixels are first written): a turned map's warp reads a cache row every few pixels,
    /// and in 4 KiB pages (a 4K cache's row is 17 KiB) nearly every one of those reads needed
    /// an address translation of its own.
    static func image(width: Int, height: Int) -> CairoImage {
        let image = CairoImage.rgb24(width: width, height: height)
        if let data = cairo_image_surface_get_data(image.surface) {
            let huge = 2 << 20
            let start = (Int(bitPattern: data) + huge - 1) & ~(huge - 1)
            let end = (Int(bitPattern: data) + Int(cairo_image_surface_get_stride(image.surface)) * height) & ~(huge - 1)
            if end > start { _ = madvise(UnsafeMutableRawPointer(bitPattern: start), end - start, MADV_HUGEPAGE) }
        }
        return image
    }

    /// The blocks of `warp`'s rows that cross cache rows: 16 rows by 64 columns.
    static let blockRows = 16
    static let block = 64

    /// How far (cache pixels) a sample of `warp` may lie from the exact map.
    static let spanTolerance = 1.0 / 64

    /// The longest span of row `fy` (a pixel centre's y) over which stepping linearly between
    /// the exact map's ends keeps within `spanTolerance` of it, from 4 pixels to the whole row.
    /// Along a row the map is u = (a x + b) / w with w = c x + d, whose chord over a span of
    /// length L lies within L^2 / 4 * |c| |a d - b c| / w^3 of it (w's least over the row, w
    /// affine in x); so with c = 0 (a row the map takes affinely) the whole row.
    static func spanLength(_ h: Homography, row fy: Double, width: Int) -> Int {
        let m = h.m
        let c = m[6], d = m[7] * fy + m[8]
        let least = min(d, c * Double(width) + d)
        guard least > 1e-12 else { return 32 }
        let bu = m[1] * fy + m[2], bv = m[4] * fy + m[5]
        let bend = abs(c) * max(abs(m[0] * d - bu * c), abs(m[3] * d - bv * c)) / (least * least * least)
        guard bend > 0 else { return max(width, 1) }
        let l = (4 * spanTolerance / bend).squareRoot()
        return l >= Double(width) ? max(width, 1) : max(4, Int(l))
    }
}

/// A plane-to-plane projective map: (x, y) -> ((m0 x + m1 y + m2) / w, (m3 x + m4 y + m5) / w)
/// with w = m6 x + m7 y + m8.
struct Homography: Equatable {
    var m: [Double]

    static func * (a: Homography, b: Homography) -> Homography {
        var r = [Double](repeating: 0, count: 9)
        for i in 0..<3 { for j in 0..<3 {
            r[3 * i + j] = a.m[3 * i] * b.m[j] + a.m[3 * i + 1] * b.m[3 + j] + a.m[3 * i + 2] * b.m[6 + j]
        } }
        return Homography(m: r)
    }

    /// The image of (x, y); nil when it lies behind the eye (w not positive).
    @inline(__always)
    func apply(_ x: Double, _ y: Double) -> (Double, Double)? {
        let w = m[6] * x + m[7] * y + m[8]
        guard w > 1e-12 else { return nil }
        return ((m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w)
    }

    /// The least and the most a small step at (x, y) is stretched by the map, in any direction
    /// (the singular values of its Jacobian); nil behind the eye.
    func stretch(_ x: Double, _ y: Double) -> (Double, Double)? {
        let w = m[6] * x + m[7] * y + m[8]
        guard w > 1e-12 else { return nil }
        let u = (m[0] * x + m[1] * y + m[2]) / w, v = (m[3] * x + m[4] * y + m[5]) / w
        let a = (m[0] - u * m[6]) / w, b = (m[1] - u * m[7]) / w
        let c = (m[3] - v * m[6]) / w, d = (m[4] - v * m[7]) / w
        let sum = a * a + b * b + c * c + d * d, det = a * d - b * c
        let root = (max(0, sum * sum - 4 * det * det)).squareRoot()
        return (max(0, (sum - root) / 2).squareRoot(), ((sum + root) / 2).squareRoot())
    }

    /// Screen point of `p` -> ground offset (world px at `p`'s zoom, turned by its bearing):
    /// `Projection.groundOffset(screen:)` as a matrix.
    static func screenToGround(_ p: Projection) -> Homography {
        let t = p.camera.tilt * .pi / 180, d = p.cameraDistance
        let cx = p.screen.width / 2, cy = p.screen.height / 2
        let a = Homography(m: [d * cos(t), 0, 0, 0, d, 0, 0, sin(t), d * cos(t)])
        return a * Homography(m: [1, 0, -cx, 0, 1, -cy, 0, 0, 1])
    }

    /// Ground offset of `p` -> its screen point: `Projection.screenPoint(ground:)` as a matrix.
    static func groundToScreen(_ p: Projection) -> Homography {
        let t = p.camera.tilt * .pi / 180, d = p.cameraDistance
        let cx = p.screen.width / 2, cy = p.screen.height / 2
        return Homography(m: [d, -cx * sin(t), cx * d, 0, d * cos(t) - cy * sin(t), cy * d, 0, -sin(t), d])
    }

    /// Frame pixel -> cache pixel: the frame's screen to its ground, turned to the world, scaled
    /// to the cache's zoom and moved to its target (the shorter way round the antimeridian),
    /// turned to the cache's ground, and onto the cache's screen.
    static func between(frame p: Projection, cache c: Projection) -> Homography {
        let b1 = p.camera.bearing * .pi / 180, bc = c.camera.bearing * .pi / 180
        let s = pow(2, c.camera.zoom - p.camera.zoom)
        var ox = p.centerWorld.x * s - c.centerWorld.x
        let oy = p.centerWorld.y * s - c.centerWorld.y
        if ox > c.worldSize / 2 { ox -= c.worldSize } else if ox < -c.worldSize / 2 { ox += c.worldSize }
        let toWorld = Homography(m: [cos(b1) * s, -sin(b1) * s, ox, sin(b1) * s, cos(b1) * s, oy, 0, 0, 1])
        let toCacheGround = Homography(m: [cos(bc), sin(bc), 0, -sin(bc), cos(bc), 0, 0, 0, 1])
        return groundToScreen(c) * toCacheGround * toWorld * screenToGround(p)
    }
}

extension MapRenderer {
    /// The base map of an interactive tilted frame from the ground cache, warped into the
    /// frame in bands; rows above the sky's opaque line get the sea (the sky covers them).
    /// The cache: when the frame still fits it but with less than `draftRoom` to spare, the
    /// next one is drafted for the frame's camera and drawn a slice a frame while the frames
    /// warp the old one (a cache drawn whole took 70 ms, four times a frame drawn in full);
    /// when the frame leaves the old one first, the draft's other slices are drawn at once; with
    /// no cache (a gesture's first frame) or none that fits, it is drawn whole.
    /// `meanwhile` runs on this thread while the pool draws or warps.
    /// False (nothing drawn, `meanwhile` not run) when the cache would be drawn again after
    /// serving fewer than `GroundCache.minimumServed` frames: the camera moves too fast for it
    /// (a quick pinch of a tilted map), and the gesture's frames are drawn in full instead.
    func reproject(view: GroundView, frame: FrameBuffer, meanwhile: (() -> Void)?) -> Bool {
        let p = view.projection
        // The sky is opaque down to its line: the ground is needed from there.
        let top = max(0, min(Double(frame.height), floor(view.skyLineY ?? 0)))
        if let c = groundCache, groundServed < GroundCache.minimumServed,
           c.mapping(for: p, fromRow: top, room: groundDraft == nil ? GroundCache.draftRoom : 0) == nil {
            dropGroundCache()
            groundDeclined = true
            return false
        }
        var work = meanwhile
        if let d = groundDraft {
            drawDraft(d, slices: 1, meanwhile: work)
            work = nil
            if d.done { adopt(d) }
        }
        var mapping = groundCache?.mapping(for: p, fromRow: top)
        if mapping == nil, let d = groundDraft {
            drawDraft(d, slices: d.slices.count, meanwhile: work)
            work = nil
            adopt(d)
            mapping = groundCache?.mapping(for: p, fromRow: top)
        }
        if mapping == nil {
            let c = drawGroundCache(projection: p, meanwhile: work)
            work = nil
            groundCache = c
            groundCacheBuilds += 1
            groundServed = 0
            mapping = c.mapping(for: p, fromRow: top)
        } else if groundDraft == nil, raster == nil, groundCache?.mapping(for: p, fromRow: top, room: GroundCache.draftRoom) == nil {
            // (Under raster tiles, whose painter keeps caches and stays on one thread, a
            // cache is drawn whole. With any number of bands the caches change at the same
            // frames, so the frames are the one-band frames.)
            groundDraft = draftGroundCache(projection: p)
        }
        guard let h = mapping, let cache = groundCache, let src = cairo_image_surface_get_data(cache.image.surface) else {
            // Cannot happen (the cache was drawn for this camera); draw the frame in full.
            paintBaseInBands(into: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride,
                             view: view, zoom: p.camera.zoom, antialias: false, meanwhile: work)
            return true
        }
        groundServed += 1
        let firstRow = Int(top)
        let sea = style.sea.pixel
        for y in 0..<firstRow {
            (frame.pixels + y * frame.stride).assumingMemoryBound(to: UInt32.self).update(repeating: sea, count: frame.width)
        }
        let source = UncheckedSendable(UnsafeRawPointer(src))
        let target = UncheckedSendable(frame.pixels)
        let srcStride = Int(cairo_image_surface_get_stride(cache.image.surface))
        let srcWidth = cache.image.width, srcHeight = cache.image.height
        let width = frame.width, height = frame.height, stride = frame.stride
        let n = max(1, min(bands, (height - firstRow) / 16))
        MapRenderer.overlapping({
            DispatchQueue.concurrentPerform(iterations: n) { i in
                let rows = (firstRow + (height - firstRow) * i / n)..<(firstRow + (height - firstRow) * (i + 1) / n)
                GroundCache.warp(h, from: source.value, srcStride: srcStride, srcWidth: srcWidth, srcHeight: srcHeight,
                                 into: target.value, stride: stride, width: width, rows: rows)
            }
        }, meanwhile: work)
        return true
    }

    /// The draft becomes the cache; the old cache's image is kept for the next draft.
    private func adopt(_ d: GroundCacheDraft) {
        groundSpare = groundCache?.image
        groundCache = d.cache
        groundDraft = nil
        groundCacheBuilds += 1
        // Counted from the frame whose camera it was drafted for, a slice a frame since.
        groundServed = d.slices.count - 1
    }

    /// Starts drawing the ground cache for a frame of `p` a slice at a time: the base map's
    /// plan made now, the slices cut where the street map's estimated work is equal.
    func draftGroundCache(projection p: Projection) -> GroundCacheDraft {
        let (image, cacheProjection, m) = groundCacheCanvas(projection: p, reusing: groundSpare)
        groundSpare = nil
        let view = GroundView(projection: cacheProjection)
        let plan = basePlan(view: view, zoom: p.camera.zoom, antialias: true)
        let w = image.width, h = image.height
        let costs = plan.street?.bandWork(width: w, height: h).rowCosts() ?? [Double](repeating: 1, count: h)
        let cache = GroundCache(image: image, projection: cacheProjection, margin: m, view: view)
        return GroundCacheDraft(cache: cache, plan: plan, rowCosts: costs,
                                slices: BandWork.cuts(rowCosts: costs, bands: GroundCache.draftSlices))
    }

    /// Draws the draft's next `slices` slices (the rows in bands of equal estimated work).
    func drawDraft(_ d: GroundCacheDraft, slices: Int, meanwhile: (() -> Void)?) {
        let last = min(d.next + slices, d.slices.count - 1)
        let y0 = d.slices[d.next], y1 = d.slices[last]
        d.next = last
        let image = d.cache.image
        guard y1 > y0, let data = cairo_image_surface_get_data(image.surface) else { meanwhile?(); return }
        let cuts = BandWork.cuts(rowCosts: Array(d.rowCosts[y0..<y1]), bands: bands).map { $0 + y0 }
        let plan = d.plan, base = UncheckedSendable(UnsafeMutableRawPointer(data))
        let width = image.width, height = image.height, stride = Int(cairo_image_surface_get_stride(image.surface))
        cairo_surface_flush(image.surface)
        MapRenderer.overlapping({
            _ = MapRenderer.draw(plan, over: base.value, width: width, height: height, stride: stride, cuts: cuts)
        }, meanwhile: meanwhile)
        cairo_surface_mark_dirty(image.surface)
    }

    /// The image (the spare's when it is the size), and the camera, of a ground cache for `p`.
    private func groundCacheCanvas(projection p: Projection, reusing spare: CairoImage?) -> (CairoImage, Projection, Int) {
        let width = Int(p.screen.width), height = Int(p.screen.height)
        let m = GroundCache.margin(width: width, height: height)
        let w = width + 2 * m, h = height + 2 * m
        let image = spare.flatMap { $0.width == w && $0.height == h ? $0 : nil } ?? GroundCache.image(width: w, height: h)
        let cacheProjection = Projection(camera: p.camera, screen: Size(width: Double(w), height: Double(h)), cameraDistance: p.cameraDistance)
        return (image, cacheProjection, m)
    }

    /// Draws the ground cache for a frame of `p`, whole: `p`'s camera on its screen grown by
    /// the margin each side, the eye at `p`'s distance.
    func drawGroundCache(projection p: Projection, meanwhile: (() -> Void)?) -> GroundCache {
        let (image, cacheProjection, m) = groundCacheCanvas(projection: p, reusing: groundCache?.image ?? groundSpare)
        let view = GroundView(projection: cacheProjection)
        cairo_surface_flush(image.surface)
        if let data = cairo_image_surface_get_data(image.surface) {
            paintBaseInBands(into: UnsafeMutableRawPointer(data), width: image.width, height: image.height,
                             stride: Int(cairo_image_surface_get_stride(image.surface)),
                             view: view, zoom: p.camera.zoom, antialias: true, meanwhile: meanwhile)
        } else {
            meanwhile?()
        }
        cairo_surface_mark_dirty(image.surface)
        return GroundCache(image: image, projection: cacheProjection, margin: m, view: view)
    }
}

/// A ground cache being drawn a slice of rows a frame (`MapRenderer.reproject`).
final class GroundCacheDraft {
    let cache: GroundCache
    let plan: BasePlan
    /// The street map's estimated work per row of the cache (equal rows without one).
    let rowCosts: [Double]
    /// Row boundaries of the slices, 0 first and the cache's height last.
    let slices: [Int]
    /// The next slice.
    var next = 0
    var done: Bool { next >= slices.count - 1 }

    init(cache: GroundCache, plan: BasePlan, rowCosts: [Double], slices: [Int]) {
        self.cache = cache; self.plan = plan; self.rowCosts = rowCosts; self.slices = slices
    }
}
