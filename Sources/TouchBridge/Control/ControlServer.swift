import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The control socket (docs/control.md): a Unix stream socket on the kiosk's one event loop.
/// Every descriptor is non-blocking; each client has an input buffer (lines are cut at '\n')
/// and a bounded output queue flushed when the socket takes more. A client whose queue would
/// pass `maxQueuedBytes` is disconnected with a logged warning, so a stuck reader never holds
/// up a frame and never grows the kiosk's memory.
public final class ControlServer {
    /// Answers one request; returns the reply's result fields or throws `ControlError`.
    public typealias Handler = (_ request: ControlRequest, _ client: Client) throws -> [(String, JSONValue)]

    public final class Client {
        public let fd: Int32
        public let number: Int
        /// Receives the event stream.
        public var subscribed = false
        var input = [UInt8]()
        var output = [UInt8]()
        var outputStart = 0
        var closed = false
        init(fd: Int32, number: Int) { self.fd = fd; self.number = number }
        var queued: Int { output.count - outputStart }
    }

    public let path: String
    public var maxQueuedBytes = 1 << 20
    /// A request line longer than this is refused and the client disconnected.
    public var maxLineBytes = 1 << 20
    public var handler: Handler = { r, _ in throw ControlError("unknown command '\(r.command)'") }
    /// Called for each new subscriber; returns lines to send first (the `start` line).
    public var onSubscribe: (Client) -> [String] = { _ in [] }

    private let log: KioskLog
    private let listenFD: Int32
    private var identity: (dev: UInt64, ino: UInt64)
    private weak var loop: EventLoop?
    private var clients: [Int32: Client] = [:]
    private var nextNumber = 1

    public var clientCount: Int { clients.count }
    /// Whether any client receives the event stream (else the kiosk does not encode it).
    public var hasSubscribers: Bool { clients.values.contains { $0.subscribed && !$0.closed } }

