import CCairo
import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// Sprites copied as runs (`SpriteRuns`, `GlyphTarget.over`) give the bytes `cairo_paint` of the
/// same image at the same whole pixel gives, inside and across the clip, on both image formats
/// the frame and the overlay layer use, through a translated context.
@Suite struct SpriteRunsTests {
    /// A pin sprite (the one the default markers use), a cluster bubble, and a made-up image
    /// with every kind of pixel (transparent, opaque, translucent, alpha 0 with colour).
    static func sprites() -> [CairoImage] {
        let icons = IconCache()
        let painter = OverlayPainter(style: .standard)
        let pin = icons.pinSprite(color: RGBColor(hex: 0xE53935), phase: 5) { c in
            painter.paintPin(cr: c, tip: Point(x: Double(OverlayPainter.pinSpriteTip.x) + 0.25,
                                               y: Double(OverlayPainter.pinSpriteTip.y) + 0.25), color: RGBColor(hex: 0xE53935))
        }
        let bubble = icons.clusterSprite(count: 42, text: TextRenderer(family: MapStyle.standard.fontFamily))
        var px: [UInt32] = []
        var x: UInt32 = 0x1234_5678
        for _ in 0..<(23 * 17) {
            x ^= x << 13; x ^= x >> 17; x ^= x << 5
            let a = [0, 255, 255, 128, 1, 254, 0][Int(x % 7)]
            let r = UInt32(a) * ((x >> 8) & 0xff) / 255, g = UInt32(a) * ((x >> 16) & 0xff) / 255, b = UInt32(a) * ((x >> 24) & 0xff) / 255
            // One pixel in eleven: colour under zero alpha (an additive source).
            px.append(x % 11 == 0 ? (x & 0x003f_3f3f) : UInt32(a) << 24 | r << 16 | g << 8 | b)
        }
        return [pin, bubble, CairoImage.argb(px, width: 23, height: 17)!]
    }

    /// A background with a gradient in every channel (alpha too, for the ARGB32 layer).
    static func surface(_ format: cairo_format_t) -> OpaquePointer {
        let s = cairo_image_surface_create(format, 97, 71)!
        let data = cairo_image_surface_get_data(s)!
        let stride = Int(cairo_image_surface_get_stride(s))
        for y in 0..<71 {
            let row = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<97 {
                let a: UInt32 = format == CAIRO_FORMAT_ARGB32 ? UInt32((x * 7 + y * 3) % 256) : 255
                let c = { (v: Int) in UInt32(v % 256) * a / 255 }
                row[x] = a << 24 | c(x * 5) << 16 | c(y * 9) << 8 | c(x + y * 2)
            }
        }
        cairo_surface_mark_dirty(s)
        return s
    }

    static func bytes(_ s: OpaquePointer) -> [UInt32] {
        cairo_surface_flush(s)
        let data = cairo_image_surface_get_data(s)!
        let stride = Int(cairo_image_surface_get_stride(s)), w = Int(cairo_image_surface_get_width(s))
        var out: [UInt32] = []
        for y in 0..<Int(cairo_image_surface_get_height(s)) {
            let row = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<w { out.append(row[x]) }
        }
        return out
    }

    @Test(arguments: [CAIRO_FORMAT_RGB24, CAIRO_FORMAT_ARGB32])
    func runsGiveCairoPaintsBytes(format: cairo_format_t) {
        let places = [(10, 8), (-7, -9), (80, 60), (-30, 20), (40, -40), (90, 5), (0, 0)]
        for image in Self.sprites() {
            let runs = SpriteRuns(image)!
            for (x, y) in places {
                for (shift, clip) in [((0, 0), false), ((3, -2), false), ((0, 0), true), ((-5, 4), true)] {
                    let a = Self.surface(format), b = Self.surface(format)
                    defer { cairo_surface_destroy(a); cairo_surface_destroy(b) }
                    let ca = cairo_create(a)!, cb = cairo_create(b)!
                    defer { cairo_destroy(ca); cairo_destroy(cb) }
                    for c in [ca, cb] {
                        cairo_translate(c, Double(shift.0), Double(shift.1))
                        if clip { cairo_rectangle(c, 5, 13, 61, 29); cairo_clip(c) }
                    }
                    cairo_set_source_surface(ca, image.surface, Double(x), Double(y))
                    cairo_paint(ca)
                    let target = GlyphTarget(cb)!
                    target.over(runs, x: x, y: y)
                    cairo_surface_mark_dirty(b)
                    let ba = Self.bytes(a), bb = Self.bytes(b)
                    let differ = zip(ba, bb).filter { format == CAIRO_FORMAT_RGB24 ? ($0 & 0xffffff) != ($1 & 0xffffff) : $0 != $1 }.count
                    #expect(differ == 0, "\(image.width)x\(image.height) at \(x),\(y) shift \(shift) clip \(clip): \(differ) pixels differ")
                }
            }
        }
    }

