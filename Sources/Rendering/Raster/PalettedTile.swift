import CCairo
import CPNG
import Foundation
import Platform

/// A palette PNG tile kept as it is stored: packed indices (1, 2, 4 or 8 bits a pixel) and a
/// table of the 256 cairo pixels they stand for, a quarter to a thirty-second of the 4-byte
/// image. `expand(into:)` writes the very pixels cairo's PNG reader would have produced: the
/// table is built with its formulae (RGB24 without tRNS, premultiplied ARGB32 with it).
public final class PalettedTile: @unchecked Sendable {
    public let width: Int, height: Int
    /// Bits an index: 1, 2, 4 or 8.
    public let depth: Int
    let rowBytes: Int
    let rows: [UInt8]
    /// Cairo pixels (0xAARRGGBB words) by index; entries past the palette are opaque black,
    /// as libpng's 256-entry zero-filled palette gives them.
    let table: [UInt32]
    /// RGB24 when the PNG has no tRNS chunk, ARGB32 when it has one (as cairo decides).
    public let format: cairo_format_t

    /// Bytes held: the packed indices and the table.
    public var bytes: Int { rows.count + table.count * 4 }

    init(width: Int, height: Int, depth: Int, rowBytes: Int, rows: [UInt8], table: [UInt32], format: cairo_format_t) {
        self.width = width; self.height = height; self.depth = depth
        self.rowBytes = rowBytes; self.rows = rows; self.table = table; self.format = format
    }

    /// Decodes a palette PNG whose IHDR says width x height at `depth` bits (checked by the
    /// caller). Throws libpng's message for a PNG cairo would refuse.
    static func decode(_ data: Data, width: Int, height: Int, depth: Int) throws -> PalettedTile {
        let rowBytes = (width * depth + 7) / 8
        var rows = [UInt8](repeating: 0, count: rowBytes * height)
        var rgb = [UInt8](repeating: 0, count: 768), alpha = [UInt8](repeating: 255, count: 256)
        var numPalette: Int32 = 0, numTrans: Int32 = -1
        var message = [CChar](repeating: 0, count: 200)
        let bytes = [UInt8](data)
        let status = rows.withUnsafeMutableBufferPointer { out in
            tb_png_read_palette(bytes, UInt(bytes.count), out.baseAddress, Int32(width), Int32(height), Int32(depth),
                                UInt(rowBytes), &rgb, &numPalette, &alpha, &numTrans, &message, Int32(message.count))
        }
        guard status == 0 else {
            throw TileImageDecoder.Failure.corrupt(format: "PNG", reason: "libpng: " + String(cChars: message))
        }
        let hasAlpha = numTrans >= 0
        // cairo-png.c's multiply_alpha: (a * c + 0x80), then (t + (t >> 8)) >> 8.
        func premultiply(_ a: UInt32, _ c: UInt32) -> UInt32 { let t = a * c + 0x80; return (t + (t >> 8)) >> 8 }
        var table = [UInt32](repeating: 0, count: 256)
        for i in 0..<256 {
            let r = UInt32(rgb[3 * i]), g = UInt32(rgb[3 * i + 1]), b = UInt32(rgb[3 * i + 2])
            if !hasAlpha {
                table[i] = 0xff00_0000 | r << 16 | g << 8 | b
                continue
            }
            let a = UInt32(alpha[i])
            if a == 0 { table[i] = 0 } else if a == 255 { table[i] = a << 24 | r << 16 | g << 8 | b } else {
                table[i] = a << 24 | premultiply(a, r) << 16 | premultiply(a, g) << 8 | premultiply(a, b)
            }
        }
        return PalettedTile(width: width, height: height, depth: depth, rowBytes: rowBytes, rows: rows, table: table,
                            format: hasAlpha ? CAIRO_FORMAT_ARGB32 : CAIRO_FORMAT_RGB24)
    }

