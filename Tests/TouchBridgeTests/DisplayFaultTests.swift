import Foundation
import TouchCore
import Logging
import Testing
import Display
import Platform
@testable import TouchBridge
@testable import Kiosk

/// The kiosk with a display that fails: it keeps running, logs each problem once, and waits
/// for a display another DRM master holds (a frame attempt every half second, no busy loop).
@Suite struct DisplayFaultTests {
    /// A display scripted to fail: `failures` says what each present does (nil: shows the frame).
    final class FaultyDisplay: DisplayBackend {
        let width = 640, height = 400
        var physicalSizeMM: (width: Int, height: Int)? { nil }
        let refreshHz = 60.0
        var name: String { "faulty" }
        var isFlipPending: Bool { false }
        var failures: [DisplayError?]
        var presents = 0, shown = 0, eventReads = 0
        /// An eventfd-like pipe that stays readable: a broken event fd.
        var eventFD: Int32?
        var eventFileDescriptor: Int32? { eventFD }
        let memory = UnsafeMutableRawPointer.allocate(byteCount: 640 * 400 * 4, alignment: 64)
        init(_ failures: [DisplayError?]) { self.failures = failures }
        deinit { memory.deallocate() }
        func backBuffer() -> FrameBuffer { FrameBuffer(width: width, height: height, stride: width * 4, pixels: memory) }
        func present() throws -> Bool {
            presents += 1
            if !failures.isEmpty, let e = failures.removeFirst() { throw e }
            shown += 1
            return true
        }
        func handleEvents() throws {
            eventReads += 1
            eventFD = nil // as DRMDisplay does once its fd failed
            throw DisplayError.lost(path: "/dev/dri/card9", reason: "drmHandleEvent: Input/output error (errno 5)")
        }
        func close() {}
    }

    func makeView(_ display: FaultyDisplay) throws -> (MapView, WrittenText) {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        let out = WrittenText()
        let logger = Logger(label: "touchbridge") { JournalLogHandler(label: $0, style: .plain, write: out.append) }
        let view = try MapView(configuration: cfg, display: display, log: KioskLog(level: .info, logger: logger))
        return (view, out)
    }

    /// Another master holds the card for three attempts: the first failure is logged once, the
    /// next attempts wait half a second each (frames asked for meanwhile are not drawn), and the
    /// fourth shows the map and says so.
    @Test func aDisplayHeldByAnotherMasterIsWaitedForAndTakenBack() throws {
        let held = DisplayError.masterHeld(path: "/dev/dri/card0")
        let display = FaultyDisplay([held, held, held])
        let (view, log) = try makeView(display)
        view.drawAndPresent(now: 10)
        #expect(display.presents == 1 && display.shown == 0)
        #expect(view.displayRetryAt == 10.5)
        for t in [10.1, 10.2, 10.49] { view.drawAndPresent(now: t) } // input meanwhile: nothing drawn
        #expect(display.presents == 1)
        #expect(view.pipeline.takeNeedsRedraw()) // the frame is still owed
        view.drawAndPresent(now: 10.5)
        view.drawAndPresent(now: 11.0)
        #expect(display.presents == 3 && view.displayRetryAt == 11.5)
        view.drawAndPresent(now: 11.5)
        #expect(display.presents == 4 && display.shown == 1)
        #expect(view.displayRetryAt == nil)
        let text = log.text
        #expect(text.components(separatedBy: "another process holds DRM master").count == 2, "\(text)")
        #expect(text.contains("Waiting to take the display back"))
        #expect(text.contains("display: showing the map again"))
        #expect(view.framesPresented == 1)
    }

    /// Other present errors are logged once while they repeat, and again after a recovery.
    @Test func aRepeatingErrorIsLoggedOnce() throws {
        let e = DisplayError.systemCall(path: "/dev/fb0", call: "FBIOPAN_DISPLAY", errno: .ioError)
        let display = FaultyDisplay([e, e, e, nil, e])
        let (view, log) = try makeView(display)
        for i in 0..<5 { view.drawAndPresent(now: 10 + Double(i)) }
        #expect(display.presents == 5 && display.shown == 1)
        #expect(log.text.components(separatedBy: "FBIOPAN_DISPLAY failed").count == 3, "\(log.text)")
    }

    /// A display fd that fails stays readable for ever: it must leave the loop after the first
    /// failed read, or the loop would spin on it. The loop runs for 0.3 s of wall time (stopTime)
    /// and the failing read happens exactly once; the kiosk keeps running to its stop time.
    @Test func aFailingDisplayFdLeavesTheLoop() throws {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        Glibc.close(fds[1]) // the read end is readable (EOF) for ever
        defer { Glibc.close(fds[0]) }
        let display = FaultyDisplay([])
        display.eventFD = fds[0]
        let (view, log) = try makeView(display)
        view.stopTime = MonotonicClock.now() + 0.3
        try view.run()
        #expect(display.eventReads == 1)
        #expect(log.text.components(separatedBy: "stopped working").count == 2, "\(log.text)")
    }
}
