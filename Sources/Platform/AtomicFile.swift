import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A file replaced so that a crash or a power cut at any moment leaves either the old contents
/// or the new, never a torn file, and the file stays what it was: the same mode, owner and
/// group, and, when the path is a symlink, the link kept and its target replaced. The new bytes
/// go to a temporary file in the target's own folder (rename(2) is atomic only within one file
/// system), get the old file's mode and owner, are fsync'd (`durable`), renamed over the target,
/// and the folder is fsync'd so that the rename itself survives a power cut. With `keepBackup`
/// the old file is kept as TARGET.bak (a hard link to it, or a copy where links are refused),
/// renamed into place so a kill never leaves no backup. On any failure before the final rename
/// the target is as it was and no temporary file is left.
///
/// The configuration writer (calibrate, tune) and the metrics textfile use it.
public enum AtomicFile {
    /// The step that failed.
    public enum Step: Sendable, Equatable {
        case followLinks, lookAt, notRegularFile, createTemporary, write, setMode, setOwner, flush, backup, replace
        /// The new file is in place; flushing its folder failed (it may not survive a power cut).
        case flushFolder
    }

    public struct Failure: Error, Sendable, CustomStringConvertible {
        public let step: Step
        /// The file or folder the step was about (the target, its folder or the backup).
        public let path: String
        public let errno: Errno

        public var description: String {
            let what: String
            switch step {
            case .followLinks: what = "cannot follow the links of \(path)"
            case .lookAt: what = "cannot look at \(path)"
            case .notRegularFile: what = "\(path) is not a regular file"
            case .createTemporary: what = "cannot create a temporary file in \(path)"
            case .write: what = "cannot write a new \(path)"
            case .setMode: what = "cannot give the new \(path) the old one's mode"
            case .setOwner: what = "cannot give the new \(path) the old one's owner"
            case .flush: what = "cannot flush the new \(path) to disk"
            case .backup: what = "cannot keep a backup \(path)"
            case .replace: what = "cannot replace \(path)"
            case .flushFolder: what = "the new file is in place but flushing the folder \(path) failed"
            }
            return what + ": " + errno.readableDescription
        }
    }

    /// The calls that fail for reasons outside the program (a full disk, a quota, an I/O error,
    /// a read-only file system): tests put failures here. Each returns what the system call does
    /// (negative with errno set on failure).
    public struct Calls: Sendable {
        public var write: @Sendable (Int32, UnsafeRawPointer, Int) -> Int
        public var fsync: @Sendable (Int32) -> Int32
        public var rename: @Sendable (String, String) -> Int32
        public static let system = Calls(write: { fd, p, n in retryingEINTR { Glibc.write(fd, p, n) } },
                                         fsync: { fd in retryingEINTR { Glibc.fsync(fd) } },
                                         rename: { Glibc.rename($0, $1) })
    }

    /// Replaces the file `path` names (through its symlinks) with `bytes`. A new file gets
    /// `newFileMode` less the umask. `durable`: fsync the file and its folder (a configuration);
    /// without, a crash may lose the new contents but still never tears them (a metrics file
    /// rewritten every few seconds). Returns the backup's path when one was kept.
    @discardableResult
    public static func replace(_ path: String, with bytes: [UInt8], keepBackup: Bool = false, durable: Bool = true,
                               newFileMode: mode_t = 0o644, calls: Calls = .system) throws(Failure) -> String? {
        let target = try resolveLinks(path)
        let cut = target.lastIndex(of: "/")
        let folder = cut.map { $0 == target.startIndex ? "/" : String(target[..<$0]) } ?? "."
        let name = cut.map { String(target[target.index(after: $0)...]) } ?? target
        var old = stat()
        let exists = stat(target, &old) == 0
        if !exists && Errno.current != .noSuchFileOrDirectory { throw Failure(step: .lookAt, path: target, errno: .current) }
        if exists && (old.st_mode & S_IFMT) != S_IFREG { throw Failure(step: .notRegularFile, path: target, errno: .invalidArgument) }

        var template = Array("\(folder)/.\(name).tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw Failure(step: .createTemporary, path: folder, errno: .current) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let tmp = String(cChars: template)
        var committed = false
        defer { if !committed { unlink(tmp) } }
        do {
            defer { close(fd) }
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { calls.write(fd, $0.baseAddress! + done, bytes.count - done) }
                guard n > 0 else { throw Failure(step: .write, path: target, errno: n == 0 ? .ioError : .current) }
                done += n
            }
            // The old file's mode, owner and group; a new file gets the mode less the umask.
            let mode: mode_t
            if exists { mode = old.st_mode & 0o7777 } else { let u = umask(0); umask(u); mode = newFileMode & ~u }
            guard fchmod(fd, mode) == 0 else { throw Failure(step: .setMode, path: target, errno: .current) }
            if exists && (old.st_uid != geteuid() || old.st_gid != getegid()) {
                guard fchown(fd, old.st_uid, old.st_gid) == 0 else { throw Failure(step: .setOwner, path: target, errno: .current) }
            }
            if durable { guard calls.fsync(fd) == 0 else { throw Failure(step: .flush, path: target, errno: .current) } }
        }
        var backup: String? = nil
        if exists && keepBackup {
            let bak = target + ".bak"
            // The new backup is made beside the old one and renamed over it: a kill at any
            // moment leaves the old backup or the new one, never none.
            let bakTmp = target + ".bak.\(getpid()).tmp"
            unlink(bakTmp)
            // A hard link keeps the old file itself (mode, owner, times); a copy where links are refused.
            if link(target, bakTmp) != 0 {
                do {
                    let contents = try FileIO.readFile(target, limit: 1 << 28)
                    let d = try OwnedDescriptor.open(bakTmp, flags: O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode: old.st_mode & 0o7777)
                    try d.writeAll(contents)
                } catch {
                    unlink(bakTmp)
                    throw Failure(step: .backup, path: bak, errno: (error as? SystemError)?.errno ?? .ioError)
                }
            }
            guard calls.rename(bakTmp, bak) == 0 else {
                let e = Errno.current
                unlink(bakTmp)
                throw Failure(step: .backup, path: bak, errno: e)
            }
            backup = bak
        }
        guard calls.rename(tmp, target) == 0 else { throw Failure(step: .replace, path: target, errno: .current) }
        committed = true
        // The rename lives in the folder: flush it too, or a power cut may bring the old file back.
        if durable {
            let dirfd = retryingEINTR { open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
            if dirfd >= 0 {
                let rc = calls.fsync(dirfd)
                let e = Errno.current
                close(dirfd)
                // EINVAL: a file system that cannot sync folders.
                if rc != 0 && e != .invalidArgument { throw Failure(step: .flushFolder, path: folder, errno: e) }
            }
        }
        return backup
    }

    /// The file a path finally names, following symbolic links (also a dangling last one, so
    /// a link to a file not yet written is written through).
    public static func resolveLinks(_ path: String) throws(Failure) -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buf, buf.count - 1)
            guard n > 0 else { return current }
            let dest = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if dest.hasPrefix("/") {
                current = dest
            } else if let cut = current.lastIndex(of: "/") {
                current = String(current[...cut]) + dest
            } else {
                current = dest
            }
        }
        throw Failure(step: .followLinks, path: path, errno: .tooManySymbolicLinkLevels)
    }
}
