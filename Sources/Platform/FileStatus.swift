import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Facts about a path without following a final symlink (lstat), for the callers that must
/// tell a socket, a FIFO or a folder from a regular file before touching it.
public struct FileStatus: Sendable, Equatable {
    public enum Kind: Sendable { case regular, directory, socket, fifo, symlink, characterDevice, blockDevice, other }
    public let kind: Kind
    public let device: UInt64
    public let inode: UInt64
    public let size: Int64

    /// lstat (`followLinks` false) or stat of `path`; nil when it does not exist (ENOENT).
    public static func of(_ path: String, followLinks: Bool = false) throws -> FileStatus? {
        var st = stat()
        let r = followLinks ? stat(path, &st) : lstat(path, &st)
        if r != 0 {
            if Errno.current == .noSuchFileOrDirectory { return nil }
            throw SystemError(followLinks ? "stat" : "lstat", path: path)
        }
        return FileStatus(st)
    }

    /// fstat of an open descriptor (stderr, to tell the journal's stream from a file).
    public static func of(descriptor fd: Int32) throws -> FileStatus {
        var st = stat()
        guard fstat(fd, &st) == 0 else { throw SystemError("fstat", path: "fd \(fd)") }
        return FileStatus(st)
    }

    private init(_ st: stat) {
        kind = Kind(mode: st.st_mode)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
    }

    /// unlink(2); a path already gone is not an error.
    public static func remove(_ path: String) throws {
        if unlink(path) != 0 && Errno.current != .noSuchFileOrDirectory { throw SystemError("unlink", path: path) }
    }
}

extension FileStatus.Kind {
    /// The kind a stat mode's S_IFMT bits give.
    init(mode: mode_t) {
        switch mode & S_IFMT {
        case S_IFREG: self = .regular
        case S_IFDIR: self = .directory
        case S_IFSOCK: self = .socket
        case S_IFIFO: self = .fifo
        case S_IFLNK: self = .symlink
        case S_IFCHR: self = .characterDevice
        case S_IFBLK: self = .blockDevice
        default: self = .other
        }
    }
}
