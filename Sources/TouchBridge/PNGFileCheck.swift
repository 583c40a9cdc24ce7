import Foundation

/// What an image a client or a file names must be before anything decodes it: a regular file
/// no larger than `maxBytes`, with a PNG signature and an IHDR whose size is within `maxSide`
/// (read from the first 24 bytes). A 48 KB PNG that claims 100000x100000 px, or a 1 GiB file,
/// is refused here without being read whole or decoded (issue 31).
package enum PNGFileCheck {
    /// nil when the file may be decoded; else a message naming the file and what is wrong.
    public static func problem(path: String, maxSide: Int, maxBytes: Int, what: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return "cannot read the \(what) \(path) (does it exist, and may the kiosk's user read it?)" }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return "\(path) is not a regular file: give a PNG file" }
        guard Int(st.st_size) <= maxBytes else {
            return "\(path) is \(st.st_size) bytes: a \(what) may be at most \(maxBytes >> 20) MiB"
        }
        guard let fh = FileHandle(forReadingAtPath: path) else {
            return "cannot read the \(what) \(path) (may the kiosk's user read it?)"
        }
        let h = [UInt8]((try? fh.read(upToCount: 24)) ?? Data())
        try? fh.close()
        return problem(header: h, path: path, maxSide: maxSide, what: what)
    }

    /// The same check on bytes already read (the first 24 are looked at).
    public static func problem(header bytes: some Collection<UInt8>, path: String, maxSide: Int, what: String) -> String? {
        let h = Array(bytes.prefix(24))
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard h.count >= 24, Array(h[0..<8]) == signature, Array(h[12..<16]) == [0x49, 0x48, 0x44, 0x52] else {
            return "\(path) is not a PNG file"
        }
        let w = h[16..<20].reduce(0) { $0 << 8 | Int($1) }, ht = h[20..<24].reduce(0) { $0 << 8 | Int($1) }
        guard w > 0, ht > 0, w <= maxSide, ht <= maxSide else {
            return "\(path) is \(w)x\(ht) px: a \(what) may be at most \(maxSide)x\(maxSide)"
        }
        return nil
    }
}
