import CCairo
import Foundation
import MapEngine
import TouchCore

/// Draws one frame of a `MapScene` into an XRGB8888 buffer with cairo and pango.
///
/// Everything on screen is placed through `Projection`, as the controller's hit tests are.
/// Fast path: frames with no bearing and no tilt take the base map (sea, land, borders, rivers,
/// tiles, place names) from a cached surface larger than the screen, rendered once per zoom
/// and area, and copied in at a whole-pixel offset (row memcpy); markers and controls are drawn
/// over it every frame. Rotated or tilted frames are drawn in full.
public final class MapRenderer {
    public enum FrameKind: Sendable, Equatable {
        /// Base map drawn from scratch into the frame (rotated or tilted camera, or cache off).
        case full
        /// Base map copied from the cache, which was (re)rendered for this frame first.
        case cacheRebuilt
        /// Base map copied from the cache as it was: a pan frame.
        case cached
        /// Base map resampled from the cache, rotated (an interactive frame during a rotation).
        case resampled
    }

    /// `final` frames are drawn exactly; `interactive` ones (during a gesture) may rotate the
    /// cached north-up base map with a fast filter instead of redrawing it, and should be followed
    /// by a `final` frame when the gesture ends. Place names stay upright either way.
    public enum Quality: Sendable, Equatable { case final, interactive }

    public let style: MapStyle
    public let world: BuiltInWorld
    /// The raster tile set drawn over the built-in world, if any.
    public let raster: RasterTileSource?
    /// Use the cached base map for frames without bearing or tilt.
    public var usesBaseMapCache = true
    public private(set) var lastFrameKind: FrameKind = .full

    private let text: TextRenderer
    private let icons = IconCache()
    private var baseCache: BaseCache?
    /// Extra pixels the cached base map extends beyond each screen edge: enough for the screen
    /// turned to any angle about its centre, plus room to pan.
    static func cacheMargin(width: Int, height: Int) -> Int {
        let halfDiagonal = (Double(width * width + height * height)).squareRoot() / 2
        return max(256, Int((halfDiagonal - Double(min(width, height)) / 2).rounded(.up)) + 64)
    }

    public init(style: MapStyle = .standard, raster: RasterTileSource? = nil, world: BuiltInWorld = .shared) {
        self.style = style
        self.raster = raster
        self.world = world
        self.text = TextRenderer(family: style.fontFamily)
    }

    /// Attribution of the data this renderer shows.
    public func attribution(extra: String? = nil) -> String {
        var parts = ["© Natural Earth"]
        if let r = raster {
            if let a = r.tiles.metadata.attribution { parts.append(a) } else if let n = r.tiles.metadata.name { parts.append(n) }
        }
        if let extra, !extra.isEmpty { parts.append(extra) }
        return parts.joined(separator: " · ")
    }

    /// Forgets the cached base map (e.g. after the style or the data changed).
    public func invalidateCache() { baseCache = nil }

    public func render(_ scene: MapScene, into frame: FrameBuffer, quality: Quality = .final) {
        let screen = Size(width: Double(frame.width), height: Double(frame.height))
        let projection = Projection(camera: scene.camera, screen: screen)
        let view = GroundView(projection: projection)
        let surface = cairo_image_surface_create_for_data(frame.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                          Int32(frame.width), Int32(frame.height), Int32(frame.stride))!
        defer { cairo_surface_destroy(surface) }
        // Cached base map: only for flat, north-up frames.
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        if usesBaseMapCache && !view.tilted && scene.camera.bearing == 0 {
            lastFrameKind = copyCachedBase(projection: projection, into: frame)
            cairo_surface_mark_dirty(surface)
            PlaceLabelPainter(world: world, style: style).paint(cr: cr, view: view, zoom: scene.camera.zoom, text: text)
        } else if usesBaseMapCache && quality == .interactive && !view.tilted {
            lastFrameKind = resampleCachedBase(cr: cr, projection: projection, frame: frame)
            PlaceLabelPainter(world: world, style: style).paint(cr: cr, view: view, zoom: scene.camera.zoom, text: text)
        } else {
            lastFrameKind = .full
            paintBase(cr: cr, view: view, zoom: scene.camera.zoom)
            PlaceLabelPainter(world: world, style: style).paint(cr: cr, view: view, zoom: scene.camera.zoom, text: text)
        }
        let overlay = OverlayPainter(style: style)
        overlay.paintSky(cr: cr, view: view)
        overlay.paintMarkers(cr: cr, scene: scene, view: view, icons: icons)
        if let info = scene.infoWindow { overlay.paintInfoWindow(cr: cr, content: info, view: view, text: text) }
        if scene.showsCompass { overlay.paintCompass(cr: cr, bearing: scene.camera.bearing, screen: screen) }
        if scene.showsScaleBar { overlay.paintScaleBar(cr: cr, projection: projection, text: text) }
        overlay.paintAttribution(cr: cr, text: attribution(extra: scene.attribution), screen: screen, renderer: text)
        if scene.showsRecenterButton { overlay.paintRecenterButton(cr: cr, screen: screen, text: text) }
        cairo_surface_flush(surface)
    }

    /// Sea, built-in world and raster tiles for a view (place names are drawn per frame, upright).
    private func paintBase(cr: OpaquePointer, view: GroundView, zoom: Double) {
        cairo_set_source_rgb(cr, style.sea.r, style.sea.g, style.sea.b)
        cairo_paint(cr)
        VectorMapPainter(world: world, style: style).paint(cr: cr, view: view, zoom: zoom)
        if let raster { RasterMapPainter(source: raster).paint(cr: cr, view: view, zoom: zoom) }
    }

