import Foundation
import Platform
import SystemPackage

/// Opening a tile file that someone else wrote: read-only and without blocking. A FIFO would
/// block `open(2)` until a writer comes (a frozen kiosk), a device node would be read for ever;
/// so the path is opened with O_NONBLOCK and checked with fstat (the descriptor, not the name,
/// so nothing is swapped in between) to be a regular file before any byte is read.
enum TileFile {
    /// A read-only descriptor on the regular file at `path`, or why not (a sentence part:
    /// "no such file", "it is a FIFO (named pipe), not a regular file", ...).
    static func openRegular(_ path: String) -> Result<Int32, Failure> {
        let file: OwnedDescriptor
        do { file = try OwnedDescriptor(path: path, .readOnly, options: [.nonBlocking, FileDescriptor.OpenOptions(rawValue: O_NOCTTY)]) } catch {
            switch (error as? SystemError)?.errno {
            case .noSuchFileOrDirectory?, .notDirectory?: return .failure(Failure(reason: "no such file"))
            case .permissionDenied?, .notPermitted?: return .failure(Failure(reason: "permission denied (the kiosk's user may not read it)"))
            default: return .failure(Failure(reason: (error as? SystemError)?.errno.readableDescription ?? "\(error)"))
            }
        }
        let kind: FileStatus.Kind
        do { kind = try FileStatus.of(descriptor: file.rawValue).kind } catch {
            return .failure(Failure(reason: (error as? SystemError)?.errno.readableDescription ?? "\(error)"))
        }
        guard kind == .regular else { return .failure(Failure(reason: "it is \(describe(kind)), not a regular file")) }
        // Regular files never block; clear the flag so reads behave as usual.
        try? file.setNonBlocking(false)
        return .success(file.release())
    }

    /// Checks that `path` is a readable regular file without blocking on it (for SQLite, which
    /// opens the file itself).
    static func checkRegular(_ path: String) -> Failure? {
        switch openRegular(path) {
        case let .success(fd): OwnedDescriptor(adopting: fd, path: path).close(); return nil
        case let .failure(f): return f
        }
    }

    struct Failure: Error { let reason: String }

    static func describe(_ kind: FileStatus.Kind) -> String {
        switch kind {
        case .fifo: return "a FIFO (named pipe)"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .directory: return "a folder"
        case .socket: return "a socket"
        default: return "a special file"
        }
    }
}
