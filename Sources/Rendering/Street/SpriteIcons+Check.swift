import VectorTiles

extension SpriteIcons {
    /// What `touchbridge check` says of a style's sprite: the warnings `run` would log when it
    /// loads it (a missing or corrupt local sprite, icons named with no sprite, the built-in
    /// sprite not installed), in the form of the style's own notices; nil when the icons load.
    public static func checkReport(for style: StreetStyle) -> String? {
        let warnings = load(for: style).warnings
        guard !warnings.isEmpty else { return nil }
        return "  sprite: \(warnings.count) problem\(warnings.count == 1 ? "" : "s") (warnings, not errors: the map is drawn without those icons):\n"
            + warnings.map { "    warning: \($0)" }.joined(separator: "\n")
    }
}
