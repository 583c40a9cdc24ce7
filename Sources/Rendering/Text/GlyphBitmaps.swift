import CCairo
import Foundation
import VectorTiles

/// One glyph with its halo as plain premultiplied ARGB pixels (0xAARRGGBB words, rows of
/// `width`): drawn once by pango and cairo into a scratch image that is copied out and freed at
/// once, so no pango or cairo object outlives the call that rasterised it. Immutable.
final class GlyphBitmap: @unchecked Sendable {
    let width: Int, height: Int
    let pixels: [UInt32]
    /// The image's top left relative to the glyph's origin (pen position on the baseline), px.
    let dx: Int, dy: Int
    /// A number of its own (never reused), for keys of images made from it.
    let serial: Int

    /// Each row's first pixel that is not transparent and the end of its last (two Int32 a
    /// row; 0, 0 for an empty row): a copy passes over the transparent corners of a turned
    /// glyph without looking at them.
    let rowSpans: [Int32]

    init(width: Int, height: Int, pixels: [UInt32], dx: Int, dy: Int, serial: Int) {
        self.width = width; self.height = height; self.pixels = pixels; self.dx = dx; self.dy = dy; self.serial = serial
        var spans = [Int32](repeating: 0, count: 2 * height)
        pixels.withUnsafeBufferPointer { px in
            for y in 0..<height {
                let row = px.baseAddress! + y * width
                var a = 0, b = width
                while a < width && row[a] == 0 { a += 1 }
                while b > a && row[b - 1] == 0 { b -= 1 }
                if a < b { spans[2 * y] = Int32(a); spans[2 * y + 1] = Int32(b) }
            }
        }
        rowSpans = spans
    }

    var bytes: Int { pixels.count * 4 + rowSpans.count * 4 + 96 }

    /// Draws `draw(cr, originX, originY)` (the glyph's origin in the scratch image) into a
    /// transparent w x h ARGB32 image and keeps its pixels; nil when the image cannot be made.
    static func rasterize(width w: Int, height h: Int, dx: Int, dy: Int, serial: Int,
                          _ draw: (OpaquePointer, Double, Double) -> Void) -> GlyphBitmap? {
        guard w > 0, h > 0, w < 1024, h < 1024, let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(w), Int32(h)) else { return nil }
        defer { cairo_surface_destroy(surface) }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let cr = cairo_create(surface) else { return nil }
        draw(cr, Double(-dx), Double(-dy))
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface) else { return nil }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let pixels = [UInt32](unsafeUninitializedCapacity: w * h) { buf, count in
            for y in 0..<h {
                UnsafeMutableRawPointer(buf.baseAddress! + y * w).copyMemory(from: data + y * stride, byteCount: 4 * w)
            }
            count = w * h
        }
        return GlyphBitmap(width: w, height: h, pixels: pixels, dx: dx, dy: dy, serial: serial)
    }
}

/// Glyph bitmaps kept by one text renderer (one map renderer's, used on its drawing thread
/// only: nothing here is shared between renderers or threads):
///
/// - a glyph with its halo, by what decides its pixels: the font (pango's description of it,
///   family, weight and size, as text: no font object is held), the glyph, its offset from the
///   pen, the colours and the halo's offset. Names share their letters.
/// - the same glyph turned to an angle (to 1 degree) with its centre at a fraction of a pixel
///   (to 1/`phases` px), made from the first by bilinear sampling: a name along a line is drawn
///   glyph by glyph straight onto the frame from these, as plain copies. The turned image is a
///   function of its key alone, so a frame's pixels do not depend on what was drawn before.
///
/// Least recently used out first past `maxBytes` (the glyphs) and `turnedBudget` (the turned
/// glyphs: `maxBytes`, or a byte a screen pixel on a screen larger than that).
final class GlyphBitmaps {
    struct Key: Hashable {
        let font: String
        let glyph: UInt32
        let xOffset: Int32, yOffset: Int32
        let color: StyleColor
        let halo: StyleColor?
        let radius: Double
    }
    /// A glyph turned: the glyph image's serial, where its top left lies from the turning centre
    /// before turning (1/64 px), the angle (degrees) and the centre's fraction of a pixel.
    struct TurnedKey: Hashable {
        let serial: Int
        let ox: Int32, oy: Int32
        /// The angle in steps of a turn, and how many steps make a turn.
        let angle: Int16, steps: Int16
        let fx: UInt8, fy: UInt8

