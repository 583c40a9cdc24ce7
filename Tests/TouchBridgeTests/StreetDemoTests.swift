import Foundation
import Testing
import MapEngine
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

/// `touchbridge demo --street`: the scripted tour over Vaduz on the Liechtenstein tiles.
@Suite struct StreetDemoTests {
    @Test func theTourRunsOverVaduzOnTheStreetMap() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("tb-street-demo-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        var runner = DemoRunner(outputDirectory: out, streetTiles: liechtensteinTiles)
        var firstFrame: [UInt32] = []
        runner.onFrame = { f in
            guard firstFrame.isEmpty else { return }
            for y in stride(from: 0, to: f.height, by: 8) { for x in stride(from: 0, to: f.width, by: 8) { firstFrame.append(f.pixel(x: x, y: y) & 0xffffff) } }
        }
        let result = try runner.run()
        #expect(result.frames.count == 14)   // the start, the eleven gestures, the overlay tap, following
        // The first frame is the street map: its background, roads, forest and water, not the world's sea and land.
        let colours = Set(firstFrame)
        #expect(firstFrame.filter { $0 == 0xf3efe7 }.count > firstFrame.count / 5, "street background")
        #expect(colours.count > 20)
        let events = try String(contentsOfFile: result.eventStream, encoding: .utf8)
        #expect(events.contains(#""type":"didTapMarker","marker":"town-hall""#))
        #expect(events.contains(#""type":"didTapAt""#))
        #expect(events.contains(#""type":"didTapOverlay","overlay":"market""#))
        let toml = try String(contentsOfFile: (out as NSString).appendingPathComponent("tour.toml"), encoding: .utf8)
        #expect(toml.contains("source = \"tiles\"") && toml.contains(liechtensteinTiles))
        // The tour's configuration loads as a kiosk configuration naming the same tiles.
        let cfg = try KioskConfiguration.parse(text: toml, file: "tour.toml")
        #expect(cfg.map.source == .mbtiles(liechtensteinTiles))
    }
}
