import CCairo
import Foundation
import MapEngine
import TileSources
import TouchCore
import VectorTiles

/// The street map (vector tiles with a style) in the renderer: the base layers go into the
/// cached base map like the rest of the ground; labels are placed per settled frame.
extension MapRenderer {
    /// The tile set's bounds in world pixels at `zoom`, nil when it covers the world.
    func streetBounds(_ vector: VectorTileSet, zoom: Double) -> (minX: Double, minY: Double, maxX: Double, maxY: Double)? {
        guard let b = vector.metadata.bounds, b.west > -179.9 || b.east < 179.9 || b.south > -85 || b.north < 85 else { return nil }
        let nw = WebMercator.worldPoint(Coordinate(latitude: b.north, longitude: b.west), zoom: zoom)
        let se = WebMercator.worldPoint(Coordinate(latitude: b.south, longitude: b.east), zoom: zoom)
        return (nw.x, nw.y, se.x, se.y)
    }

    /// Whether the street map hides the built-in world everywhere in a view: its style's
    /// background is opaque at this zoom and the view's ground lies inside the tile set's
    /// bounds (which the background fills). The world's land and lines are then not drawn
    /// (about 1 ms of a 1080p street frame building their paths, for nothing on screen).
    func streetMapCovers(view: GroundView, zoom: Double) -> Bool {
        guard let vector else { return false }
        let sz = StreetMapPainter.styleZoom(zoom)
        let ctx = StyleContext(zoom: sz)
        let opaque = streetStyle.layers.contains { layer in
            guard layer.type == .background, layer.shows(zoom: sz),
                  let c = layer.background.color.evaluate(ctx) else { return false }
            return c.a * (layer.background.opacity.evaluate(ctx) ?? 1) >= 1
        }
        guard opaque else { return false }
        guard let b = streetBounds(vector, zoom: zoom) else { return true }
        return view.worldMinX >= b.minX && view.worldMaxX <= b.maxX && view.worldMinY >= b.minY && view.worldMaxY <= b.maxY
    }

    /// Whether the street map's labels replace the built-in world's: the view's centre lies in the tile set.
    func showsStreetMap(view: GroundView) -> Bool {
        guard let vector else { return false }
        guard let b = streetBounds(vector, zoom: view.projection.camera.zoom) else { return true }
        let c = view.projection.centerWorld
        let m = view.worldSize
        let x = c.x - floor(c.x / m) * m
        return x >= b.minX && x <= b.maxX && c.y >= b.minY && c.y <= b.maxY
    }

    func paintStreetMap(_ vector: VectorTileSet, cr: OpaquePointer, view: GroundView, zoom: Double, antialias: Bool) {
        streetPainter(vector, view: view, zoom: zoom, antialias: antialias).paint(cr: cr, view: view, zoom: zoom)
    }

    /// The street map's painter for a view.
    func streetPainter(_ vector: VectorTileSet, view: GroundView, zoom: Double, antialias: Bool) -> StreetMapPainter {
        var painter = StreetMapPainter(set: vector, style: streetStyle, antialias: antialias)
        painter.rasterizesLines = rasterizesStreetLines
        painter.layerCache = streetLayerCache
        let bounds = streetBounds(vector, zoom: zoom)
        // The Natural Earth ocean under the tile layers, for tiles made without a coastline.
        let world = world, seaCache = streetSeaCache
        painter.seaColor = StreetSea.waterColor(style: streetStyle, styleZoom: StreetMapPainter.styleZoom(zoom))
            ?? StyleColor(r: style.sea.r, g: style.sea.g, b: style.sea.b)
        if drawsStreetSea { painter.sea = { cr in StreetSea.addPath(world: world, cache: seaCache, view: view, zoom: zoom, area: bounds, cr: cr) } }
        if let b = bounds {
            // An extract: the built-in world shows around it, so the style's background covers
            // only the extract's bounds on the ground (the features lie inside them anyway).
            // Not a cairo clip: a clip that is not a screen rectangle (rotated, tilted) makes
            // cairo composite every fill and stroke through a mask, several times slower.
            painter.backgroundArea = { cr in
                var pts: [Double] = [], scratch: [Double] = []
                for copy in view.wrapCopies {
                    let k = Double(copy) * view.worldSize
                    pts.removeAll()
                    for (wx, wy) in [(b.minX, b.minY), (b.maxX, b.minY), (b.maxX, b.maxY), (b.minX, b.maxY)] {
                        let g = view.ground(worldX: wx + k, worldY: wy); pts.append(g.0); pts.append(g.1)
                    }
                    view.addRing(&pts, &scratch, inside: false, to: cr)
                }
            }
        }
        return painter
    }

    /// A frame's street labels, placed, and what drawing them copies (nil: drawn through cairo).
    struct StreetLabelWork {
        let labels: [PlacedStreetLabel]
        let copies: [LabelCopy]?
    }

