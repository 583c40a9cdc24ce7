import SystemPackage
import CSys
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Unix stream sockets: listen, accept, connect, send and receive, every call with EINTR retried
/// and failures as `SystemError` naming the socket's path. Descriptors are close-on-exec; the
/// listening and accepted ones are non-blocking (they live on the event loop).
public enum UnixSocket {
    /// The longest path a `sockaddr_un` holds.
    public static let maxPathBytes = 107

    /// Binds and listens on `path`, created with `mode` from the start (no window with a wider
    /// mode). The path must not exist (remove a stale socket first).
    public static func listen(path: String, mode: mode_t = 0o660, backlog: Int32 = 16) throws -> OwnedDescriptor {
        guard path.utf8.count <= maxPathBytes else { throw SystemError("bind", path: path, errno: .fileNameTooLong) }
        let s = try make(path: path, nonBlocking: true)
        let oldMask = umask(~mode & 0o777)
        let bound = withAddress(path) { Glibc.bind(s.rawValue, $0, $1) }
        let e = Errno.current
        umask(oldMask)
        guard bound == 0 else { throw SystemError("bind", path: path, errno: e) }
        chmod(path, mode)
        guard Glibc.listen(s.rawValue, backlog) == 0 else {
            let e = Errno.current
            unlink(path)
            throw SystemError("listen", path: path, errno: e)
        }
        return s
    }

    /// Connects to `path` (blocking, as a command-line client wants).
    public static func connect(path: String) throws -> OwnedDescriptor {
        guard path.utf8.count <= maxPathBytes else { throw SystemError("connect", path: path, errno: .fileNameTooLong) }
        let s = try make(path: path, nonBlocking: false)
        let r = retryingEINTR { withAddress(path) { Glibc.connect(s.rawValue, $0, $1) } }
        guard r == 0 else { throw SystemError("connect", path: path) }
        return s
    }

    /// Whether something accepts connections at `path` (a full backlog counts as alive).
    public static func isListening(_ path: String) -> Bool {
        do { _ = try connect(path: path); return true } catch let e as SystemError {
            return e.errno == .resourceTemporarilyUnavailable
        } catch { return false }
    }

    /// The next waiting connection (non-blocking, close-on-exec), or nil when none waits.
    /// Other failures (EMFILE at the descriptor limit, ENOBUFS...) throw.
    public static func accept(_ listener: OwnedDescriptor) throws -> OwnedDescriptor? {
        let fd = retryingEINTR { tb_accept4(listener.rawValue, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue)) }
        if fd >= 0 { return OwnedDescriptor(adopting: fd, path: listener.path) }
        let e = Errno.current
        // A connection reset before it was accepted is gone, not an error of the listener.
        if e == .resourceTemporarilyUnavailable || e == .wouldBlock || e == .connectionAbort { return nil }
        throw SystemError("accept", path: listener.path, errno: e)
    }

    /// One send (MSG_NOSIGNAL: a gone peer is EPIPE, not SIGPIPE): bytes taken, or nil when a
    /// non-blocking socket is full.
    public static func send(_ s: OwnedDescriptor, _ bytes: UnsafeRawBufferPointer) throws -> Int? {
        let n = retryingEINTR { Glibc.send(s.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
        if n >= 0 { return n }
        let e = Errno.current
        if e == .resourceTemporarilyUnavailable || e == .wouldBlock { return nil }
        throw SystemError("send", path: s.path, errno: e)
    }

    /// Sends all of `bytes` on a blocking socket.
    public static func sendAll(_ s: OwnedDescriptor, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let n = try bytes[offset...].withUnsafeBytes { try send(s, $0) }
            guard let n else { throw SystemError("send", path: s.path, errno: .resourceTemporarilyUnavailable) }
            offset += n
        }
    }

    /// One receive: bytes read (0: the peer closed), or nil when nothing waits on a
    /// non-blocking socket or a receive timeout passed.
    public static func receive(_ s: OwnedDescriptor, into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        try FileIO.read(s.rawValue, into: buffer, path: s.path)
    }

    /// SO_RCVTIMEO: how long a blocking receive waits (nil: for ever).
    public static func setReceiveTimeout(_ s: OwnedDescriptor, _ timeout: Double?) throws {
        var tv = timeval()
        if let timeout {
            let t = min(max(timeout, 0), 1e9)
            tv = timeval(tv_sec: Int(t), tv_usec: Int((t - Double(Int(t))) * 1e6))
            if tv.tv_sec == 0 && tv.tv_usec == 0 { tv.tv_usec = 1000 }
        }
        try checkedSystemCall("setsockopt(SO_RCVTIMEO)", path: s.path) {
            setsockopt(s.rawValue, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    private static func make(path: String, nonBlocking: Bool) throws -> OwnedDescriptor {
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw SystemError("socket", path: path) }
        return OwnedDescriptor(adopting: fd, path: path)
    }

    private static func withAddress<R>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8.prefix(maxPathBytes))
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (k, b) in bytes.enumerated() { raw[k] = b }
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }
}

/// An AF_UNIX address: a path ("/run/x") or a name in the abstract namespace ("@x", as
/// systemd's NOTIFY_SOCKET writes it).
public struct UnixAddress {
    fileprivate var storage = sockaddr_un()
    fileprivate var length = socklen_t(0)
    public let name: String

    /// Nil when `name` is neither a path nor "@name", or does not fit `sun_path`.
    public init?(_ name: String) {
        var bytes = Array(name.utf8)
        guard bytes.first == UInt8(ascii: "/") || bytes.first == UInt8(ascii: "@") else { return nil }
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard bytes.count < capacity else { return nil }
        self.name = name
        storage.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &storage.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        // Abstract names are exactly as long as given; paths include their NUL.
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        length = socklen_t(pathOffset + bytes.count + (bytes[0] == 0 ? 0 : 1))
    }

    fileprivate func withSockaddr<R>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> R) -> R {
        withUnsafePointer(to: storage) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, length) } }
    }
}

extension UnixSocket {
    /// An unbound datagram socket (close-on-exec).
    public static func datagram(nonBlocking: Bool = false, name: String = "datagram socket") throws -> OwnedDescriptor {
        let type = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | (nonBlocking ? Int32(SOCK_NONBLOCK.rawValue) : 0)
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw SystemError("socket", path: name) }
        return OwnedDescriptor(adopting: fd, path: name)
    }

    /// Binds a socket to `address` (a datagram receiver: a test's service manager).
    public static func bind(_ s: OwnedDescriptor, to address: UnixAddress) throws {
        let r = address.withSockaddr { Glibc.bind(s.rawValue, $0, $1) }
        guard r == 0 else { throw SystemError("bind", path: address.name) }
    }

    /// One datagram to `address` (MSG_NOSIGNAL): bytes sent, or nil when it would block.
    public static func send(_ s: OwnedDescriptor, _ bytes: [UInt8], to address: UnixAddress) throws -> Int? {
        let n = retryingEINTR {
            bytes.withUnsafeBytes { b in address.withSockaddr { sendto(s.rawValue, b.baseAddress, b.count, Int32(MSG_NOSIGNAL), $0, $1) } }
        }
        if n >= 0 { return n }
        let e = Errno.current
        if e == .resourceTemporarilyUnavailable || e == .wouldBlock { return nil }
        throw SystemError("sendto", path: address.name, errno: e)
    }
}
