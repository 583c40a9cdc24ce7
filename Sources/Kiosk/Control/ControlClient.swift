import TouchBridge
import MapEngine
import Foundation
import Platform

/// A blocking client of the control socket, for `touchbridge ctl` and `touchbridge events`
/// (separate processes: blocking is right there, never inside the kiosk).
package final class ControlClient {
    private let socket: OwnedDescriptor
    private var buffer = [UInt8]()
    private var nextID = 1

    /// The connected socket's descriptor (to wait on it beside another, as `events` does).
    public var fd: Int32 { socket.rawValue }

    /// Connects to `path`; `timeout` bounds each wait for a reply (nil: wait for ever, for `events`).
    public init(path: String, timeout: Double?) throws {
        do {
            socket = try UnixSocket.connect(path: path)
        } catch let e as SystemError {
            var hint = ""
            if e.errno == .noSuchFileOrDirectory || e.errno == .connectionRefused { hint = " (is `touchbridge run` running with [control] socket = \"\(path)\"?)" }
            if e.errno == .permissionDenied { hint = " (the socket is mode 0660: run as a member of the kiosk's group)" }
            if e.errno == .fileNameTooLong { hint = " (a socket path is at most \(UnixSocket.maxPathBytes) bytes)" }
            throw ControlError("cannot connect to \(path): \(e.errno.readableDescription)\(hint)")
        }
        setTimeout(timeout)
    }

    /// How long a read may wait (nil: for ever).
    public func setTimeout(_ timeout: Double?) {
        try? UnixSocket.setReceiveTimeout(socket, timeout)
    }

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
        do { try UnixSocket.sendAll(socket, Array((line + "\n").utf8)) } catch let e as SystemError {
            throw ControlError("cannot send to the kiosk: \(e.errno.readableDescription)")
        }
    }

    /// The next line, or nil at end of stream.
    public func readLine() throws -> String? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let nl = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeFirst(nl + 1)
                return line
            }
            let n: Int?
            do { n = try chunk.withUnsafeMutableBytes { try UnixSocket.receive(socket, into: $0) } } catch let e as SystemError {
                throw ControlError("cannot read from the kiosk: \(e.errno.readableDescription)")
            }
            // A receive timeout (SO_RCVTIMEO) ends as EAGAIN: nothing within the time limit.
            guard let n else { throw ControlError("no reply from the kiosk within the time limit") }
            if n == 0 { return nil }
            buffer.append(contentsOf: chunk[0..<n])
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