        /// Three words hashed instead of seven fields (a pan frame looks up every glyph of
        /// every name: hashing was about a fifth of a one-core pan frame's label preparation).
        func hash(into h: inout Hasher) {
            h.combine(serial)
            h.combine(UInt64(UInt32(bitPattern: ox)) | UInt64(UInt32(bitPattern: oy)) << 32)
            h.combine(UInt64(UInt16(bitPattern: angle)) | UInt64(UInt16(bitPattern: steps)) << 16
                      | UInt64(fx) << 32 | UInt64(fy) << 40)
        }
    }
    /// A turned glyph: its pixels and its top left from the whole pixel its centre lies in.
    struct Turned {
        let image: GlyphBitmap
        let x0: Int, y0: Int
    }

    /// Steps of a pixel a turned glyph's centre is placed to (2: within a quarter pixel).
    static let phases = 2
    /// Steps of a full turn a glyph's angle is kept to (360: within half a degree).
    static let angleSteps = 360
    /// The steps for an interactive frame's glyphs (120: within 1.5 degrees): a tilt or a turn
    /// moves every line's angle a little each frame, and at 360 steps the glyphs along them were
    /// turned again every other frame (1.9 ms of a tilt gesture's 10 ms CPU frame).
    static let interactiveAngleSteps = 120

    /// The glyphs' budget, and the least the turned glyphs'.
    var maxBytes: Int { glyphs.maxCost }
    /// The turned glyphs' budget (`fit(screenPixels:)`).
    var turnedBudget: Int { turned.maxCost }
    private var glyphs: LRUCache<Key, GlyphBitmap>
    private var turned: LRUCache<TurnedKey, Turned>
    var glyphBytes: Int { glyphs.totalCost }
    var turnedBytes: Int { turned.totalCost }
    private var serials = 0
    /// Glyph images rasterised by pango and cairo, and turned images sampled (tests).
    private(set) var rasterized = 0, turnedMade = 0

    init(maxBytes: Int = 4 << 20) {
        glyphs = LRUCache(maxCost: maxBytes)
        turned = LRUCache(maxCost: maxBytes)
    }

    func nextSerial() -> Int { serials += 1; return serials }

    /// Sizes the turned glyphs' budget for a screen of `screenPixels`: a byte a pixel, at least
    /// `maxBytes`. A screen holds names in proportion to its area, and a tilt or turn gesture's
    /// frames turn each of them again whenever its angle steps: at 3840x2160 the 4 MiB that
    /// hold a 1080p screen's were full, and the gesture's frames turned 150 to 225 glyphs each
    /// where 8 MiB kept that to 45 to 75.
    func fit(screenPixels: Int) {
        let budget = max(maxBytes, screenPixels)
        if budget != turned.maxCost { turned.setMaxCost(budget) }
    }

    /// The glyph's image, rasterised by `make` on first use.
    func glyph(_ key: Key, make: (Int) -> GlyphBitmap?) -> GlyphBitmap? {
        if let hit = glyphs.value(for: key) { return hit }
        guard let b = make(nextSerial()) else { return nil }
        rasterized += 1
        glyphs.insert(b, cost: b.bytes, for: key)
        return b
    }

