import Foundation
import CCairo

/// A contact sheet: PNG frames as thumbnails in a grid, each with a caption below, written as
/// one PNG (the demo's overview of its tour).
package enum ContactSheet {
    public struct SheetError: Error, CustomStringConvertible {
        public let description: String
    }

    public static func write(frames: [(path: String, caption: String)], to output: String,
                             columns: Int = 4, thumbWidth: Int = 400) throws {
        guard !frames.isEmpty else { throw SheetError(description: "no frames for the contact sheet") }
        var images: [OpaquePointer] = []
        defer { images.forEach { cairo_surface_destroy($0) } }
        for f in frames {
            guard let s = cairo_image_surface_create_from_png(f.path), cairo_surface_status(s) == CAIRO_STATUS_SUCCESS else {
                throw SheetError(description: "cannot read frame \(f.path) for the contact sheet")
            }
            images.append(s)
        }
        let w0 = Double(cairo_image_surface_get_width(images[0])), h0 = Double(cairo_image_surface_get_height(images[0]))
        let scale = Double(thumbWidth) / w0
        let thumbH = Int((h0 * scale).rounded())
        let captionH = 44, pad = 12
        let cols = min(columns, frames.count)
        let rows = (frames.count + cols - 1) / cols
        let width = cols * thumbWidth + (cols + 1) * pad
        let height = rows * (thumbH + captionH) + (rows + 1) * pad
        guard let sheet = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else {
            throw SheetError(description: "cannot allocate a \(width)x\(height) contact sheet")
        }
        defer { cairo_surface_destroy(sheet) }
        let cr = cairo_create(sheet)!
        defer { cairo_destroy(cr) }
        cairo_set_source_rgb(cr, 0.13, 0.14, 0.16)
        cairo_paint(cr)
        let layout = pango_cairo_create_layout(cr)!
        defer { g_object_unref(UnsafeMutableRawPointer(layout)) }
        let font = pango_font_description_from_string("DejaVu Sans 11")
        defer { pango_font_description_free(font) }
        pango_layout_set_font_description(layout, font)
        pango_layout_set_width(layout, Int32(thumbWidth) * PANGO_SCALE)
        pango_layout_set_ellipsize(layout, PANGO_ELLIPSIZE_END)
        for (i, img) in images.enumerated() {
            let col = i % cols, row = i / cols
            let x = Double(pad + col * (thumbWidth + pad))
            let y = Double(pad + row * (thumbH + captionH + pad))
            cairo_save(cr)
            cairo_translate(cr, x, y)
            cairo_scale(cr, scale, scale)
            cairo_set_source_surface(cr, img, 0, 0)
            cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD)
            cairo_paint(cr)
            cairo_restore(cr)
            cairo_set_source_rgb(cr, 0.92, 0.93, 0.95)
            pango_layout_set_text(layout, "\(i + 1). \(frames[i].caption)", -1)
            cairo_move_to(cr, x, y + Double(thumbH) + 6)
            pango_cairo_show_layout(cr, layout)
        }
        cairo_surface_flush(sheet)
        let status = cairo_surface_write_to_png(sheet, output)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw SheetError(description: "cannot write \(output): \(String(cString: cairo_status_to_string(status)))")
        }
    }
}
