import TouchBridge
import Foundation
import Platform
import SystemPackage

/// A path a control client names (a screenshot to write, an icon or a ground-overlay image to
/// read), held inside the folder the configuration allows (`[control] screenshot_dir`,
/// `[control] files_dir`; docs/control.md, Paths). The socket is a security boundary: a client
/// in the socket's group must not reach, through the kiosk, a file its own user may not.
///
/// - A path outside the folder, or with a `.`, `..` or empty component, is refused from its
///   text alone, before the file system is asked anything: the error is the same whether the
///   path exists or not.
/// - Inside, every folder below the configured one is opened with `openat(O_NOFOLLOW |
///   O_DIRECTORY)` from the one before, and the file itself with `O_NOFOLLOW`: a symlink
///   anywhere below the configured folder is refused, never followed (the configured folder
///   itself is the administrator's and may be a symlink).
/// - A file read is a regular file (no FIFO that would block the loop, no device), at most
///   `maxBytes`, checked with `fstat` on the descriptor read from.
/// - A file written is made new beside its name (`O_CREAT | O_EXCL`) and renamed over it; an
///   existing file is replaced only when the kiosk made it: a regular file of the kiosk's own
///   user with one link. A FIFO, a device, a folder, a symlink or another user's file stays.
public struct ConfinedPath: Sendable {
    /// The configured folder, without a trailing `/`; "" refuses every path.
    public let folder: String
    /// The configuration key, for messages (`control.files_dir`).
    public let key: String

    public init(folder: String, key: String) {
        var f = folder
        while f.count > 1, f.hasSuffix("/") { f.removeLast() }
        self.folder = f
        self.key = key
    }

    /// The components of `path` below the folder; an error that says nothing of the file system.
    public func components(of path: String) throws -> [String] {
        guard !folder.isEmpty else {
            throw ControlError("paths from clients are turned off (\(key) = \"\"): the kiosk reads and writes no file a client names")
        }
        guard path.hasPrefix("/") else {
            throw ControlError("\"\(path)\" is not an absolute path (the kiosk's working folder is not the client's): give a path in \(folder) (\(key))")
        }
        let base = folder == "/" ? "" : folder
        guard path.hasPrefix(base + "/") else { throw outside(path) }
        let parts = path.dropFirst(base.count + 1).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("\0") }) else {
            throw outside(path)
        }
        return parts
    }

    func outside(_ path: String) -> ControlError {
        ControlError("\(MapEventQuote.quote(path)) is not a file in \(folder): paths from clients must lie in \(key) (no \"..\", no \".\", no \"//\")")
    }

    /// Opens the folder that holds `path`'s last component, each folder below the configured
    /// one without following a symlink. Returns its descriptor (the caller closes it) and the name.
    public func openParent(_ path: String) throws -> (dir: DirectoryHandle, name: String) {
        let parts = try components(of: path)
        var dir: DirectoryHandle
        do { dir = try DirectoryHandle.open(folder) } catch let e as SystemError {
            throw ControlError("cannot open \(folder) (\(key)): \(e.errno.readableDescription)")
        }
        var walked = folder == "/" ? "" : folder
        for part in parts.dropLast() {
            walked += "/" + part
            do {
                let next = try dir.openDirectory(part)
                dir.close()
                dir = next
            } catch let e as SystemError {
                dir.close()
                throw ControlError("\(walked): \(ConfinedPath.reason(e.errno, folder: true))")
            }
        }
        return (dir, parts.last!)
    }

    static func reason(_ e: Errno, folder: Bool) -> String {
        switch e {
        case .tooManySymbolicLinkLevels: return "a symbolic link: paths from clients are not followed through links"
        case .notDirectory: return folder ? "not a folder (or a symbolic link, which is not followed)" : "not a folder"
        case .noSuchFileOrDirectory: return "no such file or folder"
        case .permissionDenied, .notPermitted: return "the kiosk's user may not open it"
        default: return e.readableDescription
        }
    }

    /// Reads a regular file of at most `maxBytes` (what: "marker icon").
    public func read(_ path: String, maxBytes: Int, what: String) throws -> Data {
        let (file, size) = try openRegularFile(path, maxBytes: maxBytes, what: what)
        defer { file.close() }
        var out = Data(count: size)
        var got = 0
        do {
            try out.withUnsafeMutableBytes { buf in
                while got < buf.count, let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buf[got...])), n > 0 { got += n }
            }
        } catch let e as SystemError {
            throw ControlError("cannot read the \(what) \(path): \(e.errno.readableDescription)")
        }
        return out.prefix(got)
    }

    /// Checks that `path` names a regular file inside the folder, reached without a symlink.
    public func checkReadable(_ path: String, maxBytes: Int, what: String) throws {
        try openRegularFile(path, maxBytes: maxBytes, what: what).file.close()
    }

    /// Opens `path` inside the folder (no symlink followed, O_NONBLOCK so a FIFO cannot block)
    /// and checks it is a regular file of at most `maxBytes`: the one check `read` and
    /// `checkReadable` share.
    private func openRegularFile(_ path: String, maxBytes: Int, what: String) throws -> (file: OwnedDescriptor, size: Int) {
        let (dir, name) = try openParent(path)
        defer { dir.close() }
        let file: OwnedDescriptor
        do { file = try dir.openForReading(name) } catch let e as SystemError {
            throw ControlError("cannot read the \(what) \(path): \(ConfinedPath.reason(e.errno, folder: false))")
        }
        guard let st = try? FileStatus.of(descriptor: file.rawValue), st.kind == .regular else {
            throw ControlError("\(path) is not a regular file (a folder, a FIFO or a device): give a PNG file")
        }
        guard st.size <= Int64(maxBytes) else {
            throw ControlError("\(path) is \(st.size) bytes: a \(what) may be at most \(maxBytes >> 20) MiB")
        }
        return (file, Int(st.size))
    }

    /// Whether an existing directory entry may be replaced by a file the kiosk writes: absent,
    /// or a regular file of the kiosk's own user with one link (one it made). Returns the
    /// problem otherwise.
    public static func replaceProblem(dir: DirectoryHandle, name: String, path: String) -> String? {
        // Absent: a new file. (An entry that cannot be looked at is left to the rename, as before.)
        guard let entry = try? dir.entry(name) else { return nil }
        switch entry.kind {
        case .regular: break
        case .symlink: return "\(path) is a symbolic link: a screenshot never replaces a link (nor writes through it)"
        default: return "\(path) exists and is not a regular file (a folder, a FIFO or a device): a screenshot replaces only a file"
        }
        guard entry.owner == DirectoryHandle.processOwner else { return "\(path) belongs to another user: a screenshot replaces only a file the kiosk made" }
        guard entry.links == 1 else { return "\(path) has other hard links: a screenshot replaces only a file the kiosk made" }
        return nil
    }
}

/// A path quoted for a message, as JSON quotes a string (no newline reaches the log).
enum MapEventQuote {
    static func quote(_ s: String) -> String {
        let cut = s.unicodeScalars.count > 200 ? String(String.UnicodeScalarView(s.unicodeScalars.prefix(200))) + "..." : s
        return JSONValue.string(cut).text
    }
}
