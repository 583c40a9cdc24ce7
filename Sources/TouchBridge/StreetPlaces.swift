import Foundation
import MapEngine
import Rendering
import VectorTiles

/// The street map's tappable place names and POIs for a pipeline that draws no frames
/// (`replay`): whenever the camera has settled somewhere new, the labels a settled frame there
/// would show are placed (not drawn) and handed to the controller, as the kiosk hands over
/// the labels of each frame it draws. So a tap in a replay gives the same didTapPOI as on the panel.
package final class StreetPlaces {
    let renderer: MapRenderer
    let screen: Size
    private var placedFor: CameraPosition?
    /// The built-in world's cities, tappable again when the view leaves the street map.
    private var worldPlaces: [PointOfInterest]?

    /// Nil when the configuration names no vector tile set (the built-in cities stay the POIs);
    /// `warn` hears why a named tile set cannot be used.
    public init?(configuration cfg: KioskConfiguration, screen: Size, warn: (String) -> Void = { _ in }) {
        guard case .mbtiles(let path) = cfg.map.source else { return nil }
        let opened = MapRenderer.openTiles(path: path)
        for w in opened.warnings { warn(w) }
        guard let vector = opened.vector else { return nil }
        var style: StreetStyle? = nil
        if let p = cfg.map.style {
            do { style = try StreetStyle.load(path: p) } catch { warn("\(error). Using the built-in street style instead.") }
        }
        renderer = MapRenderer(vector: vector, streetStyle: style)
        renderer.textScale = cfg.map.textScale
        renderer.labelLanguage = cfg.map.language
        self.screen = screen
    }

    /// Places the labels again if the camera rests somewhere they were not placed for.
    public func update(_ pipeline: MapPipeline) {
        let c = pipeline.controller
        guard !c.isMoving, pipeline.contactsDown == 0, c.camera != placedFor else { return }
        placedFor = c.camera
        let labels = renderer.placeStreetLabels(for: pipeline.scene(attribution: nil), screen: screen)
        if worldPlaces == nil { worldPlaces = c.pointsOfInterest }
        c.pointsOfInterest = labels.isEmpty ? worldPlaces ?? [] : labels.compactMap(\.pointOfInterest)
    }
}
