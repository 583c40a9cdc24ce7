/// What text reaches pango, whatever it came from (a marker's title, a GeoJSON description, a
/// tile's name): at most `maxScalars` code points, and no run of combining code points (marks,
/// zero-width joiners, variation selectors) longer than `maxExtendingInARow`. A title of one
/// letter and 80,000 combining accents made one frame take 45 s (issue 31): pango shapes a
/// cluster's marks against each other. Text within the limits passes unchanged; the control
/// socket refuses such text before it gets here (`MarkerLimits`), this holds the rest.
public enum TextBounds {
    public static let maxScalars = 4_096
    /// Unicode's stream-safe format (UAX #15) allows 30 non-starters in a row.
    public static let maxExtendingInARow = 32

    public static func bounded(_ text: String) -> String {
        let utf8 = text.utf8
        if utf8.count <= maxScalars, utf8.allSatisfy({ $0 < 0x80 }) { return text }
        var out = String.UnicodeScalarView()
        var run = 0, kept = 0, changed = false
        for u in text.unicodeScalars {
            guard kept < maxScalars else { changed = true; break }
            let p = u.properties
            if p.isGraphemeExtend || u.value == 0x200D || p.generalCategory == .spacingMark {
                run += 1
                if run > maxExtendingInARow { changed = true; continue }
            } else {
                run = 0
            }
            out.append(u)
            kept += 1
        }
        return changed ? String(out) : text
    }
}
