#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import Platform

@Suite struct EventLoopTests {
    @Test func readableFdRunsItsHandler() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var got: [UInt8] = []
        try loop.add(fd: fds[0]) { fd in
            var b: UInt8 = 0
            _ = read(fd, &b, 1)
            got.append(b)
            loop.stop()
        }
        var byte: UInt8 = 42
        _ = write(fds[1], &byte, 1)
        try loop.run()
        #expect(got == [42])
    }

    @Test func deadlineInThePastFiresAtOnce() throws {
        let loop = try EventLoop()
        var fired = 0
        loop.onTimer { fired += 1; loop.stop() }
        loop.setDeadline(EventLoop.now() - 1)
        try loop.run()
        #expect(fired == 1)
        #expect(loop.deadline == nil)
    }

    @Test func blockedSignalArrivesThroughTheLoop() throws {
        let loop = try EventLoop()
        var signals: [Int32] = []
        try loop.handleSignals([SIGUSR2]) { s in signals.append(s); loop.stop() }
        raise(SIGUSR2)
        try loop.run()
        #expect(signals == [SIGUSR2])
    }

    /// A host's timers run in time order, a cancelled one never, and the kiosk's own deadline
    /// is independent of them.
    @Test func scheduledTimersRunInOrderAndCancelledOnesDoNot() throws {
        let loop = try EventLoop()
        var order: [String] = []
        let now = MonotonicClock.now()
        loop.schedule(at: now - 0.5) { order.append("b") }
        loop.schedule(at: now - 1) { order.append("a") }
        let dropped = loop.schedule(at: now - 2) { order.append("dropped") }
        loop.cancel(dropped)
        loop.schedule(at: now + 0.01) { order.append("c"); loop.stop() }
        try loop.run()
        #expect(order == ["a", "b", "c"])
        #expect(loop.deadline == nil)
    }

    @Test func kioskDeadlineAndHostTimerBothFire() throws {
        let loop = try EventLoop()
        var fired: [String] = []
        loop.onTimer { fired.append("kiosk") }
        loop.setDeadline(MonotonicClock.now() - 1)
        loop.schedule(after: 0.005) { fired.append("host"); loop.stop() }
        try loop.run()
        #expect(fired == ["kiosk", "host"])
    }

    /// Write interest: a pipe with room is writable at once; modify turns it to read interest.
    @Test func writeInterestAndModify() throws {
        let loop = try EventLoop()
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        var seen: [EventLoop.Interest] = []
        try loop.add(fd: fds[1], interest: .write) { fd, ready in
            seen.append(ready)
            loop.remove(fd: fd)
            loop.stop()
        }
        try loop.run()
        #expect(seen == [.write])
        #expect(throws: SystemError.self) { try loop.modify(fd: fds[1], interest: .read) } // removed: ENOENT
    }

    @Test func addingABadDescriptorNamesIt() throws {
        let loop = try EventLoop()
        do {
            try loop.add(fd: 9999) { _ in }
            Issue.record("added fd 9999")
        } catch let e as SystemError {
            #expect(e.errno == .badFileDescriptor)
            #expect(e.description.contains("fd 9999"))
        }
    }
}
