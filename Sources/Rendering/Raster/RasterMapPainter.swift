import CCairo
import Foundation
import MapEngine

/// Draws MBTiles raster tiles through a `GroundView`. Flat and unrotated: each tile is one
/// blit (at whole pixels when the zoom is whole). Rotated: one affine blit per tile. Tilted:
/// each tile is split into cells, each drawn with the affine map of its projected corners and
/// clipped to its projected quad, a piecewise approximation of the perspective.
struct RasterMapPainter {
    let source: RasterTileSource
    /// Interactive frames: nearest-pixel sampling and aliased cell edges (several times faster).
    var fast = false
    /// Most tiles drawn per frame; the tile zoom drops a level while more would be needed.
    static let maxTiles = 160

    func paint(cr: OpaquePointer, view: GroundView, zoom: Double) {
        let meta = source.tiles.metadata
        var tz = max(meta.minZoom, Int(zoom.rounded()))
        func count(_ z: Int) -> Int {
            let span = view.worldSize / Double(1 << z)    // one tile's size on screen at the camera zoom
            let nx = Int(ceil((view.worldMaxX - view.worldMinX) / span)) + 1
            let ny = Int(ceil((min(view.worldMaxY, view.worldSize) - max(view.worldMinY, 0)) / span)) + 1
            return nx * max(ny, 0)
        }
        while tz > meta.minZoom && count(tz) > RasterMapPainter.maxTiles { tz -= 1 }
        guard let grid = TileGrid(view: view, z: tz, bounds: meta.bounds, limit: 2 * RasterMapPainter.maxTiles) else { return }
        let n = 1 << tz
        let span = view.worldSize / Double(n)
        let flat = !view.tilted
        let upright = flat && view.sinB == 0 && view.cosB == 1
        for ty in grid.rows {
            for txWrapped in grid.columns.joined() {
                let tx = ((txWrapped % n) + n) % n
                guard let found = source.find(z: tz, x: tx, y: ty) else { continue }
                let wx = Double(txWrapped) * span, wy = Double(ty) * span
                if upright {
                    let (gx, gy) = view.ground(worldX: wx, worldY: wy)
                    let (sx, sy) = view.screen(gx, gy)
                    drawAffine(cr, found, u0: 0, v0: 0, u1: 1, v1: 1,
                               p00: (sx, sy), p10: (sx + span, sy), p01: (sx, sy + span), clip: nil)
                    continue
                }
                let cells = flat ? 1 : cellCount(view: view, wx: wx, wy: wy, span: span)
                for cy in 0..<cells { for cx in 0..<cells {
                    let u0 = Double(cx) / Double(cells), u1 = Double(cx + 1) / Double(cells)
                    let v0 = Double(cy) / Double(cells), v1 = Double(cy + 1) / Double(cells)
                    let g00 = view.ground(worldX: wx + u0 * span, worldY: wy + v0 * span)
                    let g10 = view.ground(worldX: wx + u1 * span, worldY: wy + v0 * span)
                    let g01 = view.ground(worldX: wx + u0 * span, worldY: wy + v1 * span)
                    let g11 = view.ground(worldX: wx + u1 * span, worldY: wy + v1 * span)
                    let gs = [g00, g10, g01, g11]
                    // Skip cells entirely outside the ground clip (beyond the far line or off screen).
                    if gs.allSatisfy({ $0.1 < view.minGY }) || gs.allSatisfy({ $0.1 > view.maxGY })
                        || gs.allSatisfy({ $0.0 < view.minGX }) || gs.allSatisfy({ $0.0 > view.maxGX }) { continue }
                    // Tilted, a corner beyond the far line is pulled onto it (the cell's quad clips
                    // the rest). Flat there is no far line: a turned tile's corners off screen stay
                    // where they are, or the tile is squeezed and leaves wedges of world showing.
                    func clampG(_ g: (Double, Double)) -> (Double, Double) { flat ? g : (g.0, min(max(g.1, view.minGY), view.maxGY)) }
                    let s = gs.map { view.screen(clampG($0).0, clampG($0).1) }
                    drawAffine(cr, found, u0: u0, v0: v0, u1: u1, v1: v1, p00: s[0], p10: s[1], p01: s[2],
                               clip: flat && cells == 1 ? nil : [s[0], s[1], s[3], s[2]], wholeTile: cells > 1)
                }}
            }
        }
    }

