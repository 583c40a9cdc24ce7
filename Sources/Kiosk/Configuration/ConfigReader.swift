import Foundation
import TileSources
import TOMLKit
import Gestures
import MapEngine
import Display
import TouchDevices
import VectorTiles
import Rendering
import TouchBridge

/// Where a key of the file is: a light index over the text (TOMLKit parses the values but does
/// not keep positions), so that every error can name its line.
struct TOMLLineIndex {
    /// "section.key" for plain tables, "section[2].key" for the third [[section]].
    private(set) var lines: [String: Int] = [:]

    init(text: String) {
        var section = ""
        var arrayCounts: [String: Int] = [:]
        // TOML's line ends are LF and CR LF; Swift reads "\r\n" as one Character, not "\n".
        for (i, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = TOMLLineIndex.stripComment(String(raw)).trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[[") {
                let name = line.dropFirst(2).prefix { $0 != "]" }.trimmingCharacters(in: .whitespaces)
                let n = arrayCounts[name, default: -1] + 1
                arrayCounts[name] = n
                section = "\(name)[\(n)]"
                lines[section] = i + 1
            } else if line.hasPrefix("[") {
                section = line.dropFirst().prefix { $0 != "]" }.trimmingCharacters(in: .whitespaces)
                lines[section] = lines[section] ?? i + 1
            } else if let eq = line.firstIndex(of: "=") {
                var key = line[..<eq].trimmingCharacters(in: .whitespaces)
                if key.hasPrefix("\""), key.hasSuffix("\""), key.count >= 2 { key = String(key.dropFirst().dropLast()) }
                let path = section.isEmpty ? key : "\(section).\(key)"
                lines[path] = lines[path] ?? i + 1
            }
        }
    }

    static func stripComment(_ s: String) -> String {
        var inString = false
        var quote: Character = "\""
        var out = ""
        for c in s {
            if inString {
                if c == quote { inString = false }
            } else if c == "\"" || c == "'" {
                inString = true; quote = c
            } else if c == "#" {
                break
            }
            out.append(c)
        }
        return out
    }

    func line(for path: String) -> Int? { lines[path] }
}

/// Reading the kiosk's TOML file into the SDK's `KioskConfiguration` (the kiosk's room: an app
/// that embeds `MapView` sets the configuration in code).
extension KioskConfiguration {
    /// Reads and checks a configuration file. Throws `ConfigError` naming file, line and key
    /// (and every other error of the file in its `others`). With `checkFiles`, what the file
    /// names must be usable on this machine too: the tiles file and style open, the socket's,
    /// the event stream's and the PNG frames' folders writable (`ConfigReader.fileChecks`),
    /// so that `check` refuses what `run` would.
    /// `adjust` changes the configuration before its files are checked (command-line overrides).
    /// The largest configuration file read (docs/limits.md): 8 MiB, hundreds of times a real
    /// kiosk's; read whole only after its size is checked.
    public static let maxFileBytes = 8 << 20

    public static func load(path: String, checkFiles: Bool = true, adjust: ((inout KioskConfiguration) -> Void)? = nil) throws -> KioskConfiguration {
        let data: Data
        do { data = try BoundedFile.read(path, maxBytes: maxFileBytes, what: "configuration file") } catch let e as BoundedFile.ReadError {
            throw ConfigError(file: path, line: nil, key: nil, message: e.kind == .unreadable
                              ? "cannot read the file (does it exist, and may this user read it?)" : e.message)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigError(file: path, line: nil, key: nil, message: "the file is not UTF-8 text")
        }
        return try parse(text: text, file: path, checkFiles: checkFiles, adjust: adjust)
    }

