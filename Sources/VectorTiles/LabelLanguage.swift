import Foundation

/// The language labels are shown in (`[map] language`, the control socket's `set_language`),
/// as Google Maps' label language switch: OpenMapTiles carries `name:xx` for the languages the
/// tiles keep, `name_int` (an international, usually Latin name), `name:latin` and `name`
/// (the local name). With a language, every name a style's `text-field` reads becomes
/// `name:xx`, else `name_int`, else `name:latin`, else `name`; without one the style's own
/// field is drawn unchanged (the local name in the built-in style).
public enum LabelLanguage {
    /// The properties a style reads a feature's name from (OpenMapTiles, tilemaker's config).
    public static let nameKeys: [String] = ["name", "name:latin", "name:nonlatin", "name_en", "name_de", "name_int"]

    /// A language code as `[map] language` takes it: two or three letters, optionally with a
    /// script or region ("ja", "zh-Hant", "pt-BR"); nil for anything else.
    public static func normalized(_ code: String) -> String? {
        let c = code.trimmingCharacters(in: .whitespaces)
        guard !c.isEmpty, c.count <= 12,
              c.allSatisfy({ $0.isASCII && ($0.isLetter || $0 == "-" || $0 == "_") }),
              let first = c.split(separator: "-").first, (2...3).contains(first.count) else { return nil }
        return c
    }

    /// The name a feature shows in `language`: `name:language`, `name_int`, `name:latin`, `name`.
    public static func name(_ properties: [String: VectorTile.Value], language: String) -> VectorTile.Value? {
        for key in ["name:" + language, "name_int", "name:latin", "name"] {
            if let v = properties[key], case let .string(s) = v, !s.isEmpty { return v }
        }
        return nil
    }

    /// The properties with every name key replaced by the name in `language` (nil: unchanged),
    /// so any `text-field` (a template, `get`, `coalesce`) shows that name.
    public static func localized(_ properties: [String: VectorTile.Value], language: String?) -> [String: VectorTile.Value] {
        guard let language, let chosen = name(properties, language: language) else { return properties }
        var out = properties
        for key in nameKeys where key != "name:nonlatin" { out[key] = chosen }
        // The chosen name is the one name shown: a style's "{name:latin}\n{name:nonlatin}" shows it once.
        out["name:nonlatin"] = nil
        return out
    }
}
