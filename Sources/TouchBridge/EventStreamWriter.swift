import Foundation
import Platform
import SystemPackage

/// Writes the event stream with write(2), so a full disk, a closed pipe or a reader that stops
/// reading is an error the caller handles rather than a trap (Foundation's `FileHandle.write(_:)`
/// traps on every write error). The first failure of an outage is reported once through
/// `report`; lines are dropped until a write works again, which is reported too.
package final class EventStreamWriter {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The reading end is gone (EPIPE): nobody will read further lines.
        case closed
        /// The reader is too slow and the pipe is full (EAGAIN on a non-blocking pipe).
        case full
        case error(errno: Errno)

        public var description: String {
            switch self {
            case .closed: return "the reader closed the pipe"
            case .full: return "the reader does not keep up (pipe full)"
            case .error(let e) where e == .noSuchAddressOrDevice: return "it is a FIFO that no process reads"
            case .error(let e): return e.readableDescription
            }
        }

        init(_ e: SystemError) {
            switch e.errno {
            case .brokenPipe: self = .closed
            case .resourceTemporarilyUnavailable: self = .full
            default: self = .error(errno: e.errno)
            }
        }
    }

    public let name: String
    public let fd: Int32
    /// The descriptor `open` made (closed with the writer); nil for one the caller owns.
    private let owned: OwnedDescriptor?
    /// Called once when writing starts failing and once when it works again.
    public var report: (String) -> Void
    /// Lines dropped since the current outage began.
    public private(set) var droppedLines = 0
    /// The failure of the current outage, nil while writes work.
    public private(set) var failure: Failure?

    /// Writes to a descriptor the caller owns (stdout).
    public init(fd: Int32, name: String, report: @escaping (String) -> Void = { _ in }) {
        self.owned = nil
        self.fd = fd; self.name = name; self.report = report
    }

    /// Opens `path` for appending (created 0644 when missing). Opened non-blocking: a FIFO with
    /// no reader is an error instead of a hang, and a full pipe drops lines instead of stalling
    /// the kiosk.
    /// With `blocking`, only the open is non-blocking and writes wait for a slow reader (a
    /// recording must not lose lines).
    public static func open(path: String, blocking: Bool = false,
                            report: @escaping (String) -> Void = { _ in }) throws -> EventStreamWriter {
        let d: OwnedDescriptor
        do {
            d = try OwnedDescriptor.open(path, flags: O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK, mode: 0o644)
            if blocking { try d.setNonBlocking(false) }
        } catch let e as SystemError {
            throw Failure(e)
        }
        return EventStreamWriter(descriptor: d, name: path, report: report)
    }

    private init(descriptor: OwnedDescriptor, name: String, report: @escaping (String) -> Void) {
        self.owned = descriptor
        self.fd = descriptor.rawValue; self.name = name; self.report = report
    }

    /// Writes `text` whole (retrying partial writes). Returns the failure, if any.
    @discardableResult
    public func write(_ text: String) -> Failure? {
        var result: Failure?
        do { try FileIO.writeAll(fd, text, path: name) } catch let e as SystemError { result = Failure(e) } catch {}
        if let result {
            if failure == nil { report("cannot write the event stream to \(name): \(result); lines are dropped until writing works again") }
            failure = result
            droppedLines += 1
        } else if failure != nil {
            report("the event stream to \(name) works again (\(droppedLines) lines were dropped)")
            failure = nil
            droppedLines = 0
        }
        return result
    }

    /// Flushes the file to disk (a pipe or terminal: nothing to do).
    public func sync() { try? FileIO.sync(fd, path: name) }
}
