import Foundation
import Testing
import TouchCore
import Gestures
import MapEngine
#if canImport(Glibc)
import Glibc
#endif
@testable import TouchBridge

/// SIGHUP re-reads the configuration: a good file is applied, a bad one keeps the old one.
@Suite(.serialized) struct ReloadTests {
    func tempConfig(_ text: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-reload-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent("kiosk.toml").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    let base = """
    [[touch]]
    match = "/nonexistent/event99"
    [gestures]
    tap_slop_mm = 3.0
    [[markers]]
    id = "a"
    latitude = 1.0
    longitude = 2.0
    title = "A"
    """

    /// Runs the view's loop, sends itself SIGHUP once the first frame is up (after `edit`), and
    /// stops shortly after.
    func runWithHangup(_ view: MapView, edit: @escaping () -> Void) throws {
        var sent = false
        view.onFramePresented = { _, _ in
            guard !sent else { return }
            sent = true
            edit()
            raise(SIGHUP) // blocked by the loop on this thread: delivered through its signalfd
            view.stopTime = EventLoop.now() + 0.2
        }
        view.stopTime = EventLoop.now() + 5
        try view.run()
        #expect(sent)
    }

    @Test func aGoodNewFileIsApplied() throws {
        let path = try tempConfig(base)
        let view = try MapView(configuration: try KioskConfiguration.load(path: path), configPath: path,
                               display: MemoryDisplay(width: 640, height: 400), log: KioskLog(level: .error))
        #expect(view.pipeline.recognizer.thresholds.tapMaxMovement == 3)
        try runWithHangup(view) {
            try? (self.base.replacingOccurrences(of: "tap_slop_mm = 3.0", with: "tap_slop_mm = 4.5")
                  .replacingOccurrences(of: "id = \"a\"", with: "id = \"b\"")).write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(view.pipeline.recognizer.thresholds.tapMaxMovement == 4.5)
        #expect(view.controller.markers.map(\.id) == ["b"])
    }

    @Test func aBadNewFileKeepsTheRunningConfiguration() throws {
        let path = try tempConfig(base)
        let view = try MapView(configuration: try KioskConfiguration.load(path: path), configPath: path,
                               display: MemoryDisplay(width: 640, height: 400), log: KioskLog(level: .error))
        try runWithHangup(view) {
            try? (self.base + "\n[gestures]\ntap_slop_mm = \"wide\"\n").write(toFile: path, atomically: true, encoding: .utf8)
        }
        #expect(view.pipeline.recognizer.thresholds.tapMaxMovement == 3)
        #expect(view.controller.markers.map(\.id) == ["a"])
    }
}