    /// Creates the socket at `path` with mode 0660 (group: the service's). A stale socket left by
    /// a kiosk that died is replaced; a live one (something accepts connections there) or a path
    /// that is not a socket is refused with a message.
    public init(path: String, log: KioskLog) throws {
        self.path = path
        self.log = log
        var st = stat()
        if lstat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFSOCK else {
                throw ControlError("\(path) exists and is not a socket: remove it or choose another [control] socket path")
            }
            if ControlServer.isLive(path) {
                throw ControlError("another program (a running kiosk?) is listening on \(path): stop it or choose another [control] socket path")
            }
            guard unlink(path) == 0 || errno == ENOENT else {
                throw ControlError("cannot remove the stale socket \(path): \(String(cString: strerror(errno)))")
            }
            log(.info, "control: replaced the stale socket \(path)")
        }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlError("cannot create the control socket: \(String(cString: strerror(errno)))") }
        // Created 0660 from the start (no window with a wider mode), group: the process's.
        let oldMask = umask(0o117)
        let bound = ControlServer.withAddress(path) { bind(fd, $0, $1) }
        let bindErrno = errno
        umask(oldMask)
        guard bound == 0 else {
            Glibc.close(fd)
            let dir = (path as NSString).deletingLastPathComponent
            var hint = ""
            if bindErrno == ENOENT { hint = " (the folder \(dir) does not exist: create it, e.g. systemd RuntimeDirectory=touchbridge)" }
            if bindErrno == EACCES { hint = " (this user may not create files in \(dir))" }
            throw ControlError("cannot create the control socket \(path): \(String(cString: strerror(bindErrno)))\(hint)")
        }
        chmod(path, 0o660)
        guard listen(fd, 16) == 0 else {
            let e = errno
            Glibc.close(fd)
            unlink(path)
            throw ControlError("cannot listen on \(path): \(String(cString: strerror(e)))")
        }
        listenFD = fd
        var mine = stat()
        stat(path, &mine)
        identity = (UInt64(mine.st_dev), UInt64(mine.st_ino))
    }

    deinit { close() }

    /// Whether something accepts connections at `path` (a connect test, never an unlink guess).
    static func isLive(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { Glibc.close(fd) }
        let r = withAddress(path) { connect(fd, $0, $1) }
        // EAGAIN: the listener's backlog is full, so it is alive.
        return r == 0 || errno == EAGAIN
    }

    static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(107))
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (k, b) in bytes.enumerated() { raw[k] = b }
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// Starts accepting on the loop.
    public func attach(to loop: EventLoop) throws {
        self.loop = loop
        try loop.add(fd: listenFD) { [weak self] _ in self?.acceptAll() }
        for c in clients.values { try loop.add(fd: c.fd) { [weak self] fd in self?.service(fd) } }
    }

    /// Closes every connection and the socket, and removes the socket file if it is still ours.
    public func close() {
        for c in Array(clients.values) { drop(c, reason: nil) }
        guard listenFD >= 0, identity.ino != 0 else { return }
        loop?.remove(fd: listenFD)
        Glibc.close(listenFD)
        var st = stat()
        if stat(path, &st) == 0, UInt64(st.st_dev) == identity.dev, UInt64(st.st_ino) == identity.ino { unlink(path) }
        identity = (0, 0)
    }

    // MARK: connections

    private func acceptAll() {
        while true {
            let fd = accept(listenFD, nil, nil)
            if fd >= 0 {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            if fd < 0 {
                if errno == EINTR { continue }
                if errno != EAGAIN && errno != EWOULDBLOCK { log(.warning, "control: accept: \(String(cString: strerror(errno)))") }
                return
            }
            let c = Client(fd: fd, number: nextNumber)
            nextNumber += 1
            clients[fd] = c
            do {
                try loop?.add(fd: fd) { [weak self] fd in self?.service(fd) }
            } catch {
                log(.warning, "control: \(error)")
                clients[fd] = nil
                Glibc.close(fd)
                continue
            }
            log(.debug, "control: client \(c.number) connected")
        }
    }

    /// The loop saw the client's socket readable or writable (or hung up).
    private func service(_ fd: Int32) {
        guard let c = clients[fd] else { return }
        if c.queued > 0 { flush(c) }
        guard !c.closed else { return }
        var buf = [UInt8](repeating: 0, count: 65536)
        // Bounded per wake-up, so one chatty client cannot starve the frames.
        for _ in 0..<16 {
            let n = buf.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if n > 0 {
                c.input.append(contentsOf: buf[0..<n])
                handleLines(c)
                if c.closed { return }
                continue
            }
            if n == 0 {
                // Gone; a half-sent last line is dropped unanswered.
                drop(c, reason: c.input.isEmpty ? nil : "disconnected in the middle of a line; the partial request was dropped",
                     level: .info)
                return
            }
            if errno == EINTR { continue }
            if errno != EAGAIN && errno != EWOULDBLOCK { drop(c, reason: "read failed: \(String(cString: strerror(errno)))") }
            return
        }
    }

    private func handleLines(_ c: Client) {
        var start = 0
        while let nl = c.input[start...].firstIndex(of: 0x0A) {
            var line = c.input[start..<nl]
            if line.last == 0x0D { line = line.dropLast() }
            start = nl + 1
            let text = String(decoding: line, as: UTF8.self)
            if !text.trimmingCharacters(in: .whitespaces).isEmpty { answer(text, from: c) }
            if c.closed { return }
        }
        c.input.removeFirst(start)
        if c.input.count > maxLineBytes {
            send(ControlReply.error(id: .null, "request line longer than \(maxLineBytes) bytes"), to: c)
            flush(c)
            drop(c, reason: "sent a line longer than \(maxLineBytes) bytes")
        }
    }

    private func answer(_ line: String, from c: Client) {
        switch ControlRequest.parse(line: line) {
        case .failure(let e):
            send(ControlReply.error(id: e.id, e.message), to: c)
        case .success(let r):
            do {
                let results = try handler(r, c)
                send(ControlReply.ok(id: r.id, results), to: c)
                if r.command == "subscribe" && !c.subscribed {
                    c.subscribed = true
                    for l in onSubscribe(c) { send(l, to: c) }
                }
            } catch let e as ControlError {
                send(ControlReply.error(id: r.id, e.message), to: c)
            } catch {
                send(ControlReply.error(id: r.id, "\(error)"), to: c)
            }
        }
    }

    // MARK: output

    /// One line to every subscriber (the event stream).
    public func broadcast(_ line: String) {
        for c in clients.values where c.subscribed && !c.closed { send(line, to: c) }
    }

    /// Queues a line and writes what the socket takes now; never blocks.
    public func send(_ line: String, to c: Client) {
        guard !c.closed else { return }
        let bytes = Array((line + "\n").utf8)
        if c.queued + bytes.count > maxQueuedBytes {
            drop(c, reason: "is not reading: more than \(maxQueuedBytes / 1024) KiB of replies and events queued; disconnected")
            return
        }
        let wasEmpty = c.queued == 0
        c.output.append(contentsOf: bytes)
        flush(c)
        if wasEmpty && c.queued > 0 && !c.closed { loop?.setWriteInterest(fd: c.fd, true) }
    }

    private func flush(_ c: Client) {
        while c.queued > 0 && !c.closed {
            let n = c.output[c.outputStart...].withUnsafeBytes { Glibc.send(c.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT | MSG_NOSIGNAL)) }
            if n > 0 { c.outputStart += n; continue }
            if n < 0 && errno == EINTR { continue }
            if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { break }
            drop(c, reason: nil) // EPIPE / ECONNRESET: it went away
            return
        }
        if c.queued == 0 {
            c.output.removeAll(keepingCapacity: c.output.capacity <= 65536)
            c.outputStart = 0
            loop?.setWriteInterest(fd: c.fd, false)
        } else if c.outputStart > 65536 {
            c.output.removeFirst(c.outputStart)
            c.outputStart = 0
        }
    }

    private func drop(_ c: Client, reason: String?, level: KioskLog.Level = .warning) {
        guard !c.closed else { return }
        c.closed = true
        if let reason { log(level, "control: client \(c.number) \(reason)") } else { log(.debug, "control: client \(c.number) disconnected") }
        loop?.remove(fd: c.fd)
        Glibc.close(c.fd)
        clients[c.fd] = nil
    }
}
