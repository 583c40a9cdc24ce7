import CCairo
import Foundation
import MapEngine
import TouchCore

/// Draws the built-in world (land, borders, rivers) through a `GroundView`: parts are culled by
/// their bounding boxes, clipped in ground coordinates and projected vertex by vertex.
struct VectorMapPainter {
    let world: BuiltInWorld
    let style: MapStyle
    /// Off for interactive frames that cannot come from the cache (tilted): 2..3x faster, jaggier.
    var antialias = true

    /// The view's land, river and border paths, built once (projection, culling, clipping) so
    /// that several band threads can fill the same paths: cairo_path_t values the caller frees
    /// with `free()`.
    struct Paths: @unchecked Sendable {
        var land: UnsafeMutablePointer<cairo_path_t>?
        var rivers: UnsafeMutablePointer<cairo_path_t>?
        var borders: UnsafeMutablePointer<cairo_path_t>?
        func free() { for p in [land, rivers, borders] { if let p { cairo_path_destroy(p) } } }
    }

    func paths(view: GroundView, zoom: Double) -> Paths {
        // A path lives in device space as 24.8 fixed point; with the identity matrix, copying it
        // out and appending it again gives the same fixed-point values.
        let scratch = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 1, 1)!
        let cr = cairo_create(scratch)!
        defer { cairo_destroy(cr); cairo_surface_destroy(scratch) }
        var a: [Double] = [], b: [Double] = []
        a.reserveCapacity(4096); b.reserveCapacity(4096)
        var out = Paths()
        if let land = world.level("land", zoom: zoom) {
            cairo_new_path(cr)
            addPolygons(land, cr: cr, view: view, &a, &b)
            out.land = cairo_copy_path(cr)
        }
        if zoom >= 1.5, let rivers = world.level("rivers", zoom: zoom) {
            cairo_new_path(cr)
            addLines(rivers, cr: cr, view: view)
            out.rivers = cairo_copy_path(cr)
        }
        if let borders = world.level("borders", zoom: zoom) {
            cairo_new_path(cr)
            addLines(borders, cr: cr, view: view)
            out.borders = cairo_copy_path(cr)
        }
        return out
    }

    /// Fills and strokes paths built by `paths(view:zoom:)`, as `paint` does.
    func paint(cr: OpaquePointer, paths: Paths, zoom: Double) {
        cairo_set_antialias(cr, antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE)
        if let land = paths.land {
            cairo_new_path(cr)
            cairo_append_path(cr, land)
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
            cairo_set_source_rgb(cr, style.land.r, style.land.g, style.land.b)
            cairo_fill(cr)
        }
        if let rivers = paths.rivers {
            cairo_new_path(cr)
            cairo_append_path(cr, rivers)
            cairo_set_source_rgb(cr, style.river.r, style.river.g, style.river.b)
            cairo_set_line_width(cr, zoom >= 5 ? 1.5 : 1)
            cairo_stroke(cr)
        }
        if let borders = paths.borders {
            cairo_new_path(cr)
            cairo_append_path(cr, borders)
            cairo_set_source_rgb(cr, style.border.r, style.border.g, style.border.b)
            cairo_set_line_width(cr, zoom >= 4 ? 1.2 : 1)
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
            cairo_stroke(cr)
        }
    }

    func paint(cr: OpaquePointer, view: GroundView, zoom: Double) {
        var a: [Double] = [], b: [Double] = []
        a.reserveCapacity(4096); b.reserveCapacity(4096)
        cairo_set_antialias(cr, antialias ? CAIRO_ANTIALIAS_DEFAULT : CAIRO_ANTIALIAS_NONE)
        if let land = world.level("land", zoom: zoom) {
            cairo_new_path(cr)
            addPolygons(land, cr: cr, view: view, &a, &b)
            cairo_set_fill_rule(cr, CAIRO_FILL_RULE_EVEN_ODD)
            cairo_set_source_rgb(cr, style.land.r, style.land.g, style.land.b)
            cairo_fill(cr)
        }
        if zoom >= 1.5, let rivers = world.level("rivers", zoom: zoom) {
            cairo_new_path(cr)
            addLines(rivers, cr: cr, view: view)
            cairo_set_source_rgb(cr, style.river.r, style.river.g, style.river.b)
            cairo_set_line_width(cr, zoom >= 5 ? 1.5 : 1)
            cairo_stroke(cr)
        }
        if let borders = world.level("borders", zoom: zoom) {
            cairo_new_path(cr)
            addLines(borders, cr: cr, view: view)
            cairo_set_source_rgb(cr, style.border.r, style.border.g, style.border.b)
            cairo_set_line_width(cr, zoom >= 4 ? 1.2 : 1)
            cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND)
            cairo_stroke(cr)
        }
    }

    private func visible(_ part: BuiltInWorld.Part, scale: Double, k: Double, view: GroundView) -> Bool {
        let minX = Double(part.minX) * scale + k, maxX = Double(part.maxX) * scale + k
        let minY = Double(part.minY) * scale, maxY = Double(part.maxY) * scale
        return maxX >= view.worldMinX && minX <= view.worldMaxX && maxY >= view.worldMinY && minY <= view.worldMaxY
    }

    private func addPolygons(_ level: BuiltInWorld.Level, cr: OpaquePointer, view: GroundView,
                             _ pts: inout [Double], _ scratch: inout [Double]) {
        let scale = view.worldSize / BuiltInWorld.quantisation
        for copy in view.wrapCopies {
            let k = Double(copy) * view.worldSize
            for part in level.parts where visible(part, scale: scale, k: k, view: view) {
                pts.removeAll(keepingCapacity: true)
                var inside = true
                part.points.withUnsafeBufferPointer { q in
                    let n = q.count / 2
                    for i in 0..<n {
                        let (gx, gy) = view.ground(worldX: Double(q[2 * i]) * scale + k, worldY: Double(q[2 * i + 1]) * scale)
                        if gx < view.minGX || gx > view.maxGX || gy < view.minGY || gy > view.maxGY { inside = false }
                        pts.append(gx); pts.append(gy)
                    }
                }
                view.addRing(&pts, &scratch, inside: inside, to: cr)
            }
        }
    }

    private func addLines(_ level: BuiltInWorld.Level, cr: OpaquePointer, view: GroundView) {
        let scale = view.worldSize / BuiltInWorld.quantisation
        for copy in view.wrapCopies {
            let k = Double(copy) * view.worldSize
            for part in level.parts where visible(part, scale: scale, k: k, view: view) {
                part.points.withUnsafeBufferPointer { q in
                    let n = q.count / 2
                    var (px, py) = view.ground(worldX: Double(q[0]) * scale + k, worldY: Double(q[1]) * scale)
                    var penDown = false
                    for i in 1..<n {
                        let (gx, gy) = view.ground(worldX: Double(q[2 * i]) * scale + k, worldY: Double(q[2 * i + 1]) * scale)
                        if let s = RectClip.segment(px, py, gx, gy, minX: view.minGX, maxX: view.maxGX, minY: view.minGY, maxY: view.maxGY) {
                            if !penDown || s.4 {
                                let (ax, ay) = view.screen(s.0, s.1)
                                cairo_move_to(cr, ax, ay)
                            }
                            let (bx, by) = view.screen(s.2, s.3)
                            cairo_line_to(cr, bx, by)
                            penDown = !s.5
                        } else {
                            penDown = false
                        }
                        px = gx; py = gy
                    }
                }
            }
        }
    }
}
