import Foundation
import Testing
@testable import Platform

/// `bench --cores N` and the renderer's band count read the CPU affinity mask (issue 28): a
/// thread narrowed to one CPU sees one, and so does a process it starts (what `--cores` relies
/// on when it starts itself again). Nothing here is timed.
@Suite struct CPUAffinityTests {
    /// Runs `body` on a thread of its own (the mask is per thread: the test's own thread keeps its
    /// mask) and returns what it returned.
    static func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
        let box = ThreadResult<T>()
        let t = Thread { box.value = body(); box.done.signal() }
        t.start()
        box.done.wait()
        return box.value!
    }

    @Test func theCountIsAtLeastOneAndAtMostTheMachines() {
        let n = CPUAffinity.usableCount()
        #expect(n >= 1)
        #expect(n <= ProcessInfo.processInfo.processorCount)
    }

    @Test func aThreadPinnedToOneCPUCountsOne() {
        let before = CPUAffinity.usableCount()
        let (kept, seen) = Self.onOwnThread { (CPUAffinity.pin(toFirst: 1), CPUAffinity.usableCount()) }
        #expect(kept == 1)
        #expect(seen == 1)
        #expect(CPUAffinity.usableCount() == before)   // this thread's mask is untouched
    }

    @Test func pinningToMoreThanAllowedKeepsWhatIsAllowed() {
        let before = CPUAffinity.usableCount()
        let (kept, seen) = Self.onOwnThread { (CPUAffinity.pin(toFirst: 4096), CPUAffinity.usableCount()) }
        #expect(kept == before)
        #expect(seen == before)
        #expect(CPUAffinity.pin(toFirst: 0) == nil)   // nothing to keep: refused, mask unchanged
        #expect(CPUAffinity.usableCount() == before)
    }

    /// A process started from a pinned thread inherits the mask: `nproc` (which reads it) says 1.
    @Test func aProcessStartedFromAPinnedThreadSeesOneCPU() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/nproc") else { return }
        let out = Self.onOwnThread { () -> String in
            guard CPUAffinity.pin(toFirst: 1) == 1 else { return "pin failed" }
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/nproc")
            let pipe = Pipe()
            p.standardOutput = pipe
            guard (try? p.run()) != nil else { return "run failed" }
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(out == "1")
    }
}

/// What a test's own thread returned, handed over through a semaphore.
final class ThreadResult<T>: @unchecked Sendable {
    var value: T?
    let done = DispatchSemaphore(value: 0)
}