    public static func parse(text: String, file: String, checkFiles: Bool = false,
                             adjust: ((inout KioskConfiguration) -> Void)? = nil) throws -> KioskConfiguration {
        let table: TOMLTable
        try TOMLGuard.check(text, file: file)
        do {
            table = try TOMLTable(string: text)
        } catch let e as TOMLParseError {
            throw ConfigError(file: file, line: e.source.begin.line, key: nil, message: "TOML syntax error: \(e.description)")
        }
        var reader = ConfigReader(file: file, index: TOMLLineIndex(text: text))
        reader.checksFiles = checkFiles
        reader.adjust = adjust
        return try reader.read(table)
    }
}

/// Collects a file's errors; thrown together, first by line.
final class ConfigErrorSink {
    private(set) var errors: [ConfigError] = []
    func add(_ e: ConfigError) {
        for one in e.all where !errors.contains(one) { errors.append(one) }
    }
    func throwIfAny() throws {
        guard !errors.isEmpty else { return }
        let sorted = errors.enumerated().sorted { a, b in
            (a.element.line ?? .max, a.offset) < (b.element.line ?? .max, b.offset)
        }.map(\.element)
        var first = sorted[0]
        first.others = Array(sorted.dropFirst())
        throw first
    }
}

/// Walks the parsed table against `ConfigSchema` and fills a `KioskConfiguration`.
struct ConfigReader {
    let file: String
    let index: TOMLLineIndex
    /// Also check what the file names on this machine: tiles, style, folders (`fileChecks`).
    var checksFiles = false
    /// Applied before `fileChecks` (command-line overrides).
    var adjust: ((inout KioskConfiguration) -> Void)? = nil
    /// Every error found, in the order found (`read` throws them together).
    let sink = ConfigErrorSink()

