import Foundation
import Testing
import TouchCore
import MapEngine
@testable import TouchBridge
@testable import Kiosk

/// The kiosk's event stream (`[log] events`): a full disk does not stop the kiosk, and a FIFO
/// nobody reads is a configuration error, not a hang at start.
@Suite struct EventStreamKioskTests {
    func config(events: String) -> KioskConfiguration {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        cfg.log.events = events
        return cfg
    }

    @Test func aFullDiskDropsLinesAndTheKioskGoesOn() throws {
        let view = try Kiosk(configuration: config(events: "/dev/full"), display: MemoryDisplay(width: 640, height: 400),
                               log: KioskLog(level: .error))
        let before = view.controller.camera
        var s = TouchScript(screen: view.screen, start: 1)
        s.move([0: Point(x: 300, y: 200)], [0: Point(x: 100, y: 150)], duration: 0.3)
        var a = FrameAssembler(capabilities: s.device, screen: view.screen)
        for e in s.events { if let f = a.process(e) { view.pipeline.handle(f) } }
        view.pipeline.advance(to: s.time + 3)
        view.drawAndPresent(now: s.time + 3)
        #expect(view.controller.camera.target != before.target, "the pan moved the map")
        #expect(view.eventOut?.failure == .error(errno: .noSpace))
        #expect((view.eventOut?.droppedLines ?? 0) > 3)
        #expect(view.pipeline.contactsDown == 0)
    }

    @Test func aFIFOWithoutAReaderIsAConfigurationError() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-kiosk-fifo-\(getpid())").path
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        do {
            _ = try Kiosk(configuration: config(events: path), display: MemoryDisplay(width: 64, height: 48), log: KioskLog(level: .error))
            Issue.record("expected a ConfigError")
        } catch let e as ConfigError {
            #expect(e.key == "log.events")
            #expect(e.message.contains("it is a FIFO that no process reads"))
        }
    }
}
