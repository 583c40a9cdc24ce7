import Foundation
import MapEngine
import Rendering
import VectorTiles

/// Changes a running view's map and camera settings (the kiosk's reload uses these).
extension MapView {
    /// `[camera]` changed in the file: the position source (fixed position, heading, or the
    /// track) and the start mode, when the file changed them (a mode a person or an app chose
    /// since stays otherwise).
    package func applyCameraSettings(old: KioskConfiguration, new: KioskConfiguration, at now: Double) {
        let o = old.camera, n = new.camera
        if n.positionSource != o.positionSource || n.position != o.position || n.heading != o.heading
            || new.position.accuracyMeters != old.position.accuracyMeters {
            switch n.positionSource {
            case .fixed:
                if let p = n.position {
                    var fix = PositionFix(coordinate: p, heading: n.heading)
                    fix.accuracy = new.position.accuracyMeters
                    controller.setPosition(fix, at: now)
                } else {
                    controller.positionSource = nil
                }
            case .track:
                controller.positionSource = PositionSource.track(DemoTrack.points).shifted(by: now)
            }
        }
        if n.mode != o.mode {
            if n.mode == .following && controller.positionSource == nil {
                log(.warning, "reload: camera mode following needs a position; staying in \(controller.cameraMode.rawValue)")
            } else {
                controller.setCameraMode(n.mode, at: now)
            }
        }
        pipeline.advance(to: now)
    }

    /// A new tiles file or style: a new renderer (its caches sized as at start); the vector
    /// worker's wake-up moves to the new tile set.
    /// Returns the old tile sets' cache hits and misses (a counter that goes on across maps adds them).
    @discardableResult
    package func switchMap(to map: KioskConfiguration.MapSettings) throws -> (hits: Int, misses: Int) {
        let w = Int(screen.width), h = Int(screen.height)
        var raster: RasterTileSource? = nil
        var vector: VectorTileSet? = nil
        var warnings: [String] = []
        if case .mbtiles(let path) = map.source {
            let opened = MapRenderer.openTiles(path: path, rasterCacheCapacity: RasterTileSource.capacity(screenWidth: w, screenHeight: h),
                                               vectorCacheBytes: VectorTileSet.cacheBytes(
                screenWidth: w, screenHeight: h, margin: MapRenderer.cacheMargin(width: w, height: h)))
            guard opened.raster != nil || opened.vector != nil else {
                throw ConfigError(file: configPath ?? "configuration", line: nil, key: "map.tiles",
                                  message: TileFileCheck.problem(path: path) ?? "\(path): cannot be opened")
            }
            raster = opened.raster
            vector = opened.vector
            warnings = opened.warnings
        }
        var style: StreetStyle? = nil
        if let path = map.style {
            do { style = try StreetStyle.load(path: path) } catch {
                throw ConfigError(file: configPath ?? "configuration", line: nil, key: "map.style", message: "\(error)")
            }
        }
        tileWorker?.close()
        tileWorker = nil
        let v = renderer.vector?.cacheCounts ?? (0, 0), rc = renderer.raster?.cacheCounts ?? (0, 0)
        let retired = (hits: v.0 + rc.0, misses: v.1 + rc.1)
        let r = MapRenderer(raster: raster, vector: vector, streetStyle: style)
        r.textScale = renderer.textScale
        r.labelLanguage = renderer.labelLanguage
        r.usesBaseMapCache = renderer.usesBaseMapCache
        r.usesOverlayLayer = renderer.usesOverlayLayer
        r.decodedImages = renderer.decodedImages
        renderer = r
        pipeline.measureInfoWindows(with: r)
        for warning in warnings + r.spriteWarnings { log(.warning, warning) }
        if let style { MapView.logNotices(style, log: log) }
        if let vector {
            tileWorker = try TileWorkerWake(vector: vector, loop: eventLoop) { [weak self] in
                self?.renderer.invalidateCache()
                self?.pipeline.setNeedsRedraw()
            }
        }
        log(.info, MapView.memoryPlan(display: display, rotation: configuration.display.rotation, width: w, height: h, raster: raster, vector: vector))
        return retired
    }
}
