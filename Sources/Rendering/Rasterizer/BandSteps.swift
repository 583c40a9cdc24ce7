import CCairo
import Foundation

/// A base map's layers as steps drawn straight into a band's rows 32 rows at a time through all
/// of them: a solid paint, fills (`FillRasterizer`) with their outlines, lines
/// (`LineRasterizer`). Each step draws a chunk of rows in order, then the next chunk, so a
/// chunk's rows stay in the cache from the first layer to the last (drawn layer by layer, each
/// layer took the band's rows through memory again: at 4K a whole frame is 33 MB). Every pixel
/// comes out as drawing the steps one after the other gives: a step's value of a pixel depends
/// on that pixel alone, in any chunks and bands.
struct BandSteps {
    enum Step {
        case paint(SolidBlend)
        /// A fill by number, then its outline's line layers.
        case fill(Int, outline: Range<Int>)
        /// Line layers, in order.
        case lines(Range<Int>)
    }

    private(set) var steps: [Step] = []
    private(set) var fills: [FillRasterizer.Fill] = []
    private(set) var lineLayers: [LineRasterizer.Layer] = []

    /// An opaque colour over every pixel.
    mutating func paint(_ c: RGBColor) {
        let p = LineRasterizer.pixel(c)
        steps.append(.paint(SolidBlend(r: p.r, g: p.g, b: p.b)))
    }

    /// A fill, then its outline (1 px lines) when given.
    mutating func fill(_ f: FillRasterizer.Fill, outline: LineRasterizer.Layer? = nil) {
        var range = lineLayers.count..<lineLayers.count
        if let outline {
            lineLayers.append(outline)
            range = range.lowerBound..<lineLayers.count
        }
        steps.append(.fill(fills.count, outline: range))
        fills.append(f)
    }

    /// Line layers drawn one after the other.
    mutating func lines(_ layers: [LineRasterizer.Layer]) {
        let start = lineLayers.count
        lineLayers += layers
        steps.append(.lines(start..<lineLayers.count))
    }

    /// Draws the steps (antialiased) into cr's target within its clip's rows. False, drawing
    /// nothing, when the target is not an XRGB8888 image, cr is moved or scaled (the steps are
    /// in device pixels), or the clip is narrower than the image (a band's clip spans it).
    func draw(cr: OpaquePointer) -> Bool {
        guard let target = cairo_get_target(cr), cairo_surface_get_type(target) == CAIRO_SURFACE_TYPE_IMAGE,
              cairo_image_surface_get_format(target) == CAIRO_FORMAT_RGB24, let data = cairo_image_surface_get_data(target) else { return false }
        var m = cairo_matrix_t()
        cairo_get_matrix(cr, &m)
        guard m.xx == 1, m.yy == 1, m.xy == 0, m.yx == 0, m.x0 == 0, m.y0 == 0 else { return false }
        let sw = Double(cairo_image_surface_get_width(target)), sh = Double(cairo_image_surface_get_height(target))
        var x0 = 0.0, y0 = 0.0, x1 = 0.0, y1 = 0.0
        cairo_clip_extents(cr, &x0, &y0, &x1, &y1)
        guard x0 <= 0, x1 >= sw else { return false }
        let r0 = Int(min(max(0, y0.rounded(.down)), sh)), r1 = Int(min(max(0, y1.rounded(.up)), sh))
        guard r0 < r1 else { return true }
        cairo_surface_flush(target)
        draw(pixels: UnsafeMutableRawPointer(data), stride: Int(cairo_image_surface_get_stride(target)), width: Int(sw), rows: r0..<r1)
        cairo_surface_mark_dirty(target)
        return true
    }

    /// Draws the steps into rows `rows` (columns 0..<width) of the XRGB8888 memory at `pixels` (row 0).
    func draw(pixels: UnsafeMutableRawPointer, stride: Int, width: Int, rows: Range<Int>) {
        guard width > 0, !rows.isEmpty else { return }
        let chunkedFills = fills.map { FillRasterizer.chunks($0, rows: rows) }
        let lines = LineRasterizer.chunked(layers: lineLayers, antialias: true, width: width, rows: rows)
        let chunkRows = FillRasterizer.chunkRows
        let chunkCount = (rows.count + chunkRows - 1) / chunkRows
        for c in 0..<chunkCount {
            let cy0 = rows.lowerBound + c * chunkRows, cy1 = min(rows.upperBound, cy0 + chunkRows)
            // A paint's colour not yet stored: carried past the steps that draw nothing in this
            // chunk to the first that does; a fill writes it with its own pixels
            // (`FillRasterizer.draw(over:)`: each pixel written once, not the paint's store and
            // then the fill's), anything else finds it stored first.
            var painted: UInt32?
            func store() {
                if let solid = painted { Self.paint(solid, rows: cy0..<cy1, pixels: pixels, stride: stride, width: width) }
                painted = nil
            }
            for step in steps {
                switch step {
                case let .paint(blend):
                    // (Opaque: it hides one still carried.)
                    painted = blend.solid
                case let .fill(i, outline):
                    if let chunks = chunkedFills[i], chunks.crosses(c) {
                        FillRasterizer.draw(fills[i], chunks, chunk: c, pixels: pixels, stride: stride, width: width, over: painted)
                        painted = nil
                    }
                    if let lines, LineRasterizer.reaches(lines, layers: outline, chunk: c) {
                        store()
                        LineRasterizer.draw(lines, layers: outline, chunk: c, pixels: pixels, stride: stride)
                    }
                case let .lines(range):
                    if let lines, LineRasterizer.reaches(lines, layers: range, chunk: c) {
                        store()
                        LineRasterizer.draw(lines, layers: range, chunk: c, pixels: pixels, stride: stride)
                    }
                }
            }
            store()
        }
        tb_store_fence()
    }

    /// Stores an opaque pixel over rows `rows` (columns 0..<width).
    private static func paint(_ solid: UInt32, rows: Range<Int>, pixels: UnsafeMutableRawPointer, stride: Int, width: Int) {
        for y in rows {
            let row = (pixels + y * stride).assumingMemoryBound(to: UInt32.self)
            for x in 0..<width { row[x] = solid }
        }
    }
}
