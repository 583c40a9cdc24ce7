import Foundation

/// A map style in the MapLibre style format, the subset a kiosk street map needs: background,
/// fill, line, symbol and circle layers, each with its source layer, zoom range, filter, and
/// paint and layout properties (constants, legacy zoom functions or expressions).
public struct StreetStyle: Sendable {
    public enum LayerType: String, Sendable { case background, fill, line, symbol, circle }

    public struct Layer: Sendable {
        public var id: String
        public var type: LayerType
        public var sourceLayer: String?
        public var minZoom: Double
        public var maxZoom: Double
        public var filter: StyleExpression?
        public var visible: Bool
        /// Paint and layout properties by name (e.g. "line-width", "text-field"): those this
        /// renderer draws (`StyleSpec`). The typed properties below are made from them.
        public var properties: [String: StyleExpression] { didSet { typed = Typed(properties) } }
        /// The properties by layer type, as the renderer reads them.
        private(set) var typed: Typed

        public init(id: String, type: LayerType, sourceLayer: String?, minZoom: Double, maxZoom: Double,
                    filter: StyleExpression?, visible: Bool, properties: [String: StyleExpression]) {
            self.id = id; self.type = type; self.sourceLayer = sourceLayer; self.minZoom = minZoom; self.maxZoom = maxZoom
            self.filter = filter; self.visible = visible; self.properties = properties
            self.typed = Typed(properties)
        }

        public func property(_ name: String) -> StyleExpression? { properties[name] }
        public func shows(zoom: Double) -> Bool { visible && zoom >= minZoom && zoom < maxZoom }

        public var background: BackgroundProperties { typed.background }
        public var fill: FillProperties { typed.fill }
        public var line: LineProperties { typed.line }
        public var circle: CircleProperties { typed.circle }
        public var symbol: SymbolProperties { typed.symbol }
    }

    public var name: String?
    public var layers: [Layer]
    /// Attribution the style's sources declare (used when the tile set's metadata has none).
    public var attribution: String?
    /// Where the style came from, for messages.
    public var file: String
    /// What the style asks for that is not drawn (or drawn only in part), once per property
    /// and layer, in the file's order: logged as warnings when the style is loaded, listed by
    /// `touchbridge check`.
    public var notices: [StyleNotice] = []
    /// The style's `sprite` (a URL or path without extension; see StyleSprite.swift).
    public var sprite: String?

    public init(name: String?, layers: [Layer], attribution: String?, file: String) {
        self.name = name; self.layers = layers; self.attribution = attribution; self.file = file
    }

    /// A notice as a log line: the file, the layer and path, and what is not drawn.
    public func message(_ n: StyleNotice) -> String { "style \(file): \(n)" }

    /// The notices as `touchbridge check` lists them under its summary (nil when the style is
    /// drawn in full): a count, then one warning a line.
    public var noticeReport: String? {
        guard !notices.isEmpty else { return nil }
        return "  style: \(notices.count) thing\(notices.count == 1 ? "" : "s") not drawn (warnings, not errors):\n"
            + notices.map { "    warning: \(message($0))" }.joined(separator: "\n")
    }

