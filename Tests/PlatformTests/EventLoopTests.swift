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
}
