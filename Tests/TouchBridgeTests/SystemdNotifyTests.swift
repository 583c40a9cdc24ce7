import Platform
import Foundation
import Testing
@testable import TouchBridge
@testable import Kiosk

/// A service manager's end of the notify protocol: a real AF_UNIX datagram socket.
final class NotifyListener {
    let socket: OwnedDescriptor
    var fd: Int32 { socket.rawValue }
    let name: String  // what NOTIFY_SOCKET says
    private let path: String?

    /// A socket file under /tmp, or (abstract) a name in the abstract namespace ("@...").
    init(abstract: Bool = false) throws {
        socket = try UnixSocket.datagram(nonBlocking: true)
        let unique = "tb-notify-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        name = abstract ? "@" + unique : FileManager.default.temporaryDirectory.appendingPathComponent(unique).path
        path = abstract ? nil : name
        guard let address = UnixAddress(name) else { throw SystemError("address", errno: .invalidArgument) }
        try UnixSocket.bind(socket, to: address)
    }
    deinit {
        if let path { try? FileStatus.remove(path) }
    }

    /// Every datagram waiting now (non-blocking).
    func received() -> [String] {
        var out: [String] = []
        var buf = [UInt8](repeating: 0, count: 4096)
        while let n = try? buf.withUnsafeMutableBytes({ try UnixSocket.receive(socket, into: $0) }), n > 0 {
            out.append(String(decoding: buf[0..<n], as: UTF8.self))
        }
        return out
    }
}

@Suite struct SystemdNotifyTests {
    @Test func readyStatusAndReloadReachTheSocket() throws {
        let listener = try NotifyListener()
        let n = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.name])
        #expect(n.isEnabled)
        n.ready(status: "display Virtual-1 1280x800; touchscreens /dev/input/event3")
        n.reloading()
        n.ready(status: "display Virtual-1 1280x800;\nno touchscreen yet")
        n.status("same")
        n.status("same")  // unchanged: not sent again
        n.stopping()
        let got = listener.received()
        #expect(got.count == 5)
        #expect(got[0] == "READY=1\nSTATUS=display Virtual-1 1280x800; touchscreens /dev/input/event3")
        #expect(got[1].hasPrefix("RELOADING=1\nMONOTONIC_USEC="))
        let usec = UInt64(got[1].split(separator: "=").last.map(String.init) ?? "") ?? 0
        #expect(abs(Double(usec) / 1e6 - MonotonicClock.now()) < 60)
        #expect(got[2] == "READY=1\nSTATUS=display Virtual-1 1280x800;; no touchscreen yet")
        #expect(got[3] == "STATUS=same")
        #expect(got[4] == "STOPPING=1")
    }

    @Test func anAbstractSocketNameWorks() throws {
        let listener = try NotifyListener(abstract: true)
        let n = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.name])
        #expect(n.send("READY=1"))
        #expect(listener.received() == ["READY=1"])
    }

    @Test func withoutASocketNothingIsSent() {
        let n = SystemdNotifier(environment: [:])
        #expect(!n.isEnabled)
        #expect(!n.send("READY=1"))
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "relative/path"]).isEnabled)
        #expect(!SystemdNotifier(environment: ["NOTIFY_SOCKET": "/" + String(repeating: "x", count: 200)]).isEnabled)
    }

    @Test func theWatchdogIntervalIsReadForThisProcessOnly() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000"]).watchdogInterval == 20)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "\(ProcessInfo.processInfo.processIdentifier)"]).watchdogInterval == 20)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "20000000", "WATCHDOG_PID": "\(ProcessInfo.processInfo.processIdentifier + 1)"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "soon"]).watchdogInterval == nil)
    }

    /// The keep-alives come from the event loop's own epoll set: counted here by a handler in
    /// the same loop, which stops it after the third ping (no sleeping, no wall-clock asserts).
    @Test func theEventLoopPingsTheWatchdogWhileItTurns() throws {
        let listener = try NotifyListener()
        let n = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.name, "WATCHDOG_USEC": "2000"])
        let loop = try EventLoop()
        try n.attachWatchdog(to: loop)
        var pings = 0
        var other: [String] = []
        try loop.add(fd: listener.fd) { _ in
            for m in listener.received() {
                if m == "WATCHDOG=1" { pings += 1 } else { other.append(m) }
            }
            if pings >= 3 { loop.stop() }
        }
        try loop.run()
        n.detachWatchdog(from: loop)
        #expect(pings >= 3)
        #expect(other.isEmpty)
        // Detached: the loop no longer has the timer; nothing more arrives from it.
        _ = listener.received()
        n.detachWatchdog(from: loop)  // twice is fine
    }

    @Test func noWatchdogMeansNoTimer() throws {
        let listener = try NotifyListener()
        let n = SystemdNotifier(environment: ["NOTIFY_SOCKET": listener.name])
        let loop = try EventLoop()
        try n.attachWatchdog(to: loop)
        #expect(listener.received().isEmpty)
    }
}
