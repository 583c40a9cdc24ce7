import CCairo
import Foundation
import MapEngine
import TouchCore

/// The base map with the place names, markers and info window already drawn on it, for a world
/// rectangle a little larger than the screen at one zoom. A pan frame copies its rows at a
/// whole-pixel offset (one frame copy) instead of drawing labels and markers again.
///
/// The image is a torus, as the base-map cache is: world pixel (originX + i, originY + j) lives
/// at image pixel ((phaseX + i) mod width, (phaseY + j) mod height). When the view drifts
/// `scrollStep` px from the layer's centre the layer follows it and only the strips that come in
/// are drawn (their base map copied, then the names and markers that reach them, clipped); the
/// names are placed over the world per zoom (`WorldLabels`), so a strip shows what a layer drawn
/// whole there shows. It is drawn whole only when what it shows changes (markers, info window,
/// zoom, text scale, the base map) or the view jumps more than half of it.
final class OverlayLayer {
    let image: CairoImage
    private(set) var zoom = -1.0
    /// World pixel (at `zoom`) of the layer's top left corner.
    private(set) var originX = 0, originY = 0
    /// Where that corner is in the image.
    private(set) var phaseX = 0, phaseY = 0
    private(set) var markers: [MarkerSprite] = []
    private(set) var infoWindow: InfoWindowContent?
    private(set) var baseGeneration = -1
    /// The names it draws, placed over the world at its zoom.
    private(set) var labels: WorldLabels?
    private(set) var valid = false

    var width: Int { image.width }
    var height: Int { image.height }

    /// Pixels the layer extends beyond each screen edge: room to pan before it must scroll.
    static func margin(width: Int, height: Int) -> Int { max(128, min(width, height) / 6) }

    /// Pixels the view may drift from the layer's centre before the layer follows it. With the
    /// base cache's own step (96) this keeps the layer inside the base cache, whose margin is
    /// the layer's plus 128, so a strip's base map is always there to copy.
    static let scrollStep = 32

    init(width: Int, height: Int) {
        let m = OverlayLayer.margin(width: width, height: height)
        image = CairoImage.rgb24(width: width + 2 * m, height: height + 2 * m)
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
    }

    /// Records what the layer now holds, its rectangle starting at world pixel (originX, originY)
    /// at image pixel (0, 0) (the caller draws it whole next).
    func reset(scene: MapScene, labels: WorldLabels, originX: Int, originY: Int, baseGeneration g: Int) {
        zoom = scene.camera.zoom
        self.originX = originX
        self.originY = originY
        phaseX = 0
        phaseY = 0
        markers = scene.markers
        infoWindow = scene.infoWindow
        baseGeneration = g
        self.labels = labels
        valid = true
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
    /// top left in the image.
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

    /// A camera whose screen is the world rectangle (x, y, w, h) at the layer's zoom, for
    /// drawing markers into a piece of the layer.
    func view(x: Int, y: Int, w: Int, h: Int) -> GroundView {
        let centre = Point(x: Double(x) + Double(w) / 2, y: Double(y) + Double(h) / 2)
        let camera = CameraPosition(target: WebMercator.coordinate(world: centre, zoom: zoom), zoom: zoom)
        return GroundView(projection: Projection(camera: camera, screen: Size(width: Double(w), height: Double(h))))
    }

    /// Copies the rows of the screen whose top left is world pixel (x, y) into the frame; a row
    /// that wraps round the torus is two copies.
    func copy(x: Int, y: Int, into frame: FrameBuffer) {
        cairo_surface_flush(image.surface)
        guard let src = cairo_image_surface_get_data(image.surface) else { return }
        let stride = Int(cairo_image_surface_get_stride(image.surface))
        let x0 = (phaseX + (x - originX)) % width
        let first = min(frame.width, width - x0)
        for row in 0..<frame.height {
            let line = src + ((phaseY + (y - originY) + row) % height) * stride
            let dst = frame.pixels + row * frame.stride
            dst.copyMemory(from: line + x0 * 4, byteCount: first * 4)
            if first < frame.width { (dst + first * 4).copyMemory(from: line, byteCount: (frame.width - first) * 4) }
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
