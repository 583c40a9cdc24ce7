/// The `libinput record` format (libinput-record(1), FILE FORMAT): the YAML that libinput's
/// bug reports carry. `replay` reads it as it reads evemu, so a recording attached to an
/// upstream report replays without converting.
///
/// The reader knows the subset it needs, a line at a time (a recording of any size needs the
/// memory of one line), and ignores every other key as the format asks of parsers:
///
///     devices:
///       - node: /dev/input/event9
///         evdev:
///           name: "Synaptics TM2668-002"
///           id: [29, 1739, 0, 0]                  # bustype, vendor, product, version
///           codes:
///             3: [0, 1, 47, 53, 54, 57]           # type: [codes]
///           absinfo:
///             53: [0, 4089, 0, 0, 42]             # code: [min, max, fuzz, flat, resolution]
///           properties: [1]
///         events:
///           - evdev:
///             - [  0,     0,   3,  57,  1420]     # [sec, usec, type, code, value]
///             - [  0,     0,   0,   0,     0]
///
/// Only the first device of a file is read (a file recorded with several devices holds each
/// in its own `- node:` entry; replay takes one touchscreen). `hid:` and `libinput:` event
/// entries (--with-hidraw, --with-libinput) are skipped.
public enum LibinputRecord {
    /// Whether a file's first meaningful line is a libinput record's (evemu lines are `X:` tags).
    public static func looksLikeRecord(firstLine line: Substring) -> Bool {
        let t = line.drop { $0 == " " || $0 == "\t" }
        if t.hasPrefix("# libinput record") { return true }
        for key in ["version:", "ndevices:", "libinput:", "system:", "devices:"] where t.hasPrefix(key) { return true }
        return false
    }

    public struct Reader: Sendable {
        public let source: String
        public private(set) var lineNumber = 0
        private var name: String?
        private var id: [UInt16] = [0, 0, 0, 0]
        private var codes: [UInt16: Set<UInt16>] = [:]
        private var absinfo: [UInt16: AbsInfo] = [:]
        private var properties: Set<UInt16> = []
        private enum Block { case none, codes, absinfo }
        private var block = Block.none
        private var devices = 0
        private var inEvents = false
        private var inEvdevEntry = false

        public init(source: String) { self.source = source }

        public var hasDescription: Bool { name != nil }

        /// Reads one line; returns the event it holds, if any.
        public mutating func line(_ raw: Substring) throws -> InputEvent? {
            lineNumber += 1
            let t = raw.drop { $0 == " " || $0 == "\t" }
            if t.isEmpty || t.hasPrefix("#") { return nil }
            if t.hasPrefix("- node:") || (t.hasPrefix("-") && t.dropFirst().drop(while: { $0 == " " }).hasPrefix("node:")) {
                devices += 1
                inEvents = false; inEvdevEntry = false; block = .none
                return nil
            }
            guard devices <= 1 else { return nil }   // the first device only
            if inEvents {
                if t.hasPrefix("- [") || t.hasPrefix("-[") {
                    guard inEvdevEntry else { return nil }
                    let n = try numbers(t.drop { $0 != "[" }, raw)
                    guard n.count == 5 else { throw fail(raw, "an evdev event is [sec, usec, type, code, value], got \(n.count) numbers") }
                    guard n[0] >= 0, n[0] < 1 << 32, (0..<1_000_000).contains(n[1]), (0...0xffff).contains(n[2]), (0...0xffff).contains(n[3]),
                          (Int(Int32.min)...Int(Int32.max)).contains(n[4]) else {
                        throw fail(raw, "an event number is out of range (sec >= 0, usec 0...999999, type and code 0...65535, value 32-bit)")
                    }
                    return InputEvent(sec: n[0], usec: n[1], type: UInt16(n[2]), code: UInt16(n[3]), value: Int32(n[4]))
                }
                if t.hasPrefix("- ") {
                    // A new entry of the events list: evdev (its events follow), hid or libinput.
                    let key = t.dropFirst(2).drop { $0 == " " }
                    inEvdevEntry = key.hasPrefix("evdev:")
                    return nil
                }
                // Keys inside an entry (hid's "time:" and "hidrawN:") carry nothing replay needs.
                return nil
            }
            guard let key = Reader.key(t) else { return nil }
            let value = t.dropFirst(key.count + 1).drop { $0 == " " || $0 == "\t" }
            if let code = UInt16(key) {
                switch block {
                case .codes:
                    guard code <= 0x1f else { throw fail(raw, "event type \(code) is out of range (0...31)") }
                    let list = try numbers(value, raw)
                    guard list.allSatisfy({ (0...0x2ff).contains($0) }) else { throw fail(raw, "an event code is out of range (0...767)") }
                    if code != 0 { codes[code, default: []].formUnion(list.map { UInt16($0) }) }
                    codes[0, default: []].insert(code)   // EV_SYN's set lists the types, as Evemu's reader gives it
                case .absinfo:
                    guard code <= 0x3f else { throw fail(raw, "axis \(code) is out of range (0...63)") }
                    let a = try numbers(value, raw)
                    guard a.count >= 5 || a.count == 4, a.allSatisfy({ (Int(Int32.min)...Int(Int32.max)).contains($0) }) else {
                        throw fail(raw, "absinfo is [min, max, fuzz, flat, resolution]")
                    }
                    absinfo[code] = AbsInfo(minimum: Int32(a[0]), maximum: Int32(a[1]), fuzz: Int32(a[2]), flat: Int32(a[3]),
                                            resolution: a.count >= 5 ? Int32(a[4]) : 0)
                    codes[EV.ABS, default: []].insert(code)
                case .none:
                    break
                }
                return nil
            }
            block = .none
            switch key {
            case "name":
                var v = Reader.stripComment(value)
                if v.count >= 2, let q = v.first, q == "\"" || q == "'", v.last == q { v = v.dropFirst().dropLast() }
                name = String(v)
            case "id":
                let n = try numbers(value, raw)
                guard n.count == 4, n.allSatisfy({ (0...0xffff).contains($0) }) else { throw fail(raw, "id is [bustype, vendor, product, version]") }
                id = n.map { UInt16($0) }
            case "codes": block = .codes
            case "absinfo": block = .absinfo
            case "properties":
                if Reader.stripComment(value).hasPrefix("[") {
                    let n = try numbers(value, raw)
                    guard n.allSatisfy({ (0...0x1f).contains($0) }) else { throw fail(raw, "a property is out of range (0...31)") }
                    properties = Set(n.map { UInt16($0) })
                }
            case "events":
                inEvents = true
            default:
                break
            }
            return nil
        }

