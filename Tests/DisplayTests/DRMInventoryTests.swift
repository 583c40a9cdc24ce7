import Foundation
import Testing
@testable import Display

/// What can be checked without /dev/dri: which card nodes are found and how an unusable one is
/// reported. The bochs card is covered by Tests/e2e/test_devices.py in the VM.
struct DRMInventoryTests {
    /// A new temporary folder holding empty files of these names (each test removes its own).
    private func directory(with names: [String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("drm-inv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in names { try Data().write(to: dir.appendingPathComponent(name)) }
        return dir.path
    }

    @Test func cardPathsSkipRenderNodesAndSortNumerically() throws {
        let dir = try directory(with: ["card11", "renderD128", "card1", "by-path"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(DRMInventory.cardPaths(in: dir) == ["\(dir)/card1", "\(dir)/card11"])
    }

    @Test func missingDirectoryMeansNoCards() {
        #expect(DRMInventory.scan(directory: "/nonexistent-\(UUID().uuidString)").isEmpty)
    }

    @Test func aNodeWithoutModeSettingIsListedWithItsReason() throws {
        let dir = try directory(with: ["card0"])
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cards = DRMInventory.scan(directory: dir)
        #expect(cards.count == 1)
        guard case .failure(let error) = cards[0].card else {
            Issue.record("a regular file read as a DRM card")
            return
        }
        #expect(error.path == "\(dir)/card0")
        #expect(error.reason.contains("does no mode setting"))
    }
}
