import Foundation
import Testing
import TouchCore
import MapEngine
import Gestures
import Rendering
@testable import TouchBridge
@testable import Kiosk

/// The Liechtenstein OpenMapTiles extract the street-map tests use (Tests/StreetMapTests/Fixtures, ODbL).
let liechtensteinTiles = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("StreetMapTests/Fixtures/liechtenstein-openmaptiles.mbtiles").path

/// Taps on the street map's place names and POIs reach the delegate as didTapPOI with the
/// feature's name, class and id, on the kiosk (labels of the drawn frame) and in `replay`
/// (labels placed for the settled camera without drawing).
@Suite struct StreetPOITests {
    static let vaduz = CameraPosition(target: Coordinate(latitude: 47.1405, longitude: 9.5215), zoom: 16.5)

    final class POIs: MapViewDelegate {
        var got: [PointOfInterest] = []
        var taps = 0
        func didTapPOI(_ poi: PointOfInterest) { got.append(poi) }
        func didTapAt(_ c: Coordinate) { taps += 1 }
    }

    func configuration() -> KioskConfiguration {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))] // no real devices on this host
        cfg.map.source = .mbtiles(liechtensteinTiles)
        cfg.map.camera = Self.vaduz
        return cfg
    }

    /// A label that is a POI (class and id known), drawn in the frame.
    func poiLabel(_ labels: [PlacedStreetLabel]) throws -> PlacedStreetLabel {
        try #require(labels.first { $0.tappable && $0.featureClass != nil && $0.featureID != nil && $0.layerID.contains("poi") }
                     ?? labels.first { $0.tappable && $0.featureClass != nil && $0.featureID != nil },
                     "tappable labels: \(labels.filter(\.tappable).map(\.text))")
    }

    @Test func aTapOnADrawnPOILabelIsDidTapPOIWithNameClassAndID() throws {
        let view = try MapView(configuration: configuration(), display: MemoryDisplay(width: 1280, height: 800), log: KioskLog(level: .error))
        let d = POIs()
        view.delegate = d
        var lines: [String] = []
        view.pipeline.sink = { lines.append($0) }
        view.drawAndPresent(now: 1)
        // The kiosk decodes on the worker: the first frame goes without; once the tiles are in,
        // the loop (here: the test) forgets the cached base map and draws again.
        let vector = try #require(view.renderer.vector)
        #expect(vector.decodesOnWorker)
        vector.waitForPrefetch()
        view.renderer.invalidateCache()
        view.drawAndPresent(now: 1.5)
        let label = try poiLabel(view.renderer.streetLabels)
        // Tap the label's text near its right end (not its anchor): the whole drawn name is the target.
        var s = TouchScript(screen: view.screen, start: 2)
        s.tap(Point(x: label.frame.x + label.frame.width - 6, y: label.frame.y + label.frame.height / 2))
        var a = FrameAssembler(capabilities: s.device, screen: view.screen)
        for e in s.events { if let f = a.process(e) { view.pipeline.handle(f) } }
        view.pipeline.advance(to: s.time + 3)
        #expect(d.got.map(\.name) == [label.text])
        #expect(d.got.first?.featureClass == label.featureClass)
        #expect(d.got.first?.id == label.featureID)
        #expect(d.taps == 0)
        let line = try #require(lines.first { $0.contains("\"didTapPOI\"") })
        #expect(line.contains("\"class\":\"\(label.featureClass!)\",\"id\":\(label.featureID!)"), "\(line)")
        // A tap on bare ground far from any label is a map tap.
        let empty = try #require(stride(from: 60.0, to: 1200, by: 37).lazy.map { Point(x: $0, y: 150) }
            .first { p in !view.renderer.streetLabels.contains { $0.frame.x - 20 < p.x && p.x < $0.frame.x + $0.frame.width + 20 && $0.frame.y - 20 < p.y && p.y < $0.frame.y + $0.frame.height + 20 } })
        var s2 = TouchScript(screen: view.screen, start: 10)
        s2.tap(empty)
        var a2 = FrameAssembler(capabilities: s2.device, screen: view.screen)
        for e in s2.events { if let f = a2.process(e) { view.pipeline.handle(f) } }
        view.pipeline.advance(to: s2.time + 3)
        #expect(d.got.count == 1 && d.taps == 1)
    }

    @Test func aTapOnAPOIIconIsDidTapPOIWithItsNameClassAndCoordinate() throws {
        var cfg = configuration()
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47.141, longitude: 9.521), zoom: 17)
        let view = try MapView(configuration: cfg, display: MemoryDisplay(width: 1280, height: 800), log: KioskLog(level: .error))
        let d = POIs()
        view.delegate = d
        var lines: [String] = []
        view.pipeline.sink = { lines.append($0) }
        view.drawAndPresent(now: 1)
        try #require(view.renderer.vector).waitForPrefetch()
        view.renderer.invalidateCache()
        view.drawAndPresent(now: 1.5)
        let label = try #require(view.renderer.streetLabels.first { $0.icon != nil && $0.tappable && $0.featureClass != nil },
                                 "icons: \(view.renderer.streetLabels.compactMap(\.icon?.name))")
        let icon = label.icon!
        // The icon's corner: beyond the 12 px dot radius from the POI's point, inside the icon.
        let corner = Point(x: icon.frame.x + 1, y: icon.frame.y + 1)
        var s = TouchScript(screen: view.screen, start: 2)
        s.tap(corner)
        var a = FrameAssembler(capabilities: s.device, screen: view.screen)
        for e in s.events { if let f = a.process(e) { view.pipeline.handle(f) } }
        view.pipeline.advance(to: s.time + 3)
        let got = try #require(d.got.first, "a tap on \(label.text)'s icon \(icon.name) at \(corner)")
        #expect(d.got.count == 1 && d.taps == 0)
        #expect(got.name == label.text && got.featureClass == label.featureClass && got.id == label.featureID)
        #expect(abs(got.coordinate.latitude - label.coordinate.latitude) < 1e-9 && abs(got.coordinate.longitude - label.coordinate.longitude) < 1e-9)
        let line = try #require(lines.first { $0.contains("\"didTapPOI\"") })
        #expect(line.contains("\"name\":\(MapEvent.string(label.text))") && line.contains("\"class\":\"\(label.featureClass!)\""), "\(line)")
    }

    @Test func replayGivesTheSameDidTapPOIFromTheSettledCamerasLabels() throws {
        let cfg = configuration()
        let screen = Size(width: 1280, height: 800)
        // The labels the kiosk draws for that camera (a full frame, as on the panel).
        let opened = MapRenderer.openTiles(path: liechtensteinTiles)
        let renderer = MapRenderer(vector: opened.vector)
        let frame = OwnedFrameBuffer(width: 1280, height: 800)
        let pipeline = MapPipeline(configuration: cfg, screen: screen, density: PixelDensity(pixelsPerMillimetre: 4, source: .assumed))
        renderer.render(pipeline.scene(attribution: nil), into: frame.buffer)
        let label = try poiLabel(renderer.streetLabels)
        var s = TouchScript(screen: screen, start: 1)
        s.wait(0.5)
        s.tap(Point(x: label.frame.x + label.frame.width / 2, y: label.frame.y + label.frame.height / 2))
        var lines: [String] = []
        let session = Replay.Session(capabilities: s.device, screen: screen, configuration: cfg, contacts: false) { lines.append($0) }
        for e in s.events { session.handle(e) }
        session.finish()
        let taps = lines.filter { $0.contains("\"didTapPOI\"") }
        #expect(taps.count == 1, "\(lines)")
        let t = try #require(taps.first)
        #expect(t.contains("\"name\":\(MapEvent.string(label.text))"), "\(t)")
        #expect(t.contains("\"class\":\"\(label.featureClass!)\",\"id\":\(label.featureID!)"), "\(t)")
    }
}
