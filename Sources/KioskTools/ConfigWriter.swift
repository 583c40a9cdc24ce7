import Platform
import SystemPackage
import TouchCore
import Foundation
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
    typealias IO = AtomicFile.Calls

    static func explain(_ e: Int32) -> String { explain(Errno(rawValue: e)) }

    /// Why a write failed, in words a kiosk technician can act on.
    static func explain(_ e: Errno) -> String {
        switch e {
        case .noSpace: return "the disk is full (free some space and calibrate again)"
        case .diskQuotaExceeded: return "the disk quota of this user is used up"
        case .readOnlyFileSystem: return "the file system is read-only (remount it read-write, or give --config a writable file)"
        case .permissionDenied, .notPermitted: return "permission denied (run calibrate as the file's owner or as root)"
        case .ioError: return "an input/output error (the disk may be failing)"
        case .fileTooLarge: return "the file would be too large"
        case .tooManySymbolicLinkLevels: return "too many symbolic links"
        default: return e.readableDescription
        }
    }

    @discardableResult
    static func writeAtomically(_ text: String, to path: String, io: IO) throws -> String? {
        do {
            return try AtomicFile.replace(path, with: Array(text.utf8), keepBackup: true, durable: true, calls: io)
        } catch {
            let what: String
            switch error.step {
            case .flushFolder:
                throw ConfigError(file: path, line: nil, key: nil,
                                  message: "the new configuration is in place but flushing \(error.path) failed: \(explain(error.errno)); it may be lost on a power cut")
            case .followLinks: what = "cannot follow \(error.path)"
            case .lookAt: what = "cannot look at \(error.path)"
            case .notRegularFile: what = "\(error.path) is not a regular file"
            case .createTemporary: what = "cannot create a temporary file in \(error.path)"
            case .write: what = "cannot write the new configuration to \(error.path)"
            case .setMode: what = "cannot give the new file the mode of \(error.path)"
            case .setOwner: what = "cannot give the new file the owner of \(error.path)"
            case .flush: what = "cannot flush the new configuration to disk"
            case .backup: what = "cannot keep a backup \(error.path)"
            case .replace: what = "cannot replace \(error.path)"
            }
            throw ConfigError(file: path, line: nil, key: nil, message: "\(what): \(explain(error.errno)). The file was not changed.")
        }
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
