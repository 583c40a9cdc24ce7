import Foundation
import Testing
import MapEngine
@testable import Rendering

/// Issue 26: a full frame of the built-in world with overlays is drawn band by band through all
/// its layers (`MapRenderer.paintFullFrameInBands`). It must be the frame the layers drawn one
/// after the other over the whole frame give, and the one-thread frame, byte for byte.
@Suite struct FusedBandsTests {
    /// Polygons, a circle, the route, 300 pins (one of another colour), a cluster bubble, the
    /// puck with heading and accuracy, an info window, over Europe with its place names.
    static func scene() -> MapScene {
        var scene = MapScene(camera: CameraPosition(target: Coordinate(latitude: 48, longitude: 9), zoom: 5))
        let colors: [UInt32] = [0xE53935, 0x43A047, 0x1E88E5]
        let polygons = (0..<60).map { i -> OverlayShape in
            let c = Coordinate(latitude: 42 + Double(i % 10) * 1.2, longitude: -2 + Double(i / 10) * 3.1)
            let ring = (0..<8).map { k -> Coordinate in
                let a = Double(k) * .pi / 4
                return Coordinate(latitude: c.latitude + 0.8 * sin(a), longitude: c.longitude + 1.3 * cos(a))
            }
            return OverlayShape(geometry: .polygon([ring]), style: ShapeStyle(stroke: colors[i % 3], strokeWidth: 1.5, fill: colors[i % 3], fillOpacity: 0.35))
        }
        let circle = OverlayShape(geometry: .circle(center: Coordinate(latitude: 50, longitude: 14), radius: 200_000),
                                  style: ShapeStyle(stroke: 0x6A1B9A, fill: 0xAB47BC, fillOpacity: 0.4))
        scene.overlays = [Overlay(id: "zones", shapes: polygons + [circle])]
        let route = (0..<400).map { i in Coordinate(latitude: 46 + 4 * sin(Double(i) / 40), longitude: -4 + Double(i) * 0.06) }
        scene.route = RouteDrawing(points: route, progress: RouteProgress(segment: 150, point: route[150]))
        scene.markers = (0..<300).map { i in
            MarkerSprite(id: "m\(i)", coordinate: Coordinate(latitude: 41 + Double(i % 20) * 0.7, longitude: -3 + Double(i / 20) * 1.3),
                         icon: .defaultPin(RGBColor(hex: i == 7 ? 0x1565C0 : 0xE53935)), zIndex: i % 3)
        } + [MarkerSprite(id: "c", coordinate: Coordinate(latitude: 47, longitude: 5), icon: .cluster(count: 42), zIndex: 9)]
        scene.puck = PuckDrawing(coordinate: Coordinate(latitude: 48.2, longitude: 9.3), heading: 40, accuracy: 60_000)
        scene.infoWindow = InfoWindowContent(title: "Cafe", snippet: "Open", coordinate: Coordinate(latitude: 47.5, longitude: 8.5))
        return scene
    }

    static func frame(_ scene: MapScene, bands: Int, fused: Bool, rows: Int = 48, width: Int = 800, height: Int = 600)
        -> (OwnedFrameBuffer, MapRenderer.FrameKind, [DrawnPlace]) {
        let r = MapRenderer()
        r.bands = bands
        r.usesBaseMapCache = false
        r.fusesFullFrame = fused
        r.fusedBandRows = rows
        let f = OwnedFrameBuffer(width: width, height: height)
        r.render(scene, into: f.buffer)
        return (f, r.lastFrameKind, r.drawnPlaces)
    }

    @Test(arguments: [(0.0, 0.0, 5.0), (25.0, 0.0, 5.0), (10.0, 50.0, 5.0), (0.0, 0.0, 3.5), (170.0, 70.0, 4.0)])
    func fusedBandsDrawTheLayerByLayerFrame(bearing: Double, tilt: Double, zoom: Double) {
        var scene = Self.scene()
        scene.camera.bearing = bearing
        scene.camera.tilt = tilt
        scene.camera.zoom = zoom
        let (one, kind, places) = Self.frame(scene, bands: 1, fused: true)
        #expect(kind == .full)
        let (layered, _, _) = Self.frame(scene, bands: 2, fused: false)
        #expect(ParallelBandsTests.differing(one.buffer, layered.buffer) == 0)
        for round in 0..<12 {
            let rows = [48, 64, 100, 135, 600][round % 5]
            let (fused, _, fusedPlaces) = Self.frame(scene, bands: 2 + round % 3, fused: true, rows: rows)
            let d = ParallelBandsTests.differing(one.buffer, fused.buffer)
            if d > 0 {
                let dir = FileManager.default.temporaryDirectory.appendingPathComponent("touchbridge-rendering-tests").path
                try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
                try? fused.buffer.writePNG(to: dir + "/fused-b\(Int(bearing))-t\(Int(tilt))-r\(rows).png")
                try? one.buffer.writePNG(to: dir + "/serial-b\(Int(bearing))-t\(Int(tilt)).png")
            }
            #expect(d == 0, "bearing \(bearing) tilt \(tilt) zoom \(zoom), \(rows)-row bands, round \(round): \(d) pixels differ")
            #expect(fusedPlaces.map(\.name) == places.map(\.name))
        }
    }
}
