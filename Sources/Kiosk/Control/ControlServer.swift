import TouchBridge
import MapEngine
import Foundation
import Platform

/// The control socket (docs/control.md): a Unix stream socket on the kiosk's one event loop.
/// Every descriptor is non-blocking; each client has an input buffer (lines are cut at '\n')
/// and a bounded output queue flushed when the socket takes more. A client whose queue would
/// pass `maxQueuedBytes` is disconnected with a logged warning, so a stuck reader never holds
/// up a frame and never grows the kiosk's memory.
package final class ControlServer {
    /// Answers one request; returns the reply's result fields or throws `ControlError`.
    public typealias Handler = (_ request: ControlRequest, _ client: Client) throws -> [(String, JSONValue)]

    public final class Client {
        let socket: OwnedDescriptor
        public var fd: Int32 { socket.rawValue }
        public let number: Int
        /// Receives the event stream.
        public var subscribed = false
        var input = [UInt8]()
        var output = [UInt8]()
        var outputStart = 0
        var closed = false
        init(socket: OwnedDescriptor, number: Int) { self.socket = socket; self.number = number }
        var queued: Int { output.count - outputStart }
    }

    public let path: String
    /// Event-stream lines and replies waiting for a client that is not reading, at most; a
    /// client past it is disconnected.
    public var maxQueuedBytes = 1 << 20
    /// One reply may be larger (the client asked for it: `list_markers` of a full kiosk), up to
    /// this; a reply beyond is replaced by an error.
    public var maxReplyBytes = 64 << 20
    /// Clients connected at once; one more is told so and closed.
    public var maxClients = 64
    /// Bytes read from one client per wake-up, so one chatty client cannot starve the frames.
    public var maxBytesPerWake = 256 << 10
    /// A request line longer than this is refused and the client disconnected.
    public var maxLineBytes = 1 << 20
    public var handler: Handler = { r, _ in throw ControlError("unknown command '\(r.command)'") }
    /// Called for each new subscriber; returns lines to send first (the `start` line).
    public var onSubscribe: (Client) -> [String] = { _ in [] }

    private let log: KioskLog
    private let listener: OwnedDescriptor
    private var identity: (dev: UInt64, ino: UInt64)
    private weak var loop: EventLoop?
    private var clients: [Int32: Client] = [:]
    private var nextNumber = 1
    /// Accepting pauses while the process is out of descriptors (EMFILE/ENFILE): the listener
    /// stays readable, so accepting again at once would spin a core and flood the log.
    private var acceptPaused = false
    private var lastAcceptWarning = -Double.infinity
    private var acceptFailures = 0
    /// How long accepting pauses after it failed for want of descriptors.
    public var acceptPause = 0.5
    /// accept(2), replaceable by tests (the descriptor limit is process-wide).
    var acceptConnection: (OwnedDescriptor) throws -> OwnedDescriptor? = UnixSocket.accept

    public var clientCount: Int { clients.count }
    /// Whether any client receives the event stream (else the kiosk does not encode it).
    public var hasSubscribers: Bool { clients.values.contains { $0.subscribed && !$0.closed } }

    /// Creates the socket at `path` with mode 0660 (group: the service's). A stale socket left by
    /// a kiosk that died is replaced; a live one (something accepts connections there) or a path
    /// that is not a socket is refused with a message.
    public init(path: String, log: KioskLog) throws {
        self.path = path
        self.log = log
        if let existing = try? FileStatus.of(path) {
            guard existing.kind == .socket else {
                throw ControlError("\(path) exists and is not a socket: remove it or choose another [control] socket path")
            }
            if UnixSocket.isListening(path) {
                throw ControlError("another program (a running kiosk?) is listening on \(path): stop it or choose another [control] socket path")
            }
            do { try FileStatus.remove(path) } catch let e as SystemError {
                throw ControlError("cannot remove the stale socket \(path): \(e.errno.readableDescription)")
            }
            log(.info, "control: replaced the stale socket \(path)")
        }
        do {
            // Created 0660 from the start (no window with a wider mode), group: the process's.
            listener = try UnixSocket.listen(path: path, mode: 0o660, backlog: 16)
        } catch let e as SystemError {
            let dir = (path as NSString).deletingLastPathComponent
            var hint = ""
            if e.operation == "bind" && e.errno == .noSuchFileOrDirectory { hint = " (the folder \(dir) does not exist: create it, e.g. systemd RuntimeDirectory=touchbridge)" }
            if e.operation == "bind" && e.errno == .permissionDenied { hint = " (this user may not create files in \(dir))" }
            if e.errno == .fileNameTooLong { hint = " (a socket path is at most \(UnixSocket.maxPathBytes) bytes)" }
            let what = e.operation == "listen" ? "cannot listen on" : "cannot create the control socket"
            throw ControlError("\(what) \(path): \(e.errno.readableDescription)\(hint)")
        }
        let mine = try? FileStatus.of(path)
        identity = (mine?.device ?? 0, mine?.inode ?? 0)
    }

    deinit { close() }

    /// Starts accepting on the loop.
    public func attach(to loop: EventLoop) throws {
        self.loop = loop
        try loop.add(fd: listener.rawValue) { [weak self] _ in self?.acceptAll() }
        for c in clients.values { try loop.add(fd: c.fd) { [weak self] fd in self?.service(fd) } }
    }

    /// Closes every connection and the socket, and removes the socket file if it is still ours.
    public func close() {
        for c in Array(clients.values) { drop(c, reason: nil) }
        guard listener.isOpen else { return }
        if !acceptPaused { loop?.remove(fd: listener.rawValue) }
        listener.close()
        if identity.ino != 0, let st = try? FileStatus.of(path), st.device == identity.dev, st.inode == identity.ino {
            try? FileStatus.remove(path)
        }
        identity = (0, 0)
    }

    // MARK: connections

    private func acceptAll() {
        while !acceptPaused {
            let socket: OwnedDescriptor
            do {
                guard let s = try acceptConnection(listener) else { return }
                socket = s
            } catch let e as SystemError {
                acceptFailed(e)
                return
            } catch {
                return
            }
            let c = Client(socket: socket, number: nextNumber)
            nextNumber += 1
            if clients.count >= maxClients {
                // Told why, then closed: the next one may connect once another leaves.
                let refusal = ControlReply.error(id: .null, "too many clients (\(maxClients)): try again later") + "\n"
                _ = try? Array(refusal.utf8).withUnsafeBytes { try UnixSocket.send(socket, $0) }
                warnRarely("control: refused client \(c.number): \(maxClients) clients are connected")
                socket.close()
                continue
            }
            clients[c.fd] = c
            do {
                try loop?.add(fd: c.fd) { [weak self] fd in self?.service(fd) }
            } catch {
                log(.warning, "control: \(error)")
                clients[c.fd] = nil
                socket.close()
                continue
            }
            log(.debug, "control: client \(c.number) connected")
        }
    }

    /// accept failed for a reason other than "nobody waits": at the descriptor limit (EMFILE,
    /// ENFILE) or short of memory the listener stays readable, so stop watching it for
    /// `acceptPause` seconds instead of spinning, and say so at most once a minute.
    private func acceptFailed(_ e: SystemError) {
        acceptFailures += 1
        acceptPauses += 1
        let out = e.errno == .tooManyOpenFiles || e.errno == .tooManyOpenFilesInSystem
        warnRarely("control: cannot accept a client: \(e.errno.readableDescription)"
                   + (out ? " (the kiosk is at its descriptor limit; raise LimitNOFILE or close clients)" : "")
                   + "; accepting again in \(acceptPause) s")
        guard let loop else { return }
        acceptPaused = true
        loop.remove(fd: listener.rawValue)
        loop.schedule(after: acceptPause) { [weak self] in
            guard let self, self.acceptPaused, self.listener.isOpen else { return }
            self.acceptPaused = false
            do { try loop.add(fd: self.listener.rawValue) { [weak self] _ in self?.acceptAll() } } catch {
                self.log(.error, "control: cannot watch \(self.path) again: \(error)")
            }
        }
    }

    /// A warning logged at most once a minute (with how many were held back): a flood of
    /// clients must not become a flood of log.
    private func warnRarely(_ message: String) {
        let now = MonotonicClock.now()
        guard now - lastAcceptWarning >= 60 else { return }
        let held = acceptFailures > 1 ? " (\(acceptFailures - 1) more since the last such message)" : ""
        lastAcceptWarning = now
        acceptFailures = 0
        log(.warning, message + held)
    }

    /// How many times accepting failed and paused (tests).
    public private(set) var acceptPauses = 0

    /// The loop saw the client's socket readable or writable (or hung up).
    private func service(_ fd: Int32) {
        guard let c = clients[fd] else { return }
        if c.queued > 0 { flush(c) }
        guard !c.closed else { return }
        var buf = [UInt8](repeating: 0, count: 65536)
        var taken = 0
        // Bounded per wake-up, so one chatty client cannot starve the frames; the rest waits in
        // the socket, which stays readable.
        while taken < maxBytesPerWake {
            let n: Int?
            do { n = try buf.withUnsafeMutableBytes { try UnixSocket.receive(c.socket, into: $0) } } catch let e as SystemError {
                drop(c, reason: "read failed: \(e.errno.readableDescription)")
                return
            } catch { return }
            guard let n else { return } // nothing more now
            if n == 0 {
                // Gone; a half-sent last line is dropped unanswered.
                drop(c, reason: c.input.isEmpty ? nil : "disconnected in the middle of a line; the partial request was dropped",
                     level: .info)
                return
            }
            taken += n
            c.input.append(contentsOf: buf[0..<n])
            handleLines(c)
            if c.closed { return }
        }
    }

    /// Answers every whole line in the client's input. Blank lines cost a byte scan, never a
    /// string: a megabyte of newlines is skipped in microseconds.
    private func handleLines(_ c: Client) {
        var start = 0
        while start < c.input.count, let nl = c.input[start...].firstIndex(of: 0x0A) {
            var end = nl
            if end > start && c.input[end - 1] == 0x0D { end -= 1 }
            let blank = c.input[start..<end].allSatisfy { $0 == 0x20 || $0 == 0x09 }
            let line = c.input[start..<end]
            start = nl + 1
            if !blank { answer(String(decoding: line, as: UTF8.self), from: c) }
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
            send(ControlReply.error(id: e.id, e.message), to: c, isReply: true)
        case .success(let r):
            do {
                let results = try handler(r, c)
                send(ControlReply.ok(id: r.id, results), to: c, isReply: true)
                if ControlCommand(rawValue: r.command) == .subscribe && !c.subscribed {
                    c.subscribed = true
                    for l in onSubscribe(c) { send(l, to: c) }
                }
            } catch let e as ControlError {
                send(ControlReply.error(id: r.id, e.message), to: c, isReply: true)
            } catch {
                send(ControlReply.error(id: r.id, "\(error)"), to: c, isReply: true)
            }
        }
    }

    // MARK: output

    /// One line to every subscriber (the event stream).
    public func broadcast(_ line: String) {
        for c in clients.values where c.subscribed && !c.closed { send(line, to: c) }
    }

    /// Queues a line and writes what the socket takes now; never blocks. An event-stream line
    /// that would take the queue past `maxQueuedBytes` disconnects the client (it is not
    /// reading); a reply may be larger, up to `maxReplyBytes`, when the queue before it is
    /// within the limit.
    public func send(_ line: String, to c: Client, isReply: Bool = false) {
        guard !c.closed else { return }
        var bytes = Array(line.utf8)
        bytes.append(0x0A)
        if isReply && bytes.count > maxReplyBytes {
            send(ControlReply.error(id: .null, "the reply would be \(bytes.count / 1024) KiB, over \(maxReplyBytes / 1024) KiB"), to: c, isReply: true)
            return
        }
        // A reply is refused only when what waits before it is already over the bound (the
        // client stopped reading); an event line when it would take the queue over.
        let over = isReply ? c.queued > maxQueuedBytes : c.queued + bytes.count > maxQueuedBytes
        if over {
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
            let n: Int?
            do { n = try c.output[c.outputStart...].withUnsafeBytes { try UnixSocket.send(c.socket, $0) } } catch {
                drop(c, reason: nil) // EPIPE / ECONNRESET: it went away
                return
            }
            guard let n else { break } // full: the loop wakes us when it takes more
            c.outputStart += n
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
        clients[c.fd] = nil
        c.socket.close()
    }
}
