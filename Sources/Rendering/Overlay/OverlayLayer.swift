import CCairo
import Foundation
import MapEngine
import TouchCore

/// What the shapes, the route, place names, puck, markers and info window change on the base map, for a world rectangle
/// a little larger than the screen at one zoom, kept sparse: the rectangle is cut into square
/// tiles of `tileSize` px and only a tile where something is drawn holds pixels (the base map
/// with the names and markers drawn on it, as the whole layer used to hold them everywhere); a
/// tile with nothing on it is the base map itself and holds none. A pan frame takes each run of
/// empty tiles from the base-map cache's rows and each held tile from its own (`compose`): the
/// same bytes a whole layer gave, for the tiles' share of memory (at 1080p with the world's
/// names about 2 MiB instead of a 12.5 MiB second copy of the base map).
///
/// The rectangle is a torus, as the base-map cache is: world pixel (originX + i, originY + j)
/// lives at layer pixel ((phaseX + i) mod width, (phaseY + j) mod height), and the tile grid is
/// fixed in layer pixels. When the view drifts `scrollStep` px from the layer's centre the layer
/// follows it and only the strips that come in are drawn (their base map copied into scratch
/// rows, the names and markers that reach them drawn, clipped, and each tile kept only where the
/// result differs from the base map); the names are placed over the world per zoom
/// (`WorldLabels`), so a strip shows what a layer drawn whole there shows. It is drawn whole only
/// when what it shows changes (markers, info window, zoom, text scale, the base map) or the view
/// jumps more than half of it.
final class OverlayLayer {
    /// The tiles' side in px: small enough that a name holds little more than its own box,
    /// large enough that a pan frame copies few pieces (measured in docs/benchmarks.md,
    /// "Memory, session 5").
    static let tileSize = 64
    let width: Int, height: Int
    let columns: Int, rows: Int
    private(set) var zoom = -1.0
    /// World pixel (at `zoom`) of the layer's top left corner.
    private(set) var originX = 0, originY = 0
    /// Where that corner is in the layer.
    private(set) var phaseX = 0, phaseY = 0
    private(set) var markers: [MarkerSprite] = []
    private(set) var infoWindow: InfoWindowScene?
    private(set) var overlays: [Overlay] = []
    private(set) var route: RouteDrawing?
    private(set) var puck: PuckDrawing?
    private(set) var baseGeneration = -1
    /// The names it draws, placed over the world at its zoom.
    private(set) var labels: WorldLabels?
    private(set) var valid = false
    /// The markers' world pixels at `zoom`, worked out once per reset (a chunk draws only the
    /// markers near it; `MapRenderer.drawLayer`).
    var markerPoints: [Point]?

    /// Row-major, `columns` x `rows`: a tile's pixels (XRGB8888, `tileSize` px a row) or nil
    /// where the layer is the base map.
    private var tiles: [UnsafeMutableRawPointer?]
    /// Tiles no longer used, kept for the next tile that needs pixels (no heap churn).
    private var spare: [UnsafeMutableRawPointer] = []
    /// Scratch rows a rectangle is drawn in (the base map, then the overlay on it), with
    /// `scratchPad` px of room on every side.
    private var drawn: UnsafeMutableRawPointer?
    /// One tile's base map, to tell where the overlay changed it.
    private var probe: UnsafeMutableRawPointer?
    /// A rectangle is drawn on a surface this much larger on every side, without a clip, and only
    /// its own pixels are kept: cairo leaves out a run of glyphs whose estimated extents miss the
    /// surface (or the clip), and the estimate can be a row short of the ink, so a glyph cut by a
    /// chunk's edge lost its last row in one chunk (a layer drawn in chunks then differed from one
    /// drawn whole by 8 pixels of a name).
    static let scratchPad = 8
    private var scratchPixels: Int { (width + 2 * OverlayLayer.scratchPad) * (OverlayLayer.tileSize + 2 * OverlayLayer.scratchPad) }
    private static var tileBytes: Int { tileSize * tileSize * 4 }

    /// Tiles that hold pixels now.
    private(set) var heldTiles = 0
    /// Every tile in the grid.
    var tileCount: Int { columns * rows }
    /// The layer's memory: held and spare tiles and the scratch rows.
    var bytes: Int { (heldTiles + spare.count + (probe == nil ? 0 : 1)) * OverlayLayer.tileBytes + (drawn == nil ? 0 : scratchPixels * 4) }

