import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of the control socket, for `touchbridge ctl` and `touchbridge events`
/// (separate processes: blocking is right there, never inside the kiosk).
public final class ControlClient {
    private let fd: Int32
    private var buffer = [UInt8]()
    private var nextID = 1

    /// Connects to `path`; `timeout` bounds each wait for a reply (nil: wait for ever, for `events`).
    public init(path: String, timeout: Double?) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ControlError("cannot create a socket: \(String(cString: strerror(errno)))") }
        let r = ControlServer.withAddress(path) { connect(fd, $0, $1) }
        guard r == 0 else {
            let e = errno
            Glibc.close(fd)
            var hint = ""
            if e == ENOENT || e == ECONNREFUSED { hint = " (is `touchbridge run` running with [control] socket = \"\(path)\"?)" }
            if e == EACCES { hint = " (the socket is mode 0660: run as a member of the kiosk's group)" }
            throw ControlError("cannot connect to \(path): \(String(cString: strerror(e)))\(hint)")
        }
        setTimeout(timeout)
    }

    /// How long a read may wait (nil: for ever).
    public func setTimeout(_ timeout: Double?) {
        let t = max(timeout ?? 0, 0)
        var tv = timeval(tv_sec: Int(t), tv_usec: Int((t - Double(Int(t))) * 1e6))
        if timeout != nil && tv.tv_sec == 0 && tv.tv_usec == 0 { tv.tv_usec = 1000 }
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { Glibc.close(fd) }

    /// Sends `{"id":N,"cmd":CMD,...}` and returns the reply object (lines of the event stream
    /// that arrive first are passed to `other`).
    public func request(_ command: String, _ arguments: [(String, JSONValue)] = [],
                        other: (String) -> Void = { _ in }) throws -> JSONValue {
        if let bad = arguments.first(where: { $0.0 == "id" || $0.0 == "cmd" }) {
            throw ControlError("'\(bad.0)' is the request's own field, not an argument (a marker is named with marker=NAME)")
        }
        let id = nextID
        nextID += 1
        try sendLine(JSONValue.object([("id", .number(Double(id))), ("cmd", .string(command))] + arguments).text)
        while let line = try readLine() {
            if let v = try? JSONValue.parse(line), v["ok"] != nil, v["id"] == .number(Double(id)) { return v }
            other(line)
        }
        throw ControlError("the kiosk closed the connection before it replied")
    }

    public func sendLine(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var off = 0
        while off < bytes.count {
            let n = bytes[off...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw ControlError("cannot send to the kiosk: \(String(cString: strerror(errno)))") }
            off += n
        }
    }

    /// The next line, or nil at end of stream.
    public func readLine() throws -> String? {
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 { buffer.append(contentsOf: chunk[0..<n]); continue }
            if n == 0 { return nil }
            if errno == EINTR { continue }
            if errno == EAGAIN || errno == EWOULDBLOCK { throw ControlError("no reply from the kiosk within the time limit") }
            throw ControlError("cannot read from the kiosk: \(String(cString: strerror(errno)))")
        }
    }

    /// `key=value` words to arguments: the value as JSON when it parses (numbers, true, null,
    /// arrays, objects, quoted strings), else as a plain string.
    public static func arguments(_ words: [String]) throws -> [(String, JSONValue)] {
        try words.map { w in
            guard let eq = w.firstIndex(of: "="), eq != w.startIndex else {
                throw ControlError("'\(w)' is not key=value (e.g. zoom=12 or title=\"Cafe\")")
            }
            let key = String(w[..<eq]), raw = String(w[w.index(after: eq)...])
            return (key, (try? JSONValue.parse(raw)) ?? .string(raw))
        }
    }
}
