import MapEngine
import Platform
import Foundation
import Testing
import SystemPackage
import Logging
@testable import TouchBridge
@testable import Kiosk

/// The control socket's server on a real event loop and real Unix sockets: the bounds that keep
/// one client (or the descriptor limit) from taking the kiosk's loop. The loop runs until a
/// timer stops it; nothing sleeps.
@Suite struct ControlServerTests {
    final class Lines: @unchecked Sendable {
        var items: [(KioskLog.Level, String)] = []
        func count(_ text: String) -> Int { items.filter { $0.1.contains(text) }.count }
    }

    func makeServer(_ lines: Lines) throws -> (ControlServer, EventLoop, String) {
        let path = NSTemporaryDirectory() + "tb-ctl-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        var log = KioskLog(level: .debug, logger: .init(label: "t") { _ in SwiftLogNoOpLogHandler() })
        log.problemObserver = { l, m in lines.items.append((l, m)) }
        let server = try ControlServer(path: path, log: log)
        server.handler = { (r: ControlRequest, _: ControlServer.Client) -> [(String, JSONValue)] in
            if r.command == "big" { return [("text", JSONValue.string(String(repeating: "x", count: 3 << 20)))] }
            return [("echo", JSONValue.string(r.command))]
        }
        let loop = try EventLoop()
        try server.attach(to: loop)
        return (server, loop, path)
    }

    /// At the descriptor limit accept fails while the listener stays readable: the server must
    /// pause accepting, not spin (before the fix: thousands of accept calls and warnings a second).
    @Test func atTheDescriptorLimitAcceptingPausesAndResumes() throws {
        let lines = Lines()
        let (server, loop, path) = try makeServer(lines)
        defer { server.close() }
        final class Calls: @unchecked Sendable { var n = 0 }
        let calls = Calls()
        server.acceptPause = 0.2
        server.acceptConnection = { listener in
            calls.n += 1
            if calls.n <= 3 { throw SystemError("accept", path: listener.path, errno: .tooManyOpenFiles) }
            return try UnixSocket.accept(listener)
        }
        let client = try UnixSocket.connect(path: path)   // waits in the backlog: the listener is readable
        try UnixSocket.sendAll(client, Array("{\"id\":1,\"cmd\":\"hello\"}\n".utf8))
        var reply = ""
        try FileIO.setNonBlocking(client.rawValue, true, path: path)
        try loop.add(fd: client.rawValue) { _ in
            var b = [UInt8](repeating: 0, count: 4096)
            if let n = try? b.withUnsafeMutableBytes({ try UnixSocket.receive(client, into: $0) }), n > 0 {
                reply += String(decoding: b[0..<n], as: UTF8.self)
                if reply.hasSuffix("\n") { loop.stop() }
            }
        }
        loop.schedule(after: 5) { loop.stop() }
        let t0 = MonotonicClock.now()
        try loop.run()
        let elapsed = MonotonicClock.now() - t0
        #expect(reply.contains("\"echo\":\"hello\""), "the waiting client is served once accepting resumes: \(reply)")
        // Three failures, three pauses of 0.2 s, then the accept that works (and the EAGAIN after it).
        #expect(calls.n >= 4 && calls.n <= 6, "accept called \(calls.n) times")
        #expect(server.acceptPauses == 3)
        #expect(elapsed >= 0.55 && elapsed < 4, "\(elapsed) s")
        #expect(lines.count("cannot accept a client") == 1, "one warning for the episode: \(lines.items)")
        #expect(lines.items.first { $0.1.contains("cannot accept") }?.1.contains("descriptor limit") == true)
    }

    /// A megabyte of empty lines is skipped by a byte scan, and every request still gets its
    /// answer, in order.
    @Test func aMegabyteOfEmptyLinesIsSkippedAndRequestsAreAnswered() throws {
        let lines = Lines()
        let (server, loop, path) = try makeServer(lines)
        defer { server.close() }
        let client = try UnixSocket.connect(path: path)
        try FileIO.setNonBlocking(client.rawValue, true, path: path)
        var payload = Array("{\"id\":1,\"cmd\":\"first\"}\n".utf8)
        payload += [UInt8](repeating: 0x0A, count: 1 << 20)
        payload += Array("{\"id\":2,\"cmd\":\"second\"}\n".utf8)
        var sent = 0
        var reply = ""
        try loop.add(fd: client.rawValue, interest: [.read, .write]) { _, ready in
            if ready.contains(.write) && sent < payload.count {
                if let n = try? payload[sent...].withUnsafeBytes({ try UnixSocket.send(client, $0) }) { sent += n }
                if sent == payload.count { try? loop.modify(fd: client.rawValue, interest: .read) }
            }
            if ready.contains(.read) {
                var b = [UInt8](repeating: 0, count: 4096)
                if let n = try? b.withUnsafeMutableBytes({ try UnixSocket.receive(client, into: $0) }), n > 0 {
                    reply += String(decoding: b[0..<n], as: UTF8.self)
                    if reply.contains("second") { loop.stop() }
                }
            }
        }
        loop.schedule(after: 10) { loop.stop() }
        try loop.run()
        let replies = reply.split(separator: "\n")
        #expect(replies.count == 2, "\(reply.prefix(300))")
        #expect(replies.first?.contains("first") == true && replies.last?.contains("second") == true)
    }

