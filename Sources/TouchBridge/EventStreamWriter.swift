import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes the event stream with write(2), so a full disk, a closed pipe or a reader that stops
/// reading is an error the caller handles rather than a trap (Foundation's `FileHandle.write(_:)`
/// traps on every write error). The first failure of an outage is reported once through
/// `report`; lines are dropped until a write works again, which is reported too.
public final class EventStreamWriter {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        /// The reading end is gone (EPIPE): nobody will read further lines.
        case closed
        /// The reader is too slow and the pipe is full (EAGAIN on a non-blocking pipe).
        case full
        case error(errno: Int32)

        public var description: String {
            switch self {
            case .closed: return "the reader closed the pipe"
            case .full: return "the reader does not keep up (pipe full)"
            case .error(let e) where e == ENXIO: return "it is a FIFO that no process reads"
            case .error(let e): return String(cString: strerror(e))
            }
        }
    }

    public let name: String
    public let fd: Int32
    private let ownsFD: Bool
    /// Called once when writing starts failing and once when it works again.
    public var report: (String) -> Void
    /// Lines dropped since the current outage began.
    public private(set) var droppedLines = 0
    /// The failure of the current outage, nil while writes work.
    public private(set) var failure: Failure?

    public init(fd: Int32, name: String, ownsFD: Bool = false, report: @escaping (String) -> Void = { _ in }) {
        self.fd = fd; self.name = name; self.ownsFD = ownsFD; self.report = report
    }

    /// Opens `path` for appending (created 0644 when missing). Opened non-blocking: a FIFO with
    /// no reader is an error instead of a hang, and a full pipe drops lines instead of stalling
    /// the kiosk.
    /// With `blocking`, only the open is non-blocking and writes wait for a slow reader (a
    /// recording must not lose lines).
    public static func open(path: String, blocking: Bool = false,
                            report: @escaping (String) -> Void = { _ in }) throws -> EventStreamWriter {
        let fd = Glibc.open(path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure.error(errno: errno) }
        if blocking { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) }
        return EventStreamWriter(fd: fd, name: path, ownsFD: true, report: report)
    }

    /// A new recording file at `path` (`record --output`): created, or an existing regular file
    /// emptied. A FIFO, a device node, a folder or a symlink at `path` is refused and left as it
    /// was (FileManager.createFile replaced each with a regular file; issue 31); O_NOFOLLOW and
    /// the fstat of the opened file close the window between the check and the open.
    public static func createFile(path: String) throws -> EventStreamWriter {
        var st = stat()
        if lstat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFREG: break
            case S_IFLNK: throw CreateError(path: path, reason: "it is a symbolic link: the recording is not written through it, nor over it")
            case S_IFDIR: throw CreateError(path: path, reason: "it is a folder")
            default: throw CreateError(path: path, reason: "it exists and is not a regular file (a FIFO, a socket or a device node): the recording replaces only a file")
            }
        }
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            let e = errno
            throw CreateError(path: path, reason: e == ELOOP ? "it is a symbolic link" : String(cString: strerror(e)) + "; check the folder exists and is writable")
        }
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw CreateError(path: path, reason: "it is not a regular file")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return EventStreamWriter(fd: fd, name: path, ownsFD: true)
    }

    public struct CreateError: Error, CustomStringConvertible {
        public let path: String, reason: String
        public var description: String { "cannot write \(path): \(reason)" }
    }

    deinit { if ownsFD { Glibc.close(fd) } }

    /// Writes `text` whole (retrying partial writes and EINTR). Returns the failure, if any.
    @discardableResult
    public func write(_ text: String) -> Failure? {
        var text = text
        let result: Failure? = text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let n = Glibc.write(fd, bytes.baseAddress! + offset, bytes.count - offset)
                if n >= 0 { offset += n; continue }
                switch errno {
                case EINTR: continue
                case EPIPE: return .closed
                case EAGAIN: return .full
                case let e: return .error(errno: e)
                }
            }
            return nil
        }
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
    public func sync() { _ = fsync(fd) }
}
