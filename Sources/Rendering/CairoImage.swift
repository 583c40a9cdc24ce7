import CCairo
import Foundation
import TileSources

/// Whether cr draws in device pixels, moved by whole pixels at most (no scale, rotation or
/// fractional offset): the fast paths that write pixels themselves (label sprites, thin lines)
/// hold only then.
func isWholePixelTranslation(_ cr: OpaquePointer) -> Bool {
    var m = cairo_matrix_t()
    cairo_get_matrix(cr, &m)
    return m.xx == 1 && m.yy == 1 && m.xy == 0 && m.yx == 0 && m.x0 == m.x0.rounded() && m.y0 == m.y0.rounded()
}

/// A cairo image surface with its reference released on deinit (cairo counts references, so
/// a class is the honest wrapper).
public final class CairoImage: @unchecked Sendable {
    public let surface: OpaquePointer
    public var width: Int { Int(cairo_image_surface_get_width(surface)) }
    public var height: Int { Int(cairo_image_surface_get_height(surface)) }

    /// Takes ownership of one reference.
    init(owning surface: OpaquePointer) { self.surface = surface }
    deinit { cairo_surface_destroy(surface) }

    /// Decodes PNG bytes; nil if they are not a decodable PNG.
    public static func png(_ data: Data) -> CairoImage? {
        final class Reader { let bytes: [UInt8]; var offset = 0; init(_ d: Data) { bytes = [UInt8](d) } }
        let reader = Reader(data)
        let ctx = Unmanaged.passUnretained(reader).toOpaque()
        let surface = withExtendedLifetime(reader) {
            cairo_image_surface_create_from_png_stream({ closure, out, length in
                let r = Unmanaged<Reader>.fromOpaque(closure!).takeUnretainedValue()
                let n = Int(length)
                guard r.offset + n <= r.bytes.count, let out else { return CAIRO_STATUS_READ_ERROR }
                r.bytes.withUnsafeBufferPointer { src in
                    out.update(from: src.baseAddress! + r.offset, count: n)
                }
                r.offset += n
                return CAIRO_STATUS_SUCCESS
            }, ctx)
        }
        guard let surface else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return nil
        }
        return CairoImage(owning: surface)
    }

    /// The largest PNG file read: a ground overlay's 32 MiB (docs/limits.md).
    public static let maxFileBytes = 32 << 20

    /// Reads a PNG file; nil if unreadable.
    /// At most `maxFileBytes` are read (a larger file, a FIFO or a device is nil, unread).
    public static func pngFile(_ path: String) -> CairoImage? {
        guard let d = try? BoundedFile.read(path, maxBytes: maxFileBytes, what: "PNG image") else { return nil }
        return png(d)
    }

    /// Copies premultiplied ARGB32 pixels (0xAARRGGBB words, rows of `width`).
    public static func argb(_ pixels: [UInt32], width: Int, height: Int) -> CairoImage? {
        guard width > 0, height > 0, pixels.count >= width * height else { return nil }
        let s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))!
        guard cairo_surface_status(s) == CAIRO_STATUS_SUCCESS, let data = cairo_image_surface_get_data(s) else {
            cairo_surface_destroy(s)
            return nil
        }
        let stride = Int(cairo_image_surface_get_stride(s))
        pixels.withUnsafeBufferPointer { src in
            for y in 0..<height {
                UnsafeMutableRawPointer(data + y * stride).copyMemory(from: src.baseAddress! + y * width, byteCount: 4 * width)
            }
        }
        cairo_surface_mark_dirty(s)
        return CairoImage(owning: s)
    }

    /// A blank RGB24 surface (cairo-owned memory).
    static func rgb24(width: Int, height: Int) -> CairoImage {
        CairoImage(owning: cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height))!)
    }

    /// The colour at (x, y) as 0xAARRGGBB (premultiplied), for tests.
    public func pixel(x: Int, y: Int) -> UInt32 {
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        let data = cairo_image_surface_get_data(surface)!
        return UnsafeRawPointer(data).load(fromByteOffset: y * stride + 4 * x, as: UInt32.self)
    }
}
