import CCairo
import Foundation
import MapEngine
import TileSources
import TouchCore
import VectorTiles

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
        /// The cache was scrolled with the view (only the newly exposed strips drawn), then copied.
        case scrolled
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
    /// The vector tile set drawn with `streetStyle` over the built-in world, if any.
    public let vector: VectorTileSet?
    public let streetStyle: StreetStyle
    /// Multiplies label text sizes, world place names and street map (`[map] text_scale`).
    public var textScale = 1.0
    /// The street-map labels drawn in the last frame, where they were drawn.
    public private(set) var streetLabels: [PlacedStreetLabel] = []
    /// Use the cached base map for frames without bearing or tilt.
    public var usesBaseMapCache = true
    public private(set) var lastFrameKind: FrameKind = .full
    /// The place names drawn in the last frame (labels that did not fit are not drawn): a POI tap
    /// can be matched against exactly these.
    public private(set) var drawnPlaces: [DrawnPlace] = []

    private let text: TextRenderer
    var textRenderer: TextRenderer { text }
    private let icons = IconCache()
    private var baseCache: BaseCache?
    /// The zoom of the frame before, to tell a settled zoom from a pinch or zoom animation.
    private var previousZoom: Double?
    /// Extra pixels the cached base map extends beyond each screen edge: enough for the screen
    /// turned to any angle about its centre, plus room to pan.
    public static func cacheMargin(width: Int, height: Int) -> Int {
        let halfDiagonal = (Double(width * width + height * height)).squareRoot() / 2
        return max(256, Int((halfDiagonal - Double(min(width, height)) / 2).rounded(.up)) + 64)
    }

    public init(style: MapStyle = .standard, raster: RasterTileSource? = nil, world: BuiltInWorld? = nil,
                vector: VectorTileSet? = nil, streetStyle: StreetStyle? = nil) {
        self.style = style
        self.raster = raster
        self.vector = vector
        self.streetStyle = streetStyle ?? (vector == nil ? StreetStyle(name: nil, layers: [], attribution: nil, file: "") : .standard())
        // Without its data the world is empty rather than a trap; entry points call
        // BuiltInWorld.load() first and report why.
        self.world = world ?? (try? BuiltInWorld.load()) ?? .empty
        self.text = TextRenderer(family: style.fontFamily)
    }

    /// Attribution of the data this renderer shows.
    public func attribution(extra: String? = nil) -> String {
        // City populations and some names of the built-in world come from GeoNames (CC BY 4.0).
        var parts = ["© Natural Earth, GeoNames"]
        if let r = raster {
            if let a = r.tiles.metadata.attribution { parts.append(a) } else if let n = r.tiles.metadata.name { parts.append(n) }
        }
        if let v = vector {
            // The tile set's own attribution; else the style source's (OpenMapTiles data is OpenStreetMap's).
            if let a = v.metadata.attribution ?? streetStyle.attribution { parts.append(a) } else if let n = v.metadata.name { parts.append(n) }
        }
        if let extra, !extra.isEmpty { parts.append(extra) }
        return parts.joined(separator: " · ")
    }

    /// The size of the info window this renderer draws for a title and snippet, pointer
    /// included: give it to `MapController.infoWindowSize` so taps find the window as drawn.
    public func infoWindowSize(title: String, snippet: String?, image: String? = nil) -> Size {
        OverlayPainter.infoWindowSize(title: title, snippet: snippet, image: image.flatMap { icons.image(path: $0) }, text: text)
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
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        lastFrameKind = paintBaseLayer(cr: cr, surface: surface, view: view, frame: frame, quality: quality)
        previousZoom = scene.camera.zoom
        if let vector, showsStreetMap(view: view) {
            drawnPlaces = []
            streetLabels = paintStreetLabels(vector, scene: scene, cr: cr, view: view, quality: quality)
        } else {
            streetLabels = []
            drawnPlaces = PlaceLabelPainter(world: world, style: style, textScale: textScale).paint(cr: cr, view: view, zoom: scene.camera.zoom, text: text)
        }
        let overlay = OverlayPainter(style: style)
        overlay.paintSky(cr: cr, view: view)
        overlay.paintMarkers(cr: cr, scene: scene, view: view, icons: icons)
        if let info = scene.infoWindow { overlay.paintInfoWindow(cr: cr, content: info, view: view, text: text, icons: icons) }
        if scene.showsCompass { overlay.paintCompass(cr: cr, bearing: scene.camera.bearing, screen: screen) }
        if scene.showsScaleBar { overlay.paintScaleBar(cr: cr, projection: projection, text: text) }
        overlay.paintAttribution(cr: cr, text: attribution(extra: scene.attribution), screen: screen, renderer: text)
        if scene.showsRecenterButton { overlay.paintRecenterButton(cr: cr, screen: screen, text: text) }
        cairo_surface_flush(surface)
    }

    /// Sea, built-in world and raster tiles for a view (place names are drawn per frame, upright).
    private func paintBase(cr: OpaquePointer, view: GroundView, zoom: Double, antialias: Bool = true) {
        cairo_set_source_rgb(cr, style.sea.r, style.sea.g, style.sea.b)
        cairo_paint(cr)
        VectorMapPainter(world: world, style: style, antialias: antialias).paint(cr: cr, view: view, zoom: zoom)
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT)
        if let raster { RasterMapPainter(source: raster, fast: !antialias).paint(cr: cr, view: view, zoom: zoom) }
        if let vector { paintStreetMap(vector, cr: cr, view: view, zoom: zoom, antialias: antialias) }
    }

    // MARK: the cached base map

    /// The cached base map: a world rectangle at one zoom, kept in an image used as a torus so
    /// that following a pan costs only the newly exposed strips: world pixel (originX + i,
    /// originY + j) lives at image pixel ((phaseX + i) mod width, (phaseY + j) mod height).
    private struct BaseCache {
        let image: CairoImage
        let zoom: Double
        /// World pixel (at `zoom`) of the cached rectangle's top left corner.
        var originX: Int, originY: Int
        /// Where that corner is in the image.
        var phaseX = 0, phaseY = 0
        var width: Int { image.width }
        var height: Int { image.height }

        /// Whether the rectangle of a screen whose top left is at world pixel (x, y) lies inside.
        func covers(x: Double, y: Double, _ w: Int, _ h: Int) -> Bool {
            Double(originX) <= x && Double(originY) <= y
                && Double(originX + width) >= x + Double(w) && Double(originY + height) >= y + Double(h)
        }

        /// Whether every screen corner, turned by the bearing and scaled to this cache's zoom,
        /// falls inside the cache.
        func coversTurned(projection p: Projection) -> Bool {
            let scale = pow(2, p.camera.zoom - zoom)
            let b = p.camera.bearing * .pi / 180
            let centre = p.centerWorld / scale
            for (sx, sy) in [(0.0, 0.0), (p.screen.width, 0), (0, p.screen.height), (p.screen.width, p.screen.height)] {
                let dx = sx - p.screen.width / 2, dy = sy - p.screen.height / 2
                // Inverse of the rotation by -bearing used when drawing.
                let wx = (dx * cos(b) - dy * sin(b)) / scale + centre.x
                let wy = (dx * sin(b) + dy * cos(b)) / scale + centre.y
                if wx < Double(originX) || wy < Double(originY) || wx > Double(originX + width) || wy > Double(originY + height) { return false }
            }
            return true
        }
    }

    /// Chooses how to get the base map into the frame:
    /// - flat, north-up, cache at this zoom covering the screen: copy rows (a pan frame);
    /// - interactive, flat, a cache within one zoom level covering the turned/scaled screen:
    ///   resample it with the fast filter (pinch and rotate frames);
    /// - flat and north-up otherwise: re-render the cache around the view, then copy
    ///   (pan frames that follow are cheap); but while the zoom changes from frame to frame
    ///   (a pinch, a zoom animation) or for an interactive frame at a new zoom, draw directly
    ///   instead (a cache is 2..3x the screen's area: too dear to build every frame);
    /// - otherwise (tilted, or rotated and final): draw in full.
    private func paintBaseLayer(cr: OpaquePointer, surface: OpaquePointer, view: GroundView, frame: FrameBuffer,
                                quality: Quality) -> FrameKind {
        let projection = view.projection
        let camera = projection.camera
        let flatNorthUp = !view.tilted && camera.bearing == 0
        let vx = projection.centerWorld.x - Double(frame.width) / 2
        let vy = projection.centerWorld.y - Double(frame.height) / 2
        if usesBaseMapCache {
            if flatNorthUp, var c = baseCache, c.zoom == camera.zoom {
                // Keep the view centred in the cache: scroll it once the view has drifted
                // more than `scrollStep` px, drawing only the strips that come into it.
                let m = MapRenderer.cacheMargin(width: frame.width, height: frame.height)
                let wantX = Int(vx.rounded()) - m, wantY = Int(vy.rounded()) - m
                let dx = wantX - c.originX, dy = wantY - c.originY
                let covered = c.covers(x: vx.rounded(), y: vy.rounded(), frame.width, frame.height)
                if covered && abs(dx) < MapRenderer.scrollStep && abs(dy) < MapRenderer.scrollStep {
                    copy(c, viewX: vx, viewY: vy, into: frame)
                    cairo_surface_mark_dirty(surface)
                    return .cached
                }
                if abs(dx) < c.width / 2 && abs(dy) < c.height / 2 {
                    scroll(&c, dx: dx, dy: dy)
                    baseCache = c
                    copy(c, viewX: vx, viewY: vy, into: frame)
                    cairo_surface_mark_dirty(surface)
                    return .scrolled
                }
            }
            if quality == .interactive, !view.tilted, let c = baseCache, abs(camera.zoom - c.zoom) <= 1,
               c.coversTurned(projection: projection) {
                resample(c, cr: cr, projection: projection, frame: frame)
                return .resampled
            }
            let zoomSettled = previousZoom == nil || previousZoom == camera.zoom || baseCache?.zoom == camera.zoom
            if flatNorthUp && zoomSettled && (quality == .final || baseCache?.zoom == camera.zoom) {
                let c = renderCache(zoom: camera.zoom, viewX: vx, viewY: vy, width: frame.width, height: frame.height)
                baseCache = c
                copy(c, viewX: vx, viewY: vy, into: frame)
                cairo_surface_mark_dirty(surface)
                return .cacheRebuilt
            }
        }
        paintBase(cr: cr, view: view, zoom: camera.zoom, antialias: quality == .final)
        return .full
    }

    /// Copies the cache's rows at the whole-pixel offset nearest the view (error at most 0.5 px);
    /// a row that wraps round the torus is two copies.
    private func copy(_ c: BaseCache, viewX: Double, viewY: Double, into frame: FrameBuffer) {
        let dx = Int(viewX.rounded()) - c.originX, dy = Int(viewY.rounded()) - c.originY
        cairo_surface_flush(c.image.surface)
        let src = cairo_image_surface_get_data(c.image.surface)!
        let srcStride = Int(cairo_image_surface_get_stride(c.image.surface))
        let x0 = (c.phaseX + dx) % c.width
        let first = min(frame.width, c.width - x0)
        for y in 0..<frame.height {
            let row = src + ((c.phaseY + dy + y) % c.height) * srcStride
            let dst = frame.pixels + y * frame.stride
            dst.copyMemory(from: row + x0 * 4, byteCount: first * 4)
            if first < frame.width { (dst + first * 4).copyMemory(from: row, byteCount: (frame.width - first) * 4) }
        }
    }

    /// Pixels the view may drift from the cache's centre before the cache follows it.
    static let scrollStep = 96

    /// Moves the cached rectangle by (dx, dy) world pixels: the pixels that stay are not touched
    /// (only the phase changes); the strips that come in are drawn.
    private func scroll(_ c: inout BaseCache, dx: Int, dy: Int) {
        let w = c.width, h = c.height
        c.originX += dx; c.originY += dy
        c.phaseX = ((c.phaseX + dx) % w + w) % w
        c.phaseY = ((c.phaseY + dy) % h + h) % h
        // The new world rectangle is [originX, originX + w) x [originY, originY + h); what came in:
        var strips: [(x: Int, y: Int, w: Int, h: Int)] = []
        if dx > 0 { strips.append((c.originX + w - dx, c.originY, dx, h)) }
        if dx < 0 { strips.append((c.originX, c.originY, -dx, h)) }
        let xs = dx > 0 ? (c.originX, w - dx) : (c.originX - dx, w + dx)   // columns not already drawn
        if dy > 0 { strips.append((xs.0, c.originY + h - dy, xs.1, dy)) }
        if dy < 0 { strips.append((xs.0, c.originY, xs.1, -dy)) }
        for s in strips where s.w > 0 && s.h > 0 { paintWorldRect(c, x: s.x, y: s.y, w: s.w, h: s.h) }
        cairo_surface_mark_dirty(c.image.surface)
    }

    /// Draws the base map of a world rectangle into its place in the torus (split where it wraps).
    private func paintWorldRect(_ c: BaseCache, x: Int, y: Int, w: Int, h: Int) {
        let ix = ((c.phaseX + (x - c.originX)) % c.width + c.width) % c.width
        let iy = ((c.phaseY + (y - c.originY)) % c.height + c.height) % c.height
        if ix + w > c.width {
            let a = c.width - ix
            paintWorldRect(c, x: x, y: y, w: a, h: h)
            paintWorldRect(c, x: x + a, y: y, w: w - a, h: h)
            return
        }
        if iy + h > c.height {
            let a = c.height - iy
            paintWorldRect(c, x: x, y: y, w: w, h: a)
            paintWorldRect(c, x: x, y: y + a, w: w, h: h - a)
            return
        }
        let centre = Point(x: Double(x) + Double(w) / 2, y: Double(y) + Double(h) / 2)
        let camera = CameraPosition(target: WebMercator.coordinate(world: centre, zoom: c.zoom), zoom: c.zoom)
        let projection = Projection(camera: camera, screen: Size(width: Double(w), height: Double(h)))
        let cr = cairo_create(c.image.surface)!
        cairo_rectangle(cr, Double(ix), Double(iy), Double(w), Double(h))
        cairo_clip(cr)
        cairo_translate(cr, Double(ix), Double(iy))
        paintBase(cr: cr, view: GroundView(projection: projection), zoom: c.zoom)
        cairo_destroy(cr)
    }

    /// Draws the cache scaled by 2^(zoom - cache zoom) and turned by the bearing about the
    /// screen centre, with cairo's fast filter.
    private func resample(_ c: BaseCache, cr: OpaquePointer, projection: Projection, frame: FrameBuffer) {
        let scale = pow(2, projection.camera.zoom - c.zoom)
        let centre = projection.centerWorld / scale      // the target in the cache's world pixels
        cairo_save(cr)
        cairo_translate(cr, Double(frame.width) / 2, Double(frame.height) / 2)
        cairo_rotate(cr, -projection.camera.bearing * .pi / 180)
        cairo_scale(cr, scale, scale)
        cairo_set_source_surface(cr, c.image.surface, Double(c.originX - c.phaseX) - centre.x, Double(c.originY - c.phaseY) - centre.y)
        cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_FAST)
        cairo_pattern_set_extend(cairo_get_source(cr), CAIRO_EXTEND_REPEAT) // the cache is a torus
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE)
        cairo_paint(cr)
        cairo_restore(cr)
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
        let opened = openTiles(path: path, rasterCacheCapacity: cacheCapacity)
        if opened.vector != nil {
            return (nil, "warning: \(path) holds vector tiles; open it with openTiles (or source = \"tiles\"). Showing the built-in world map instead.")
        }
        return (opened.raster, opened.warnings.first)
    }
}
