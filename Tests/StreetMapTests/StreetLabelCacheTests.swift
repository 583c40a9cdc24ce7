import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering
@testable import VectorTiles

/// The street labels' kept features (`StreetLabelCache`): a settled frame at the zoom of the
/// last one places its labels from the features kept, with the bytes and labels a renderer
/// that never kept any gives; a new language or zoom finds its features afresh.
@Suite struct StreetLabelCacheTests {
    static func frame(_ r: MapRenderer, _ camera: CameraPosition) -> [UInt8] {
        let f = OwnedFrameBuffer(width: 960, height: 540)
        r.render(MapScene(camera: camera), into: f.buffer)
        return Array(UnsafeBufferPointer(start: f.buffer.pixels.assumingMemoryBound(to: UInt8.self), count: f.buffer.stride * 540))
    }

    static func moved(_ c: CameraPosition, dx: Double) -> CameraPosition {
        var m = c
        m.target = WebMercator.coordinate(world: WebMercator.worldPoint(c.target, zoom: c.zoom) + Point(x: dx, y: 0), zoom: c.zoom)
        return m
    }

    /// Over the Liechtenstein tiles, flat and tilted: the frame after a pan, drawn from kept
    /// features, is byte for byte the frame of a fresh renderer, with the same labels.
    @Test func keptFeaturesGiveTheFreshFrame() throws {
        let tiles = try #require(MapRenderer.openTiles(path: mbtilesPath).vector)
        for camera in [CameraPosition(target: Coordinate(latitude: 47.141, longitude: 9.521), zoom: 15.5),
                       CameraPosition(target: Coordinate(latitude: 47.141, longitude: 9.521), zoom: 15.5, bearing: 30, tilt: 50)] {
            // Both drawn in full (no base map kept either): only the labels' features are kept.
            let kept = MapRenderer(vector: tiles)
            kept.usesBaseMapCache = false
            _ = Self.frame(kept, camera)
            let made = kept.streetLabelCache.made
            #expect(made > 0 && kept.streetLabelCache.count == made)
            let after = Self.moved(camera, dx: 120)
            let a = Self.frame(kept, after)
            #expect(kept.streetLabelCache.made - made < made, "a pan of 120 px finds most tiles' features kept: \(made) then \(kept.streetLabelCache.made)")
            let fresh = MapRenderer(vector: tiles)
            fresh.usesBaseMapCache = false
            let b = Self.frame(fresh, after)
            let same = a == b
            let differing = zip(a, b).filter { $0 != $1 }.count
            #expect(same, "tilt \(camera.tilt): the frame from kept features is the fresh frame (\(differing) bytes differ)")
            #expect(kept.streetLabels == fresh.streetLabels && !kept.streetLabels.isEmpty)
        }
    }

    /// One renderer, its language switched back and forth and its zoom changed: the names
    /// follow each switch (nothing kept for another language is used).
    @Test func aNewLanguageOrZoomFindsItsFeaturesAfresh() {
        let renderer = MapRenderer(vector: VectorTileSet(tiles: MultilingualTiles()))
        let camera = CameraPosition(target: MultilingualTiles.vaduz, zoom: 15.2)
        func names() -> Set<String> { Set(renderer.streetLabels.map(\.text)) }
        _ = Self.frame(renderer, camera)
        #expect(names().contains("Vaduz"), "\(names())")
        let made = renderer.streetLabelCache.made
        _ = Self.frame(renderer, Self.moved(camera, dx: 20))
        #expect(renderer.streetLabelCache.made == made, "the same tile at the same zoom: nothing made again")
        renderer.labelLanguage = "ja"
        _ = Self.frame(renderer, camera)
        #expect(names().contains("ファドゥーツ") && !names().contains("Vaduz"), "\(names())")
        #expect(renderer.streetLabelCache.made > made)
        renderer.labelLanguage = nil
        _ = Self.frame(renderer, camera)
        #expect(names().contains("Vaduz") && !names().contains("ファドゥーツ"), "\(names())")
        let atZoom = renderer.streetLabelCache.made
        var closer = camera
        closer.zoom = 15.6
        _ = Self.frame(renderer, closer)
        #expect(renderer.streetLabelCache.made > atZoom, "a new zoom finds its features afresh")
        #expect(names().contains("Vaduz"))
    }
}