    /// The glyph image `b`, whose top left lies at (ox, oy) from a turning centre, turned by
    /// `angle` (radians, clockwise on screen) about a centre at (cx, cy): where to copy it.
    func turned(_ b: GlyphBitmap, ox: Double, oy: Double, angle: Double, cx: Double, cy: Double,
                steps: Int = GlyphBitmaps.angleSteps) -> (Turned, x: Int, y: Int)? {
        let p = Double(Self.phases)
        let qx = (cx * p).rounded(), qy = (cy * p).rounded()
        // A glyph at a position or angle no frame can show (NaN, infinite, far off) is skipped,
        // never turned into an Int that traps.
        guard abs(qx) < 1e9, abs(qy) < 1e9, angle.isFinite, abs(ox) < 1e6, abs(oy) < 1e6 else { return nil }
        let ix = Int((qx / p).rounded(.down)), iy = Int((qy / p).rounded(.down))
        let fx = Int(qx) - ix * Self.phases, fy = Int(qy) - iy * Self.phases
        let steps = min(max(steps, 4), 3600)
        var a = Int((angle * Double(steps) / (2 * .pi)).rounded()) % steps
        if a < 0 { a += steps }
        let key = TurnedKey(serial: b.serial, ox: Int32((ox * 64).rounded()), oy: Int32((oy * 64).rounded()), angle: Int16(a),
                            steps: Int16(steps), fx: UInt8(fx), fy: UInt8(fy))
        if let hit = turned.value(for: key) { return (hit, ix, iy) }
        let t = Self.turn(b, ox: Double(key.ox) / 64, oy: Double(key.oy) / 64, angle: Double(a) * 2 * .pi / Double(steps),
                          fx: Double(fx) / p, fy: Double(fy) / p, serial: nextSerial())
        turnedMade += 1
        turned.insert(t, cost: t.image.bytes, for: key)
        return (t, ix, iy)
    }

    /// `b` (top left at (ox, oy) from the centre) turned by `angle` about a centre at (fx, fy)
    /// within pixel (0, 0): each pixel of the result samples `b` bilinearly at its own centre
    /// turned back (premultiplied, so the halo's edges blend without dark fringes).
    static func turn(_ b: GlyphBitmap, ox: Double, oy: Double, angle: Double, fx: Double, fy: Double, serial: Int) -> Turned {
        let c = cos(angle), s = sin(angle)
        let w = Double(b.width), h = Double(b.height)
        var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity
        for (u, v) in [(ox, oy), (ox + w, oy), (ox, oy + h), (ox + w, oy + h)] {
            let x = fx + c * u - s * v, y = fy + s * u + c * v
            minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
        }
        guard minX.isFinite, minY.isFinite, maxX.isFinite, maxY.isFinite, maxX - minX < 1e4, maxY - minY < 1e4,
              abs(minX) < 1e9, abs(minY) < 1e9 else {
            return Turned(image: GlyphBitmap(width: 0, height: 0, pixels: [], dx: 0, dy: 0, serial: serial), x0: 0, y0: 0)
        }
        let x0 = Int(minX.rounded(.down)), y0 = Int(minY.rounded(.down))
        let tw = Int(maxX.rounded(.up)) - x0, th = Int(maxY.rounded(.up)) - y0
        let bw = b.width, bh = b.height
        let out = [UInt32](unsafeUninitializedCapacity: tw * th) { dst, count in
            b.pixels.withUnsafeBufferPointer { src in
                for j in 0..<th {
                    // The pixel centre (x0 + i + 0.5, y0 + j + 0.5) from the turning centre, turned
                    // back into the glyph's frame, then into its image's pixel grid (centres at .5).
                    let ry = Double(y0 + j) + 0.5 - fy
                    let rx0 = Double(x0) + 0.5 - fx
                    var u = c * rx0 + s * ry - ox - 0.5
                    var v = -s * rx0 + c * ry - oy - 0.5
                    let row = dst.baseAddress! + j &* tw
                    for i in 0..<tw {
                        defer { u += c; v -= s }
                        guard u > -1, v > -1, u < Double(bw), v < Double(bh) else { row[i] = 0; continue }
                        // (`WholeNumbers`: u, v > -1, the weights in [0, 256].)
                        let iu = WholeNumbers.floor(u), iv = WholeNumbers.floor(v)
                        let uf = Double(iu), vf = Double(iv)
                        let wx = WholeNumbers.roundHalfUp((u - uf) * 256), wy = WholeNumbers.roundHalfUp((v - vf) * 256)
                        // The four source pixels (0 outside the image); inside it, read without
                        // a test each. Index arithmetic wraps: -1 <= iu, iv and a glyph image is small.
                        let p00: UInt32, p10: UInt32, p01: UInt32, p11: UInt32
                        if iu >= 0 && iv >= 0 && iu &+ 1 < bw && iv &+ 1 < bh {
                            let q = src.baseAddress! + (iv &* bw &+ iu)
                            p00 = q[0]; p10 = q[1]; p01 = q[bw]; p11 = q[bw &+ 1]
                        } else {
                            @inline(__always) func at(_ x: Int, _ y: Int) -> UInt32 {
                                x >= 0 && y >= 0 && x < bw && y < bh ? src[y &* bw &+ x] : 0
                            }
                            p00 = at(iu, iv); p10 = at(iu &+ 1, iv); p01 = at(iu, iv &+ 1); p11 = at(iu &+ 1, iv &+ 1)
                        }
                        if (p00 | p10 | p01 | p11) == 0 { row[i] = 0; continue }
                        let w00 = (256 &- wx) &* (256 &- wy), w10 = wx &* (256 &- wy), w01 = (256 &- wx) &* wy, w11 = wx &* wy
                        // Two channels at a time, 32 bits apart (weights sum to 65536).
                        @inline(__always) func spread(_ p: UInt32, _ shift: UInt32) -> UInt64 {
                            UInt64((p >> shift) & 0xff) | UInt64((p >> (shift + 16)) & 0xff) << 32
                        }
                        @inline(__always) func lane(_ shift: UInt32) -> UInt32 {
                            let a = spread(p00, shift) &* UInt64(w00) &+ spread(p10, shift) &* UInt64(w10)
                                &+ spread(p01, shift) &* UInt64(w01) &+ spread(p11, shift) &* UInt64(w11)
                            let lo = ((a & 0xffff_ffff) &+ 32768) >> 16, hi = ((a >> 32) &+ 32768) >> 16
                            return UInt32(truncatingIfNeeded: lo & 0xff) | UInt32(truncatingIfNeeded: hi & 0xff) << 16
                        }
                        row[i] = lane(0) | lane(8) << 8
                    }
                }
            }
            count = tw * th
        }
        return Turned(image: GlyphBitmap(width: tw, height: th, pixels: out, dx: 0, dy: 0, serial: serial), x0: x0, y0: y0)
    }
}