    /// The runs leave out exactly the transparent pixels and mark exactly the opaque ones.
    @Test func runsCoverEveryVisiblePixelOnce() {
        for image in Self.sprites() {
            let r = SpriteRuns(image)!
            var seen = [UInt8](repeating: 0, count: r.width * r.height)
            for y in 0..<r.height {
                for k in Int(r.rowFirst[y])..<Int(r.rowFirst[y + 1]) {
                    for x in Int(r.runs[3 * k])..<Int(r.runs[3 * k + 1]) {
                        seen[y * r.width + x] += 1
                        let p = r.pixels[y * r.width + x]
                        #expect(r.runs[3 * k + 2] == SpriteRuns.kind(p))
                    }
                }
            }
            for i in 0..<seen.count { #expect(Int(seen[i]) == (r.pixels[i] == 0 ? 0 : 1)) }
        }
    }

    /// The one-multiplication blend of a valid premultiplied pixel gives pixman's OVER for
    /// every alpha, every channel value up to it, over varied destinations.
    @Test func premultipliedBlendIsPixmansOver() {
        var x: UInt32 = 0x2545_F491
        var differ = 0, cases = 0
        for a in UInt32(1)...254 {
            for c in stride(from: UInt32(0), through: a, by: Int(max(1, a / 17))) {
                for _ in 0..<40 {
                    x ^= x << 13; x ^= x >> 17; x ^= x << 5
                    let p = a << 24 | c << 16 | (a - c / 2) << 8 | (c / 3)
                    if GlyphTarget.overPremultiplied(p, x) != GlyphTarget.over(p, x) { differ += 1 }
                    cases += 1
                }
            }
        }
        #expect(differ == 0 && cases > 100_000)
    }

    /// Four pixels at a time (`GlyphTarget.overFour`) give pixman's OVER of each: every alpha
    /// from transparent to opaque, channels up to it, over varied destinations.
    @Test func fourPixelsAtATimeArePixmansOver() {
        var x: UInt32 = 0x9E37_79B9
        func next() -> UInt32 { x ^= x << 13; x ^= x >> 17; x ^= x << 5; return x }
        var differ = 0, cases = 0
        for a in UInt32(0)...255 {
            for _ in 0..<60 {
                var src = [UInt32](), dst = [UInt32]()
                for k in 0..<4 {
                    // A premultiplied pixel: each channel at most its alpha (one lane each of
                    // the four alphas: this one, transparent, opaque, another).
                    let pa = k == 0 ? a : k == 1 ? 0 : k == 2 ? 255 : next() & 0xff
                    let c = { pa == 0 ? 0 : next() % (pa + 1) }
                    src.append(pa << 24 | c() << 16 | c() << 8 | c())
                    dst.append(next())
                }
                var out = dst
                src.withUnsafeBytes { s in out.withUnsafeMutableBytes { d in GlyphTarget.overFour(s.baseAddress!, d.baseAddress!) } }
                for k in 0..<4 {
                    let want = src[k] == 0 ? dst[k] : src[k] >> 24 == 255 ? src[k] : GlyphTarget.over(src[k], dst[k])
                    if out[k] != want { differ += 1 }
                    cases += 1
                }
            }
        }
        #expect(differ == 0 && cases == 256 * 60 * 4)
    }

    /// 1,000 pins drawn through the plan's blit (runs) give the frame cairo gives with every
    /// sprite painted by cairo_paint, in bands as the renderer draws them.
    @Test func aThousandPinsGiveTheCairoFrame() {
        let camera = CameraPosition(target: Coordinate(latitude: 48, longitude: 9), zoom: 5)
        let view = GroundView(projection: Projection(camera: camera, screen: Size(width: 640, height: 480)))
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Double { x ^= x << 13; x ^= x >> 7; x ^= x << 17; return Double(x % 1_000_000) / 1_000_000 }
        let markers = (0..<1_000).map { i in
            MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: 42 + 12 * next(), longitude: 0 + 18 * next()),
                         icon: .defaultPin(RGBColor(hex: i % 3 == 0 ? 0xE53935 : 0x1E88E5)))
        }
        let plan = OverlayPainter(style: .standard).planMarkers(scene: MapScene(camera: camera, markers: markers), view: view,
                                                                icons: IconCache(), text: nil)
        #expect(plan.count > 500)
        #expect(plan.allSatisfy { $0.runs != nil })
        let a = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 640, 480)!, b = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 640, 480)!
        defer { cairo_surface_destroy(a); cairo_surface_destroy(b) }
        let ca = cairo_create(a)!
        for m in plan {
            cairo_set_source_surface(ca, m.image!.surface, m.x, m.y)
            cairo_paint(ca)
        }
        cairo_destroy(ca)
        for band in [0..<200, 200..<333, 333..<480] {
            let cb = cairo_create(b)!
            cairo_rectangle(cb, 0, Double(band.lowerBound), 640, Double(band.count))
            cairo_clip(cb)
            OverlayPainter.blit(plan, cr: cb, rows: Double(band.lowerBound)..<Double(band.upperBound))
            cairo_destroy(cb)
        }
        let ba = Self.bytes(a), bb = Self.bytes(b)
        #expect(ba.contains { $0 & 0xffffff != 0 })
        #expect(zip(ba, bb).filter { ($0 & 0xffffff) != ($1 & 0xffffff) }.count == 0)
    }
}