    func error(_ path: String, _ message: String) -> ConfigError {
        ConfigError(file: file, line: index.line(for: path), key: path.replacingOccurrences(of: #"\[\d+\]"#, with: "", options: .regularExpression), message: message)
    }

    mutating func read(_ root: TOMLTable) throws -> KioskConfiguration {
        var cfg = KioskConfiguration()
        for (name, value) in root {
            guard ConfigSchema.sections.contains(name) else {
                var msg = "unknown section"
                if let s = suggestion(for: name, among: ConfigSchema.sections) { msg += " (did you mean '\(s)'?)" }
                sink.add(ConfigError(file: file, line: index.line(for: name) ?? index.line(for: "\(name)[0]"), key: name, message: msg))
                continue
            }
            if ConfigSchema.arraySections.contains(name) {
                guard let arr = value.array else {
                    sink.add(ConfigError(file: file, line: index.line(for: name), key: name, message: "write this section as [[\(name)]] (one per entry)"))
                    continue
                }
                for i in 0..<arr.count {
                    guard let t = arr[i].table else {
                        sink.add(ConfigError(file: file, line: index.line(for: name), key: name, message: "each entry must be a table [[\(name)]]"))
                        continue
                    }
                    let prefix = "\(name)[\(i)]"
                    let values = checked(t, section: name, prefix: prefix)
                    if name == "touch" {
                        if let t = collecting(values, { try touch($0, prefix: prefix) }) { cfg.touch.append(t) }
                    } else if name == "overlays" {
                        guard let o = collecting(values, { try overlay($0, prefix: prefix) }) else { continue }
                        if cfg.overlays.contains(where: { $0.id == o.id }) {
                            sink.add(error("\(prefix).id", "the id '\(o.id)' is used by an earlier [[overlays]] table: give each overlay its own id"))
                            continue
                        }
                        cfg.overlays.append(o)
                    } else {
                        // The socket refuses a marker past the limit; the file may not bring more either.
                        if i == MarkerLimits.maxMarkers {
                            sink.add(error(prefix, "\(arr.count) [[markers]] tables: a kiosk holds at most \(MarkerLimits.maxMarkers) markers (MarkerLimits.maxMarkers, docs/limits.md); the rest are not read"))
                        }
                        if i >= MarkerLimits.maxMarkers { break }
                        if let m = collecting(values, { try marker($0, prefix: prefix, index: i) }) { cfg.markers.append(m) }
                    }
                }
            } else {
                guard let t = value.table else {
                    sink.add(ConfigError(file: file, line: index.line(for: name), key: name, message: "must be a table: write [\(name)] on a line of its own"))
                    continue
                }
                let values = checked(t, section: name, prefix: name)
                switch name {
                case "display":
                    if let d = collecting(values, { try display($0, prefix: name) }) { cfg.display = d }
                    let ops = cfg.operations
                    if let o = collecting(values, { v -> KioskConfiguration.OperationsSettings in
                        var o = ops; try displayOperations(v, prefix: name, into: &o); return o }) { cfg.operations = o }
                case "kiosk", "metrics":
                    let ops = cfg.operations
                    if let o = collecting(values, { v -> KioskConfiguration.OperationsSettings in
                        var o = ops
                        if name == "kiosk" { try kiosk(v, prefix: name, into: &o) } else { try metrics(v, prefix: name, into: &o) }
                        return o
                    }) { cfg.operations = o }
                case "gestures": if let g = collecting(values, { try gestures($0, prefix: name) }) { cfg.gestures = g }
                case "map": if let m = collecting(values, { try map($0, prefix: name) }) { cfg.map = m }
                case "camera": if let c = collecting(values, { try camera($0, prefix: name) }) { cfg.camera = c }
                case "log": if let l = collecting(values, { try log($0, prefix: name) }) { cfg.log = l }
                case "control": if let c = collecting(values, { try control($0, prefix: name) }) { cfg.control = c }
                case "route": if let r = collecting(values, { try route($0, prefix: name) }) { cfg.route = r }
                case "position": if let p = collecting(values, { try position($0, prefix: name) }) { cfg.position = p }
                default: break
                }
            }
        }
        if cfg.map.minZoom > cfg.map.maxZoom {
            sink.add(error("map.min_zoom", "min_zoom (\(cfg.map.minZoom)) is above max_zoom (\(cfg.map.maxZoom)): lower min_zoom or raise max_zoom"))
        }
        crossChecks(cfg)
        adjust?(&cfg)
        if checksFiles { fileChecks(cfg) }
        try sink.throwIfAny()
        return cfg
    }

    /// Runs a section reader; each error it throws is recorded, the key it names is taken out
    /// and the reader runs again, so every bad key of the table is reported, not only the
    /// first. An error about the table as a whole, or about a key already taken out (a
    /// consequence of the first), ends it. The section read without its bad keys is returned,
    /// so that the checks after it (bounds, the files the section names) still run and report
    /// their errors too; the file is refused anyway (the sink holds the errors).
    func collecting<T>(_ values: [String: ConfigValue], _ body: ([String: ConfigValue]) throws -> T) -> T? {
        var v = values
        var first = true
        for _ in 0...values.count {
            do {
                return try body(v)
            } catch let e as ConfigError {
                let name = e.key.flatMap { $0.split(separator: ".").last.map(String.init) }
                let named = name.flatMap { v[$0] != nil ? $0 : nil }
                if first || named != nil { sink.add(e) }
                first = false
                guard let named else { return nil }
                v[named] = nil
            } catch {
                sink.add(ConfigError(file: file, line: nil, key: nil, message: "\(error)"))
                return nil
            }
        }
        return nil
    }

    /// A section's values, type-checked against the schema; unknown keys are errors.
    func checked(_ t: TOMLTable, section: String, prefix: String) -> [String: ConfigValue] {
        var out: [String: ConfigValue] = [:]
        for (k, v) in t {
            do {
                if let value = try checkedValue(k, v, section: section, prefix: prefix) { out[k] = value }
            } catch let e as ConfigError { sink.add(e) } catch { sink.add(ConfigError(file: file, line: nil, key: nil, message: "\(error)")) }
        }
        return out
    }

    /// One value, type-checked against the schema (nil: nothing to keep).
    func checkedValue(_ k: String, _ v: TOMLValueConvertible, section: String, prefix: String) throws -> ConfigValue? {
        let known = ConfigSchema.keys.filter { $0.section == section }
        do {
            let path = "\(prefix).\(k)"
            guard let schema = known.first(where: { $0.name == k }) else {
                var msg = "unknown key in [\(section)]"
                if let s = suggestion(for: k, among: known.map(\.name)) { msg += " (did you mean '\(s)'?)" }
                throw error(path, msg)
            }
            switch schema.type {
            case .string:
                guard let s = v.string else { throw error(path, "expected a string in quotes, got \(describe(v))") }
                return .string(s)
            case .integer:
                guard let i = v.int else { throw error(path, "expected a whole number, got \(describe(v))") }
                return .integer(i)
            case .number:
                if let d = v.double { return .number(d) }
                else if let i = v.int { return .number(Double(i)) }
                else { throw error(path, "expected a number, got \(describe(v))") }
            case .boolean:
                guard let b = v.bool else { throw error(path, "expected true or false, got \(describe(v))") }
                return .boolean(b)
            case .stringArray:
                guard let a = v.array else { throw error(path, "expected an array of strings like [\"a\", \"b\"], got \(describe(v))") }
                var strings: [String] = []
                for i in 0..<a.count {
                    guard let s = a[i].string else { throw error(path, "element \(i + 1) is not a string") }
                    strings.append(s)
                }
                return .strings(strings)
            case .pointArray:
                guard let a = v.array else { throw error(path, "expected [[longitude, latitude], ...], got \(describe(v))") }
                var points: [Coordinate] = []
                for i in 0..<a.count {
                    guard let pair = a[i].array, pair.count == 2,
                          let lon = pair[0].double ?? pair[0].int.map(Double.init), let lat = pair[1].double ?? pair[1].int.map(Double.init) else {
                        throw error(path, "element \(i + 1) is not a [longitude, latitude] pair of numbers")
                    }
                    guard (-180...180).contains(lon), (-90...90).contains(lat) else {
                        throw error(path, "element \(i + 1) [\(lon), \(lat)] is not [longitude, latitude] in degrees (longitude -180...180, latitude -90...90)")
                    }
                    points.append(Coordinate(latitude: lat, longitude: lon))
                }
                return .points(points)
            case .numberArray, .numberArrayOrString:
                if schema.type == .numberArrayOrString, let text = v.string {
                    // udev's LIBINPUT_CALIBRATION_MATRIX string, pasted as is: "0 -1 1 1 0 0".
                    let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
                    let nums = words.compactMap { Double($0) }
                    guard nums.count == words.count else {
                        throw error(path, "'\(text)' is not a list of numbers: write \"a b c d e f\" or [a, b, c, d, e, f]")
                    }
                    return .numbers(nums)
                }
                guard let a = v.array else { throw error(path, "expected an array of numbers like [1.0, 2.0], got \(describe(v))") }
                var nums: [Double] = []
                for i in 0..<a.count {
                    if let d = a[i].double { nums.append(d) }
                    else if let n = a[i].int { nums.append(Double(n)) }
                    else { throw error(path, "element \(i + 1) is not a number") }
                }
                return .numbers(nums)
            }
        }
    }

    func describe(_ v: TOMLValueConvertible) -> String {
        switch v.type {
        case .string: return "a string"
        case .int: return "a whole number"
        case .double: return "a number"
        case .bool: return "a boolean"
        case .array: return "an array"
        case .table: return "a table"
        default: return "a \(v.type)"
        }
    }

    func display(_ v: [String: ConfigValue], prefix: String) throws -> KioskConfiguration.DisplaySettings {
        var d = KioskConfiguration.DisplaySettings()
        if let s = v["backend"]?.string {
            guard let b = KioskConfiguration.DisplayBackendKind(rawValue: s) else {
                throw error("\(prefix).backend", "'\(s)' is not a backend: use drm, fbdev or png")
            }
            d.backend = b
        }
        if let s = v["card"]?.string, s != "auto" { d.card = s }
        if let s = v["connector"]?.string, s != "auto" { d.connector = s }
        if let s = v["mode"]?.string {
            do { d.mode = try ConfigStrings.mode(s) } catch { throw self.error("\(prefix).mode", "\(error)") }
        }
        if let r = v["rotation"]?.integer { d.rotation = try rotation(r, "\(prefix).rotation"); d.rotationIsExplicit = true }
        if let s = v["fbdev"]?.string { d.fbdev = s }
        if let s = v["png_dir"]?.string { d.pngDirectory = s }
        if let s = v["size"]?.string {
            do { d.pngSize = try ConfigStrings.size(s) } catch { throw self.error("\(prefix).size", "\(error)") }
        }
        if let f = v["max_fps"]?.integer {
            guard (1...1000).contains(f) else { throw error("\(prefix).max_fps", "must be between 1 and 1000, got \(f)") }
            d.maxFPS = f
        }
        if let a = v["physical_size_mm"]?.numbers {
            guard a.count == 2, a[0] > 0, a[1] > 0 else { throw error("\(prefix).physical_size_mm", "write two positive numbers: [width, height]") }
            d.physicalSizeMM = (a[0], a[1])
        }
        return d
    }

    func rotation(_ r: Int, _ path: String) throws -> Int {
        guard [0, 90, 180, 270].contains(r) else { throw error(path, "must be 0, 90, 180 or 270, got \(r)") }
        return r
    }

    func touch(_ v: [String: ConfigValue], prefix: String) throws -> KioskConfiguration.TouchSettings {
        var t = KioskConfiguration.TouchSettings()
        if let s = v["match"]?.string {
            do { t.match = try ConfigStrings.deviceMatch(s) } catch { throw self.error("\(prefix).match", "\(error)") }
        }
        if let c = v["calibration"]?.numbers {
            guard c.count == 6, c.allSatisfy(\.isFinite) else { throw error("\(prefix).calibration", "needs exactly six numbers (a b c d e f), got \(c.count)") }
            t.calibration = c
        }
        if let r = v["rotation"]?.integer { t.rotation = try rotation(r, "\(prefix).rotation") }
        if let s = v["mirror"]?.string {
            guard let m = KioskConfiguration.Mirror(rawValue: s) else { throw error("\(prefix).mirror", "'\(s)' is not none, horizontal or vertical") }
            t.mirror = m
        }
        if let b = v["smoothing"]?.boolean { t.smoothing = b }
        if let b = v["grab"]?.boolean { t.grab = b }
        if let b = v["pens"]?.boolean { t.pens = b }
        if let b = v["prediction"]?.boolean { t.prediction = b }
        if let d = v["prediction_latency_ms"]?.number {
            guard d.isFinite, d >= 0, d <= 100 else {
                throw error("\(prefix).prediction_latency_ms", "\(d) is not a time from 0 to 100 ms (0 learns it from the display)")
            }
            t.predictionLatencyMS = d > 0 ? d : nil
        }
        return t
    }

    func gestures(_ v: [String: ConfigValue], prefix: String) throws -> KioskConfiguration.GestureSettings {
        var g = KioskConfiguration.GestureSettings()
        if let names = v["enabled"]?.strings {
            var mask: GestureMask = []
            for n in names {
                if n == "all" { mask = .all; continue }
                guard let m = GestureMask.names.first(where: { $0.0 == n })?.1 else {
                    var msg = "'\(n)' is not a gesture"
                    if let s = suggestion(for: n, among: GestureMask.names.map(\.0)) { msg += " (did you mean '\(s)'?)" }
                    throw error("\(prefix).enabled", msg)
                }
                mask.insert(m)
            }
            g.enabled = mask
        }
        if let s = v["two_finger_horizontal"]?.string {
            guard let m = TwoFingerHorizontalMode(rawValue: s) else {
                throw error("\(prefix).two_finger_horizontal", "'\(s)' is not rotate or pan")
            }
            g.twoFingerHorizontal = m
        }
        for key in GestureThresholds.table {
            let present = ([key.name] + (key.fileAlias.map { [$0] } ?? [])).filter { v[$0] != nil }
            if present.count > 1 {
                throw error("\(prefix).\(key.name)", "set either \(key.name) or \(present[1]) (the same threshold), not both")
            }
            for k in present {
                guard let d = v[k]?.number else { continue }
                guard d.isFinite, d > 0 else { throw error("\(prefix).\(k)", "must be a positive number, got \(d)") }
                g.thresholds[keyPath: key.keyPath] = d
            }
        }
        if let d = v["momentum_stop_speed_mm_s"]?.number {
            guard d.isFinite, d > 0 else { throw error("\(prefix).momentum_stop_speed_mm_s", "must be a positive number, got \(d)") }
            g.momentumStopSpeed = d
        }
        if let d = v["momentum_max_speed_mm_s"]?.number {
            guard d.isFinite, d > g.momentumStopSpeed else {
                throw error("\(prefix).momentum_max_speed_mm_s", "must be above the stop speed (\(g.momentumStopSpeed) mm/s), got \(d)")
            }
            g.momentumMaxSpeed = d
        }
        if let d = v["pixels_per_mm"]?.number {
            guard d > 0 else { throw error("\(prefix).pixels_per_mm", "must be positive") }
            g.pixelsPerMM = d
        }
        return g
    }

    func map(_ v: [String: ConfigValue], prefix: String) throws -> KioskConfiguration.MapSettings {
        var m = KioskConfiguration.MapSettings()
        let source = v["source"]?.string ?? (v["tiles"] != nil ? "tiles" : v["mbtiles"] != nil ? "mbtiles" : "builtin")
        switch source {
        case "builtin": m.source = .builtin
        case "tiles":
            guard let p = (v["tiles"] ?? v["mbtiles"])?.string, !p.isEmpty else {
                throw error("\(prefix).source", "source = \"tiles\" needs the key tiles = \"/path/to/map.mbtiles\" (MBTiles or PMTiles)")
            }
            m.source = .mbtiles(p)
        case "mbtiles":
            guard let p = v["mbtiles"]?.string, !p.isEmpty else {
                throw error("\(prefix).source", "source = \"mbtiles\" needs the key mbtiles = \"/path/to/map.mbtiles\"")
            }
            m.source = .mbtiles(p)
        default:
            throw error("\(prefix).source", "'\(source)' is not a map source: use \"builtin\" or \"tiles\"")
        }
        if let st = v["style"]?.string { m.style = st.isEmpty ? nil : st }
        if let b = v["cluster_markers"]?.boolean { m.clusterMarkers = b }
        if let l = v["language"]?.string {
            if l.isEmpty { m.language = nil } else {
                guard let code = LabelLanguage.normalized(l) else {
                    throw error("\(prefix).language", "must be a language code such as \"ja\", \"ar\" or \"zh-Hant\" (the tiles' name:xx), got '\(l)'")
                }
                m.language = code
            }
        }
        if let d = v["text_scale"]?.number {
            guard d.isFinite, (0.5...3).contains(d) else {
                throw error("\(prefix).text_scale", "must be within 0.5...3 (1 = normal size; 1.5 for a panel seen from afar or HiDPI), got \(d)")
            }
            m.textScale = d
        }
        var cam = m.camera
        if let d = v["latitude"]?.number {
            guard (-90...90).contains(d) else { throw error("\(prefix).latitude", "must be within -90...90, got \(d)") }
            cam.target.latitude = d
        }
        if let d = v["longitude"]?.number {
            guard (-180...180).contains(d) else { throw error("\(prefix).longitude", "must be within -180...180, got \(d)") }
            cam.target.longitude = d
        }
        if let d = v["zoom"]?.number {
            guard (0...24).contains(d) else { throw error("\(prefix).zoom", "must be within 0...24, got \(d)") }
            cam.zoom = d
        }
        if let d = v["bearing"]?.number { cam.bearing = CameraPosition.normalizedBearing(d) }
        if let d = v["tilt"]?.number {
            guard (0...75).contains(d) else { throw error("\(prefix).tilt", "must be within 0...75, got \(d)") }
            cam.tilt = d
        }
        m.camera = cam
        if let d = v["min_zoom"]?.number {
            guard (0...24).contains(d) else { throw error("\(prefix).min_zoom", "must be within 0...24, got \(d)") }
            m.minZoom = d
        }
        if let d = v["max_zoom"]?.number {
            guard (0...24).contains(d) else { throw error("\(prefix).max_zoom", "must be within 0...24, got \(d)") }
            m.maxZoom = d
        }
        if let b = v["bounds"]?.numbers {
            let maxLat = WebMercator.maxLatitude
            guard b.count == 4, b.allSatisfy(\.isFinite) else {
                throw error("\(prefix).bounds", "write four numbers [west, south, east, north] in degrees, got \(b.count)")
            }
            guard (-180...180).contains(b[0]), (-180...180).contains(b[2]) else {
                throw error("\(prefix).bounds", "west and east are longitudes, within -180...180, got \(b[0]) and \(b[2]): write [west, south, east, north]")
            }
            guard (-maxLat...maxLat).contains(b[1]), (-maxLat...maxLat).contains(b[3]) else {
                throw error("\(prefix).bounds", String(format: "south and north are latitudes, within -%.2f...%.2f (the map's Web Mercator edge), got %@ and %@: write [west, south, east, north]", maxLat, maxLat, "\(b[1])", "\(b[3])"))
            }
            guard b[1] < b[3] else {
                throw error("\(prefix).bounds", "south (\(b[1])) must be below north (\(b[3])): write [west, south, east, north], e.g. [\(b[0]), \(min(b[1], b[3])), \(b[2]), \(max(b[1], b[3]))]")
            }
            guard b[0] < b[2] else {
                if b[0] > 0 && b[2] < 0 {
                    throw error("\(prefix).bounds", "west (\(b[0])) is east of east (\(b[2])): a box across the antimeridian (180 degrees) is not supported; keep the box on one side of it")
                }
                throw error("\(prefix).bounds", "west (\(b[0])) must be below east (\(b[2])): write [west, south, east, north], e.g. [\(min(b[0], b[2])), \(b[1]), \(max(b[0], b[2])), \(b[3])]")
            }
            m.bounds = CoordinateBounds(west: b[0], south: b[1], east: b[2], north: b[3])
        }
        return m
    }

    func marker(_ v: [String: ConfigValue], prefix: String, index: Int) throws -> KioskConfiguration.MarkerSettings {
        guard let lat = v["latitude"]?.number else { throw error(prefix, "a marker needs latitude and longitude") }
        guard let lon = v["longitude"]?.number else { throw error(prefix, "a marker needs latitude and longitude") }
        var m = KioskConfiguration.MarkerSettings(id: v["id"]?.string ?? "marker\(index + 1)",
                                                  coordinate: Coordinate(latitude: lat, longitude: lon))
        m.title = v["title"]?.string
        m.snippet = v["snippet"]?.string
        // The same bounds as a marker added over the socket (docs/limits.md).
        if let t = m.title, let problem = MarkerLimits.problem(t, key: "title", maxBytes: MarkerLimits.maxTitleBytes) { throw error("\(prefix).title", problem) }
        if let t = m.snippet, let problem = MarkerLimits.problem(t, key: "snippet", maxBytes: MarkerLimits.maxSnippetBytes) { throw error("\(prefix).snippet", problem) }
        m.zIndex = v["z_index"]?.integer ?? 0
        if let path = v["icon"]?.string {
            // A relative path is relative to the configuration file's folder.
            let full = path.hasPrefix("/") ? path : ((file as NSString).deletingLastPathComponent as NSString).appendingPathComponent(path)
            switch MarkerLook.icon(path: full) {
            case .success(let icon): m.icon = icon
            case .failure(let e): throw error("\(prefix).icon", e.message)
            }
        }
        if let c = v["color"]?.string {
            guard let rgb = MarkerLook.color(c) else { throw error("\(prefix).color", "'\(c)' is not a colour: write \"#RRGGBB\" in hex") }
            m.color = rgb
        }
        // The ranges last: an error here takes the key out, and the marker then lacks it.
        guard (-90...90).contains(lat) else { throw error("\(prefix).latitude", "must be within -90...90, got \(lat)") }
        guard (-180...180).contains(lon) else { throw error("\(prefix).longitude", "must be within -180...180, got \(lon)") }
        return m
    }

    func camera(_ v: [String: ConfigValue], prefix: String) throws -> KioskConfiguration.CameraSettings {
        var c = KioskConfiguration.CameraSettings()
        if let s = v["mode"]?.string {
            guard let m = CameraMode(rawValue: s) else { throw error("\(prefix).mode", "'\(s)' is not free, following or overview") }
            c.mode = m
        }
        if let s = v["position_source"]?.string {
            guard let p = KioskConfiguration.PositionSourceName(rawValue: s) else { throw error("\(prefix).position_source", "'\(s)' is not fixed or track") }
            c.positionSource = p
        }
        if let a = v["position"]?.numbers {
            guard a.count == 2, (-90...90).contains(a[0]), (-180...180).contains(a[1]) else {
                throw error("\(prefix).position", "write [latitude, longitude] in degrees")
            }
            c.position = Coordinate(latitude: a[0], longitude: a[1])
        }
        if let d = v["heading"]?.number { c.heading = CameraPosition.normalizedBearing(d) }
        if let d = v["auto_return_s"]?.number {
            guard d >= 0 else { throw error("\(prefix).auto_return_s", "must be 0 (off) or more, got \(d)") }
            c.autoReturnSeconds = d
        }
        if let d = v["home_after_s"]?.number {
            guard d >= 0, d.isFinite else { throw error("\(prefix).home_after_s", "must be 0 (off) or more, got \(d)") }
            c.homeAfterSeconds = d
        }
        if let d = v["following_zoom"]?.number {
            guard d.isFinite, (0...24).contains(d) else { throw error("\(prefix).following_zoom", "must be within 0...24, got \(d)") }
            c.followingZoom = d
        }
        if let d = v["following_tilt"]?.number {
            guard d.isFinite, (0...60).contains(d) else { throw error("\(prefix).following_tilt", "must be within 0...60 degrees, got \(d)") }
            c.followingTilt = d
        }
        if c.mode == .following && c.positionSource == .fixed && c.position == nil {
            throw error("\(prefix).mode", "following needs a position: set position = [latitude, longitude] or position_source = \"track\"")
        }
        return c
    }

    func control(_ v: [String: ConfigValue], prefix: String) throws -> KioskConfiguration.ControlSettings {
        var c = KioskConfiguration.ControlSettings()
        if let s = v["socket"]?.string {
            guard s.isEmpty || s.hasPrefix("/") else {
                throw error("\(prefix).socket", "'\(s)' is not an absolute path: write e.g. \"/run/touchbridge/control.sock\", or \"\" to turn the socket off")
            }
            guard s.utf8.count < 108 else { throw error("\(prefix).socket", "the path is longer than a Unix socket path may be (107 bytes)") }
            c.socket = s
        }
        for key in ["screenshot_dir", "files_dir"] {
            guard let d = v[key]?.string else { continue }
            guard d.isEmpty || d.hasPrefix("/") else {
                throw error("\(prefix).\(key)", "'\(d)' is not an absolute path: write the folder clients' paths must lie in, e.g. \"/run/touchbridge\", or \"\" to refuse paths from clients")
            }
            if key == "files_dir" { c.filesDir = d } else { c.screenshotDir = d }
        }
        return c
    }

    func log(_ v: [String: ConfigValue], prefix: String) throws -> KioskConfiguration.LogSettings {
        var l = KioskConfiguration.LogSettings()
        if let s = v["events"]?.string { l.events = s }
        if let s = v["level"]?.string {
            guard ["error", "warning", "info", "debug"].contains(s) else { throw error("\(prefix).level", "'\(s)' is not error, warning, info or debug") }
            l.level = s
        }
        return l
    }
}

enum ConfigValue {
    case string(String), integer(Int), number(Double), boolean(Bool), strings([String]), numbers([Double]), points([Coordinate])
    var points: [Coordinate]? { if case .points(let p) = self { return p }; return nil }
    var string: String? { if case .string(let s) = self { return s }; return nil }
    var integer: Int? { if case .integer(let i) = self { return i }; return nil }
    var number: Double? { if case .number(let d) = self { return d }; return nil }
    var boolean: Bool? { if case .boolean(let b) = self { return b }; return nil }
    var strings: [String]? { if case .strings(let s) = self { return s }; return nil }
    var numbers: [Double]? { if case .numbers(let n) = self { return n }; return nil }
}