    /// Cells per side for a tilted tile: the fewest for which the affine approximation of the
    /// perspective is within 1.5 px, at most 4 (the error shrinks with the square of the cell size).
    private func cellCount(view: GroundView, wx: Double, wy: Double, span: Double) -> Int {
        func screen(_ x: Double, _ y: Double) -> (Double, Double) {
            let g = view.ground(worldX: x, worldY: y)
            return view.screen(g.0, min(max(g.1, view.minGY), view.maxGY))
        }
        let p00 = screen(wx, wy), p10 = screen(wx + span, wy), p01 = screen(wx, wy + span), p11 = screen(wx + span, wy + span)
        let ex = p11.0 - (p10.0 + p01.0 - p00.0), ey = p11.1 - (p10.1 + p01.1 - p00.1)
        let error = (ex * ex + ey * ey).squareRoot()    // px, for the whole tile as one cell
        for n in [1, 2] where error / Double(n * n) < 1.5 { return n }
        return 4
    }

    /// Draws the part (u0...u1, v0...v1 of the tile, 0...1) of a found tile so that its corners
    /// land at p00 (top left), p10 (top right), p01 (bottom left). A palette tile is expanded
    /// only where this draw can reach it (the clip, e.g. a pan strip of the base map); with
    /// `wholeTile` (the cells of a tilted tile, drawn one after another) its whole part at once.
    private func drawAffine(_ cr: OpaquePointer, _ f: RasterTileSource.Found, u0: Double, v0: Double, u1: Double, v1: Double,
                            p00: (Double, Double), p10: (Double, Double), p01: (Double, Double), clip: [(Double, Double)]?,
                            wholeTile: Bool = false) {
        let srcX = f.sourceX + u0 * f.sourceSize, srcY = f.sourceY + v0 * f.sourceSize
        let srcW = (u1 - u0) * f.sourceSize, srcH = (v1 - v0) * f.sourceSize
        cairo_save(cr)
        if let q = clip {
            // Grow the quad by half a pixel about its centre so neighbouring cells leave no seam.
            let cx = q.map(\.0).reduce(0, +) / 4, cy = q.map(\.1).reduce(0, +) / 4
            cairo_new_path(cr)
            for (i, p) in q.enumerated() {
                let dx = p.0 - cx, dy = p.1 - cy, len = max((dx * dx + dy * dy).squareRoot(), 1e-9)
                let x = p.0 + 0.7 * dx / len, y = p.1 + 0.7 * dy / len
                if i == 0 { cairo_move_to(cr, x, y) } else { cairo_line_to(cr, x, y) }
            }
            cairo_close_path(cr)
            if fast { cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE) }
            cairo_clip(cr)
        }
        // Matrix from source pixels to screen.
        var m = cairo_matrix_t()
        let xx = (p10.0 - p00.0) / srcW, yx = (p10.1 - p00.1) / srcW
        let xy = (p01.0 - p00.0) / srcH, yy = (p01.1 - p00.1) / srcH
        cairo_matrix_init(&m, xx, yx, xy, yy, p00.0 - xx * srcX - xy * srcY, p00.1 - yx * srcX - yy * srcY)
        cairo_transform(cr, &m)
        // The tile's pixels this draw can sample: its part (srcX, srcY, srcW, srcH) within the
        // clip's bounding box in tile pixels, 2 px wider for bilinear sampling's neighbours.
        var (x0, y0) = (f.sourceX, f.sourceY), (x1, y1) = (f.sourceX + f.sourceSize, f.sourceY + f.sourceSize)
        if !wholeTile {
            var cx0 = 0.0, cy0 = 0.0, cx1 = 0.0, cy1 = 0.0
            cairo_clip_extents(cr, &cx0, &cy0, &cx1, &cy1)
            x0 = max(x0, cx0); y0 = max(y0, cy0); x1 = min(x1, cx1); y1 = min(y1, cy1)
            if !(x0 < x1 && y0 < y1) { cairo_restore(cr); return }
        }
        let region = (x0: Int(floor(x0)) - 2, y0: Int(floor(y0)) - 2, x1: Int(ceil(x1)) + 2, y1: Int(ceil(y1)) + 2)
        let image = source.surface(for: f.pixels, region: region)
        cairo_set_source_surface(cr, image.surface, 0, 0)
        let pattern = cairo_get_source(cr)
        let scale = abs(xx * yy - xy * yx)
        cairo_pattern_set_filter(pattern, abs(scale - 1) < 1e-6 && yx == 0 && xy == 0 ? CAIRO_FILTER_NEAREST : (fast ? CAIRO_FILTER_FAST : CAIRO_FILTER_BILINEAR))
        cairo_pattern_set_extend(pattern, CAIRO_EXTEND_PAD)
        if clip == nil {
            // Pixel-centre sampling: neighbouring tiles share their edges exactly, no seams.
            cairo_set_antialias(cr, CAIRO_ANTIALIAS_NONE)
            cairo_rectangle(cr, srcX, srcY, srcW, srcH)
            cairo_fill(cr)
        } else {
            cairo_paint(cr)
        }
        cairo_restore(cr)
    }
}
