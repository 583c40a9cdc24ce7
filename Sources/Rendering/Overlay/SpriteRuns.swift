import CCairo

/// A premultiplied ARGB32 sprite (a default pin, a cluster bubble, a marker's image) kept as
/// runs of its rows, made once per sprite: transparent pixels (a pin's sprite is half
/// transparent) are passed over without reading the frame, opaque ones are copied, and only the
/// antialiased edge is blended, with pixman's OVER arithmetic (`GlyphTarget.over`), so a copy
/// gives the bytes `cairo_paint` of the image at the same whole pixel gives.
///
/// Why: 1,000 pins drawn with `cairo_paint` cost a full overlay frame 14.7 M instructions
/// (cairo's set-up per paint and pixman's OVER over every pixel of every sprite, transparent
/// or not).
final class SpriteRuns: @unchecked Sendable {
    /// The image the runs were made from (kept, so that an identity test can tell it).
    let image: CairoImage
    let width: Int, height: Int
    /// The sprite's pixels, rows of `width` (premultiplied 0xAARRGGBB).
    let pixels: [UInt32]
    /// Three Int32 per run: first column, end column (exclusive), and its kind: `opaque` (every
    /// pixel opaque: copied), `translucent` (every pixel a valid premultiplied colour, each
    /// channel at most its alpha: blended without saturation) or `general` (pixman's
    /// saturating OVER). Transparent pixels (0) are in no run.
    let runs: [Int32]
    /// Index (in runs) of each row's first run; `height + 1` entries.
    let rowFirst: [Int32]

    static let general: Int32 = 0, opaque: Int32 = 1, translucent: Int32 = 2

    /// Memory the runs hold besides the image they were made from (a copy of its pixels and
    /// the run table), for a cache's byte budget.
    var bytes: Int { 4 * (pixels.count + runs.count + rowFirst.count) }

    static func kind(_ p: UInt32) -> Int32 {
        let a = p >> 24
        if a == 255 { return opaque }
        return (p >> 16) & 0xff <= a && (p >> 8) & 0xff <= a && p & 0xff <= a ? translucent : general
    }

    /// Nil when the image is not ARGB32 or is larger than a sprite (4096 px a side).
    init?(_ image: CairoImage) {
        let s = image.surface
        guard cairo_image_surface_get_format(s) == CAIRO_FORMAT_ARGB32 else { return nil }
        let w = Int(cairo_image_surface_get_width(s)), h = Int(cairo_image_surface_get_height(s))
        guard w > 0, h > 0, w <= 4096, h <= 4096 else { return nil }
        cairo_surface_flush(s)
        guard let data = cairo_image_surface_get_data(s) else { return nil }
        let stride = Int(cairo_image_surface_get_stride(s))
        var px = [UInt32](repeating: 0, count: w * h)
        var runs: [Int32] = []
        var first: [Int32] = [0]
        first.reserveCapacity(h + 1)
        px.withUnsafeMutableBufferPointer { out in
            for y in 0..<h {
                let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                var x = 0
                while x < w {
                    let p = row[x]
                    out[y * w + x] = p
                    if p == 0 { x += 1; continue }
                    let kind = Self.kind(p)
                    var e = x + 1
                    while e < w, row[e] != 0, Self.kind(row[e]) == kind {
                        out[y * w + e] = row[e]
                        e += 1
                    }
                    runs.append(Int32(x)); runs.append(Int32(e)); runs.append(kind)
                    x = e
                }
                first.append(Int32(runs.count / 3))
            }
        }
        self.image = image
        width = w; height = h
        pixels = px
        self.runs = runs
        rowFirst = first
    }
}

extension GlyphTarget {
    /// Where a width x height image with its top left at user-space pixel (x, y) meets the
    /// clip: its top left in device pixels, and its rows j0..<j1 and columns cl..<cr inside;
    /// nil when none is.
    func window(width: Int, height: Int, x: Int, y: Int) -> (dx0: Int, dy0: Int, j0: Int, j1: Int, cl: Int, cr: Int)? {
        let dx0 = x + tx, dy0 = y + ty
        let j0 = max(0, y0 - dy0), j1 = min(height, y1 - dy0)
        let cl = max(0, x0 - dx0), cr = min(width, x1 - dx0)
        guard j0 < j1, cl < cr else { return nil }
        return (dx0, dy0, j0, j1, cl, cr)
    }

