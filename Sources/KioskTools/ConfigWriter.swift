import Platform
import TouchCore
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TouchBridge

/// Writes a calibration into a configuration file without disturbing the rest of it: the
/// `calibration` key of the chosen [[touch]] table is replaced (or added, or a [[touch]] table
/// appended). The file is replaced atomically (temporary file + rename) and the old one kept
/// as FILE.bak.
public enum ConfigWriter {
    /// The new text; `touchIndex` selects the [[touch]] table (nil: the first, or a new one).
    public static func settingCalibration(_ m: [Double], in text: String, touchIndex: Int? = nil, match: String? = nil) -> String {
        let value = "calibration = [" + m.map { String(format: "%.6f", $0) }.joined(separator: ", ") + "]"
        var lines = text.components(separatedBy: "\n")
        if lines.last == "" { lines.removeLast() }
        var tableStarts: [Int] = []
        for (i, l) in lines.enumerated() where l.trimmingCharacters(in: .whitespaces).hasPrefix("[[touch]]") { tableStarts.append(i) }
        let want = touchIndex ?? 0
        if want < tableStarts.count {
            let start = tableStarts[want]
            var end = lines.count
            for i in (start + 1)..<lines.count where lines[i].trimmingCharacters(in: .whitespaces).hasPrefix("[") { end = i; break }
            if let k = (start + 1..<end).first(where: {
                let t = lines[$0].trimmingCharacters(in: .whitespaces)
                return t.hasPrefix("calibration") && t.dropFirst("calibration".count).trimmingCharacters(in: .whitespaces).hasPrefix("=")
            }) {
                lines[k] = value
            } else {
                lines.insert(value, at: start + 1)
            }
        } else {
            if !(lines.last?.isEmpty ?? true) { lines.append("") }
            lines.append("[[touch]]")
            lines.append("match = \"\(match ?? "auto")\"")
            lines.append(value)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Replaces the configuration file `path` with `text` so that a crash or power cut at any
    /// moment leaves either the old or the new file, never a torn one, and the file stays what
    /// it was: the same mode, owner and group, and, when `path` is a symlink, the link is kept
    /// and its target replaced. The new text goes to a temporary file in the target's own
    /// folder (rename(2) is atomic only within one file system), gets the old file's mode and
    /// owner, is fsync'd, renamed over the target, and the folder is fsync'd so the rename
    /// itself survives a power cut. The old file is kept as TARGET.bak (a hard link to it, or a
    /// copy where links are refused). Errors say what failed ("the disk is full", not
    /// "permission"); on any error the file is left as it was. Returns the backup's path.
    @discardableResult
    public static func writeAtomically(_ text: String, to path: String) throws -> String? {
        try writeAtomically(text, to: path, io: .system)
    }

    /// The system calls the write makes that can fail for reasons outside the program (a full
    /// disk, a quota, I/O errors); tests put failures in here.
    struct IO: Sendable {
        var write: @Sendable (Int32, UnsafeRawPointer, Int) -> Int
        var fsync: @Sendable (Int32) -> Int32
        var rename: @Sendable (String, String) -> Int32
        static let system = IO(write: { fd, p, n in retryingEINTR { Glibc.write(fd, p, n) } },
                               fsync: { fd in retryingEINTR { Glibc.fsync(fd) } }, rename: { Glibc.rename($0, $1) })
    }

    /// Why a write failed, in words a kiosk technician can act on.
    static func explain(_ e: Int32) -> String {
        switch e {
        case ENOSPC: return "the disk is full (free some space and calibrate again)"
        case EDQUOT: return "the disk quota of this user is used up"
        case EROFS: return "the file system is read-only (remount it read-write, or give --config a writable file)"
        case EACCES, EPERM: return "permission denied (run calibrate as the file's owner or as root)"
        case EIO: return "an input/output error (the disk may be failing)"
        case EFBIG: return "the file would be too large"
        case ELOOP: return "too many symbolic links"
        default: return String(cString: strerror(e))
        }
    }

    @discardableResult
    static func writeAtomically(_ text: String, to path: String, io: IO) throws -> String? {
        func fail(_ what: String, _ e: Int32) -> ConfigError {
            ConfigError(file: path, line: nil, key: nil, message: "\(what): \(explain(e)). The file was not changed.")
        }
        let target = try resolveLinks(path)
        let folder = (target as NSString).deletingLastPathComponent.isEmpty ? "." : (target as NSString).deletingLastPathComponent
        let name = (target as NSString).lastPathComponent
        var old = stat()
        let exists = stat(target, &old) == 0
        if !exists && errno != ENOENT { throw fail("cannot look at \(target)", errno) }
        if exists && (old.st_mode & S_IFMT) != S_IFREG { throw fail("\(target) is not a regular file", EINVAL) }

        var template = Array("\(folder)/.\(name).tmp-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw fail("cannot create a temporary file in \(folder)", errno) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        let tmp = String(cString: template)
        var committed = false
        defer { if !committed { unlink(tmp) } }
        do {
            defer { close(fd) }
            let bytes = Array(text.utf8)
            var done = 0
            while done < bytes.count {
                let n = bytes.withUnsafeBytes { io.write(fd, $0.baseAddress! + done, bytes.count - done) }
                guard n > 0 else { throw fail("cannot write the new configuration to \(folder)", n == 0 ? EIO : errno) }
                done += n
            }
            // The old file's mode, owner and group; a new file gets 0644 less the umask.
            let mode: mode_t
            if exists { mode = old.st_mode & 0o7777 } else { let u = umask(0); umask(u); mode = 0o644 & ~u }
            guard fchmod(fd, mode) == 0 else { throw fail("cannot give the new file the mode \(String(mode, radix: 8))", errno) }
            if exists && (old.st_uid != geteuid() || old.st_gid != getegid()) {
                guard fchown(fd, old.st_uid, old.st_gid) == 0 else {
                    throw fail("cannot give the new file the owner \(old.st_uid):\(old.st_gid) of the old one", errno)
                }
            }
            guard io.fsync(fd) == 0 else { throw fail("cannot flush the new configuration to disk", errno) }
        }
        var backup: String? = nil
        if exists {
            let bak = target + ".bak"
            // The new backup is made beside the old one and renamed over it: a kill at any
            // moment leaves the old backup or the new one, never none.
            let bakTmp = target + ".bak.\(getpid()).tmp"
            unlink(bakTmp)
            // A hard link keeps the old file itself (mode, owner, times); a copy where links are refused.
            if link(target, bakTmp) != 0 {
                do {
                    try FileManager.default.copyItem(atPath: target, toPath: bakTmp)
                } catch {
                    unlink(bakTmp)
                    throw ConfigError(file: path, line: nil, key: nil, message: "cannot keep a backup \(bak): \(error). The file was not changed.")
                }
            }
            guard io.rename(bakTmp, bak) == 0 else {
                let e = errno
                unlink(bakTmp)
                throw fail("cannot keep a backup \(bak)", e)
            }
            backup = bak
        }
        guard io.rename(tmp, target) == 0 else { throw fail("cannot replace \(target)", errno) }
        committed = true
        // The rename lives in the folder: flush it too, or a power cut may bring the old file back.
        let dirfd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirfd >= 0 {
            let rc = io.fsync(dirfd)
            let e = errno
            close(dirfd)
            if rc != 0 && e != EINVAL {   // EINVAL: a file system that cannot sync folders
                throw ConfigError(file: path, line: nil, key: nil,
                                  message: "the new configuration is in place but flushing \(folder) failed: \(explain(e)); it may be lost on a power cut")
            }
        }
        return backup
    }

    /// The file a path finally names, following symbolic links (also a dangling last one, so
    /// a link to a file not yet written is written through).
    static func resolveLinks(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var st = stat()
            guard lstat(current, &st) == 0, (st.st_mode & S_IFMT) == S_IFLNK else { return current }
            var buf = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let n = readlink(current, &buf, buf.count - 1)
            guard n > 0 else { return current }
            let dest = String(decoding: buf[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = dest.hasPrefix("/") ? dest : ((current as NSString).deletingLastPathComponent as NSString).appendingPathComponent(dest)
        }
        throw ConfigError(file: path, line: nil, key: nil, message: "cannot follow \(path): \(explain(ELOOP)). The file was not changed.")
    }
}

extension CalibrationFit {
    /// The udev rule line that sets the same matrix for this device.
    public static func udevRule(matrix: [Double], deviceName: String) -> String {
        let m = matrix.map { String(format: "%.6g", $0) }.joined(separator: " ")
        return "ENV{ID_INPUT_TOUCHSCREEN}==\"1\", ATTRS{name}==\"\(udevPattern(deviceName))\", ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(m)\""
    }

    /// A device name as a udev match value: a name comes from the device (any USB gadget or
    /// uinput program chooses its own), so every character that would end the quoted string
    /// (quote, backslash, a line end), act as a glob or an alternative (* ? [ ] |), be
    /// substituted (% $) or is a control character becomes "?", which matches exactly one
    /// character: the rule still matches this panel, and nothing can be injected into it.
    public static func udevPattern(_ name: String) -> String {
        let special: Set<Unicode.Scalar> = ["\"", "\\", "*", "?", "[", "]", "|", "%", "$"]
        var out = String.UnicodeScalarView()
        for c in name.unicodeScalars {
            out.append(special.contains(c) || c.value < 0x20 || c.value == 0x7F ? "?" : c)
        }
        return String(out)
    }
}
