import Foundation

/// A style's icons: its `sprite` (where the PNG atlas and JSON index are).
extension StreetStyle {
    /// (The icon properties drawn are in `StyleSpec.supported`; the others, such as `icon-rotate`
    /// or `icon-color`, are reported as `StyleNotice`s like any property not drawn.)

    /// The prefix of the built-in POI sprite's reference (`"sprite": "touchbridge:poi"`).
    public static let builtInSpriteScheme = "touchbridge:"

    /// Where a style's sprite is.
    public enum SpriteLocation: Equatable, Sendable {
        /// TouchBridge's own POI sprite (`touchbridge:poi`).
        case builtIn
        /// Local files: `base.json`, `base.png`, `base@2x.json`, `base@2x.png`.
        case local(base: String)
        /// An http(s) or mapbox:// URL: reported, never fetched.
        case remote(String)
    }

    /// The sprite's location: none when the style names none; a relative path is taken from
    /// the style file's folder.
    public var spriteLocation: SpriteLocation? {
        guard let sprite, !sprite.isEmpty else { return nil }
        if sprite.hasPrefix(StreetStyle.builtInSpriteScheme) { return .builtIn }
        let lower = sprite.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("mapbox://") { return .remote(sprite) }
        var path = sprite
        if lower.hasPrefix("file://") { path = String(sprite.dropFirst(7)) }
        if !path.hasPrefix("/") {
            let dir = (file as NSString).deletingLastPathComponent
            path = (dir.isEmpty ? "." : dir) + "/" + path
        }
        return .local(base: (path as NSString).standardizingPath)
    }

    /// The `sprite` value: a string, or (the newer form) an array of `{"id", "url"}` of which
    /// the one with id "default", else the first, is used.
    static func spriteReference(_ j: JSON?, _ p: StyleParser) throws -> String? {
        guard let j, j != .null else { return nil }
        if let s = j.string { return s }
        if let list = j.array {
            let entries = list.compactMap { e -> (String?, String)? in e["url"]?.string.map { (e["id"]?.string, $0) } }
            guard entries.count == list.count else { throw p.fail("sprite", "each entry is {\"id\": ..., \"url\": ...}") }
            return (entries.first { $0.0 == "default" } ?? entries.first)?.1
        }
        throw p.fail("sprite", "a sprite is a URL or path (without .json/.png), or a list of {\"id\", \"url\"}")
    }
}
