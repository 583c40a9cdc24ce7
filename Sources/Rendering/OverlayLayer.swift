import CCairo
import Foundation
import MapEngine
import TouchCore

/// The base map with the place names, markers and info window already drawn on it, for a world
/// rectangle a little larger than the screen at one zoom. A pan frame copies its rows at a
/// whole-pixel offset (one frame copy) instead of drawing labels and markers again; it is built
/// again only when what it shows changes (markers, info window, zoom, the base map), when the
/// view leaves it, or when the camera settles away from its centre (so a settled frame is the
/// frame a fresh renderer draws).
final class OverlayLayer {
    let image: CairoImage
    private(set) var zoom = -1.0
    /// World pixel (at `zoom`) of the layer's top left corner.
    private(set) var originX = 0, originY = 0
    private(set) var markers: [MarkerSprite] = []
    private(set) var infoWindow: InfoWindowContent?
    private(set) var baseGeneration = -1
    /// Place names drawn, in layer pixels.
    private(set) var places: [DrawnPlace] = []
    private(set) var valid = false

    var width: Int { image.width }
    var height: Int { image.height }

    /// Pixels the layer extends beyond each screen edge: room to pan before it is built again.
    static func margin(width: Int, height: Int) -> Int { max(128, min(width, height) / 6) }

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

    /// Whether the layer can give a frame of this scene whose top left is world pixel (x, y).
    func serves(_ scene: MapScene, x: Int, y: Int, width w: Int, height h: Int, baseGeneration g: Int) -> Bool {
        valid && zoom == scene.camera.zoom && baseGeneration == g && covers(x: x, y: y, width: w, height: h)
            && infoWindow == scene.infoWindow && markers == scene.markers
    }

    /// Records what the layer now holds (the caller has drawn it).
    func didBuild(scene: MapScene, originX: Int, originY: Int, baseGeneration g: Int, places: [DrawnPlace]) {
        zoom = scene.camera.zoom
        self.originX = originX
        self.originY = originY
        markers = scene.markers
        infoWindow = scene.infoWindow
        baseGeneration = g
        self.places = places
        valid = true
    }

    func invalidate() { valid = false }

    /// A camera whose screen is the layer, for drawing into it.
    var view: GroundView {
        let centre = Point(x: Double(originX) + Double(width) / 2, y: Double(originY) + Double(height) / 2)
        let camera = CameraPosition(target: WebMercator.coordinate(world: centre, zoom: zoom), zoom: zoom)
        return GroundView(projection: Projection(camera: camera, screen: Size(width: Double(width), height: Double(height))))
    }

    /// Copies the rows of the screen whose top left is world pixel (x, y) into the frame.
    func copy(x: Int, y: Int, into frame: FrameBuffer) {
        cairo_surface_flush(image.surface)
        guard let src = cairo_image_surface_get_data(image.surface) else { return }
        let stride = Int(cairo_image_surface_get_stride(image.surface))
        let dx = x - originX, dy = y - originY
        for row in 0..<frame.height {
            (frame.pixels + row * frame.stride).copyMemory(from: src + (dy + row) * stride + dx * 4, byteCount: frame.width * 4)
        }
    }

    /// The place names as seen on the screen whose top left is world pixel (x, y): those whose
    /// label touches the screen, in screen pixels.
    func placesOnScreen(x: Int, y: Int, width w: Int, height h: Int) -> [DrawnPlace] {
        let dx = Double(originX - x), dy = Double(originY - y)
        return places.compactMap { p in
            let f = LabelFrame(x: p.frame.x + dx, y: p.frame.y + dy, width: p.frame.width, height: p.frame.height)
            guard f.x + f.width > 0, f.y + f.height > 0, f.x < Double(w), f.y < Double(h) else { return nil }
            return DrawnPlace(name: p.name, kind: p.kind, coordinate: p.coordinate, point: p.point + Point(x: dx, y: dy), frame: f)
        }
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
