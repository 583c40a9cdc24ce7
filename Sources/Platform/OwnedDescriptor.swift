import SystemPackage

/// A file descriptor this program opened and must close exactly once: in `close()` or, if
/// nobody called it, in deinit. After `close()` `rawValue` is -1, so a late use fails with
/// EBADF instead of touching whatever descriptor the kernel hands out next.
public final class OwnedDescriptor {
    public private(set) var descriptor: FileDescriptor?
    /// The path it was opened from, for error messages.
    public let path: String

    /// Opens `path` (O_CLOEXEC; EINTR retried by swift-system) and owns the result.
    public init(path: String, _ mode: FileDescriptor.AccessMode, options: FileDescriptor.OpenOptions = []) throws {
        self.path = path
        do {
            descriptor = try FileDescriptor.open(path, mode, options: options.union(.closeOnExec))
        } catch let e as Errno {
            throw SystemError("open", path: path, errno: e)
        }
    }

    /// Takes ownership of a descriptor opened elsewhere.
    public init(adopting fd: Int32, path: String) {
        self.path = path
        descriptor = fd >= 0 ? FileDescriptor(rawValue: fd) : nil
    }

    public var rawValue: Int32 { descriptor?.rawValue ?? -1 }
    public var isOpen: Bool { descriptor != nil }

    /// Closes the descriptor; a second call does nothing.
    public func close() {
        guard let d = descriptor else { return }
        descriptor = nil
        try? d.close()
    }

    /// Closes the descriptor and reports the close's own failure (a write the kernel deferred,
    /// on NFS or a full disk, can fail here); a second call does nothing.
    public func closeReportingErrors() throws {
        guard let d = descriptor else { return }
        descriptor = nil
        do { try d.close() } catch let e as Errno { throw SystemError("close", path: path, errno: e) }
    }

    /// Gives the descriptor up without closing it (to an owner of another kind, such as
    /// Foundation's `FileHandle(fileDescriptor:closeOnDealloc:)`); -1 when closed.
    public func release() -> Int32 {
        let fd = rawValue
        descriptor = nil
        return fd
    }

    deinit { close() }

    /// Writes all of `bytes` to an existing file opened O_WRONLY | O_TRUNC (a sysfs attribute
    /// such as a backlight's brightness takes one write of the whole value).
    public static func overwrite(path: String, with bytes: [UInt8]) throws {
        let d = try OwnedDescriptor(path: path, .writeOnly, options: .truncate)
        defer { d.close() }
        guard let fd = d.descriptor else { return }
        do { _ = try fd.writeAll(bytes) } catch let e as Errno { throw SystemError("write", path: path, errno: e) }
    }
}