    /// The compact form of a palette PNG tile, nil for any other image (for `bench` and
    /// tests); throws what the tile decoder throws for a bad tile.
    public static func decode(png data: Data) throws -> PalettedTile? {
        if case let .palette(p) = try TileImageDecoder.decodeCompact(data) { return p }
        return nil
    }

    /// A new cairo image of the tile's pixels.
    public func expanded() -> CairoImage {
        let image = CairoImage(owning: cairo_image_surface_create(format, Int32(width), Int32(height))!)
        expand(into: image)
        return image
    }

    /// Whether `image` can take this tile's pixels (same size and format).
    public func fits(_ image: CairoImage) -> Bool {
        cairo_image_surface_get_format(image.surface) == format && image.width == width && image.height == height
    }

    /// Writes the tile's pixels into `image`, which `fits` it.
    public func expand(into image: CairoImage) {
        expand(into: image, x0: 0, y0: 0, x1: width, y1: height)
    }

    /// Writes the tile's pixels of columns x0..<x1 and rows y0..<y1 (within the tile) into the
    /// same place of `image`, which `fits` it; the rest of `image` is left as it was. Packed
    /// indices are expanded by whole bytes, so a few columns either side may be written too
    /// (with this tile's pixels).
    public func expand(into image: CairoImage, x0: Int, y0: Int, x1: Int, y1: Int) {
        let surface = image.surface
        cairo_surface_flush(surface)
        guard let data = cairo_image_surface_get_data(surface), x0 < x1, y0 < y1,
              x0 >= 0, y0 >= 0, x1 <= width, y1 <= height else { return }
        let stride = Int(cairo_image_surface_get_stride(surface))
        let depth = self.depth, rowBytes = self.rowBytes
        if depth == 8 {
            table.withUnsafeBufferPointer { lut in
                rows.withUnsafeBufferPointer { src in
                    for y in y0..<y1 {
                        let out = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                        let row = src.baseAddress! + y * rowBytes
                        for x in x0..<x1 { out[x] = lut[Int(row[x])] }
                    }
                }
            }
        } else {
            // Packed indices: a table of the pixels each byte value stands for (8 / depth of
            // them, most significant bits first), so a byte is one look-up and a copy.
            let perByte = 8 / depth, mask = (1 << depth) - 1
            var byteTable = [UInt32](repeating: 0, count: 256 * perByte)
            for b in 0..<256 { for k in 0..<perByte { byteTable[b * perByte + k] = table[(b >> (8 - depth * (k + 1))) & mask] } }
            // The bytes holding columns x0..<x1; the last byte of a row may hold fewer pixels.
            let firstByte = x0 / perByte, endByte = (x1 + perByte - 1) / perByte
            let w = width, lastPartial = w % perByte != 0 && endByte == rowBytes
            let whole = lastPartial ? endByte - 1 : endByte
            byteTable.withUnsafeBufferPointer { bt in
                rows.withUnsafeBufferPointer { src in
                    for y in y0..<y1 {
                        var out = UnsafeMutableRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self) + firstByte * perByte
                        let row = src.baseAddress! + y * rowBytes
                        let t = bt.baseAddress!
                        if firstByte < whole {
                            switch perByte {
                            case 2:
                                for i in firstByte..<whole { let p = t + Int(row[i]) * 2; out[0] = p[0]; out[1] = p[1]; out += 2 }
                            case 4:
                                for i in firstByte..<whole { let p = t + Int(row[i]) * 4; out[0] = p[0]; out[1] = p[1]; out[2] = p[2]; out[3] = p[3]; out += 4 }
                            default:
                                for i in firstByte..<whole {
                                    let p = t + Int(row[i]) * 8
                                    out[0] = p[0]; out[1] = p[1]; out[2] = p[2]; out[3] = p[3]
                                    out[4] = p[4]; out[5] = p[5]; out[6] = p[6]; out[7] = p[7]
                                    out += 8
                                }
                            }
                        }
                        if lastPartial { out.update(from: t + Int(row[whole]) * perByte, count: w % perByte) }
                    }
                }
            }
        }
        cairo_surface_mark_dirty(surface)
    }
}
