import TouchBridge
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

    /// A new recording file at `path` (`record --output`): created, or an existing regular file
    /// emptied. A FIFO, a device node, a folder or a symlink at `path` is refused and left as it
    /// was (FileManager.createFile replaced each with a regular file; issue 31); O_NOFOLLOW and
    /// the fstat of the opened file close the window between the check and the open.
    public static func createFile(path: String) throws -> EventStreamWriter {
        if let st = try? FileStatus.of(path) {
            switch st.kind {
            case .regular: break
            case .symlink: throw CreateError(path: path, reason: "it is a symbolic link: the recording is not written through it, nor over it")
            case .directory: throw CreateError(path: path, reason: "it is a folder")
            default: throw CreateError(path: path, reason: "it exists and is not a regular file (a FIFO, a socket or a device node): the recording replaces only a file")
            }
        }
        let d: OwnedDescriptor
        do {
            d = try OwnedDescriptor.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY, mode: 0o644)
        } catch let e as SystemError {
            throw CreateError(path: path, reason: e.errno == .tooManySymbolicLinkLevels ? "it is a symbolic link"
                              : e.errno.readableDescription + "; check the folder exists and is writable")
        }
        guard (try? FileStatus.of(descriptor: d.rawValue))?.kind == .regular else {
            throw CreateError(path: path, reason: "it is not a regular file")
        }
        do { try d.setNonBlocking(false) } catch { throw CreateError(path: path, reason: "\(error)") }
        return EventStreamWriter(descriptor: d, name: path, report: { _ in })
    }

    public struct CreateError: Error, CustomStringConvertible {
        public let path: String, reason: String
        public var description: String { "cannot write \(path): \(reason)" }
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
