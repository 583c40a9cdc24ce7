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

    /// Atomically replaces `path` with `text`, keeping the previous file as `path.bak`.
    public static func writeAtomically(_ text: String, to path: String) throws {
        let fm = FileManager.default
        let tmp = path + ".tmp-\(getpid())"
        guard fm.createFile(atPath: tmp, contents: Data(text.utf8)) else {
            throw ConfigError(file: path, line: nil, key: nil, message: "cannot write \(tmp): check the folder's permissions")
        }
        if fm.fileExists(atPath: path) {
            try? fm.removeItem(atPath: path + ".bak")
            try fm.copyItem(atPath: path, toPath: path + ".bak")
        }
        guard rename(tmp, path) == 0 else {
            let err = String(cString: strerror(errno))
            try? fm.removeItem(atPath: tmp)
            throw ConfigError(file: path, line: nil, key: nil, message: "cannot replace the file: \(err)")
        }
    }
}

extension CalibrationFit {
    /// The udev rule line that sets the same matrix for this device.
    public static func udevRule(matrix: [Double], deviceName: String) -> String {
        let m = matrix.map { String(format: "%.6g", $0) }.joined(separator: " ")
        return "ENV{ID_INPUT_TOUCHSCREEN}==\"1\", ATTRS{name}==\"\(deviceName)\", ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(m)\""
    }
}
