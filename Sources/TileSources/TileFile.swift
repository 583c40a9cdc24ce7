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
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY)
        guard fd >= 0 else {
            let e = errno
            switch e {
            case ENOENT, ENOTDIR: return .failure(Failure(reason: "no such file"))
            case EACCES, EPERM: return .failure(Failure(reason: "permission denied (the kiosk's user may not read it)"))
            default: return .failure(Failure(reason: Errno(rawValue: e).readableDescription))
            }
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let e = errno
            close(fd)
            return .failure(Failure(reason: Errno(rawValue: e).readableDescription))
        }
        let kind = st.st_mode & S_IFMT
        guard kind == S_IFREG else {
            close(fd)
            return .failure(Failure(reason: "it is \(describe(kind)), not a regular file"))
        }
        // Regular files never block; clear the flag so reads behave as usual.
        let flags = fcntl(fd, F_GETFL)
        if flags >= 0 { _ = fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) }
        return .success(fd)
    }

    /// Checks that `path` is a readable regular file without blocking on it (for SQLite, which
    /// opens the file itself).
    static func checkRegular(_ path: String) -> Failure? {
        switch openRegular(path) {
        case let .success(fd): close(fd); return nil
        case let .failure(f): return f
        }
    }

    struct Failure: Error { let reason: String }

    static func describe(_ kind: mode_t) -> String {
        switch kind {
        case S_IFIFO: return "a FIFO (named pipe)"
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFDIR: return "a folder"
        case S_IFSOCK: return "a socket"
        default: return "a special file"
        }
    }
}