/// Where a run of glyph copies may write: an image surface's pixels (XRGB8888 or ARGB32), its
/// clip and cr's whole-pixel translation.
struct GlyphTarget {
    let pixels: UnsafeMutableRawPointer
    let stride: Int
    /// Device pixels cr's user space is moved by.
    let tx: Int, ty: Int
    /// The clip, device pixels (half-open).
    let x0: Int, y0: Int, x1: Int, y1: Int

    /// cr's target, when it is an XRGB8888 or ARGB32 image and cr moves by whole pixels at most.
    init?(_ cr: OpaquePointer) {
        guard let target = cairo_get_target(cr), cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
              cairo_image_surface_get_format(target) == CAIRO_FORMAT_RGB24 || cairo_image_surface_get_format(target) == CAIRO_FORMAT_ARGB32,
              isWholePixelTranslation(cr), let data = cairo_image_surface_get_data(target) else { return nil }
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        var dox = 0.0, doy = 0.0
        cairo_surface_get_device_offset(target, &dox, &doy)
        guard dox == 0, doy == 0 else { return nil }
        let sw = Int(cairo_image_surface_get_width(target)), sh = Int(cairo_image_surface_get_height(target))
        var cx0 = 0.0, cy0 = 0.0, cx1 = 0.0, cy1 = 0.0
        cairo_clip_extents(cr, &cx0, &cy0, &cx1, &cy1)
        pixels = UnsafeMutableRawPointer(data)
        stride = Int(cairo_image_surface_get_stride(target))
        tx = Int(m.x0); ty = Int(m.y0)
        x0 = max(0, Int((cx0 + m.x0).rounded(.down))); x1 = min(sw, Int((cx1 + m.x0).rounded(.up)))
        y0 = max(0, Int((cy0 + m.y0).rounded(.down))); y1 = min(sh, Int((cy1 + m.y0).rounded(.up)))
    }

