import CCairo
import Foundation
import MapEngine
import Platform
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
        /// Base map of a tilted view taken from the ground cache through the homography between
        /// its camera and the frame's (an interactive frame over a tilted map; `groundCacheBuilds`
        /// counts the frames that drew the cache first).
        case reprojected
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
    /// The street style's layers' styled features per tile at the last zoom drawn.
    let streetLayerCache = StreetLayerCache()
    /// The street labels' features per symbol layer and tile at the last zoom (`StreetLabelCache`).
    let streetLabelCache = StreetLabelCache()
    /// The built-in world's land cut into cells, for the sea under the street map (`StreetSea`).
    let streetSeaCache = StreetSeaCache()
    /// The street style's sprite (POI icons), loaded once with the renderer; nil without one.
    public let streetIcons: SpriteIcons?
    /// Draw the street style's icons (false: symbol layers place and draw their text alone, as
    /// if the style had no sprite).
    public var showsStreetIcons = true
    /// Why the style's icons cannot all be drawn (no sprite, a remote or broken one), each
    /// naming the file and what to do: for the log and `touchbridge check`.
    public let spriteWarnings: [String]
    /// Multiplies label text sizes, world place names and street map (`[map] text_scale`).
    public var textScale = 1.0
    /// The street map's label language (`[map] language`): `name:xx`, then `name_int`,
    /// `name:latin`, `name` (see LabelLanguage); nil keeps the style's names (the local ones).
    public var labelLanguage: String?
    /// The street-map labels drawn in the last frame, where they were drawn.
    public private(set) var streetLabels: [PlacedStreetLabel] = []
    /// Use the cached base map for frames without bearing or tilt.
    public var usesBaseMapCache = true
    /// The street map's lines drawn by `LineRasterizer` (off: by cairo_stroke, for comparing).
    var rasterizesStreetLines = true
    /// The Natural Earth ocean under the street map's layers (`StreetSea`; off: tests compare).
    var drawsStreetSea = true
    /// A small polygon's fill and outline drawn in one pass (`ShapePainter.fillAndStroke`; off:
    /// two, for comparing).
    var fusesOutlines = true
    public private(set) var lastFrameKind: FrameKind = .full
    /// The ground of the last tilted interactive frames, with a margin (`GroundCache`); dropped
    /// by any other frame.
    var groundCache: GroundCache?
    /// The next ground cache, being drawn a slice a frame; and the image of the one before,
    /// for the next draft.
    var groundDraft: GroundCacheDraft?
    var groundSpare: CairoImage?
    /// Frames the ground cache has served since it was drawn; and whether this gesture's
    /// frames are drawn in full instead (`GroundCache.minimumServed`).
    var groundServed = 0
    var groundDeclined = false
    /// How many times the ground cache was drawn (tests and bench: a tilt gesture draws it once
    /// every few degrees).
    public internal(set) var groundCacheBuilds = 0
    /// Take tilted interactive frames' ground from the ground cache (off: draw them in full).
    public var usesGroundCache = true
    /// The last frame was final, flat and north-up, but drawn directly because its zoom was new
    /// (a zoom animation whose frames are all final, or the first frame after a pinch whose last
    /// changes never reached the display): drawing the same scene again builds the base-map
    /// cache and gives the frame a pan and a fresh renderer give (names at the whole-pixel
    /// offset). A kiosk that is about to go still does so, or that picture stays on the glass.
    public private(set) var settledFrameIsDue = false
    /// The place names drawn in the last frame (labels that did not fit are not drawn): a POI tap
    /// can be matched against exactly these.
    public private(set) var drawnPlaces: [DrawnPlace] = []

    private let text: TextRenderer
    var textRenderer: TextRenderer { text }
    let icons = IconCache()
    /// Images decoded from client files (`DecodedImages`), drawn by name without a second open;
    /// a renderer made anew on reload is given the old one's.
    public var decodedImages: DecodedImages {
        get { icons.decoded }
        set { icons.decoded = newValue }
    }
    /// The scene's overlays and route made ready to draw, kept while they do not change.
    private let prepared = PreparedShapes()
    /// How many times the overlays and route were made ready to draw (tests: pans make none).
    var shapePreparations: Int { prepared.builds }
    private var baseCache: BaseCache?
    /// Counts base cache builds, so the overlay layer knows when its base pixels are stale.
    private var baseGeneration = 0
    /// Draw place names, markers and the info window into a layer that moves with the map
    /// (pan frames copy it), rather than over every frame.
    public var usesOverlayLayer = true
    /// How many times the overlay layer was drawn (tests and bench: pan frames draw none).
    public private(set) var overlayBuilds = 0
    /// How many times strips of the overlay layer were drawn as it scrolled with a pan.
    public private(set) var overlayStrips = 0
    private var overlayLayer: OverlayLayer?
    private var worldLabels: WorldLabels?
    /// Set while a frame whose base cache scrolled is presented.
    private var baseScrolledThisFrame = false
    /// Scroll the overlay layer with a pan, drawing only the strips that come in (false: draw
    /// it whole when the view leaves it, as before; for measuring, or TOUCHBRIDGE_LAYER_STRIPS=0).
    public var scrollsOverlayLayer = MapRenderer.defaults.scrollsOverlayLayer
    private var layerScene: MapScene?
    private var layerUsed = false
    private final class Furniture {
        let compass = FurnitureSprite<Double>()
        let scaleBar = FurnitureSprite<OverlayPainter.ScaleBar>()
        let attribution = FurnitureSprite<String>()
        let recenter = FurnitureSprite<Bool>()
    }
    private let furniture = Furniture()
    /// The zoom of the frame before, to tell a settled zoom from a pinch or zoom animation.
    private var previousZoom: Double?
    /// Extra pixels the cached base map extends beyond each screen edge: the overlay layer's
    /// margin plus the drift allowed before the cache scrolls, so the layer can always be copied
    /// out of it. (It used to cover the screen turned to any angle, 30 MiB at 1080p; now a
    /// rotation frame resamples the cache while the turned screen fits in it, and beyond that
    /// draws the base map directly, on both cores.) Since the overlay layer holds only its
    /// tiles with names and pins (64 px margin), this is 64 + 96 + 32 = 192 px on any screen; it
    /// was at least 256 (308 at 1080p): 2.0 MiB less at 1080p, interactive rotation frames
    /// resampled up to about 11 degrees at 1080p instead of 18 (drawn directly beyond).
    public static func cacheMargin(width: Int, height: Int) -> Int {
        max(cacheMarginFloor, OverlayLayer.margin(width: width, height: height) + scrollStep + 32)
    }

    /// The least cache margin, px (none: the rule above). Interactive rotation frames resample
    /// the cache while the turned screen fits in it, so a larger margin resamples to larger
    /// angles for more memory (for measuring: TOUCHBRIDGE_CACHE_MARGIN_FLOOR, read once).
    static var cacheMarginFloor: Int { defaults.cacheMarginFloor }

    /// The overlay layer a screen gets: its size, its tiles (side, count) and the bytes of its
    /// scratch rows; each tile with names, pins or the info window on it holds side x side x 4 bytes.
    public static func overlayLayerPlan(width: Int, height: Int) -> (width: Int, height: Int, tileSize: Int, tiles: Int, scratchBytes: Int) {
        let m = OverlayLayer.margin(width: width, height: height), t = OverlayLayer.tileSize
        let w = width + 2 * m, h = height + 2 * m
        let pad = OverlayLayer.scratchPad
        return (w, h, t, ((w + t - 1) / t) * ((h + t - 1) / t), (w + 2 * pad) * (t + 2 * pad) * 4 + t * t * 4)
    }

    public init(style: MapStyle = .standard, raster: RasterTileSource? = nil, world: BuiltInWorld? = nil,
                vector: VectorTileSet? = nil, streetStyle: StreetStyle? = nil) {
        self.style = style
        self.raster = raster
        self.vector = vector
        self.streetStyle = streetStyle ?? (vector == nil ? StreetStyle(name: nil, layers: [], attribution: nil, file: "") : .standard())
        (streetIcons, spriteWarnings) = vector == nil ? (nil, []) : SpriteIcons.load(for: self.streetStyle)
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

    /// The size of the info window this renderer draws for a content, pointer included: give it
    /// to `MapController.infoWindowSize` so taps find the window as drawn.
    public func infoWindowSize(_ content: InfoWindowContent) -> Size {
        OverlayPainter.infoWindowSize(title: content.title ?? "", snippet: content.snippetText,
                                      image: content.imageName.flatMap { icons.image(path: $0) }, text: text)
    }

    /// The renderer's caches as they stand, sized from the screen: name, pixels, bytes, and the
    /// rule that sized it.
    public var cacheSizes: [(name: String, width: Int, height: Int, bytes: Int, rule: String)] {
        var out: [(String, Int, Int, Int, String)] = []
        if let c = baseCache {
            out.append(("base map (torus)", c.width, c.height, c.width * c.height * 4,
                        "screen + \(baseMargin ?? 0) px each side (the overlay layer's margin + \(MapRenderer.scrollStep) px scroll step + 32)"))
        }
        if let l = overlayLayer {
            let t = OverlayLayer.tileSize
            out.append(("overlay layer (\(l.heldTiles) of \(l.tileCount) tiles of \(t) px held)", l.width, l.height, l.bytes,
                        "screen + \(layerMargin ?? 0) px each side (twice its 32 px scroll step); only the \(t) px tiles with names, pins or the info window on them hold pixels, plus a row of tiles' scratch"))
        }
        if let r = raster {
            out.append(("decoded tiles (of \(r.capacity) at most; \(r.compactTileCount) palette tiles kept compact)", r.cachedTileCount, 1,
                        r.cachedBytes, screenSize.map { RasterTileSource.capacityRule(screenWidth: $0.0, screenHeight: $0.1) } ?? ""))
            out.append(("palette tile scratch (\(r.expansions) regions expanded, \(r.expandedPixels / 1000) kpx)", r.scratchBytes / (256 * 256 * 4), 1,
                        r.scratchBytes, "one tile a pixel format: a palette tile is expanded only where it is drawn, never kept expanded"))
        }
        for (name, image) in [("ground cache", groundCache?.image), ("ground cache draft", groundDraft?.cache.image), ("ground cache spare", groundSpare)] {
            guard let image else { continue }
            out.append((name, image.width, image.height, image.width * image.height * 4,
                        "screen + 1/8 of its height each side; only while a gesture moves a tilted map (two images while the next is drafted)"))
        }
        if let v = vector {
            out.append(("decoded vector tiles (of \(v.maxBytes >> 20) MiB at most)", v.cachedTileCount, 1, v.cachedBytes,
                        "the cached base map's tiles at two zooms, their ring and parents, 1 MiB each"))
        }
        return out
    }
    /// The frame size of the last render (the caches' screen).
    private var screenSize: (Int, Int)?
    private var baseMargin: Int? { screenSize.map { MapRenderer.cacheMargin(width: $0.0, height: $0.1) } }
    private var layerMargin: Int? { screenSize.map { OverlayLayer.margin(width: $0.0, height: $0.1) } }

    /// Lets the ground cache, its draft and its spare image go.
    func dropGroundCache() {
        groundCache = nil
        groundDraft = nil
        groundSpare = nil
        groundServed = 0
        groundDeclined = false
    }

    /// Forgets the overlay layer (the next frame draws names and markers again): for measuring.
    public func invalidateOverlayLayer() { overlayLayer?.invalidate() }

    /// Forgets the cached base map (e.g. after the style or the data changed).
    public func invalidateCache() {
        baseCache = nil
        dropGroundCache()
        overlayLayer?.invalidate()
    }

    public func render(_ scene: MapScene, into frame: FrameBuffer, quality: Quality = .final) {
        let screen = Size(width: Double(frame.width), height: Double(frame.height))
        if screenSize.map({ $0 != (frame.width, frame.height) }) ?? true {
            text.glyphBitmaps.fit(screenPixels: frame.width * frame.height)
        }
        screenSize = (frame.width, frame.height)
        let projection = Projection(camera: scene.camera, screen: screen)
        let view = GroundView(projection: projection)
        let surface = cairo_image_surface_create_for_data(frame.pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                          Int32(frame.width), Int32(frame.height), Int32(frame.stride))!
        defer { cairo_surface_destroy(surface) }
        let cr = cairo_create(surface)!
        defer { cairo_destroy(cr) }
        let streets = vector != nil && showsStreetMap(view: view)
        // The street map keeps its own per-frame labels; the world map's names and the markers
        // come with the overlay layer when the base map comes from its cache.
        layerScene = usesOverlayLayer && !streets ? scene : nil
        layerUsed = false
        settledFrameIsDue = false
        // The street labels are placed (pango, the tiles) and their images made on this thread
        // while the pool paints the base map in bands or copies it from the cache: placement
        // reads the camera and the tiles, no pixel.
        var labelWork: StreetLabelWork?
        let prepareLabels: (() -> Void)? = streets && bands > 1 ? { labelWork = self.prepareStreetLabels(scene: scene, cr: cr, view: view, quality: quality) } : nil
        let overlay = OverlayPainter(style: style)
        // The world map's overlays need, before they are drawn, the shapes' rings and band cuts,
        // the names' images and the markers' plan: none reads a pixel. A frame that draws the
        // base map in full makes them beside the world's paths (a task of the same pool, while
        // the other core builds the land); any other frame after the base map.
        let prep = OverlayPrep()
        let prepare = { [self] in
            prep.shapes = prepareShapes(scene: scene, view: view, frame: frame)
            if let corner = flatNamesCorner(view) {
                let labels = placedNames(zoom: scene.camera.zoom)
                prep.names = (labels, corner, labels.copies(cr: cr, x: corner.x, y: corner.y, w: screen.width, h: screen.height, style: style, text: text))
            }
            prep.plan = overlay.planMarkers(scene: scene, view: view, icons: icons, text: text)
            prep.done = true
        }
        var alongside: (@Sendable () -> Void)?
        if !streets && bands > 1 {
            let handOff = UncheckedSendable(prepare)
            alongside = { @Sendable in handOff.value() }
        }
        lastFrameKind = paintBaseLayer(cr: cr, surface: surface, view: view, frame: frame, quality: quality, meanwhile: prepareLabels,
                                       alongsidePaths: alongside)
        previousZoom = scene.camera.zoom
        if layerUsed {
            streetLabels = []
        } else {
            if streets {
                prep.shapes = prepareShapes(scene: scene, view: view, frame: frame)
            } else if !prep.done {
                prepare()
            }
            // Shapes and the route lie on the ground: over the base map, under the names.
            let shapePainter = prep.shapes?.painter
            var markersDrawn = false
            if let (painter, bands) = prep.shapes, let bands {
                paintShapesInBands(painter, bands: bands, frame: frame, surface: surface, cr: cr)
            }
            if streets {
                drawnPlaces = []
                let work = labelWork ?? prepareStreetLabels(scene: scene, cr: cr, view: view, quality: quality)
                streetLabels = work.labels
                drawStreetLabels(work, frame: frame, surface: surface, cr: cr)
            } else {
                streetLabels = []
                if let (labels, corner, copies) = prep.names {
                    // The names' copies (their sprites made with the overlays' preparation: as a
                    // third thread beside the base map's two bands they made the frame slower,
                    // session 18), drawn in bands (with the markers when nothing lies between),
                    // or through cairo when a name has no sprite.
                    if let copies, scene.puck == nil, view.skyLineY == nil,
                       paintNamesAndMarkersInBands(copies, prep.plan, frame: frame, surface: surface) {
                        markersDrawn = true
                    } else if let copies {
                        paintLabelCopiesInBands(copies, frame: frame, surface: surface, cr: cr, minimum: 8, balance: namesBalance)
                    } else {
                        labels.paint(cr: cr, x: corner.x, y: corner.y, w: screen.width, h: screen.height, style: style, text: text)
                    }
                    drawnPlaces = labels.places(x: corner.x, y: corner.y, w: screen.width, h: screen.height)
                } else {
                    drawnPlaces = PlaceLabelPainter(world: world, style: style, textScale: textScale).paint(cr: cr, view: view, zoom: scene.camera.zoom, text: text)
                }
            }
            overlay.paintSky(cr: cr, view: view)
            if let shapePainter, let puck = scene.puck {
                shapePainter.paintPuck(puck, accuracyShape: ShapePainter.accuracyShape(puck), cr: cr, images: icons)
            }
            if !markersDrawn {
                paintMarkersInBands(streets ? overlay.planMarkers(scene: scene, view: view, icons: icons, text: text) : prep.plan,
                                    frame: frame, surface: surface, cr: cr)
            }
            if let info = scene.infoWindow { overlay.paintInfoWindow(cr: cr, window: info, view: view, text: text, icons: icons) }
        }
        paintFurniture(cr: cr, scene: scene, projection: projection, overlay: overlay)
        cairo_surface_flush(surface)
    }

    /// North up and flat, a frame shows the names placed over the world (`placedNames`), as the
    /// overlay layer does, so the names at a camera do not depend on how the frame was drawn:
    /// the world pixel at the frame's top left. Nil when turned or tilted (`PlaceLabelPainter`).
    private func flatNamesCorner(_ view: GroundView) -> (x: Double, y: Double)? {
        guard !view.tilted && view.projection.camera.bearing == 0 else { return nil }
        let p = view.projection
        return (p.centerWorld.x - p.screen.width / 2, p.centerWorld.y - p.screen.height / 2)
    }

    /// Compass, scale bar, attribution and re-center button, each from its sprite (drawn again
    /// only when what it shows changes).
    private func paintFurniture(cr: OpaquePointer, scene: MapScene, projection: Projection, overlay: OverlayPainter) {
        let screen = projection.screen
        if scene.showsCompass {
            let f = OverlayPainter.compassFrame(screen: screen)
            furniture.compass.draw(key: scene.camera.bearing, rect: (Int(f.x) - 2, Int(f.y) - 2, Int(f.w) + 4, Int(f.h) + 4), onto: cr) {
                overlay.paintCompass(cr: $0, bearing: scene.camera.bearing, screen: screen)
            }
        }
        if scene.showsScaleBar, let bar = OverlayPainter.scaleBar(projection: projection) {
            furniture.scaleBar.draw(key: bar, rect: OverlayPainter.scaleBarFrame(screen: screen), onto: cr) {
                overlay.paintScaleBar(cr: $0, bar: bar, screen: screen, text: text)
            }
        }
        let credit = attribution(extra: scene.attribution)
        let strip = Int(OverlayPainter.attributionHeight)
        furniture.attribution.draw(key: credit, rect: (0, Int(screen.height) - strip, Int(screen.width), strip), onto: cr) {
            overlay.paintAttribution(cr: $0, text: credit, screen: screen, renderer: text)
        }
        if scene.showsRecenterButton {
            let f = OverlayPainter.recenterFrame(screen: screen)
            furniture.recenter.draw(key: true, rect: (Int(f.x) - 2, Int(f.y) - 2, Int(f.w) + 4, Int(f.h) + 4), onto: cr) {
                overlay.paintRecenterButton(cr: $0, screen: screen, text: text)
            }
        }
    }

    /// Brings the overlay layer to the view (drawn whole when what it shows changed or the view
    /// jumped; scrolled, drawing only the strips that come in, when the view drifted), then
    /// copies the frame from it. False when the base cache does not cover the layer's rectangle.
    private func copyFromLayer(_ c: BaseCache, scene: MapScene, viewX: Int, viewY: Int, frame: FrameBuffer, quality: Quality) -> Bool {
        let lm = OverlayLayer.margin(width: frame.width, height: frame.height)
        let layer = overlayLayer.flatMap { $0.width == frame.width + 2 * lm && $0.height == frame.height + 2 * lm ? $0 : nil }
            ?? OverlayLayer(width: frame.width, height: frame.height)
        overlayLayer = layer
        let labels = placedNames(zoom: scene.camera.zoom)
        let centred = OverlayLayer.centredOrigin(x: viewX, y: viewY, width: frame.width, height: frame.height)
        guard c.covers(x: Double(centred.0), y: Double(centred.1), layer.width, layer.height) else { return false }
        let dx = centred.0 - layer.originX, dy = centred.1 - layer.originY
        if !layer.shows(scene, labels: labels, baseGeneration: baseGeneration)
            || abs(dx) >= layer.width / 2 || abs(dy) >= layer.height / 2 {
            layer.reset(scene: scene, labels: labels, originX: centred.0, originY: centred.1, baseGeneration: baseGeneration)
            drawLayer(layer, c, scene: scene, x: centred.0, y: centred.1, w: layer.width, h: layer.height)
            overlayBuilds += 1
        } else if !scrollsOverlayLayer {
            // As before the layer scrolled: drawn whole again when the view leaves it.
            if !layer.covers(x: viewX, y: viewY, width: frame.width, height: frame.height) {
                layer.reset(scene: scene, labels: labels, originX: centred.0, originY: centred.1, baseGeneration: baseGeneration)
                drawLayer(layer, c, scene: scene, x: centred.0, y: centred.1, w: layer.width, h: layer.height)
                overlayBuilds += 1
            }
        } else if abs(dx) >= OverlayLayer.scrollStep || abs(dy) >= OverlayLayer.scrollStep
                    || !layer.covers(x: viewX, y: viewY, width: frame.width, height: frame.height) {
            // On a frame whose base cache just drew its strips, the layer's strips wait for the
            // next frame (so the two costs never fall on one frame) while the layer still covers
            // the view and lies inside the base cache (so its pixels stay the cache's).
            if baseScrolledThisFrame && layer.covers(x: viewX, y: viewY, width: frame.width, height: frame.height)
                && c.covers(x: Double(layer.originX), y: Double(layer.originY), layer.width, layer.height) {
                present(layer, c, viewX: viewX, viewY: viewY, frame: frame)
                return true
            }
            for s in layer.scroll(dx: dx, dy: dy) { drawLayer(layer, c, scene: scene, x: s.x, y: s.y, w: s.w, h: s.h) }
            overlayStrips += 1
        }
        present(layer, c, viewX: viewX, viewY: viewY, frame: frame)
        return true
    }

    /// The frame from the base-map cache and the layer's held tiles, every pixel written once:
    /// the bytes a whole layer (the base map with the names drawn on it) gave.
    private func present(_ layer: OverlayLayer, _ c: BaseCache, viewX: Int, viewY: Int, frame: FrameBuffer) {
        cairo_surface_flush(c.image.surface)   // (once: the threads' streaming copies do not)
        layer.compose(x: viewX, y: viewY, into: frame, threads: bands) { x, y, w, h, dst, stride in
            MapRenderer.copy(c, worldX: x, worldY: y, width: w, height: h, into: dst, stride: stride, streaming: true)
        }
        drawnPlaces = layer.placesOnScreen(x: viewX, y: viewY, width: frame.width, height: frame.height)
    }

    /// Draws a world rectangle of the overlay layer (inside its current rectangle): the base map
    /// copied out of the cache, then the names, markers and info window that reach it, clipped
    /// to it; the layer keeps the tiles where that differs from the base map. The whole layer and
    /// a strip of it draw the same pixels.
    private func drawLayer(_ layer: OverlayLayer, _ c: BaseCache, scene: MapScene, x: Int, y: Int, w: Int, h: Int) {
        guard let labels = layer.labels else { return }
        let overlay = OverlayPainter(style: style)
        // The layer is drawn in chunks of tile rows; each chunk is given only the markers near it
        // (a superset of those `paintMarkers` draws: it keeps points within 64 px of its view),
        // in the same order, so 10,000 markers are not projected again for every chunk. The
        // distance is taken the short way round the antimeridian, as `Projection` takes it.
        let worldWidth = WebMercator.worldSize(zoom: layer.zoom)
        let points = layer.markerPoints ?? scene.markers.map { WebMercator.worldPoint($0.coordinate, zoom: layer.zoom) }
        layer.markerPoints = points
        let filters = scene.markers.count > 16
        // Shapes, the route and the puck, in the chunk's coordinates: each shape is skipped by
        // its box (and a long line by the boxes of its runs of segments) where it misses the chunk.
        prepared.update(overlays: scene.overlays, route: scene.route)
        let accuracy = scene.puck.flatMap(ShapePainter.accuracyShape)
        let shapes = prepared
        layer.draw(x: x, y: y, w: w, h: h, base: { bx, by, bw, bh, dst, stride in
            MapRenderer.copy(c, worldX: bx, worldY: by, width: bw, height: bh, into: dst, stride: stride)
        }, paint: { cr, px, py, pw, ph in
            let view = layer.view(x: px, y: py, w: pw, h: ph)
            let shapePainter = shapes.isEmpty && scene.puck == nil ? nil : ShapePainter(view: view, fusesOutlines: fusesOutlines)
            if let shapePainter, !shapes.isEmpty {
                shapePainter.paint(shapes.shapes, cr: cr, images: icons)
                shapePainter.paintRoute(travelled: shapes.travelled, ahead: shapes.ahead, cr: cr)
            }
            labels.paint(cr: cr, x: Double(px), y: Double(py), w: Double(pw), h: Double(ph), style: style, text: text)
            if let shapePainter, let puck = scene.puck {
                shapePainter.paintPuck(puck, accuracyShape: accuracy, cr: cr, images: icons)
            }
            var near = scene
            if filters {
                let cx = Double(px) + Double(pw) / 2, cy = Double(py) + Double(ph) / 2
                let rx = Double(pw) / 2 + 96, ry = Double(ph) / 2 + 96
                near.markers = zip(scene.markers, points).compactMap { m, p in
                    var dx = (p.x - cx).truncatingRemainder(dividingBy: worldWidth)
                    if dx > worldWidth / 2 { dx -= worldWidth } else if dx < -worldWidth / 2 { dx += worldWidth }
                    return abs(dx) <= rx && abs(p.y - cy) <= ry ? m : nil
                }
            }
            overlay.paintMarkers(cr: cr, scene: near, view: view, icons: icons, text: text)
            if let info = scene.infoWindow { overlay.paintInfoWindow(cr: cr, window: info, view: view, text: text, icons: icons) }
        })
    }

    /// The overlay layer (tests).
    var overlayLayerForTesting: OverlayLayer? { overlayLayer }

    /// Whether the overlay layer's tile i holds pixels other than the base-map cache's (tests).
    func overlayTileDiffersFromBase(_ i: Int) -> Bool {
        guard let layer = overlayLayer, let c = baseCache else { return false }
        return layer.heldTileDiffersFromBase(i) { x, y, w, h, dst, stride in
            MapRenderer.copy(c, worldX: x, worldY: y, width: w, height: h, into: dst, stride: stride)
        }
    }

    /// Where `prepareWhileIdle` has got to: the text scale it measures for and the next place.
    private var premeasured: (textScale: Double, next: Int)?

    /// Work for the moments the kiosk is idle, a batch at a time: the world's place names
    /// measured in the styles `WorldLabels` places them in (a city's two sizes, a country's
    /// capitals). Sizes are kept (a few bytes each), so the first frame at a new zoom level
    /// does not measure the names that appear there: that was 30 M instructions, about a third
    /// of such a frame at 1080p. Returns whether work remains (call it again when idle); a
    /// text-scale change starts over.
    public func prepareWhileIdle(batch: Int = 32) -> Bool {
        let places = world.places
        var state: (textScale: Double, next: Int) = premeasured.flatMap { $0.textScale == textScale ? $0 : nil } ?? (textScale, 0)
        guard state.next < places.count else { premeasured = state; return false }
        let small = PlaceLabelPainter.cityStyle(zoom: 4, textScale: textScale)
        let large = PlaceLabelPainter.cityStyle(zoom: 5, textScale: textScale)
        let country = PlaceLabelPainter.countryStyle(textScale: textScale)
        let end = min(places.count, state.next + max(1, batch))
        for place in places[state.next..<end] {
            switch place.kind {
            case .city:
                if place.minZoom < 5 { _ = text.measure(place.name, small) }
                _ = text.measure(place.name, large)
            case .country:
                _ = text.measure(place.name.uppercased(), country)
            }
        }
        state.next = end
        premeasured = state
        return end < places.count
    }

    /// The world's place names placed at a zoom (kept for the last zoom and text scale).
    private func placedNames(zoom: Double) -> WorldLabels {
        if let l = worldLabels, l.zoom == zoom, l.textScale == textScale { return l }
        let l = WorldLabels(world: world, zoom: zoom, textScale: textScale, text: text)
        worldLabels = l
        return l
    }

    /// Sea, built-in world and raster tiles for a view (place names are drawn per frame, upright).
    private func paintBase(cr: OpaquePointer, view: GroundView, zoom: Double, antialias: Bool = true) {
        // The street map's opaque background hides the sea and the built-in world everywhere
        // when it covers the view (`BasePlan.streetCovers`): nothing is painted under it.
        if !streetMapCovers(view: view, zoom: zoom) {
            MapRenderer.paintWorld(cr: cr, world: world, style: style, view: view, zoom: zoom, antialias: antialias)
        }
        if let raster { RasterMapPainter(source: raster, fast: !antialias).paint(cr: cr, view: view, zoom: zoom) }
        if let vector { paintStreetMap(vector, cr: cr, view: view, zoom: zoom, antialias: antialias) }
    }

    // MARK: drawing on both cores

    /// Horizontal bands a base map is split into, drawn in parallel (1: one thread): one per core
    /// the process may run on (its affinity mask: `taskset -c 0` or `bench --cores 1` means one
    /// band) unless `MapRenderer.defaults.bands` says otherwise.
    public var bands = MapRenderer.defaultBands()
    /// Where the base map's, the shapes' and the names' and markers' band passes cut, learnt
    /// from their times.
    let worldBalance = BandBalance(), streetBalance = BandBalance(), shapeBalance = BandBalance(), markerBalance = BandBalance()
    /// The world's names' cuts (`paintLabelCopiesInBands`).
    let namesBalance = BandBalance()

    /// The band count a new renderer takes: `defaults.bands` (1 to 16), else one per CPU the
    /// calling thread may run on (at most 8). Foundation's `activeProcessorCount` counts the
    /// machine's CPUs whatever the mask (2 under `taskset -c 0` on the 2-core bench machine).
    public static func defaultBands() -> Int {
        defaults.bands.map { max(1, min($0, 16)) } ?? max(1, min(CPUAffinity.usableCount(), 8))
    }

    /// What a new renderer starts with. The library reads no environment: the `touchbridge`
    /// program sets these from its measurement switches (TOUCHBRIDGE_RENDER_BANDS,
    /// TOUCHBRIDGE_LAYER_STRIPS=0, TOUCHBRIDGE_CACHE_MARGIN_FLOOR; docs/benchmarks.md) once,
    /// before any renderer exists.
    public struct Defaults: Sendable {
        public var bands: Int? = nil
        public var scrollsOverlayLayer = true
        public var cacheMarginFloor = 0
        public init() {}
    }
    nonisolated(unsafe) public static var defaults = Defaults()

    /// Whether the base map's painters may run on several threads at once: the built-in world's
    /// painter reads immutable data only; the street map is built on this thread (tiles looked
    /// up, features styled and projected) and only filled and rasterized in bands; the raster
    /// tile painter keeps caches and stays on one thread.
    var paintsBaseInParallel: Bool { bands > 1 && raster == nil }

    /// Draws the base map into memory (XRGB8888 rows) in horizontal bands, in parallel. The paths
    /// are built once (projection, culling, clipping); every band fills and strokes them on a
    /// surface over the whole frame, clipped to its rows, so the bands
    /// write disjoint memory and the frame is the single-threaded frame. (A surface over the
    /// band's rows only, with the paths translated, changed a few pixels by one level.)
    /// `meanwhile` runs on this thread while the bands paint (after them with one band).
    func paintBaseInBands(into pixels: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int,
                          view: GroundView, zoom: Double, antialias: Bool, meanwhile: (() -> Void)? = nil,
                          alongsidePaths: (@Sendable () -> Void)? = nil) {
        func surface(_ y0: Int, _ y1: Int, _ p: UnsafeMutableRawPointer) -> OpaquePointer? {
            cairo_image_surface_create_for_data((p + y0 * stride).assumingMemoryBound(to: UInt8.self),
                                                CAIRO_FORMAT_RGB24, Int32(width), Int32(y1 - y0), Int32(stride))
        }
        let n = paintsBaseInParallel ? min(bands, max(1, height / 16)) : 1
        if n == 1, raster == nil {
            // One band on this thread (one core), drawn from the same plan as the bands: the
            // same layers in the same steps (`BandSteps`), so one core's frame is the bands'.
            let ready = basePlan(view: view, zoom: zoom, antialias: antialias, alongsidePaths: alongsidePaths)
            _ = MapRenderer.draw(ready, over: pixels, width: width, height: height, stride: stride, cuts: [0, height])
            meanwhile?()
            return
        }
        guard n > 1 else {
            guard let s = surface(0, height, pixels) else { return }
            let cr = cairo_create(s)!
            paintBase(cr: cr, view: view, zoom: zoom, antialias: antialias)
            cairo_destroy(cr)
            cairo_surface_flush(s)
            cairo_surface_destroy(s)
            meanwhile?()
            return
        }
        let base = UnsafeSendablePointer(pixels)
        let ready = basePlan(view: view, zoom: zoom, antialias: antialias, alongsidePaths: alongsidePaths)
        // Equal rows, or for the street map rows of equal estimated work: its lines crowd into
        // parts of the view (the town, the far ground of a tilted view), and a band waits for
        // the other. Any split gives the same bytes.
        // The cuts learn from the bands' times (`BandBalance`): the estimate alone left one band
        // waiting 2.4 ms of an 18 ms street frame.
        let balance = ready.street == nil ? worldBalance : streetBalance
        // With work for this thread meanwhile (the street labels), four times as many pieces
        // as bands, each taken by whichever thread is free: the pool's, and this one once its
        // own work is done. Two bands on two cores beside a third thread finished apart (one
        // band shared its core with the labels): a fifth of a flat street frame's samples fell
        // where one thread alone drew the last band. With twice as many pieces a quarter of the
        // flat frames' milliseconds still had one thread running, mostly drawing the last piece;
        // with four times, 6 % (session 28: wall 0.92 of twice's; six times measured no better).
        let pieces = meanwhile == nil ? n : 4 * n
        // The pieces taken first larger, the last ones small (shares pieces, pieces - 1, ... 1):
        // the thread that takes the last piece keeps the other waiting for less.
        let shares = pieces > n ? (1...pieces).reversed().map(Double.init) : nil
        // Cut on whole chunks: each piece then takes its chunks' share of the street layers'
        // buckets, made once (`LineRasterizer.Buckets`).
        let plan = balance.cuts(rowCosts: ready.street?.bandWork(width: width, height: height).rowCosts(), bands: pieces, width: width, height: height,
                                step: LineRasterizer.chunkRows, shares: shares)
        let cuts = plan.cuts
        let times = ParallelSlots<Double>(count: max(0, cuts.count - 1), initial: 0)
        let queue = PieceQueue(count: cuts.count - 1)
        let drawPieces: @Sendable () -> Void = {
            while let i = queue.next() {
                times[i] = MapRenderer.band(over: base, width: width, height: height, stride: stride, rows: cuts[i]..<cuts[i + 1]) { cr in
                    ready.draw(cr: cr)
                }
            }
        }
        MapRenderer.overlapping({
            DispatchQueue.concurrentPerform(iterations: n) { _ in drawPieces() }
        }, meanwhile: meanwhile.map { work in { work(); drawPieces() } })
        balance.learn(cuts: cuts, estimates: plan.estimates, times: times.values)
    }

    /// The base map of a view made ready to draw in bands: the world's paths and the street
    /// map's layers built here, once (on this thread and the pool).
    func basePlan(view: GroundView, zoom: Double, antialias: Bool, alongsidePaths: (@Sendable () -> Void)? = nil) -> BasePlan {
        let painter = VectorMapPainter(world: world, style: style, antialias: antialias)
        // Under a street map whose opaque background covers the view, the world is hidden.
        let covered = streetMapCovers(view: view, zoom: zoom)
        let paths = covered ? VectorMapPainter.Paths() : painter.paths(view: view, zoom: zoom, parallel: true, alongside: alongsidePaths)
        let street = vector.map { streetPainter($0, view: view, zoom: zoom, antialias: antialias).layers(view: view, zoom: zoom, parallel: true) }
        return BasePlan(style: style, painter: painter, paths: paths, street: street, zoom: zoom, streetCovers: covered && street != nil)
    }

    /// Draws any rows of the base map of a whole number of bands of the pixels at `base`
    /// (`cuts`: consecutive row boundaries), each band on a thread of the pool; returns the
    /// bands' CPU times (`bands(over:)`).
    static func draw(_ plan: BasePlan, over base: UnsafeMutableRawPointer, width: Int, height: Int, stride: Int, cuts: [Int]) -> [Double] {
        bands(over: UnsafeSendablePointer(base), width: width, height: height, stride: stride, cuts: cuts) { cr, _ in plan.draw(cr: cr) }
    }

    /// Runs `work` on the pool while `meanwhile` runs on this thread, and returns when both are
    /// done (`work` alone, here, when there is nothing to do meanwhile).
    static func overlapping(_ work: @escaping @Sendable () -> Void, meanwhile: (() -> Void)?) {
        guard let meanwhile else { work(); return }
        let done = DispatchGroup()
        DispatchQueue.global(qos: .userInteractive).async(group: done, execute: work)
        meanwhile()
        done.wait()
    }

    /// The overlays' shapes and the route over the base map, in horizontal bands on both cores
    /// (as the base map): each band draws every shape on a surface over the whole frame, clipped
    /// to its rows, so the bands write disjoint memory and the frame is the one-thread frame
    /// (`plan`: from `shapeBands`).
    func paintShapesInBands(_ painter: ShapePainter, bands plan: ShapeBands, frame: FrameBuffer, surface: OpaquePointer, cr: OpaquePointer) {
        let shapes = prepared.shapes, travelled = prepared.travelled, ahead = prepared.ahead
        guard plan.count > 1 else {
            painter.paint(shapes, cr: cr, images: icons)
            painter.paintRoute(travelled: travelled, ahead: ahead, cr: cr)
            return
        }
        let icons = UncheckedSendable(icons)
        let work = BandShapes(shapes: shapes, travelled: travelled, ahead: ahead)
        let times = MapRenderer.inBands(plan.count, cuts: plan.cuts, frame: frame, surface: surface) { bcr, _ in
            painter.paint(work.shapes, cr: bcr, images: icons.value)
            painter.paintRoute(travelled: work.travelled, ahead: work.ahead, cr: bcr)
        }
        if let cuts = plan.cuts { shapeBalance.learn(cuts: cuts, estimates: plan.estimates, times: times) }
    }

    /// The overlays' shapes and the route brought up to date for the scene, with a painter for
    /// the view and their bands (nil bands: no shape, only a puck); nil when there is neither.
    func prepareShapes(scene: MapScene, view: GroundView, frame: FrameBuffer) -> (painter: ShapePainter, bands: ShapeBands?)? {
        prepared.update(overlays: scene.overlays, route: scene.route)
        guard !prepared.isEmpty || scene.puck != nil else { return nil }
        let painter = ShapePainter(view: view, fusesOutlines: fusesOutlines)
        return (painter, prepared.isEmpty ? nil : shapeBands(painter, width: frame.width, height: frame.height))
    }

    /// How many bands draw the prepared shapes and where they are cut (one: on this thread, for
    /// one band or one shape). For several, what the painters cache lazily (simplified rings
    /// per zoom, circle rings, ground images) is made here first, on this thread, so the bands
    /// only read it.
    func shapeBands(_ painter: ShapePainter, width: Int, height: Int) -> ShapeBands {
        let n = min(bands, max(1, height / 64))
        let all = prepared.shapes + [prepared.travelled, prepared.ahead].compactMap { $0 }
        guard n > 1, all.count > 1 else { return ShapeBands(count: 1, cuts: nil, estimates: []) }
        painter.prepareForBands(all, images: icons)
        // Rows of equal estimated work: shapes crowd into parts of a view (500 polygons over
        // Europe: 4.3 and 5.9 ms in the two halves of the bench's frame), corrected by what the
        // bands took before (`BandBalance`).
        let plan = shapeBalance.cuts(rowCosts: painter.bandWork(all, width: width, height: height)?.rowCosts(pixelCost: 0.01),
                                     bands: n, width: width, height: height)
        return ShapeBands(count: n, cuts: plan.cuts, estimates: plan.estimates)
    }

    /// Planned markers (their sprites made) blitted in horizontal bands on both cores when there
    /// are many (1,000 pins were 6 ms of a 1080p frame on one thread); each band blits those
    /// that reach its rows, clipped to them: the one-thread frame, byte for byte.
    func paintMarkersInBands(_ plan: [OverlayPainter.PlacedMarker], frame: FrameBuffer, surface: OpaquePointer, cr: OpaquePointer) {
        let n = min(bands, max(1, frame.height / 64))
        guard n > 1, plan.count >= 64 else {
            OverlayPainter.blit(plan, cr: cr)
            return
        }
        let work = BandMarkers(plan: plan)
        MapRenderer.inBands(n, frame: frame, surface: surface) { bcr, rows in
            OverlayPainter.blit(work.plan, cr: bcr, rows: Double(rows.lowerBound)..<Double(rows.upperBound))
        }
    }

    /// The world's names and then the markers in one pass of bands, when both would be drawn
    /// in bands and nothing is drawn between them (no sky, no puck): each band copies the
    /// names, then blits the markers, within its rows (one wait for the bands instead of two;
    /// the same bytes). False, drawing nothing, otherwise.
    func paintNamesAndMarkersInBands(_ copies: [LabelCopy], _ plan: [OverlayPainter.PlacedMarker], frame: FrameBuffer, surface: OpaquePointer) -> Bool {
        let n = min(bands, max(1, frame.height / 64))
        guard n > 1, copies.count >= 8, plan.count >= 64 else { return false }
        let work = BandMarkers(plan: plan)
        // Rows of equal estimated work (equal rows left one band waiting 0.6 ms of a 2.1 ms
        // pass over the bench's 1,000 pins), corrected by what the bands took before.
        let balance = markerBalance.cuts(rowCosts: MapRenderer.markerWork(copies, plan, width: frame.width, height: frame.height),
                                         bands: n, width: frame.width, height: frame.height)
        let times = MapRenderer.inBands(n, cuts: balance.cuts, frame: frame, surface: surface) { bcr, rows in
            LabelCopy.copy(copies, cr: bcr)
            OverlayPainter.blit(work.plan, cr: bcr, rows: Double(rows.lowerBound)..<Double(rows.upperBound))
        }
        markerBalance.learn(cuts: balance.cuts, estimates: balance.estimates, times: times)
        return true
    }

    /// How copying the names and blitting the markers falls on a frame's rows (`BandWork`
    /// units): each sprite and glyph its pixels, a city dot (two cairo fills, about as much as
    /// a pin) 1,000.
    static func markerWork(_ copies: [LabelCopy], _ plan: [OverlayPainter.PlacedMarker], width: Int, height: Int) -> [Double] {
        var work = BandWork(width: width, height: height)
        for c in copies {
            switch c {
            case let .sprite(s, _, y): work.addBox(top: Double(y), bottom: Double(y + s.height), cost: Double(s.width * s.height))
            case let .glyph(b, _, y): work.addBox(top: Double(y), bottom: Double(y + b.height), cost: Double(b.width * b.height))
            case let .dot(_, y, radius, _, _): work.addBox(top: y - radius, bottom: y + radius, cost: 1_000)
            }
        }
        for m in plan {
            let area = m.runs.map { Double($0.width * $0.height) } ?? 1_000
            work.addBox(top: m.top, bottom: m.bottom, cost: area)
        }
        return work.rowCosts(pixelCost: 0.01)
    }

    /// Label copies (their images made: `StreetLabelPainter.copies`, `WorldLabels.copies`) in
    /// horizontal bands on both cores when there are at least `minimum`: each band makes every
    /// copy, in drawing order, clipped to its rows, so overlapping halos compose as on one
    /// thread: the one-thread frame, byte for byte. With a `balance`, the bands are rows of
    /// equal estimated work (each copy's pixels), corrected by what they took before: with equal
    /// rows the band with Europe's names kept the other core of a 4K world frame waiting (a
    /// core idle a quarter of the time, 16 % with these cuts). Street labels keep equal rows
    /// (spread over the view, they measured no better cut by their pixels).
    func paintLabelCopiesInBands(_ copies: [LabelCopy], frame: FrameBuffer, surface: OpaquePointer, cr: OpaquePointer, minimum: Int = 64,
                                 balance: BandBalance? = nil) {
        let n = min(bands, max(1, frame.height / 64))
        guard n > 1, copies.count >= minimum else {
            LabelCopy.copy(copies, cr: cr)
            return
        }
        let plan = balance?.cuts(rowCosts: MapRenderer.markerWork(copies, [], width: frame.width, height: frame.height),
                                 bands: n, width: frame.width, height: frame.height)
        let times = MapRenderer.inBands(n, cuts: plan?.cuts, frame: frame, surface: surface) { bcr, _ in LabelCopy.copy(copies, cr: bcr) }
        if let balance, let plan { balance.learn(cuts: plan.cuts, estimates: plan.estimates, times: times) }
    }

    /// Runs `draw` for n horizontal bands of the frame at once, each with a cairo context on a
    /// surface over the whole frame clipped to its rows (so the bands write disjoint memory and
    /// what they draw is the one-thread picture). `draw` must only read shared state.
    /// `cuts` (n + 1 row boundaries, 0 first and the height last) where the bands split;
    /// equal rows without them. Returns each band's CPU time (`bands(over:)`).
    @discardableResult
    static func inBands(_ n: Int, cuts: [Int]? = nil, frame: FrameBuffer, surface: OpaquePointer,
                        _ draw: @Sendable (OpaquePointer, Range<Int>) -> Void) -> [Double] {
        cairo_surface_flush(surface)
        let height = frame.height
        let cuts = cuts.flatMap { $0.count == n + 1 && $0.first == 0 && $0.last == height ? $0 : nil } ?? (0...n).map { height * $0 / n }
        let times = bands(over: UnsafeSendablePointer(frame.pixels), width: frame.width, height: height, stride: frame.stride, cuts: cuts, draw)
        cairo_surface_mark_dirty(surface)
        return times
    }

    /// The bands between consecutive `cuts` of the XRGB8888 rows at `pixels`, drawn at once:
    /// each gets a cairo context on a surface over all the rows, clipped to its own (what
    /// `inBands` and the base map's bands run). Returns the CPU time each band's thread spent
    /// drawing it, in seconds (for `BandBalance`).
    @discardableResult
    fileprivate static func bands(over pixels: UnsafeSendablePointer, width: Int, height: Int, stride: Int, cuts: [Int],
                                  _ draw: @Sendable (OpaquePointer, Range<Int>) -> Void) -> [Double] {
        let times = ParallelSlots<Double>(count: max(0, cuts.count - 1), initial: 0)
        DispatchQueue.concurrentPerform(iterations: cuts.count - 1) { i in
            let rows = cuts[i]..<max(cuts[i], cuts[i + 1])
            times[i] = band(over: pixels, width: width, height: height, stride: stride, rows: rows) { cr in draw(cr, rows) }
        }
        return times.values
    }

    /// Draws rows `rows` of the XRGB8888 pixels on this thread, as one band of `bands(over:)`
    /// (a cairo context on a surface over all the rows, clipped to these); returns the thread's
    /// CPU time it took.
    fileprivate static func band(over pixels: UnsafeSendablePointer, width: Int, height: Int, stride: Int, rows: Range<Int>,
                     _ draw: (OpaquePointer) -> Void) -> Double {
        let start = threadCPUSeconds()
        guard !rows.isEmpty, let s = cairo_image_surface_create_for_data(pixels.pointer.assumingMemoryBound(to: UInt8.self),
                                                                         CAIRO_FORMAT_RGB24, Int32(width), Int32(height), Int32(stride)) else { return 0 }
        let cr = cairo_create(s)!
        cairo_rectangle(cr, 0, Double(rows.lowerBound), Double(width), Double(rows.count))
        cairo_clip(cr)
        draw(cr)
        cairo_destroy(cr)
        cairo_surface_flush(s)
        cairo_surface_destroy(s)
        return threadCPUSeconds() - start
    }

    /// The calling thread's CPU time, in seconds (not the wall clock: a band preempted by
    /// another process does not look slower).
    static func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Sea and the built-in world: what `paintBase` draws when there are no tile sets.
    static func paintWorld(cr: OpaquePointer, world: BuiltInWorld, style: MapStyle, view: GroundView, zoom: Double, antialias: Bool) {
        cairo_set_source_rgb(cr, style.sea.r, style.sea.g, style.sea.b)
        cairo_paint(cr)
        VectorMapPainter(world: world, style: style, antialias: antialias).paint(cr: cr, view: view, zoom: zoom)
        cairo_set_antialias(cr, CAIRO_ANTIALIAS_DEFAULT)
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
        /// The view crossed the antimeridian at a fractional zoom and the cache was kept: its
        /// pixels are a fraction of a pixel off a fresh frame's (a final frame rebuilds it).
        var offGrid = false
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
    /// - interactive and tilted: take the ground from the ground cache (drawn first when it
    ///   does not cover the frame), through the homography between the cameras;
    /// - otherwise (tilted and final, or rotated and final): draw in full.
    /// `meanwhile` runs while a base map drawn in bands is painted or the cache copied into the
    /// frame (else not: the caller runs it).
    private func paintBaseLayer(cr: OpaquePointer, surface: OpaquePointer, view: GroundView, frame: FrameBuffer,
                                quality: Quality, meanwhile: (() -> Void)?, alongsidePaths: (@Sendable () -> Void)? = nil) -> FrameKind {
        let projection = view.projection
        let camera = projection.camera
        let flatNorthUp = !view.tilted && camera.bearing == 0
        let vx = projection.centerWorld.x - Double(frame.width) / 2
        let vy = projection.centerWorld.y - Double(frame.height) / 2
        // The ground cache lives for a gesture over a tilted map: any other frame lets it go.
        if !(usesBaseMapCache && usesGroundCache && quality == .interactive && view.tilted) { dropGroundCache() }
        if usesBaseMapCache {
            if flatNorthUp, var c = baseCache, c.zoom == camera.zoom, !(quality == .final && c.offGrid) {
                // The camera's longitude wraps at the antimeridian, so its world x jumps by the
                // world's width there; the map repeats with that period. Take the view's copy
                // nearest the cache, so a pan across the antimeridian keeps scrolling the cache
                // (a rebuild and the layer drawn whole cost a refresh at 1080p).
                let worldWidth = WebMercator.worldSize(zoom: camera.zoom)
                let turns = ((Double(c.originX) + Double(c.width - frame.width) / 2 - vx) / worldWidth).rounded()
                var vx = vx
                if turns != 0 && abs(turns) < 1e6 {
                    vx += turns * worldWidth
                    // At a fractional zoom the world's width is not whole pixels: the cache's
                    // pixels now sit a fraction of a pixel off those a fresh frame draws. Pan
                    // frames do not show it; the final frame rebuilds the cache.
                    if worldWidth != worldWidth.rounded() { c.offGrid = true; baseCache = c }
                }
                // Keep the view centred in the cache: scroll it once the view has drifted
                // more than `scrollStep` px, drawing only the strips that come into it.
                let m = MapRenderer.cacheMargin(width: frame.width, height: frame.height)
                let wantX = Int(vx.rounded()) - m, wantY = Int(vy.rounded()) - m
                let dx = wantX - c.originX, dy = wantY - c.originY
                let covered = c.covers(x: vx.rounded(), y: vy.rounded(), frame.width, frame.height)
                if covered && abs(dx) < MapRenderer.scrollStep && abs(dy) < MapRenderer.scrollStep {
                    present(c, viewX: vx, viewY: vy, into: frame, quality: quality, meanwhile: meanwhile)
                    cairo_surface_mark_dirty(surface)
                    return .cached
                }
                if abs(dx) < c.width / 2 && abs(dy) < c.height / 2 {
                    scroll(&c, dx: dx, dy: dy)
                    baseCache = c
                    baseScrolledThisFrame = true
                    defer { baseScrolledThisFrame = false }
                    present(c, viewX: vx, viewY: vy, into: frame, quality: quality, meanwhile: meanwhile)
                    cairo_surface_mark_dirty(surface)
                    return .scrolled
                }
            }
            if quality == .interactive, !view.tilted, let c = baseCache, abs(camera.zoom - c.zoom) <= 1,
               c.coversTurned(projection: projection) {
                resample(c, cr: cr, projection: projection, frame: frame)
                return .resampled
            }
            if quality == .interactive, view.tilted, usesGroundCache, !groundDeclined,
               reproject(view: view, frame: frame, meanwhile: meanwhile) {
                cairo_surface_mark_dirty(surface)
                return .reprojected
            }
            let zoomSettled = previousZoom == nil || previousZoom == camera.zoom || baseCache?.zoom == camera.zoom
            if flatNorthUp && zoomSettled && (quality == .final || baseCache?.zoom == camera.zoom) {
                let c = renderCache(zoom: camera.zoom, viewX: vx, viewY: vy, width: frame.width, height: frame.height, meanwhile: meanwhile)
                baseCache = c
                baseGeneration += 1
                present(c, viewX: vx, viewY: vy, into: frame, quality: quality)
                cairo_surface_mark_dirty(surface)
                return .cacheRebuilt
            }
        }
        settledFrameIsDue = usesBaseMapCache && flatNorthUp && quality == .final
        cairo_surface_flush(surface)
        paintBaseInBands(into: frame.pixels, width: frame.width, height: frame.height, stride: frame.stride,
                         view: view, zoom: camera.zoom, antialias: quality == .final, meanwhile: meanwhile, alongsidePaths: alongsidePaths)
        cairo_surface_mark_dirty(surface)
        return .full
    }

    /// Puts the base map (with the overlay layer's names and markers when it is in use) into
    /// the frame at the whole-pixel offset nearest the view (error at most 0.5 px).
    /// `meanwhile` runs on this thread while the pool copies (not when the overlay layer is used).
    ///
    /// The copy goes `copyChunkRows` rows at a time to whichever thread asks next: the pool's
    /// from the start, this one as soon as `meanwhile` (a street frame's labels) is done, so
    /// that neither core waits while the other copies. One thread copied a 1080p street pan
    /// frame out of the cache in 1.6 ms beside the labels' 0.7 ms (session 30: the pan frame's
    /// mean 2.3 ms, 1.75 ms since). With one band the frame is copied here, in one go.
    private func present(_ c: BaseCache, viewX: Double, viewY: Double, into frame: FrameBuffer, quality: Quality,
                         meanwhile: (() -> Void)? = nil) {
        let x = Int(viewX.rounded()), y = Int(viewY.rounded())
        if let scene = layerScene, copyFromLayer(c, scene: scene, viewX: x, viewY: y, frame: frame, quality: quality) {
            layerUsed = true
            return
        }
        let pixels = UnsafeSendablePointer(frame.pixels)
        let width = frame.width, height = frame.height, stride = frame.stride
        cairo_surface_flush(c.image.surface)   // (once: the threads' streaming copies do not)
        guard bands > 1 || meanwhile != nil else {
            MapRenderer.copy(c, worldX: x, worldY: y, width: width, height: height, into: pixels.pointer, stride: stride, streaming: true)
            tb_store_fence()
            return
        }
        let chunks = RowChunks(rows: height, step: MapRenderer.copyChunkRows)
        let copyChunks: @Sendable () -> Void = {
            while let rows = chunks.take() {
                MapRenderer.copy(c, worldX: x, worldY: y + rows.lowerBound, width: width, height: rows.count,
                                 into: pixels.pointer + rows.lowerBound * stride, stride: stride, streaming: true)
            }
            tb_store_fence()
        }
        MapRenderer.overlapping(copyChunks, meanwhile: { meanwhile?(); copyChunks() })
    }

    /// Rows of the cache's copy into a frame a thread takes at a time (`present`): 480 KiB at 1080p.
    static let copyChunkRows = 64

    /// Copies the cache's rows of a world rectangle (inside the cache); a row that wraps round
    /// the torus is two copies. `streaming`: with stores around the CPU's caches
    /// (`tb_copy_streaming`, then a fence), for a whole frame: a memcpy of each row first reads
    /// the frame's lines it writes (session 30, 1080 rows of a 1080p frame out of a cache of
    /// 2304x1440: 1.07 to 1.14 ms streamed, 1.48 to 1.57 by memcpy, 1.33 to 1.42 for one memcpy
    /// of the whole frame). Streaming copies run on several threads at once and leave the
    /// cache's cairo surface alone: their caller flushes it first, and each thread fences its
    /// stores (`tb_store_fence`) once it has copied its share.
    private static func copy(_ c: BaseCache, worldX: Int, worldY: Int, width: Int, height: Int, into pixels: UnsafeMutableRawPointer, stride: Int,
                             streaming: Bool = false) {
        let dx = worldX - c.originX, dy = worldY - c.originY
        if !streaming { cairo_surface_flush(c.image.surface) }
        let src = cairo_image_surface_get_data(c.image.surface)!
        let srcStride = Int(cairo_image_surface_get_stride(c.image.surface))
        let x0 = (c.phaseX + dx) % c.width
        let first = min(width, c.width - x0)
        for y in 0..<height {
            let row = src + ((c.phaseY + dy + y) % c.height) * srcStride
            let dst = pixels + y * stride
            if streaming {
                tb_copy_streaming(dst, row + x0 * 4, UInt(first * 4))
                if first < width { tb_copy_streaming(dst + first * 4, row, UInt((width - first) * 4)) }
            } else {
                dst.copyMemory(from: row + x0 * 4, byteCount: first * 4)
                if first < width { (dst + first * 4).copyMemory(from: row, byteCount: (width - first) * 4) }
            }
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
        if raster == nil, let data = cairo_image_surface_get_data(c.image.surface) {
            // The strip in bands on the cores there are (one for a thin strip), as a full frame
            // is (paths built once, the same steps).
            cairo_surface_flush(c.image.surface)
            let stride = Int(cairo_image_surface_get_stride(c.image.surface))
            paintBaseInBands(into: UnsafeMutableRawPointer(data + iy * stride + ix * 4), width: w, height: h, stride: stride,
                             view: GroundView(projection: projection), zoom: c.zoom, antialias: true)
            cairo_surface_mark_dirty(c.image.surface)
            return
        }
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

    private func renderCache(zoom: Double, viewX: Double, viewY: Double, width: Int, height: Int, meanwhile: (() -> Void)?) -> BaseCache {
        let m = MapRenderer.cacheMargin(width: width, height: height)
        let originX = Int(viewX.rounded()) - m, originY = Int(viewY.rounded()) - m
        let w = width + 2 * m, h = height + 2 * m
        let image = baseCache.flatMap { $0.width == w && $0.height == h ? $0.image : nil } ?? CairoImage.rgb24(width: w, height: h)
        // A camera whose screen is the cache: its centre is the cache's centre in world pixels.
        let centre = Point(x: Double(originX) + Double(w) / 2, y: Double(originY) + Double(h) / 2)
        let camera = CameraPosition(target: WebMercator.coordinate(world: centre, zoom: zoom), zoom: zoom)
        let projection = Projection(camera: camera, screen: Size(width: Double(w), height: Double(h)))
        cairo_surface_flush(image.surface)
        if let data = cairo_image_surface_get_data(image.surface) {
            paintBaseInBands(into: UnsafeMutableRawPointer(data), width: w, height: h, stride: Int(cairo_image_surface_get_stride(image.surface)),
                             view: GroundView(projection: projection), zoom: zoom, antialias: true, meanwhile: meanwhile)
        }
        cairo_surface_mark_dirty(image.surface)
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

/// The base map of one view made ready to draw (`MapRenderer.basePlan`): the bands only read
/// it, each filling and stroking it on its own context clipped to its rows.
final class BasePlan: @unchecked Sendable {
    let style: MapStyle
    let painter: VectorMapPainter
    let paths: VectorMapPainter.Paths
    let street: StreetMapPainter.Layers?
    let zoom: Double
    /// The street map's opaque background covers every pixel (`streetMapCovers`): no sea and
    /// no world under it (each band wrote all its rows once more for nothing: a whole frame's
    /// memory, a tenth of a flat street frame's bands).
    let streetCovers: Bool

    init(style: MapStyle, painter: VectorMapPainter, paths: VectorMapPainter.Paths, street: StreetMapPainter.Layers?, zoom: Double,
         streetCovers: Bool = false) {
        self.style = style; self.painter = painter; self.paths = paths; self.street = street; self.zoom = zoom
        self.streetCovers = streetCovers
    }
    deinit { paths.free() }

    /// Sea, the built-in world, the street map, on `cr` (clipped to a band's rows): 32 rows at
    /// a time through them all (`BandSteps`) when every layer can be, else layer by layer.
    func draw(cr: OpaquePointer) {
        if drawsInSteps(cr: cr) { return }
        if !streetCovers {
            cairo_set_source_rgb(cr, style.sea.r, style.sea.g, style.sea.b)
            cairo_paint(cr)
        }
        painter.paint(cr: cr, paths: paths, zoom: zoom)
        if let street { StreetMapPainter.draw(street, cr: cr) }
    }
}

extension BasePlan {
    /// The plan as `BandSteps` drawn into cr; false, drawing nothing, when a layer needs cairo.
    func drawsInSteps(cr: OpaquePointer) -> Bool {
        var steps = BandSteps()
        if !streetCovers {
            steps.paint(style.sea)
            guard painter.addSteps(paths, zoom: zoom, to: &steps) else { return false }
        }
        if let street, !StreetMapPainter.addSteps(street, to: &steps) { return false }
        return steps.draw(cr: cr)
    }
}

/// Pieces of a frame handed out once each, in order, to whichever thread asks.
final class PieceQueue: @unchecked Sendable {
    private let lock = NSLock()
    private var given = 0
    private let count: Int
    init(count: Int) { self.count = max(0, count) }

    /// The next piece's number, nil when all are given.
    func next() -> Int? {
        lock.lock()
        defer { lock.unlock() }
        guard given < count else { return nil }
        given += 1
        return given - 1
    }
}

/// A pointer handed to the band workers: each writes only its own rows.
/// The prepared shapes handed to the bands, which only read them (`prepareForBands` made
/// everything they cache beforehand).
private struct BandShapes: @unchecked Sendable {
    let shapes: [PreparedShape]
    let travelled: PreparedShape?
    let ahead: PreparedShape?
}

/// Planned markers handed to the bands (sprites made beforehand: the bands only read).
private struct BandMarkers: @unchecked Sendable {
    let plan: [OverlayPainter.PlacedMarker]
}

private struct UnsafeSendablePointer: @unchecked Sendable {
    let pointer: UnsafeMutableRawPointer
    init(_ p: UnsafeMutableRawPointer) { pointer = p }
}


/// A world-map frame's overlays' preparation (`render`): made beside the land's paths or after
/// the base map, read after it, on one thread at a time.
private final class OverlayPrep: @unchecked Sendable {
    var done = false
    var shapes: (painter: ShapePainter, bands: ShapeBands?)?
    var names: (labels: WorldLabels, corner: (x: Double, y: Double), copies: [LabelCopy]?)?
    var plan: [OverlayPainter.PlacedMarker] = []
}

/// How many bands draw the shapes, and where they are cut (`MapRenderer.shapeBands`).
struct ShapeBands {
    let count: Int
    let cuts: [Int]?
    /// Each band's estimated work (`BandBalance.learn`).
    let estimates: [Double]
}