    /// Final frames place labels afresh around the obstacles; frames during a gesture move the
    /// labels placed last (no new placement, so none appears or vanishes while the finger moves).
    /// Their images are made here (`StreetLabelPainter.copies`); nothing is drawn, so this may
    /// run while bands paint the base map.
    func prepareStreetLabels(scene: MapScene, cr: OpaquePointer, view: GroundView, quality: Quality) -> StreetLabelWork {
        guard let vector else { return StreetLabelWork(labels: [], copies: []) }
        if vector.decodesOnWorker {
            // Once per frame, from the frame's own view (the base map may have drawn only
            // strips): the view's tiles and two rings round them go to the worker, so a pan
            // finds them decoded before the cached base map needs them.
            let meta = vector.metadata
            let covered = StreetMapPainter.cover(view: view, zoom: scene.camera.zoom, minZoom: meta.minZoom, maxZoom: meta.maxZoom)
            if let z = covered.map(\.key.z).max() {
                vector.prefetch(covered.map(\.key) + StreetMapPainter.ring(around: covered, zoom: z, radius: 2))
            }
        }
        let labels: [PlacedStreetLabel]
        if quality == .interactive && !streetLabels.isEmpty {
            labels = StreetLabelPainter.follow(streetLabels, view: view, text: textRenderer)
        } else {
            labels = placeStreetLabels(vector, scene: scene, view: view)
        }
        let copies = GlyphTarget(cr) == nil ? nil : StreetLabelPainter.copies(labels, cr: cr, text: textRenderer, icons: streetIcons, runs: icons,
                                                                         angleSteps: quality == .interactive ? GlyphBitmaps.interactiveAngleSteps : GlyphBitmaps.angleSteps)
        return StreetLabelWork(labels: labels, copies: copies)
    }

    func drawStreetLabels(_ work: StreetLabelWork, frame: FrameBuffer, surface: OpaquePointer, cr: OpaquePointer) {
        if let copies = work.copies {
            paintLabelCopiesInBands(copies, frame: frame, surface: surface, cr: cr)
        } else {
            StreetLabelPainter.drawIcons(work.labels, cr: cr, icons: streetIcons)
            StreetLabelPainter.draw(work.labels, cr: cr, text: textRenderer)
        }
    }

    func placeStreetLabels(_ vector: VectorTileSet, scene: MapScene, view: GroundView) -> [PlacedStreetLabel] {
        StreetLabelPainter(set: vector, style: streetStyle, textScale: textScale, language: labelLanguage, icons: showsStreetIcons ? streetIcons : nil,
                           cache: streetLabelCache)
            .place(view: view, zoom: scene.camera.zoom, text: textRenderer, obstacles: obstacles(scene: scene, view: view))
    }

    /// The street-map labels a settled frame of `scene` on a screen of `screen` would show,
    /// placed without drawing anything (empty when the view is off the street map). `replay`
    /// uses it to know which place names and POIs a tap can hit, as the kiosk knows from its frames.
    public func placeStreetLabels(for scene: MapScene, screen: Size) -> [PlacedStreetLabel] {
        guard let vector else { return [] }
        let view = GroundView(projection: Projection(camera: scene.camera, screen: screen))
        guard showsStreetMap(view: view) else { return [] }
        return placeStreetLabels(vector, scene: scene, view: view)
    }

    /// Screen boxes labels must leave free: markers, the info window, compass, recenter button,
    /// scale bar and attribution strip.
    func obstacles(scene: MapScene, view: GroundView) -> [LabelFrame] {
        var out: [LabelFrame] = []
        let pin = PinGeometry.size
        for m in scene.markers {
            guard let p = view.visiblePoint(m.coordinate, slack: 64) else { continue }
            out.append(LabelFrame(x: p.x - pin.width / 2 - 2, y: p.y - pin.height - 2, width: pin.width + 4, height: pin.height + 4))
        }
        if let info = scene.infoWindow, let p = view.visiblePoint(info.coordinate, slack: 400) {
            let size = infoWindowSize(info.content)
            let a = p + info.anchorOffset
            out.append(LabelFrame(x: a.x - size.width / 2 - 4, y: a.y - size.height - 4, width: size.width + 8, height: size.height + 8))
        }
        let screen = Size(width: view.width, height: view.height)
        let controls = MapControls(screen: screen, compassVisible: scene.showsCompass, recenterVisible: scene.showsRecenterButton)
        if scene.showsCompass { out.append(LabelFrame(controls.compassFrame)) }
        if scene.showsRecenterButton { out.append(LabelFrame(controls.recenterFrame)) }
        if scene.showsScaleBar { out.append(LabelFrame(x: 0, y: view.height - 70, width: 180, height: 70)) }
        out.append(LabelFrame(x: view.width / 3, y: view.height - 22, width: view.width * 2 / 3, height: 22))   // attribution
        return out
    }
}

extension LabelFrame {
    init(_ r: ScreenRect) { self.init(x: r.minX, y: r.minY, width: r.size.width, height: r.size.height) }
}

/// A tile set opened for the renderer: raster images or vector tiles, told apart by content.
public struct OpenedTiles {
    public var raster: RasterTileSource?
    public var vector: VectorTileSet?
    /// Why the tile set is not shown, or what is wrong with part of it; each names the file.
    public var warnings: [String] = []
}

extension MapRenderer {
    /// Opens an MBTiles or PMTiles file (raster or vector: by its content, not its name). When
    /// it cannot be used, returns no source and a warning naming the file, why, and that the
    /// built-in world is shown instead.
    public static func openTiles(path: String, rasterCacheCapacity: Int = 256, vectorCacheBytes: Int = 48 << 20) -> OpenedTiles {
        do {
            let source = try TileArchive.open(path: path)
            var opened = OpenedTiles()
            switch source.metadata.kind {
            case .vector:
                opened.vector = VectorTileSet(tiles: source, maxBytes: vectorCacheBytes)
            case .raster:
                if let f = source.metadata.format, !["png", "jpg", "jpeg", "webp"].contains(f) {
                    opened.warnings.append(MBTilesError.unsupportedTileFormat(path: path, format: f.uppercased()).description)
                }
                opened.raster = RasterTileSource(tiles: source, capacity: rasterCacheCapacity)
            }
            return opened
        } catch {
            return OpenedTiles(warnings: ["warning: \(error) Showing the built-in world map instead."])
        }
    }
}