    /// Composites the sprite OVER the target with its top left at user-space pixel (x, y),
    /// within the target's clip: the bytes `cairo_paint` of the image there gives.
    func over(_ s: SpriteRuns, x: Int, y: Int) {
        guard let (dx0, dy0, j0, j1, cl, cr) = window(width: s.width, height: s.height, x: x, y: y) else { return }
        s.pixels.withUnsafeBufferPointer { src in
            s.runs.withUnsafeBufferPointer { runs in
                s.rowFirst.withUnsafeBufferPointer { first in
                    for j in j0..<j1 {
                        let row = (pixels + (dy0 + j) * stride).assumingMemoryBound(to: UInt32.self) + dx0
                        let sp = src.baseAddress! + j * s.width
                        var r = Int(first[j])
                        let end = Int(first[j + 1])
                        while r < end {
                            let a = max(Int(runs[3 * r]), cl), b = min(Int(runs[3 * r + 1]), cr)
                            if a < b {
                                let kind = runs[3 * r + 2]
                                if kind == SpriteRuns.opaque {
                                    (row + a).update(from: sp + a, count: b - a)
                                } else if kind == SpriteRuns.translucent {
                                    for i in a..<b { row[i] = Self.overPremultiplied(sp[i], row[i]) }
                                } else {
                                    for i in a..<b { row[i] = Self.over(sp[i], row[i]) }
                                }
                            }
                            r += 1
                        }
                    }
                }
            }
        }
    }

    /// Asks for the frame's cache lines a copy of the sprite at (x, y) will blend into (each
    /// run's first and last pixel): issued for the next sprite while one is copied, the loads
    /// of the frame's pixels (lines last written by another pass, seldom in the core's cache)
    /// overlap instead of stalling one after the other.
    func prefetch(_ s: SpriteRuns, x: Int, y: Int) {
        guard let (dx0, dy0, j0, j1, cl, cr) = window(width: s.width, height: s.height, x: x, y: y) else { return }
        s.runs.withUnsafeBufferPointer { runs in
            s.rowFirst.withUnsafeBufferPointer { first in
                for j in j0..<j1 {
                    let r0 = Int(first[j]), r1 = Int(first[j + 1])
                    guard r0 < r1 else { continue }
                    let a = max(Int(runs[3 * r0]), cl), b = min(Int(runs[3 * (r1 - 1) + 1]), cr)
                    guard a < b else { continue }
                    let row = (pixels + (dy0 + j) * stride).assumingMemoryBound(to: UInt32.self) + dx0
                    tb_prefetch_write(row + a)
                    tb_prefetch_write(row + b - 1)
                }
            }
        }
    }

    /// `over(p, d)` for a valid premultiplied p (each channel at most its alpha, which keeps the
    /// sum within 255: pixman's saturation never acts): the four channels in 16-bit lanes of
    /// one 64-bit word (blue 0-15, red 16-31, green 32-47, alpha 48-63), one multiplication.
    /// Per lane t = d ia + 128 <= 65,153 and t + t >> 8 <= 65,407: no lane carries into the next.
    @inline(__always) static func overPremultiplied(_ p: UInt32, _ d: UInt32) -> UInt32 {
        let ia = UInt64(255 - (p >> 24))
        let x = UInt64(d & 0x00ff_00ff) | (UInt64(d & 0xff00_ff00) << 24)
        var t = x &* ia &+ 0x0080_0080_0080_0080
        t = ((t &+ ((t >> 8) & 0x00ff_00ff_00ff_00ff)) >> 8) & 0x00ff_00ff_00ff_00ff
        return p &+ (UInt32(truncatingIfNeeded: t) | UInt32(truncatingIfNeeded: t >> 24))
    }

    /// Premultiplied p OVER d, pixman's arithmetic (as `over(_:x:y:)` for glyphs).
    @inline(__always) static func over(_ p: UInt32, _ d: UInt32) -> UInt32 {
        let ia = 255 - (p >> 24)
        if ia == 0 { return p }
        var rb = (d & 0x00ff_00ff) &* ia &+ 0x0080_0080
        rb = ((rb &+ ((rb >> 8) & 0x00ff_00ff)) >> 8) & 0x00ff_00ff
        var ag = ((d >> 8) & 0x00ff_00ff) &* ia &+ 0x0080_0080
        ag = (ag &+ ((ag >> 8) & 0x00ff_00ff)) & 0xff00_ff00
        return addSaturating(p, rb | ag)
    }
}