    /// One client more than `maxClients` is told why and closed; the others keep working.
    @Test func clientsBeyondTheLimitAreToldAndClosed() throws {
        let lines = Lines()
        let (server, loop, path) = try makeServer(lines)
        defer { server.close() }
        server.maxClients = 2
        let a = try UnixSocket.connect(path: path), b = try UnixSocket.connect(path: path), c = try UnixSocket.connect(path: path)
        loop.schedule(after: 0.2) { loop.stop() }
        try loop.run()
        #expect(server.clientCount == 2)
        try UnixSocket.setReceiveTimeout(c, 2)
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = try buf.withUnsafeMutableBytes { try UnixSocket.receive(c, into: $0) } ?? 0
        #expect(String(decoding: buf[0..<n], as: UTF8.self).contains("too many clients (2)"))
        #expect(try buf.withUnsafeMutableBytes { try UnixSocket.receive(c, into: $0) } == 0, "then closed")
        #expect(lines.count("refused client") == 1)
        _ = (a, b)
    }

    /// A reply larger than the event-stream queue bound (a `list_markers` of a full kiosk) is
    /// delivered to a client that reads, not a reason to disconnect it.
    @Test func aLargeReplyReachesAReadingClient() throws {
        let lines = Lines()
        let (server, loop, path) = try makeServer(lines)
        defer { server.close() }
        let client = try UnixSocket.connect(path: path)
        try UnixSocket.sendAll(client, Array("{\"id\":7,\"cmd\":\"big\"}\n".utf8))
        try FileIO.setNonBlocking(client.rawValue, true, path: path)
        var got = 0
        var tail = [UInt8]()
        try loop.add(fd: client.rawValue) { _ in
            var b = [UInt8](repeating: 0, count: 65536)
            while let n = try? b.withUnsafeMutableBytes({ try UnixSocket.receive(client, into: $0) }), n > 0 {
                got += n
                tail = Array((tail + b[0..<n]).suffix(64))
            }
            if tail.last == 0x0A { loop.stop() }
        }
        loop.schedule(after: 10) { loop.stop() }
        try loop.run()
        #expect(got > 3 << 20, "\(got) bytes")
        #expect(String(decoding: tail, as: UTF8.self).hasSuffix("\"}\n") || String(decoding: tail, as: UTF8.self).hasSuffix("}\n"))
        #expect(lines.count("not reading") == 0, "\(lines.items)")
    }

    /// A client that asks and never reads is still cut off: replies pile up past the bound and
    /// the next one disconnects it (the large-reply allowance is for one reply to a reader).
    @Test func aClientThatNeverReadsItsRepliesIsDisconnected() throws {
        let lines = Lines()
        let (server, loop, path) = try makeServer(lines)
        defer { server.close() }
        server.maxQueuedBytes = 64 << 10
        let client = try UnixSocket.connect(path: path)
        try FileIO.setNonBlocking(client.rawValue, true, path: path)
        let request = Array(String(repeating: "{\"id\":1,\"cmd\":\"padding-padding-padding-padding-padding\"}\n", count: 200).utf8)
        var rounds = 0
        func push() {
            rounds += 1
            _ = try? request.withUnsafeBytes { try UnixSocket.send(client, $0) }
            if lines.count("is not reading") > 0 || rounds > 2000 { loop.stop() } else { loop.schedule(after: 0.001) { push() } }
        }
        loop.schedule(after: 0) { push() }
        loop.schedule(after: 20) { loop.stop() }
        try loop.run()
        #expect(lines.count("is not reading") == 1, "rounds \(rounds): \(lines.items.suffix(3))")
        #expect(server.clientCount == 0)
    }
}
