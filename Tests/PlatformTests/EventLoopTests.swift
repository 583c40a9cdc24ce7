#if canImport(Glibc)
import Glibc
#endif
import Testing
import Foundation
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
        loop.setDeadline(MonotonicClock.now() - 1)
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

    /// A repeating timer fires every period until cancelled; a one-shot timer beside it fires once.
    @Test func aRepeatingTimerFiresUntilCancelled() throws {
        let loop = try EventLoop()
        var ticks: [Double] = []
        var once = 0
        var id: EventLoop.TimerID?
        let start = MonotonicClock.now()
        id = loop.scheduleRepeating(every: 0.01) {
            ticks.append(MonotonicClock.now())
            if ticks.count == 4, let id { loop.cancel(id); loop.schedule(after: 0.05) { loop.stop() } }
        }
        loop.schedule(after: 0.015) { once += 1 }
        try loop.run()
        #expect(ticks.count == 4, "no tick after the cancel")
        #expect(once == 1)
        // Never early: the k-th tick comes at least k periods after the start (a late one does
        // not shift the ones after it, so the period holds on average).
        for (k, t) in ticks.enumerated() { #expect(t - start >= Double(k + 1) * 0.01 - 1e-4, "ticks \(ticks)") }
    }

    /// LoopWaker: wakes from another thread run the handler on the loop's thread, a burst of
    /// wakes (more than the pipe holds) loses none of the work and runs it in batches, and after
    /// close the read end is off the loop.
    @Test func aWakerBringsOtherThreadsWorkToTheLoop() throws {
        let loop = try EventLoop()
        final class Queue: @unchecked Sendable { let lock = NSLock(); var count = 0 }
        let queue = Queue()
        var done = 0, handlerRuns = 0
        var handlerThreadIsLoops = true
        let loopThread = Thread.current
        let waker = try LoopWaker(loop: loop, name: "test waker") {
            handlerRuns += 1
            if Thread.current != loopThread { handlerThreadIsLoops = false }
            queue.lock.lock(); done = queue.count; queue.lock.unlock()
            if done == 100_000 { loop.stop() }
        }
        let worker = Thread {
            for _ in 0..<100_000 { queue.lock.lock(); queue.count += 1; queue.lock.unlock(); waker.wake() }
        }
        worker.start()
        loop.schedule(after: 10) { loop.stop() }   // a safety stop only: the test fails below if it fires
        try loop.run()
        #expect(done == 100_000)
        #expect(handlerThreadIsLoops)
        #expect(handlerRuns >= 1 && handlerRuns < 100_000, "wakes are batched (\(handlerRuns) runs)")
        waker.close()
    }

    /// Pipes and FileIO: a write-all and reads through the Platform calls; EOF once closed.
    @Test func aPipeCarriesBytesAndEnds() throws {
        let (r, w) = try Pipe.make(nonBlocking: true)
        var buf = [UInt8](repeating: 0, count: 16)
        #expect(try buf.withUnsafeMutableBytes { try r.read(into: $0) } == nil, "nothing yet: would block")
        try w.writeAll("hello")
        #expect(try r.waitReadable(timeout: 1))
        let n = try buf.withUnsafeMutableBytes { try r.read(into: $0) }
        #expect(n == 5 && String(decoding: buf[0..<5], as: UTF8.self) == "hello")
        w.close()
        #expect(try buf.withUnsafeMutableBytes { try r.read(into: $0) } == 0)
        do { try FileIO.writeAll(w.rawValue, "x", path: "closed pipe"); Issue.record("wrote to a closed descriptor") } catch let e as SystemError {
            #expect(e.errno == .badFileDescriptor && e.description.contains("closed pipe"))
        }
    }
}