    /// Turns the cached north-up base map by the bearing about the screen centre with cairo's
    /// fast filter (an interactive rotation frame).
    private func resampleCachedBase(cr: OpaquePointer, projection: Projection, frame: FrameBuffer) -> FrameKind {
        let vx = projection.centerWorld.x - Double(frame.width) / 2
        let vy = projection.centerWorld.y - Double(frame.height) / 2
        var kind = FrameKind.resampled
        let m = Double(MapRenderer.cacheMargin(width: frame.width, height: frame.height))
        if let c = baseCache, c.zoom == projection.camera.zoom,
           Double(c.originX) <= vx - m + 64, Double(c.originY) <= vy - m + 64,
           Double(c.originX + c.width) >= vx + Double(frame.width) + m - 64,
           Double(c.originY + c.height) >= vy + Double(frame.height) + m - 64 {
        } else {
            baseCache = renderCache(zoom: projection.camera.zoom, viewX: vx, viewY: vy, width: frame.width, height: frame.height)
            kind = .cacheRebuilt
        }
        let c = baseCache!
        cairo_save(cr)
        cairo_translate(cr, Double(frame.width) / 2, Double(frame.height) / 2)
        cairo_rotate(cr, -projection.camera.bearing * .pi / 180)
        cairo_set_source_surface(cr, c.image.surface, Double(c.originX) - projection.centerWorld.x, Double(c.originY) - projection.centerWorld.y)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_FAST)
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        cairo_restore(cr)
        return kind
    }

    // MARK: the cached base map

    private struct BaseCache {
        let image: CairoImage
        let zoom: Double
        /// World pixel (at `zoom`) of the cache's top left corner.
        let originX: Int, originY: Int
        var width: Int { image.width }
        var height: Int { image.height }
    }

    private func copyCachedBase(projection: Projection, into frame: FrameBuffer) -> FrameKind {
        let vx = projection.centerWorld.x - Double(frame.width) / 2
        let vy = projection.centerWorld.y - Double(frame.height) / 2
        var kind = FrameKind.cached
        func covers(_ c: BaseCache) -> Bool {
            c.zoom == projection.camera.zoom
                && Double(c.originX) <= vx.rounded() && Double(c.originY) <= vy.rounded()
                && Double(c.originX + c.width) >= vx.rounded() + Double(frame.width)
                && Double(c.originY + c.height) >= vy.rounded() + Double(frame.height)
        }
        if baseCache == nil || !covers(baseCache!) {
            baseCache = renderCache(zoom: projection.camera.zoom, viewX: vx, viewY: vy, width: frame.width, height: frame.height)
            kind = .cacheRebuilt
        }
        let c = baseCache!
        let dx = Int(vx.rounded()) - c.originX, dy = Int(vy.rounded()) - c.originY
        cairo_surface_flush(c.image.surface)
        let src = cairo_image_surface_get_data(c.image.surface)!
        let srcStride = Int(cairo_image_surface_get_stride(c.image.surface))
        let rowBytes = frame.width * 4
        for y in 0..<frame.height {
            (frame.pixels + y * frame.stride).copyMemory(from: src + (y + dy) * srcStride + dx * 4, byteCount: rowBytes)
        }
        return kind
    }

    private func renderCache(zoom: Double, viewX: Double, viewY: Double, width: Int, height: Int) -> BaseCache {
        let m = MapRenderer.cacheMargin(width: width, height: height)
        let originX = Int(viewX.rounded()) - m, originY = Int(viewY.rounded()) - m
        let w = width + 2 * m, h = height + 2 * m
        let image = baseCache.flatMap { $0.width == w && $0.height == h ? $0.image : nil } ?? CairoImage.rgb24(width: w, height: h)
        // A camera whose screen is the cache: its centre is the cache's centre in world pixels.
        let centre = Point(x: Double(originX) + Double(w) / 2, y: Double(originY) + Double(h) / 2)
        let camera = CameraPosition(target: WebMercator.coordinate(world: centre, zoom: zoom), zoom: zoom)
        let projection = Projection(camera: camera, screen: Size(width: Double(w), height: Double(h)))
        let cr = cairo_create(image.surface)!
        paintBase(cr: cr, view: GroundView(projection: projection), zoom: zoom)
        cairo_destroy(cr)
        cairo_surface_flush(image.surface)
        return BaseCache(image: image, zoom: zoom, originX: originX, originY: originY)
    }
}

extension MapRenderer {
    /// Opens an MBTiles file for the renderer. When it cannot be used, returns no source and a
    /// warning that names the file, says why, and that the built-in world is shown instead.
    public static func openRaster(path: String, cacheCapacity: Int = 256) -> (source: RasterTileSource?, warning: String?) {
        do {
            let tiles = try MBTiles(path: path)
            var warning: String?
            if let f = tiles.metadata.format, f == "jpg" || f == "jpeg" || f == "webp" {
                warning = MBTilesError.unsupportedTileFormat(path: path, format: f.uppercased()).description
            }
            return (RasterTileSource(tiles: tiles, capacity: cacheCapacity), warning)
        } catch {
            return (nil, "warning: \(error) Showing the built-in world map instead.")
        }
    }
}
