import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An open folder, and the `*at` calls relative to it (openat, fstatat, renameat, unlinkat):
/// how a path someone else names is walked one component at a time without a symbolic link
/// being followed, and how a file is written beside its name and renamed over it. Every
/// failure is a `SystemError` naming the call, the path and the `Errno`.
public final class DirectoryHandle {
    /// The folder's descriptor (closed with the handle).
    public let descriptor: OwnedDescriptor
    /// The folder's path, for messages.
    public var path: String { descriptor.path }

    private init(fd: Int32, path: String) { descriptor = OwnedDescriptor(adopting: fd, path: path) }

    /// Opens the folder `path` (a symbolic link to a folder is followed: the administrator's).
    public static func open(_ path: String) throws -> DirectoryHandle {
        let fd = retryingEINTR { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("open", path: path) }
        return DirectoryHandle(fd: fd, path: path)
    }

    /// Opens the folder `name` in this one without following a symbolic link (ELOOP or
    /// ENOTDIR when `name` is one).
    public func openDirectory(_ name: String) throws -> DirectoryHandle {
        let full = child(name)
        let fd = retryingEINTR { openat(descriptor.rawValue, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("open", path: full) }
        return DirectoryHandle(fd: fd, path: full)
    }

    /// Opens the file `name` for reading without following a symbolic link and without
    /// blocking (O_NONBLOCK: a FIFO does not wait for a writer; check the kind with
    /// `FileStatus.of(descriptor:)` before reading).
    public func openForReading(_ name: String) throws -> OwnedDescriptor {
        let full = child(name)
        let fd = retryingEINTR { openat(descriptor.rawValue, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC) }
        guard fd >= 0 else { throw SystemError("open", path: full) }
        return OwnedDescriptor(adopting: fd, path: full)
    }

    /// Creates the file `name`, which must not exist (O_CREAT | O_EXCL | O_NOFOLLOW), for writing.
    public func createNew(_ name: String, mode: mode_t = 0o644) throws -> OwnedDescriptor {
        let full = child(name)
        let fd = retryingEINTR { openat(descriptor.rawValue, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode) }
        guard fd >= 0 else { throw SystemError("create", path: full) }
        return OwnedDescriptor(adopting: fd, path: full)
    }

    /// What the entry `name` is, without following a symbolic link; nil when there is none.
    public func entry(_ name: String) throws -> Entry? {
        var st = stat()
        guard fstatat(descriptor.rawValue, name, &st, AT_SYMLINK_NOFOLLOW) == 0 else {
            if Errno.current == .noSuchFileOrDirectory { return nil }
            throw SystemError("stat", path: child(name))
        }
        return Entry(kind: FileStatus.Kind(mode: st.st_mode), owner: st.st_uid, links: UInt64(st.st_nlink))
    }

    /// Renames `from` over `to`, both in this folder (atomic: readers see the old or the new file).
    public func rename(_ from: String, to: String) throws {
        guard renameat(descriptor.rawValue, from, descriptor.rawValue, to) == 0 else { throw SystemError("rename", path: child(to)) }
    }

    /// Removes the file `name`; one already gone is not an error.
    public func remove(_ name: String) throws {
        if unlinkat(descriptor.rawValue, name, 0) != 0 && Errno.current != .noSuchFileOrDirectory {
            throw SystemError("unlink", path: child(name))
        }
    }

    public func close() { descriptor.close() }

    private func child(_ name: String) -> String { path == "/" ? "/" + name : path + "/" + name }

    /// A folder entry's facts (fstatat without following a link).
    public struct Entry: Sendable, Equatable {
        public let kind: FileStatus.Kind
        /// The owner's user id.
        public let owner: UInt32
        /// Hard links to it.
        public let links: UInt64
    }

    /// The effective user id of this process (an entry "the kiosk made" is its own).
    public static var processOwner: UInt32 { geteuid() }
}