        /// The device the `evdev:` block describes.
        public func capabilities() throws -> DeviceCapabilities {
            guard let name else {
                var e = Evemu.ParseError(source: source, line: lineNumber, text: "",
                                         reason: "no device description (devices: - node: evdev: name:) before the events")
                e.libinputRecord = true
                throw e
            }
            return DeviceCapabilities(name: name, bustype: id[0], vendor: id[1], product: id[2], version: id[3],
                                      properties: properties, codes: codes, absinfo: absinfo)
        }

        /// "key" of a "key: value" line (nil when the line is not one).
        static func key(_ t: Substring) -> Substring? {
            guard let colon = t.firstIndex(of: ":") else { return nil }
            let k = t[..<colon]
            guard !k.isEmpty, k.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }) else { return nil }
            return k
        }

        static func stripComment(_ s: Substring) -> Substring {
            var inQuote: Character? = nil
            var end = s.endIndex
            for i in s.indices {
                let c = s[i]
                if let q = inQuote { if c == q { inQuote = nil } } else if c == "\"" || c == "'" { inQuote = c } else if c == "#" { end = i; break }
            }
            return trimmed(s[..<end])
        }

        static func trimmed(_ s: Substring) -> Substring {
            var r = s.drop { $0 == " " || $0 == "\t" }
            while let l = r.last, l == " " || l == "\t" || l == "\r" { r = r.dropLast() }
            return r
        }

        /// "[1, 2, 3] # comment" -> [1, 2, 3].
        func numbers(_ s: Substring, _ raw: Substring) throws -> [Int] {
            let v = Reader.stripComment(s)
            guard v.hasPrefix("["), v.hasSuffix("]") else { throw fail(raw, "expected a list of numbers in [ ]") }
            let inner = v.dropFirst().dropLast()
            if inner.allSatisfy({ $0 == " " }) { return [] }
            var out: [Int] = []
            for part in inner.split(separator: ",") {
                let p = Reader.trimmed(part)
                guard let n = Int(p) else { throw fail(raw, "'\(p.prefix(20))' is not a whole number") }
                out.append(n)
            }
            return out
        }

        func fail(_ line: Substring, _ reason: String) -> Evemu.ParseError {
            var e = Evemu.ParseError(source: source, line: lineNumber, text: String(line.prefix(120)), reason: reason)
            e.libinputRecord = true
            return e
        }
    }

    /// A recording written as `libinput record` writes it (times from the first event), for
    /// tests and for handing a recording to libinput's tools.
    public static func write(_ r: Evemu.Recording, node: String = "/dev/input/event0") -> String {
        let c = r.capabilities
        var s = "# libinput record\nversion: 1\nndevices: 1\nlibinput:\n  version: \"1.22.1\"\nsystem:\n  os: \"debian:12\"\n  kernel: \"6.1.0\"\n  dmi: \"\"\n"
        s += "devices:\n- node: \(node)\n  evdev:\n    # Name: \(c.name)\n"
        s += "    name: \"\(c.name)\"\n    id: [\(c.bustype), \(c.vendor), \(c.product), \(c.version)]\n    codes:\n"
        var types = Set(c.codes.keys)
        types.insert(0)
        for t in types.sorted() {
            let list = t == 0 ? Array(0...15) : (c.codes[t] ?? []).sorted().map(Int.init)
            s += "      \(t): [\(list.map(String.init).joined(separator: ", "))]\n"
        }
        s += "    absinfo:\n"
        for (code, a) in c.absinfo.sorted(by: { $0.key < $1.key }) {
            s += "      \(code): [\(a.minimum), \(a.maximum), \(a.fuzz), \(a.flat), \(a.resolution)]\n"
        }
        s += "    properties: [\(c.properties.sorted().map(String.init).joined(separator: ", "))]\n"
        s += "  hid: []\n  udev:\n    properties:\n    - ID_INPUT=1\n    - ID_INPUT_TOUCHSCREEN=1\n  quirks:\n  events:\n"
        let origin = r.events.first.map { ($0.time * 1_000_000).rounded() } ?? 0
        var frameOpen = false
        for e in r.events {
            if !frameOpen { s += "  - evdev:\n"; frameOpen = true }
            let us = Int((e.time * 1_000_000).rounded() - origin)
            s += "    - [\(pad(us / 1_000_000, 3)), \(pad(us % 1_000_000, 6)), \(pad(Int(e.type), 3)), \(pad(Int(e.code), 3)), \(pad(Int(e.value), 6))]\n"
            if e.type == EV.SYN && e.code == 0 { frameOpen = false }
        }
        return s
    }

    static func pad(_ n: Int, _ w: Int) -> String {
        let t = String(n)
        return String(repeating: " ", count: max(0, w - t.count)) + t
    }
}