    /// Pixels the layer extends beyond each screen edge: room to pan before it must scroll. Twice
    /// the scroll step, so a pan of up to a step a frame never reaches its edge; the base-map
    /// cache's margin is this plus its own step (see MapRenderer.cacheMargin), so the smaller
    /// this is, the smaller the cache.
    static func margin(width: Int, height: Int) -> Int { 2 * scrollStep }

    /// Pixels the view may drift from the layer's centre before the layer follows it. With the
    /// base cache's own step (96) this keeps the layer inside the base cache, whose margin is
    /// the layer's plus 128, so a strip's base map is always there to copy.
    static let scrollStep = 32

    init(width: Int, height: Int) {
        let m = OverlayLayer.margin(width: width, height: height)
        self.width = width + 2 * m
        self.height = height + 2 * m
        columns = (self.width + OverlayLayer.tileSize - 1) / OverlayLayer.tileSize
        rows = (self.height + OverlayLayer.tileSize - 1) / OverlayLayer.tileSize
        tiles = Array(repeating: nil, count: columns * rows)
    }

    deinit {
        for t in tiles { t?.deallocate() }
        for t in spare { t.deallocate() }
        drawn?.deallocate()
        probe?.deallocate()
    }

    /// Where a layer for a screen whose top left is at world pixel (x, y) starts.
    static func centredOrigin(x: Int, y: Int, width: Int, height: Int) -> (Int, Int) {
        let m = margin(width: width, height: height)
        return (x - m, y - m)
    }

    func covers(x: Int, y: Int, width w: Int, height h: Int) -> Bool {
        originX <= x && originY <= y && originX + width >= x + w && originY + height >= y + h
    }

    /// Whether the layer holds what this scene shows (it may still need to scroll to the view).
    func shows(_ scene: MapScene, labels: WorldLabels, baseGeneration g: Int) -> Bool {
        valid && zoom == scene.camera.zoom && baseGeneration == g && self.labels === labels
            && infoWindow == scene.infoWindow && markers == scene.markers
            && puck == scene.puck && route == scene.route && overlays == scene.overlays
    }

    /// Records what the layer now holds, its rectangle starting at world pixel (originX, originY)
    /// at layer pixel (0, 0), and lets every tile go (the caller draws it whole next).
    func reset(scene: MapScene, labels: WorldLabels, originX: Int, originY: Int, baseGeneration g: Int) {
        zoom = scene.camera.zoom
        self.originX = originX
        self.originY = originY
        phaseX = 0
        phaseY = 0
        markers = scene.markers
        infoWindow = scene.infoWindow
        overlays = scene.overlays
        route = scene.route
        puck = scene.puck
        baseGeneration = g
        self.labels = labels
        valid = true
        markerPoints = nil
        for i in tiles.indices { release(i) }
    }

    func invalidate() { valid = false }

    /// Moves the layer's rectangle by (dx, dy) world px (less than half its size): the pixels
    /// that stay are not touched; returns the world rectangles that came in, to be drawn.
    func scroll(dx: Int, dy: Int) -> [(x: Int, y: Int, w: Int, h: Int)] {
        let w = width, h = height
        originX += dx; originY += dy
        phaseX = ((phaseX + dx) % w + w) % w
        phaseY = ((phaseY + dy) % h + h) % h
        var strips: [(x: Int, y: Int, w: Int, h: Int)] = []
        if dx > 0 { strips.append((originX + w - dx, originY, dx, h)) }
        if dx < 0 { strips.append((originX, originY, -dx, h)) }
        let xs = dx > 0 ? (originX, w - dx) : (originX - dx, w + dx)   // columns not already drawn
        if dy > 0 { strips.append((xs.0, originY + h - dy, xs.1, dy)) }
        if dy < 0 { strips.append((xs.0, originY, xs.1, -dy)) }
        return strips.filter { $0.w > 0 && $0.h > 0 }
    }

    /// A world rectangle of the layer cut where it wraps round the torus: each piece with its
    /// top left in the layer.
    func pieces(x: Int, y: Int, w: Int, h: Int) -> [(x: Int, y: Int, w: Int, h: Int, ix: Int, iy: Int)] {
        let ix = ((phaseX + (x - originX)) % width + width) % width
        let iy = ((phaseY + (y - originY)) % height + height) % height
        let a = min(w, width - ix), b = min(h, height - iy)
        var out = [(x, y, a, b, ix, iy)]
        if a < w { out.append((x + a, y, w - a, b, 0, iy)) }
        if b < h { out.append((x, y + b, a, h - b, ix, 0)) }
        if a < w && b < h { out.append((x + a, y + b, w - a, h - b, 0, 0)) }
        return out
    }

