import Foundation
import CCairo
import TouchCore
import Rendering
import TouchBridge

/// Simple drawing over a frame for the bench tools (calibration targets, contact trails, status
/// text): cairo on the frame's memory, pango for text.
public final class Canvas {
    let surface: OpaquePointer
    let cr: OpaquePointer
    let layout: OpaquePointer
    public let width: Int, height: Int

    public init(_ frame: FrameBuffer) {
        width = frame.width; height = frame.height
        surface = cairo_image_surface_create_for_data(frame.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                      Int32(frame.width), Int32(frame.height), Int32(frame.stride))
        cr = cairo_create(surface)
        layout = pango_cairo_create_layout(cr)
    }

    deinit {
        g_object_unref(UnsafeMutableRawPointer(layout))
        cairo_destroy(cr)
        cairo_surface_flush(surface)
        cairo_surface_destroy(surface)
    }

    public func color(_ r: Double, _ g: Double, _ b: Double, _ a: Double = 1) { cairo_set_source_rgba(cr, r, g, b, a) }
    public func fill() { cairo_paint(cr) }
    public func rect(_ x: Double, _ y: Double, _ w: Double, _ h: Double) { cairo_rectangle(cr, x, y, w, h); cairo_fill(cr) }
    public func circle(_ p: Point, _ r: Double, filled: Bool = true, width lw: Double = 2) {
        cairo_new_path(cr)
        cairo_arc(cr, p.x, p.y, r, 0, 2 * .pi)
        if filled { cairo_fill(cr) } else { cairo_set_line_width(cr, lw); cairo_stroke(cr) }
    }
    public func line(_ pts: [Point], width lw: Double = 2) {
        guard let first = pts.first else { return }
        cairo_new_path(cr)
        cairo_move_to(cr, first.x, first.y)
        for p in pts.dropFirst() { cairo_line_to(cr, p.x, p.y) }
        cairo_set_line_width(cr, lw)
        cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_cap(cr, CAIRO_LINE_CAP_ROUND)
        cairo_stroke(cr)
    }
    public func cross(_ p: Point, size: Double = 24) {
        line([Point(x: p.x - size, y: p.y), Point(x: p.x + size, y: p.y)], width: 2)
        line([Point(x: p.x, y: p.y - size), Point(x: p.x, y: p.y + size)], width: 2)
        circle(p, size / 2, filled: false)
    }

    /// Another frame, scaled to fill this one.
    public func image(_ frame: FrameBuffer) {
        let src = cairo_image_surface_create_for_data(frame.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                      Int32(frame.width), Int32(frame.height), Int32(frame.stride))!
        defer { cairo_surface_destroy(src) }
        cairo_save(cr)
        cairo_scale(cr, Double(width) / Double(frame.width), Double(height) / Double(frame.height))
        cairo_set_source_surface(cr, src, 0, 0)
        cairo_paint(cr)
        cairo_restore(cr)
    }

    /// Text at (x, y) (top left); returns its size.
    @discardableResult
    public func text(_ s: String, at p: Point, font: String = "DejaVu Sans 14", maxWidth: Double? = nil) -> Size {
        let desc = pango_font_description_from_string(font)
        defer { pango_font_description_free(desc) }
        pango_layout_set_font_description(layout, desc)
        pango_layout_set_width(layout, maxWidth.map { Int32($0) * PANGO_SCALE } ?? -1)
        pango_layout_set_text(layout, s, -1)
        cairo_move_to(cr, p.x, p.y)
        pango_cairo_show_layout(cr, layout)
        var w: Int32 = 0, h: Int32 = 0
        pango_layout_get_pixel_size(layout, &w, &h)
        return Size(width: Double(w), height: Double(h))
    }

    /// Lines of text in a translucent box at the top left.
    public func statusBox(at origin: Point = Point(x: 12, y: 12), _ lines: [String]) {
        guard !lines.isEmpty else { return }
        let lineH = 22.0
        let w = min(Double(width) - 24, 760)
        color(1, 1, 1, 0.85)
        rect(origin.x, origin.y, w, lineH * Double(lines.count) + 12)
        color(0.1, 0.1, 0.12)
        for (i, l) in lines.enumerated() {
            text(l, at: Point(x: origin.x + 8, y: origin.y + 6 + Double(i) * lineH), font: "DejaVu Sans Mono 13", maxWidth: w - 16)
        }
    }
}
