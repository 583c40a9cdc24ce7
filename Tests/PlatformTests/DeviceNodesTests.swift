import Foundation
import Testing
@testable import Platform

/// The one directory scan of the input and display inventories (no /dev needed).
@Suite struct DeviceNodesTests {
    @Test func numberedEntriesOfOnePrefixInNumericOrder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nodes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["event10", "event2", "event", "eventx", "card0", "mouse0", "by-path", "event0"] {
            try Data().write(to: dir.appendingPathComponent(name))
        }
        #expect(DeviceNodes.numbered("event", in: dir.path) == ["\(dir.path)/event0", "\(dir.path)/event2", "\(dir.path)/event10"])
        #expect(DeviceNodes.numbered("card", in: dir.path) == ["\(dir.path)/card0"])
        #expect(DeviceNodes.numbered("card", in: dir.path + "/missing").isEmpty)
    }
}