    /// The inverse of `pieces`: a rectangle of the layer (not wrapping) cut where the world
    /// rectangle's edges meet inside it (at the phase), each piece with its world top left.
    func worldPieces(ix: Int, iy: Int, w: Int, h: Int) -> [(x: Int, y: Int, w: Int, h: Int, ix: Int, iy: Int)] {
        func cut(_ i0: Int, _ n: Int, _ phase: Int, _ size: Int, _ origin: Int) -> [(world: Int, i: Int, n: Int)] {
            let split = phase > i0 && phase < i0 + n ? [(i0, phase - i0), (phase, i0 + n - phase)] : [(i0, n)]
            return split.map { (origin + (($0.0 - phase) % size + size) % size, $0.0, $0.1) }
        }
        var out: [(x: Int, y: Int, w: Int, h: Int, ix: Int, iy: Int)] = []
        for cy in cut(iy, h, phaseY, height, originY) {
            for cx in cut(ix, w, phaseX, width, originX) { out.append((cx.world, cy.world, cx.n, cy.n, cx.i, cy.i)) }
        }
        return out
    }

    /// A camera whose screen is the world rectangle (x, y, w, h) at the layer's zoom, for
    /// drawing markers into a piece of the layer.
    func view(x: Int, y: Int, w: Int, h: Int) -> GroundView {
        let centre = Point(x: Double(x) + Double(w) / 2, y: Double(y) + Double(h) / 2)
        let camera = CameraPosition(target: WebMercator.coordinate(world: centre, zoom: zoom), zoom: zoom)
        return GroundView(projection: Projection(camera: camera, screen: Size(width: Double(w), height: Double(h))))
    }

    /// Copies the base map of a world rectangle (inside the base-map cache) into memory:
    /// (x, y, w, h, destination, destination stride).
    typealias BaseCopy = (Int, Int, Int, Int, UnsafeMutableRawPointer, Int) -> Void

    /// Draws a world rectangle of the layer (inside its current rectangle and inside the base
    /// map's cache): in scratch rows, the base map copied, then `paint` draws the overlay of the
    /// world rectangle (x, y, w, h) it is given with that rectangle's top left at the context's
    /// origin, on a surface of exactly that size (so clipped to it). Each tile it touches then
    /// holds pixels only if it differs from the base map. The whole layer and a strip of it draw
    /// the same pixels.
    func draw(x: Int, y: Int, w: Int, h: Int, base: BaseCopy, paint: (OpaquePointer, Int, Int, Int, Int) -> Void) {
        let t = OverlayLayer.tileSize
        let pad = OverlayLayer.scratchPad
        if drawn == nil {
            drawn = UnsafeMutableRawPointer.allocate(byteCount: scratchPixels * 4, alignment: 64)
            probe = UnsafeMutableRawPointer.allocate(byteCount: OverlayLayer.tileBytes, alignment: 64)
        }
        for p in pieces(x: x, y: y, w: w, h: h) where p.w > 0 && p.h > 0 {
            // Whole rows of tiles at a time, as many as the scratch holds (at least one).
            let perChunk = max(1, (scratchPixels / (p.w + 2 * pad) - 2 * pad) / t)
            var r0 = 0
            while r0 < p.h {
                let end = min(p.iy + p.h, ((p.iy + r0) / t + perChunk) * t)
                drawChunk(ix: p.ix, iy: p.iy + r0, w: p.w, h: end - p.iy - r0, x: p.x, y: p.y + r0, base: base, paint: paint)
                r0 = end - p.iy
            }
        }
    }