    /// Composites `b` (premultiplied) OVER the target with its top left at user-space pixel
    /// (x, y), with pixman's OVER arithmetic (a cairo paint of the same image at a whole pixel
    /// gives the same bytes).
    func over(_ b: GlyphBitmap, x: Int, y: Int) {
        guard let (dx0, dy0, j0, j1, i0, i1) = window(width: b.width, height: b.height, x: x, y: y) else { return }
        /// Glyph row j's frame row and the columns of it the glyph covers (empty: none).
        @inline(__always) func span(_ j: Int) -> (row: UnsafeMutablePointer<UInt32>, first: Int, end: Int) {
            ((pixels + (dy0 + j) * stride).assumingMemoryBound(to: UInt32.self) + dx0,
             max(i0, Int(b.rowSpans[2 * j])), min(i1, Int(b.rowSpans[2 * j + 1])))
        }
        // Every row's pixels under the glyph asked for at once: a frame just copied from the
        // base map's cache is out of the cache, and row after row the loads waited in turn (a
        // pan frame's label pass spent two fifths of its samples on the first load of a row).
        for j in j0..<j1 {
            let (row, first, end) = span(j)
            guard first < end else { continue }
            tb_prefetch_write(row + first)
            tb_prefetch_write(row + end - 1)
        }
        b.pixels.withUnsafeBufferPointer { src in
            for j in j0..<j1 {
                let (row, first, end) = span(j)
                guard first < end else { continue }
                let s = src.baseAddress! + j * b.width
                // Four pixels at a time (`overFour`), then the rest one by one.
                var i = first
                while i + 4 <= end {
                    Self.overFour(UnsafeRawPointer(s + i), UnsafeMutableRawPointer(row + i))
                    i += 4
                }
                for i in i..<end {
                    let p = s[i]
                    if p == 0 { continue }
                    // An opaque glyph pixel replaces the frame's without reading it. The others
                    // blend with one multiplication (`overPremultiplied`, the same bytes as
                    // `over`): a glyph image is valid premultiplied, cairo's own or turned from
                    // one by the same rounded weights for every channel (a channel stays at most
                    // its alpha), so pixman's saturation never acts.
                    row[i] = p >> 24 == 255 ? p : Self.overPremultiplied(p, row[i])
                }
            }
        }
    }

    /// Four premultiplied pixels at `src` OVER the four at `dst`, in place: the bytes of
    /// `overPremultiplied` on each (d * (255 - a) / 255 rounded as pixman does, plus the
    /// source), worked out in 16-bit lanes with no branch: a transparent pixel leaves the
    /// destination as it was (d * 255 / 255 is d exactly) and an opaque one replaces it (the
    /// product is 0). A label's glyphs and halo are mostly edges, where the one-pixel loop's
    /// tests for those two cases went either way.
    @inline(__always) static func overFour(_ src: UnsafeRawPointer, _ dst: UnsafeMutableRawPointer) {
        let p = src.loadUnaligned(as: SIMD4<UInt32>.self)
        let d = unsafeBitCast(dst.loadUnaligned(as: SIMD4<UInt32>.self), to: SIMD8<UInt16>.self)
        // Each pixel's 255 - alpha in both of its 16-bit lanes; the pixels' even bytes (blue,
        // red) and odd bytes (green, alpha) worked in separate lanes (same-width vector
        // operations only: the standard library's widening conversions go element by element).
        let ia = ~(p &>> 24) & 0xff
        let rest = unsafeBitCast(ia | ia &<< 16, to: SIMD8<UInt16>.self)
        let even = SolidBlend.divide255((d & 0xff) &* rest &+ 0x80), odd = SolidBlend.divide255((d &>> 8) &* rest &+ 0x80)
        let sum = p &+ unsafeBitCast(even | odd &<< 8, to: SIMD4<UInt32>.self)
        dst.storeBytes(of: sum, as: SIMD4<UInt32>.self)
    }

    @inline(__always) static func addSaturating(_ a: UInt32, _ b: UInt32) -> UInt32 {
        var rb = (a & 0x00ff_00ff) &+ (b & 0x00ff_00ff)
        rb |= 0x0100_0100 &- ((rb >> 8) & 0x0001_0001)
        var ag = ((a >> 8) & 0x00ff_00ff) &+ ((b >> 8) & 0x00ff_00ff)
        ag |= 0x0100_0100 &- ((ag >> 8) & 0x0001_0001)
        return (rb & 0x00ff_00ff) | ((ag & 0x00ff_00ff) << 8)
    }
}
