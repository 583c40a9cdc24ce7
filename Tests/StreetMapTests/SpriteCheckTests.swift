import Foundation
import Testing
@testable import Rendering
@testable import VectorTiles

/// `touchbridge check` names a style's broken sprite as `run` would log it (issue 27).
@Suite struct SpriteCheckTests {
    func style(sprite: String, file: String) throws -> StreetStyle {
        let json = """
        {"version": 8, "sprite": "\(sprite)", "layers": [
          {"id": "poi", "type": "symbol", "source-layer": "poi", "layout": {"icon-image": "{class}", "text-field": "{name}"}}]}
        """
        return try StreetStyle.parse(Data(json.utf8), file: file)
    }

    @Test func aCorruptOrMissingLocalSpriteIsReportedWithItsFile() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("sprite-check-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Data("{\"cafe\": {\"x\": 0,".utf8).write(to: URL(fileURLWithPath: dir + "/icons.json"))
        try Data([0x89, 0x50, 0x4E, 0x47, 0, 0, 0]).write(to: URL(fileURLWithPath: dir + "/icons.png"))
        let broken = try #require(SpriteIcons.checkReport(for: try style(sprite: dir + "/icons", file: dir + "/style.json")))
        #expect(broken.hasPrefix("  sprite: 1 problem (warnings, not errors"), "\(broken)")
        #expect(broken.contains(dir + "/icons") && broken.contains("No icons are drawn"), "\(broken)")
        let missing = try #require(SpriteIcons.checkReport(for: try style(sprite: dir + "/nothing", file: dir + "/style.json")))
        #expect(missing.contains(dir + "/nothing.json") && missing.contains("no such file"), "\(missing)")
    }

    @Test func theBuiltInSpriteAndTheStandardStyleReportNothing() throws {
        #expect(SpriteIcons.checkReport(for: .standard()) == nil)
        #expect(SpriteIcons.checkReport(for: try style(sprite: "touchbridge:poi", file: "s.json")) == nil)
    }
}