    private func drawChunk(ix: Int, iy: Int, w: Int, h: Int, x: Int, y: Int, base: BaseCopy,
                           paint: (OpaquePointer, Int, Int, Int, Int) -> Void) {
        guard let drawn, let probe else { return }
        let t = OverlayLayer.tileSize, pad = OverlayLayer.scratchPad
        let stride = (w + 2 * pad) * 4, inner = drawn + pad * stride + pad * 4
        // The pad's pixels are never kept: whatever they hold does not change the rectangle's.
        base(x, y, w, h, inner, stride)
        if let s = cairo_image_surface_create_for_data(drawn.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                      Int32(w + 2 * pad), Int32(h + 2 * pad), Int32(stride)) {
            if let cr = cairo_create(s) {
                cairo_translate(cr, Double(pad), Double(pad))
                paint(cr, x, y, w, h)
                cairo_destroy(cr)
            }
            cairo_surface_flush(s)
            cairo_surface_destroy(s)
        }
        for ty in (iy / t)...((iy + h - 1) / t) {
            let y0 = max(iy, ty * t), y1 = min(iy + h, ty * t + t)
            for tx in (ix / t)...((ix + w - 1) / t) {
                let x0 = max(ix, tx * t), x1 = min(ix + w, tx * t + t)
                let from = inner + (y0 - iy) * stride + (x0 - ix) * 4, n = (x1 - x0) * 4
                // The base map of this part of the tile, to find what the overlay changed.
                base(x + x0 - ix, y + y0 - iy, x1 - x0, y1 - y0, probe, n)
                var differs = false
                for r in 0..<(y1 - y0) where memcmp(from + r * stride, probe + r * n, n) != 0 {
                    differs = true
                    break
                }
                let i = ty * columns + tx
                if differs && tiles[i] == nil { hold(i, base: base) }
                guard let tile = tiles[i] else { continue }
                let to = tile + (y0 - ty * t) * t * 4 + (x0 - tx * t) * 4
                for r in 0..<(y1 - y0) { (to + r * t * 4).copyMemory(from: from + r * stride, byteCount: n) }
                if !differs && equalsBase(i, base: base) { release(i) }
            }
        }
    }

    /// The layer rectangle of tile i (the last row and column may be cut short).
    private func tileRect(_ i: Int) -> (x: Int, y: Int, w: Int, h: Int) {
        let t = OverlayLayer.tileSize, tx = i % columns, ty = i / columns
        return (tx * t, ty * t, min(t, width - tx * t), min(t, height - ty * t))
    }

    /// Gives tile i pixels: the base map under it (the caller draws over part of it).
    private func hold(_ i: Int, base: BaseCopy) {
        let tile = spare.popLast() ?? UnsafeMutableRawPointer.allocate(byteCount: OverlayLayer.tileBytes, alignment: 64)
        let r = tileRect(i), t = OverlayLayer.tileSize
        for p in worldPieces(ix: r.x, iy: r.y, w: r.w, h: r.h) {
            base(p.x, p.y, p.w, p.h, tile + (p.iy - r.y) * t * 4 + (p.ix - r.x) * 4, t * 4)
        }
        tiles[i] = tile
        heldTiles += 1
    }

    private func release(_ i: Int) {
        guard let tile = tiles[i] else { return }
        spare.append(tile)
        tiles[i] = nil
        heldTiles -= 1
    }

    /// Whether held tile i shows just the base map (nothing drawn on it any more).
    private func equalsBase(_ i: Int, base: BaseCopy) -> Bool {
        guard let tile = tiles[i], let probe else { return false }
        let r = tileRect(i), t = OverlayLayer.tileSize
        for p in worldPieces(ix: r.x, iy: r.y, w: r.w, h: r.h) {
            base(p.x, p.y, p.w, p.h, probe, p.w * 4)
            for row in 0..<p.h where memcmp(tile + (p.iy - r.y + row) * t * 4 + (p.ix - r.x) * 4, probe + row * p.w * 4, p.w * 4) != 0 {
                return false
            }
        }
        return true
    }

    /// The grid indices of the tiles that hold pixels (tests).
    var heldTileIndices: [Int] { tiles.indices.filter { tiles[$0] != nil } }

    /// Whether tile i holds pixels that differ from the base map's there (tests).
    func heldTileDiffersFromBase(_ i: Int, base: BaseCopy) -> Bool {
        if probe == nil { probe = UnsafeMutableRawPointer.allocate(byteCount: OverlayLayer.tileBytes, alignment: 64) }
        return tiles[i] != nil && !equalsBase(i, base: base)
    }