    /// Parses a style document; errors name `file`, the JSON path and the problem.
    public static func parse(_ data: Data, file: String) throws -> StreetStyle {
        let root: JSON
        do { root = try JSONDecoder().decode(JSON.self, from: data) } catch {
            throw StyleError(file: file, path: "", problem: "not valid JSON (\(StreetStyle.jsonProblem(error)))")
        }
        guard root.object != nil else { throw StyleError(file: file, path: "", problem: "a style is a JSON object with a \"layers\" array") }
        if let v = root["version"], v.number != 8 {
            throw StyleError(file: file, path: "version", problem: "only style version 8 is read")
        }
        guard let layersJSON = root["layers"]?.array else {
            throw StyleError(file: file, path: "layers", problem: "missing: a style needs a \"layers\" array")
        }
        let p = StyleParser(file: file)
        var notices: [StyleNotice] = []
        for key in ["sprite", "glyphs"] {
            var urls: [(String, String)] = []
            if let u = root[key]?.string { urls.append((key, u)) }
            for (i, e) in (root[key]?.array ?? []).enumerated() {
                if let u = e["url"]?.string ?? e.string { urls.append(("\(key)[\(i)]", u)) }
            }
            for (path, url) in urls {
                let remote = url.contains("://") && !url.hasPrefix("file://")
                if key == "glyphs" {
                    notices.append(StyleNotice(layer: nil, property: key, path: path, problem: remote
                        ? "the glyphs at \(url) are remote and not fetched: labels are drawn with the system's fonts (pango)"
                        : "glyphs \(url) are not used: labels are drawn with the system's fonts (pango)"))
                } else if remote {
                    notices.append(StyleNotice(layer: nil, property: key, path: path,
                                               problem: "the sprite at \(url) is remote and not fetched (a kiosk reads local files only): its icons are not drawn. "
                                                   + "Download its .json and .png (and @2x ones) beside the style and set \"sprite\" to their path without the extension"))
                }
            }
        }
        var layers: [Layer] = []
        var ids = Set<String>()
        for (i, lj) in layersJSON.enumerated() {
            let path = "layers[\(i)]"
            guard lj.object != nil else { throw p.fail(path, "a layer is an object") }
            guard let id = lj["id"]?.string else { throw p.fail("\(path).id", "missing: every layer needs an id") }
            guard ids.insert(id).inserted else { throw p.fail("\(path).id", "the id '\(id)' is used twice") }
            guard let t = lj["type"]?.string else { throw p.fail("\(path).type", "missing") }
            guard let type = LayerType(rawValue: t) else {
                // Other layer types (raster, hillshade, fill-extrusion, heatmap) are not drawn.
                if StyleSpec.undrawnLayerTypes.contains(t) {
                    notices.append(StyleNotice(layer: id, property: "type", path: "\(path).type",
                                               problem: "a \(t) layer is not drawn (drawn: background, fill, line, symbol, circle)"))
                    continue
                }
                throw p.fail("\(path).type", "'\(t)' is not a layer type (background, fill, line, symbol, circle)")
            }
            if type != .background, lj["source-layer"]?.string == nil {
                throw p.fail("\(path).source-layer", "missing: a \(t) layer names the tile layer it draws (e.g. \"transportation\")")
            }
            var props: [String: StyleExpression] = [:]
            var visible = true
            for group in ["paint", "layout"] {
                guard let g = lj[group] else { continue }
                guard let obj = g.object else { throw p.fail("\(path).\(group)", "must be an object") }
                for (name, v) in obj.sorted(by: { $0.key < $1.key }) {
                    let ppath = "\(path).\(group).\(name)"
                    if name == "visibility" { visible = v.string != "none"; continue }
                    guard let spec = StyleSpec.property(name, of: type) else {
                        // Beyond the subset: reported, not drawn.
                        notices.append(StyleNotice(layer: id, property: name, path: ppath, problem: StreetStyle.notDrawn(name, type)))
                        continue
                    }
                    if name == "text-font", let fonts = v.array, fonts.allSatisfy({ $0.string != nil }) {
                        props[name] = .literal(.array(fonts.compactMap(\.string).map(StyleValue.string)))   // a font stack, not an expression
                        continue
                    }
                    let approximated = p.notes.items.count
                    let parsed = name == "text-field" || name == "icon-image" ? try p.textField(v, ppath) : try p.value(v, ppath, color: spec.color)
                    let (bounded, problem) = StyleLimits.bound(name, parsed)
                    if let problem { throw p.fail(ppath, problem) }
                    props[name] = bounded
                    if p.notes.items.count > approximated {
                        // Drawn in part: the first thing left out, once for the property.
                        let n = p.notes.items[approximated]
                        notices.append(StyleNotice(layer: id, property: name, path: n.path, problem: n.problem))
                    }
                }
            }
            layers.append(Layer(id: id, type: type, sourceLayer: lj["source-layer"]?.string,
                                minZoom: lj["minzoom"]?.number ?? 0, maxZoom: lj["maxzoom"]?.number ?? 24,
                                filter: try lj["filter"].map { try p.filter($0, "\(path).filter") },
                                visible: visible, properties: props))
        }
        var attribution: [String] = []
        for (_, s) in (root["sources"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) {
            if let a = s["attribution"]?.string { attribution.append(a) }
        }
        var style = StreetStyle(name: root["name"]?.string, layers: layers,
                                attribution: attribution.isEmpty ? nil : attribution.joined(separator: " "), file: file)
        style.notices = notices
        style.sprite = try spriteReference(root["sprite"], p)
        return style
    }

    /// Why a property is not drawn.
    static func notDrawn(_ name: String, _ type: LayerType) -> String {
        let owner = StyleSpec.supported.first { $0.value.contains { $0.name == name } }?.key
        if let owner, owner != type {
            return "\(name) belongs to \(owner.rawValue) layers: not drawn in a \(type.rawValue) layer"
        }
        return "\(name) is not drawn (beyond the subset docs/street-map.md lists for \(type.rawValue) layers)"
    }

    /// The largest style file read (docs/limits.md): 4 MiB, forty times OpenMapTiles' own styles.
    public static let maxFileBytes = 4 << 20

    public static func load(path: String) throws -> StreetStyle {
        // Size first (docs/limits.md): a style is read whole only when it is at most maxFileBytes.
        var st = stat()
        if stat(path, &st) == 0 {
            guard (st.st_mode & S_IFMT) == S_IFREG else { throw StyleError(file: path, path: "", problem: "not a regular file (a folder, a FIFO or a device)") }
            guard Int(st.st_size) <= maxFileBytes else {
                throw StyleError(file: path, path: "", problem: "\(st.st_size) bytes: a style file may be at most \(maxFileBytes >> 20) MiB")
            }
        }
        guard let h = FileHandle(forReadingAtPath: path) else {
            throw StyleError(file: path, path: "", problem: FileManager.default.fileExists(atPath: path) ? "cannot be read (permission denied)" : "no such file")
        }
        defer { try? h.close() }
        guard let d = try? h.read(upToCount: maxFileBytes + 1) ?? Data() else { throw StyleError(file: path, path: "", problem: "cannot be read") }
        guard d.count <= maxFileBytes else { throw StyleError(file: path, path: "", problem: "grew beyond \(maxFileBytes >> 20) MiB while it was read") }
        return try parse(d, file: path)
    }

    /// The built-in style for OpenMapTiles-schema tiles (tested to parse; empty if the resource is missing).
    public static func standard() -> StreetStyle {
        (try? loadStandard()) ?? StreetStyle(name: nil, layers: [], attribution: nil, file: "street-style.json (built in)")
    }

    static func loadStandard() throws -> StreetStyle {
        let file = "street-style.json (built in)"
        guard let url = Bundle.module.url(forResource: "street-style", withExtension: "json", subdirectory: "Resources"),
              let d = try? Data(contentsOf: url) else {
            throw StyleError(file: file, path: "", problem: "the resource is missing from the build")
        }
        return try parse(d, file: file)
    }

    static func jsonProblem(_ error: Error) -> String {
        if case let DecodingError.dataCorrupted(ctx) = error {
            return (ctx.underlyingError.map { "\($0)" } ?? ctx.debugDescription)
        }
        return "\(error)"
    }
}
