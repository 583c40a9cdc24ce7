import Foundation
import Testing
@testable import TouchDevices

/// What can be checked without /dev/input: which nodes are found, in which order, and how an
/// unusable node is reported. Real devices are covered by Tests/e2e/test_devices.py in the VM.
struct EvdevInventoryTests {
    private func directory(with names: [String]) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("evdev-inv-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for name in names { try Data().write(to: dir.appendingPathComponent(name)) }
        return dir.path
    }

    @Test func nodePathsAreEventNodesInNumericOrder() throws {
        let dir = try directory(with: ["event10", "event2", "mice", "event0", "eventX", "js0"])
        #expect(EvdevInventory.nodePaths(in: dir) == ["\(dir)/event0", "\(dir)/event2", "\(dir)/event10"])
    }

    @Test func missingDirectoryMeansNoDevices() {
        #expect(EvdevInventory.scan(directory: "/nonexistent-\(UUID().uuidString)").isEmpty)
    }

    @Test func aNodeThatIsNotEvdevIsListedWithItsReason() throws {
        let dir = try directory(with: ["event3"])
        let nodes = EvdevInventory.scan(directory: dir)
        #expect(nodes.count == 1)
        guard case .failure(let error) = nodes[0].capabilities else {
            Issue.record("a regular file read as an evdev device")
            return
        }
        #expect(error.path == "\(dir)/event3")
        #expect(error.code == .inappropriateIOCTLForDevice)
        #expect(error.reason.hasPrefix("libevdev_new_from_fd failed"))
    }

    @Test func axisNamesComeFromTheKernelHeaders() {
        #expect(EvdevInventory.axisName(0x35) == "ABS_MT_POSITION_X")
        #expect(EvdevInventory.axisName(0x2f) == "ABS_MT_SLOT")
        #expect(EvdevInventory.axisName(0x00) == "ABS_X")
    }
}