    /// Puts the screen whose top left is world pixel (x, y) (inside the layer) into the frame:
    /// each run of tiles without pixels from the base map (`base`), each held tile from its own
    /// rows, so every pixel is written once (a pan frame costs one frame copy however many
    /// tiles are held).
    ///
    /// A row of tiles at a time (each writes its own rows of the frame), `threads` threads at
    /// once taking the next row as they come (`RowChunks`), the held tiles' rows written with
    /// stores around the caches (`tb_copy_streaming`; `base` should copy so too): the frame is
    /// only written here. Each thread fences its stores before the call returns.
    func compose(x: Int, y: Int, into frame: FrameBuffer, threads: Int = 1, base: @escaping BaseCopy) {
        let t = OverlayLayer.tileSize
        var rowsOfTiles: [(p: (x: Int, y: Int, w: Int, h: Int, ix: Int, iy: Int), ty: Int)] = []
        for p in pieces(x: x, y: y, w: frame.width, h: frame.height) where p.w > 0 && p.h > 0 {
            for ty in (p.iy / t)...((p.iy + p.h - 1) / t) { rowsOfTiles.append((p, ty)) }
        }
        let tiles = self.tiles, columns = self.columns
        let pixels = frame.pixels, stride = frame.stride
        let next = RowChunks(rows: rowsOfTiles.count, step: 1)
        let work = UncheckedSendable {
            while let k = next.take() {
                let (p, ty) = rowsOfTiles[k.lowerBound]
                let y0 = max(p.iy, ty * t), y1 = min(p.iy + p.h, ty * t + t)
                let rowsAt = pixels + (p.y - y + y0 - p.iy) * stride
                var run = -1   // layer x where the current run of base-map tiles started
                func flush(_ end: Int) {
                    guard run >= 0, end > run else { return }
                    base(p.x + run - p.ix, p.y + y0 - p.iy, end - run, y1 - y0, rowsAt + (p.x - x + run - p.ix) * 4, stride)
                    run = -1
                }
                for tx in (p.ix / t)...((p.ix + p.w - 1) / t) {
                    let x0 = max(p.ix, tx * t), x1 = min(p.ix + p.w, tx * t + t)
                    guard let tile = tiles[ty * columns + tx] else {
                        if run < 0 { run = x0 }
                        continue
                    }
                    flush(x0)
                    let from = tile + (y0 - ty * t) * t * 4 + (x0 - tx * t) * 4
                    let to = rowsAt + (p.x - x + x0 - p.ix) * 4
                    for r in 0..<(y1 - y0) { tb_copy_streaming(to + r * stride, from + r * t * 4, UInt((x1 - x0) * 4)) }
                }
                flush(p.ix + p.w)
            }
            tb_store_fence()
        }
        if threads > 1 && rowsOfTiles.count > 1 {
            MapRenderer.overlapping({ work.value() }, meanwhile: work.value)
        } else {
            work.value()
        }
    }

    /// The place names as seen on the screen whose top left is world pixel (x, y): those whose
    /// label touches the screen, in screen pixels.
    func placesOnScreen(x: Int, y: Int, width w: Int, height h: Int) -> [DrawnPlace] {
        labels?.places(x: Double(x), y: Double(y), w: Double(w), h: Double(h)) ?? []
    }
}

/// Screen furniture (compass, scale bar, attribution, re-center button) kept as small ARGB
/// images, drawn again only when what they show changes, and composited over each frame.
final class FurnitureSprite<Key: Equatable> {
    private var key: Key?
    private var image: CairoImage?
    private var x = 0, y = 0

    /// Composites the sprite for `key` at its screen rectangle, drawing it first if the key
    /// changed. `paint` draws in screen coordinates.
    func draw(key: Key, rect: (x: Int, y: Int, w: Int, h: Int), onto cr: OpaquePointer, paint: (OpaquePointer) -> Void) {
        guard rect.w > 0, rect.h > 0 else { return }
        if self.key != key || image == nil || x != rect.x || y != rect.y || image?.width != rect.w || image?.height != rect.h {
            let img = image.flatMap { $0.width == rect.w && $0.height == rect.h ? $0 : nil }
                ?? CairoImage(owning: cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(rect.w), Int32(rect.h))!)
            let c = cairo_create(img.surface)!
            cairo_set_operator(c, CAIRO_OPERATOR_CLEAR)
            cairo_paint(c)
            cairo_set_operator(c, CAIRO_OPERATOR_OVER)
            cairo_translate(c, Double(-rect.x), Double(-rect.y))
            paint(c)
            cairo_destroy(c)
            cairo_surface_flush(img.surface)
            image = img
            self.key = key
            x = rect.x
            y = rect.y
        }
        guard let image else { return }
        cairo_set_source_surface(cr, image.surface, Double(x), Double(y))
        cairo_paint(cr)
    }
}
