/// What a marker added from outside (a control client, a GeoJSON Point's title and
/// description) may carry, so that no client can make the kiosk's memory or its frames
/// unbounded (issue 31: 700 markers with 1 MB titles took 712 MB; a title of one letter and
/// 80,000 combining accents made one frame take 45 s). Listed in docs/limits.md.
public enum MarkerLimits {
    /// Markers per kiosk (the configuration's and the clients' together).
    public static let maxMarkers = 10_000
    /// A title's UTF-8 bytes: two lines of an info window many times over.
    public static let maxTitleBytes = 1_024
    /// A snippet's UTF-8 bytes.
    public static let maxSnippetBytes = 4_096
    /// Code points in one user-perceived character (a grapheme cluster: a letter and its
    /// combining marks, an emoji ZWJ sequence). The longest real ones hold about ten; Unicode's
    /// stream-safe text format (UAX #15) allows 30 combining marks in a row.
    public static let maxScalarsPerCharacter = 32

    /// nil when `text` is within the limits; else a message naming `key` and the limit.
    public static func problem(_ text: String, key: String, maxBytes: Int) -> String? {
        let bytes = text.utf8.count
        guard bytes <= maxBytes else {
            return "\"\(key)\" is \(bytes) bytes: a marker's \(key) may be at most \(maxBytes) bytes (UTF-8)"
        }
        // ASCII has one code point per character but for "\r\n": nothing to count.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return nil }
        for (i, c) in text.enumerated() {
            let n = c.unicodeScalars.count
            if n > maxScalarsPerCharacter {
                return "\"\(key)\": character \(i) is one letter with \(n - 1) combining marks (\(n) code points): "
                    + "a character may have at most \(maxScalarsPerCharacter) code points"
            }
        }
        return nil
    }
}
