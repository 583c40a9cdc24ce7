import CCairo
import CJPEG
import CPNG
import CWebP
import Foundation
import Platform
import TileSources

/// Decodes raster tiles (PNG with cairo, JPEG with libjpeg-turbo, WebP with libwebp) into
/// cairo images. Sizes are read from the header and checked before any pixel is decoded, so
/// an oversized or lying tile costs nothing but a message.
enum TileImageDecoder {
    enum Failure: Error, CustomStringConvertible, Equatable {
        case tooLarge(width: Int, height: Int)
        case corrupt(format: String, reason: String)
        case unknownFormat
        var description: String {
            switch self {
            case let .tooLarge(w, h): return "its image is \(w)x\(h) px, larger than the \(TileLimits.maxImageSide) px allowed"
            case let .corrupt(f, why): return "it is not a decodable \(f) (\(why))"
            case .unknownFormat: return "it is in an unknown image format (PNG, JPEG and WebP are read)"
            }
        }
    }

    /// A decoded tile: palette PNGs stay compact (`PalettedTile`), every other tile is a cairo
    /// image.
    enum Decoded {
        case image(CairoImage)
        case palette(PalettedTile)
    }

    static func decodeCompact(_ data: Data) throws -> Decoded {
        guard data.count <= TileLimits.maxStoredTileBytes else { throw Failure.corrupt(format: "image", reason: "\(data.count) bytes") }
        switch TileImageFormat.sniff(data) {
        case .png:
            let (w, h, depth, colourType) = try pngHeader(data)
            if colourType == 3 && [1, 2, 4, 8].contains(depth) {
                return .palette(try PalettedTile.decode(data, width: w, height: h, depth: depth))
            }
            return .image(try png(data))
        case .jpeg: return .image(try jpeg(data))
        case .webp: return .image(try webp(data))
        case .unknown: throw Failure.unknownFormat
        }
    }

    /// The tile as a cairo image (palette tiles expanded).
    static func decode(_ data: Data) throws -> CairoImage {
        switch try decodeCompact(data) {
        case let .image(img): return img
        case let .palette(p): return p.expanded()
        }
    }

    static func checkSize(_ w: Int, _ h: Int) throws {
        guard w > 0, h > 0, w <= TileLimits.maxImageSide, h <= TileLimits.maxImageSide else { throw Failure.tooLarge(width: w, height: h) }
    }

    /// PNG: the IHDR chunk (bytes 16..25) holds width, height, bit depth and colour type;
    /// the size is checked before anything is decoded.
    static func pngHeader(_ data: Data) throws -> (width: Int, height: Int, depth: Int, colourType: Int) {
        let b = [UInt8](data.prefix(26))
        guard b.count == 26, b[12...15].elementsEqual(Array("IHDR".utf8)) else { throw Failure.corrupt(format: "PNG", reason: "no IHDR header") }
        func be(_ o: Int) -> Int { Int(b[o]) << 24 | Int(b[o + 1]) << 16 | Int(b[o + 2]) << 8 | Int(b[o + 3]) }
        try checkSize(be(16), be(20))
        return (be(16), be(20), Int(b[24]), Int(b[25]))
    }

    static func png(_ data: Data) throws -> CairoImage {
        _ = try pngHeader(data)
        guard let img = CairoImage.png(data) else { throw Failure.corrupt(format: "PNG", reason: "cairo could not decode it") }
        return img
    }

    static func jpeg(_ data: Data) throws -> CairoImage {
        let bytes = [UInt8](data)
        var message = [CChar](repeating: 0, count: 200)
        var w: Int32 = 0, h: Int32 = 0
        guard tb_jpeg_size(bytes, UInt(bytes.count), &w, &h, &message, Int32(message.count)) == 0 else {
            throw Failure.corrupt(format: "JPEG", reason: String(cChars: message))
        }
        try checkSize(Int(w), Int(h))
        let image = CairoImage.rgb24(width: Int(w), height: Int(h))
        cairo_surface_flush(image.surface)
        guard let pixels = cairo_image_surface_get_data(image.surface) else { throw Failure.corrupt(format: "JPEG", reason: "no memory") }
        let stride = cairo_image_surface_get_stride(image.surface)
        guard tb_jpeg_decode_bgrx(bytes, UInt(bytes.count), pixels, w, h, stride, &message, Int32(message.count)) == 0 else {
            throw Failure.corrupt(format: "JPEG", reason: String(cChars: message))
        }
        cairo_surface_mark_dirty(image.surface)
        return image
    }

    static func webp(_ data: Data) throws -> CairoImage {
        let bytes = [UInt8](data)
        var w: Int32 = 0, h: Int32 = 0
        guard WebPGetInfo(bytes, bytes.count, &w, &h) != 0 else { throw Failure.corrupt(format: "WebP", reason: "bad header") }
        try checkSize(Int(w), Int(h))
        // Cairo's ARGB32 is premultiplied B, G, R, A bytes on little-endian machines.
        let surface = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h)!
        let image = CairoImage(owning: surface)
        guard let pixels = cairo_image_surface_get_data(surface) else { throw Failure.corrupt(format: "WebP", reason: "no memory") }
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard WebPDecodeBGRAInto(bytes, bytes.count, pixels, stride * Int(h), Int32(stride)) != nil else {
            throw Failure.corrupt(format: "WebP", reason: "libwebp could not decode it")
        }
        // libwebp gives straight alpha: premultiply for cairo.
        for y in 0..<Int(h) {
            let row = pixels + y * stride
            for x in 0..<Int(w) {
                let p = row + 4 * x
                let a = UInt32(p[3])
                if a == 255 { continue }
                p[0] = UInt8((UInt32(p[0]) * a + 127) / 255)
                p[1] = UInt8((UInt32(p[1]) * a + 127) / 255)
                p[2] = UInt8((UInt32(p[2]) * a + 127) / 255)
            }
        }
        cairo_surface_mark_dirty(surface)
        return image
    }
}
