import SystemPackage
import CSys
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Reading and writing descriptors: the one place EINTR is retried and a failure becomes a
/// `SystemError` naming the file. Works on raw descriptors too (stderr, a descriptor a host
/// app owns); `OwnedDescriptor` forwards to it with its own path.
///
/// "Would block" is not an error: the non-blocking calls return nil for EAGAIN/EWOULDBLOCK.
public enum FileIO {
    /// One read(2) into `buffer`: the bytes read (0 at end of file), or nil when a non-blocking
    /// descriptor has nothing yet.
    public static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer, path: String) throws -> Int? {
        let n = retryingEINTR { Glibc.read(fd, buffer.baseAddress, buffer.count) }
        if n >= 0 { return n }
        let e = Errno.current
        if e == .resourceTemporarilyUnavailable || e == .wouldBlock { return nil }
        throw SystemError("read", path: path, errno: e)
    }

    /// One write(2): the bytes taken, or nil when a non-blocking descriptor is full.
    public static func write(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws -> Int? {
        let n = retryingEINTR { Glibc.write(fd, bytes.baseAddress, bytes.count) }
        if n >= 0 { return n }
        let e = Errno.current
        if e == .resourceTemporarilyUnavailable || e == .wouldBlock { return nil }
        throw SystemError("write", path: path, errno: e)
    }

    /// Writes all of `bytes`, retrying partial writes. A full non-blocking descriptor is an
    /// error here (`EAGAIN`): the caller chose to drop rather than wait.
    public static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            guard let n = try write(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...]), path: path) else {
                throw SystemError("write", path: path, errno: .resourceTemporarilyUnavailable)
            }
            offset += n
        }
    }

    public static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws {
        try bytes.withUnsafeBytes { try writeAll(fd, $0, path: path) }
    }

    public static func writeAll(_ fd: Int32, _ text: String, path: String) throws {
        var text = text
        try text.withUTF8 { try writeAll(fd, UnsafeRawBufferPointer($0), path: path) }
    }

    /// Reads `path` to its end (procfs and sysfs files report size 0 and may come in parts).
    /// More than `limit` bytes is an error (`EFBIG`), read no further.
    public static func readFile(_ path: String, limit: Int = 1 << 26) throws -> [UInt8] {
        let d = try OwnedDescriptor(path: path, .readOnly)
        defer { d.close() }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = try chunk.withUnsafeMutableBytes { try read(d.rawValue, into: $0, path: path) } ?? 0
            if n == 0 { return bytes }
            guard bytes.count + n <= limit else { throw SystemError("read", path: path, errno: .fileTooLarge) }
            bytes.append(contentsOf: chunk[0..<n])
        }
    }

    /// Waits until `fd` is readable (or hung up) for at most `timeout` seconds (nil: for
    /// ever). True when readable. For the short blocking waits outside the event loop
    /// (a command-line client, a page flip before the loop runs).
    public static func waitReadable(_ fd: Int32, timeout: Double?, path: String) throws -> Bool {
        let deadline = timeout.map { MonotonicClock.now() + max(0, $0) }
        while true {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms: Int32
            if let deadline {
                let left = deadline - MonotonicClock.now()
                if left <= 0 { ms = 0 } else { ms = Int32(min(left * 1000, Double(Int32.max)).rounded(.up)) }
            } else {
                ms = -1
            }
            let r = poll(&p, 1, ms)
            if r > 0 { return true }
            if r == 0 { return false }
            if Errno.current != .interrupted { throw SystemError("poll", path: path) }
            if let deadline, MonotonicClock.now() >= deadline { return false }
        }
    }

    /// Waits until the other end of `fd` is gone (POLLERR on a pipe whose reader closed,
    /// POLLHUP on a terminal that hung up) for at most `timeout` seconds (nil: for ever). True
    /// when it is gone; a regular file or /dev/null never reports it.
    public static func waitHangUp(_ fd: Int32, timeout: Double?) -> Bool {
        let deadline = timeout.map { MonotonicClock.now() + max(0, $0) }
        while true {
            var p = pollfd(fd: fd, events: 0, revents: 0)
            let ms = deadline.map { Int32(max(0, min(Double(Int32.max), ($0 - MonotonicClock.now()) * 1000)).rounded(.up)) } ?? -1
            let r = poll(&p, 1, ms)
            if r < 0 && Errno.current == .interrupted { continue }
            if r <= 0 { return false }
            if p.revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 { return true }
        }
    }

    /// Sets or clears O_NONBLOCK.
    public static func setNonBlocking(_ fd: Int32, _ on: Bool, path: String) throws {
        let flags = try checkedSystemCall("fcntl(F_GETFL)", path: path) { fcntl(fd, F_GETFL) }
        let new = on ? flags | O_NONBLOCK : flags & ~O_NONBLOCK
        if new != flags { try checkedSystemCall("fcntl(F_SETFL)", path: path) { fcntl(fd, F_SETFL, new) } }
    }

    /// fsync(2); a pipe or terminal (EINVAL) has nothing to flush and is not an error.
    public static func sync(_ fd: Int32, path: String) throws {
        if retryingEINTR({ fsync(fd) }) != 0 && Errno.current != .invalidArgument { throw SystemError("fsync", path: path) }
    }
}

extension OwnedDescriptor {
    /// See `FileIO.read`.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        try FileIO.read(rawValue, into: buffer, path: path)
    }

    /// See `FileIO.write`.
    public func write(_ bytes: UnsafeRawBufferPointer) throws -> Int? {
        try FileIO.write(rawValue, bytes, path: path)
    }

    /// See `FileIO.writeAll`.
    public func writeAll(_ bytes: [UInt8]) throws { try FileIO.writeAll(rawValue, bytes, path: path) }
    public func writeAll(_ text: String) throws { try FileIO.writeAll(rawValue, text, path: path) }

    /// See `FileIO.waitReadable`.
    public func waitReadable(timeout: Double?) throws -> Bool { try FileIO.waitReadable(rawValue, timeout: timeout, path: path) }

    public func setNonBlocking(_ on: Bool) throws { try FileIO.setNonBlocking(rawValue, on, path: path) }

    /// Opens `path` with raw `open(2)` flags and mode (O_CLOEXEC added, EINTR retried): for the
    /// flag sets swift-system's options do not spell (O_NOFOLLOW with O_EXCL and a mode).
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0o644) throws -> OwnedDescriptor {
        let fd = retryingEINTR { Glibc.open(path, flags | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw SystemError("open", path: path) }
        return OwnedDescriptor(adopting: fd, path: path)
    }
}

/// A pipe: two owned ends, close-on-exec, optionally non-blocking.
public enum Pipe {
    public static func make(nonBlocking: Bool = false, name: String = "pipe") throws -> (read: OwnedDescriptor, write: OwnedDescriptor) {
        var fds: [Int32] = [-1, -1]
        try checkedSystemCall("pipe2", path: name) { tb_pipe2(&fds, O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)) }
        return (OwnedDescriptor(adopting: fds[0], path: name), OwnedDescriptor(adopting: fds[1], path: name))
    }
}

extension String {
    /// The text of a C char buffer filled by a C function (a path from mkstemp, a library's
    /// error message): up to its first NUL, or all of it when it has none.
    public init(cChars: [CChar]) {
        self.init(decoding: cChars.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
