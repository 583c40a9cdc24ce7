/// The evemu text format (https://www.freedesktop.org/wiki/Evemu/): a device description
/// (`N:` name, `I:` id, `P:` property bytes, `B:` event-code bit masks, `A:` absolute axes)
/// followed by or kept apart from event lines (`E: sec.usec type code value`).
///
/// evemu 1.0 writes `A: code min max fuzz flat`; 1.1 and later add the resolution column.
/// Comments (`#`) and lines this reader does not need (`L:` LEDs, `S:` switches) are skipped.
public enum Evemu {
    /// A parsed recording: the device and, when the text held them, its events.
    public struct Recording: Sendable, Hashable {
        public var capabilities: DeviceCapabilities
        public var events: [InputEvent]
        public init(capabilities: DeviceCapabilities, events: [InputEvent]) {
            self.capabilities = capabilities; self.events = events
        }
    }

    /// A line that is not valid evemu: which source, which line, and why.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        public var source: String
        public var line: Int
        public var text: String
        public var reason: String
        /// Set when the text was read as a `libinput record` YAML file (LibinputRecord).
        public var libinputRecord = false
        public var description: String {
            libinputRecord ? "\(source):\(line): \(reason) in \"\(text)\"; is this a libinput record file (devices:, evdev:, events:)?"
                : "\(source):\(line): \(reason) in \"\(text)\"; is this an evemu-record file (lines N:, I:, B:, A:, E:)?"
        }
    }

    /// Parses a combined file (description then events). `source` names the file in errors.
    public static func parse(_ text: String, source: String = "<evemu>") throws -> Recording {
        var reader = Reader(source: source)
        var events: [InputEvent] = []
        try reader.feed(text) { events.append($0) }
        return Recording(capabilities: try reader.capabilities(), events: events)
    }

    /// Parses a description file plus a separate events file (evemu-describe + evemu-record -> .events).
    /// Description lines inside the events file (a combined recording) are accepted and ignored.
    public static func parse(description: String, events: String,
                             descriptionSource: String = "<desc>", eventsSource: String = "<events>") throws -> Recording {
        var descReader = Reader(source: descriptionSource)
        try descReader.feed(description) { _ in }
        let caps = try descReader.capabilities()
        return Recording(capabilities: caps, events: try parseEvents(events, source: eventsSource))
    }

    /// Parses event lines only; description lines are checked but not kept.
    public static func parseEvents(_ text: String, source: String = "<events>") throws -> [InputEvent] {
        var reader = Reader(source: source)
        var events: [InputEvent] = []
        try reader.feed(text) { events.append($0) }
        return events
    }

    // MARK: - Reading

    /// The largest code of each event type (<linux/input-event-codes.h>: EV_MAX, KEY_MAX, REL_MAX,
    /// ABS_MAX, MSC_MAX, SW_MAX, LED_MAX, SND_MAX, REP_MAX, FF_MAX, FF_STATUS_MAX). A bit mask may
    /// be as long as its type's code space, rounded up to whole 8-byte lines as evemu writes them.
    static let maxCode: [UInt16: Int] = [
        0x00: 0x1f, 0x01: 0x2ff, 0x02: 0x0f, 0x03: 0x3f, 0x04: 0x07, 0x05: 0x11,
        0x11: 0x0f, 0x12: 0x07, 0x14: 0x01, 0x15: 0x7f, 0x16: 0x00, 0x17: 0x01,
    ]
    static let maxEventType = 0x1f
    static let maxProperty = 0x1f
    static let maxAbs = 0x3f
    /// 2^32 s (136 years): any clock a recording comes from, still to the microsecond in a Double.
    static let maxSeconds = 1 << 32
    /// Bytes of mask a code space of `maxCode + 1` bits takes in evemu's 8-byte lines.
    static func maskBytes(maxCode: Int) -> Int { (maxCode / 64 + 1) * 8 }

    /// Reads evemu text a line at a time, so a recording of any length can be streamed: the
    /// description lines are kept, each `E:` line is handed back as an event and forgotten.
    /// Every number is range-checked; a bad line throws a `ParseError` naming source and line.
    public struct Reader: Sendable {
        public let source: String
        /// The number of the last line read (1-based).
        public private(set) var lineNumber = 0
        var name: String?
        var id: [UInt16] = [0, 0, 0, 0]
        var propertyBytes: [UInt8] = []
        var bitBytes: [UInt16: [UInt8]] = [:]
        var absinfo: [UInt16: AbsInfo] = [:]

        public init(source: String) { self.source = source }

        /// Whether an `N:` line (the start of a device description) has been read.
        public var hasDescription: Bool { name != nil }

        func fail(_ line: Substring, _ reason: String) -> ParseError {
            ParseError(source: source, line: lineNumber, text: String(line.prefix(200)), reason: reason)
        }

        /// Reads every line of `text` (LF or CRLF line ends), handing each event to `event`.
        public mutating func feed(_ text: String, event: (InputEvent) throws -> Void) throws {
            // Split on the byte: in a Swift String "\r\n" is one Character, not "\r" then "\n".
            for raw in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
                if let e = try line(Substring(raw)) { try event(e) }
            }
        }

        /// Reads one line (without its line end; a trailing CR is dropped). Returns the event of
        /// an `E:` line, nil for any other line.
        public mutating func line(_ text: Substring) throws -> InputEvent? {
            lineNumber += 1
            let raw = text.last == "\r" ? text.dropLast() : text
            var line = raw
            if let hash = line.firstIndex(of: "#") { line = line[..<hash] }
            line = line.drop { $0 == " " || $0 == "\t" || $0 == "\r" }
            while let last = line.last, last == " " || last == "\t" || last == "\r" { line = line.dropLast() }
            guard line.count >= 2, let tag = line.first, line[line.index(after: line.startIndex)] == ":" else {
                if !line.isEmpty { throw fail(raw, "not an evemu line") }
                return nil
            }
            let rest = line.dropFirst(2).drop { $0 == " " || $0 == "\t" }
            let fields = rest.split(whereSeparator: { $0 == " " || $0 == "\t" })
            switch tag {
            case "N":
                name = String(rest.prefix(256))
            case "I":
                guard fields.count == 4 else { throw fail(raw, "I: needs bustype vendor product version") }
                id = try fields.map { try hex16($0, raw) }
            case "P":
                propertyBytes += try fields.map { try hex8($0, raw) }
                let limit = Evemu.maskBytes(maxCode: Evemu.maxProperty)
                guard propertyBytes.count <= limit else {
                    throw fail(raw, "the property mask is longer than the \(limit) bytes input properties take")
                }
            case "B":
                guard let typeField = fields.first else { throw fail(raw, "B: needs an event type") }
                let type = UInt16(try hex8(typeField, raw))
                guard Int(type) <= Evemu.maxEventType else {
                    throw fail(raw, "event type \(typeField) is above EV_MAX (1f)")
                }
                let limit = Evemu.maskBytes(maxCode: Evemu.maxCode[type] ?? 0x2ff)
                let bytes = try fields.dropFirst().map { try hex8($0, raw) }
                guard (bitBytes[type]?.count ?? 0) + bytes.count <= limit else {
                    throw fail(raw, "the bit mask of event type \(typeField) is longer than its code space (\(limit) bytes)")
                }
                bitBytes[type, default: []] += bytes
            case "A":
                guard fields.count == 5 || fields.count == 6 else {
                    throw fail(raw, "A: needs code min max fuzz flat [resolution]")
                }
                let code = UInt16(try hex8(fields[0], raw))
                guard Int(code) <= Evemu.maxAbs else { throw fail(raw, "axis \(fields[0]) is above ABS_MAX (3f)") }
                let v = try fields.dropFirst().map { try dec32($0, raw) }
                absinfo[code] = AbsInfo(minimum: v[0], maximum: v[1], fuzz: v[2], flat: v[3],
                                        resolution: v.count == 5 ? v[4] : 0)
            case "E":
                guard fields.count == 4 else { throw fail(raw, "E: needs sec.usec type code value") }
                let stamp = fields[0].split(separator: ".", omittingEmptySubsequences: false)
                // Seconds of a monotonic or real-time clock; microseconds 0...999999.
                guard stamp.count == 2, let sec = Int(stamp[0]), let usec = Int(stamp[1]),
                      (0...Evemu.maxSeconds).contains(sec), (0..<1_000_000).contains(usec) else {
                    throw fail(raw, "bad timestamp \(fields[0]) (seconds.microseconds, both not negative)")
                }
                return InputEvent(sec: sec, usec: usec, type: try hex16(fields[1], raw),
                                  code: try hex16(fields[2], raw), value: try dec32(fields[3], raw))
            default:
                break // L: (LED state), S: (switch state) and future tags
            }
            return nil
        }

        /// The device the description lines describe.
        public func capabilities() throws -> DeviceCapabilities {
            guard let name else {
                throw ParseError(source: source, line: lineNumber, text: "",
                                 reason: "no device description (N: line) found")
            }
            var codes: [UInt16: Set<UInt16>] = [:]
            for (type, bytes) in bitBytes where type != 0 {
                let set = Evemu.bits(bytes)
                if !set.isEmpty { codes[type, default: []].formUnion(set) }
            }
            // EV_SYN's own mask lists the supported event types, not codes.
            if let typeBytes = bitBytes[0] { codes[EV.SYN] = Evemu.bits(typeBytes) }
            for code in absinfo.keys { codes[EV.ABS, default: []].insert(code) }
            return DeviceCapabilities(name: name, bustype: id[0], vendor: id[1], product: id[2], version: id[3],
                                      properties: Evemu.bits(propertyBytes), codes: codes, absinfo: absinfo)
        }

        func hex8(_ s: Substring, _ line: Substring) throws -> UInt8 {
            guard let v = UInt8(s, radix: 16) else { throw fail(line, "bad hex byte \(s.prefix(20))") }
            return v
        }
        func hex16(_ s: Substring, _ line: Substring) throws -> UInt16 {
            guard let v = UInt16(s, radix: 16) else { throw fail(line, "bad hex number \(s.prefix(20)) (0...ffff)") }
            return v
        }
        func dec32(_ s: Substring, _ line: Substring) throws -> Int32 {
            guard let v = Int32(s) else { throw fail(line, "bad number \(s.prefix(20)) (a 32-bit integer)") }
            return v
        }
    }

    /// The codes whose bits are set. Masks past the 16-bit code space are cut off (the reader
    /// bounds them well below that).
    static func bits(_ bytes: [UInt8]) -> Set<UInt16> {
        var set = Set<UInt16>()
        for (i, byte) in bytes.prefix(8192).enumerated() where byte != 0 {
            for bit in 0..<8 where byte & (1 << bit) != 0 { set.insert(UInt16(i * 8 + bit)) }
        }
        return set
    }

    // MARK: - Writing

    /// The description in evemu 1.3 format (with resolution), readable by evemu-device.
    public static func describe(_ caps: DeviceCapabilities) -> String {
        var out = "# EVEMU 1.3\n"
        out += "# Input device name: \"\(caps.name)\"\n"
        out += "N: \(caps.name)\n"
        out += "I: \(hex(caps.bustype, 4)) \(hex(caps.vendor, 4)) \(hex(caps.product, 4)) \(hex(caps.version, 4))\n"
        out += lines("P:", prefix: nil, bytes(caps.properties))
        var types = Set(caps.codes.keys.filter { $0 != EV.SYN && !(caps.codes[$0]?.isEmpty ?? true) })
        if !caps.absinfo.isEmpty { types.insert(EV.ABS) }
        types.insert(EV.SYN)
        out += lines("B:", prefix: 0, bytes(types))
        for type in types.sorted() where type != EV.SYN {
            var set = caps.codes[type] ?? []
            if type == EV.ABS { set.formUnion(caps.absinfo.keys) }
            out += lines("B:", prefix: type, bytes(set))
        }
        for code in caps.absinfo.keys.sorted() {
            let a = caps.absinfo[code]!
            out += "A: \(hex(code, 2)) \(a.minimum) \(a.maximum) \(a.fuzz) \(a.flat) \(a.resolution)\n"
        }
        return out
    }

    /// One `E:` line (with its newline), microseconds rounded from the event's time.
    public static func eventLine(_ e: InputEvent) -> String {
        var sec = Int(e.time.rounded(.down))
        var usec = Int(((e.time - Double(sec)) * 1_000_000).rounded())
        if usec >= 1_000_000 { sec += 1; usec -= 1_000_000 }
        let u = String(usec)
        let padded = String(repeating: "0", count: max(0, 6 - u.count)) + u
        return "E: \(sec).\(padded) \(hex(e.type, 4)) \(hex(e.code, 4)) \(e.value)\n"
    }

    /// A complete recording: description, then events.
    public static func write(_ recording: Recording) -> String {
        describe(recording.capabilities) + recording.events.map(eventLine).joined()
    }

    static func bytes(_ set: Set<UInt16>) -> [UInt8] {
        guard let top = set.max() else { return [] }
        var out = [UInt8](repeating: 0, count: Int(top) / 8 + 1)
        for code in set { out[Int(code) / 8] |= UInt8(1 << (Int(code) % 8)) }
        return out
    }

    /// evemu reads exactly eight bytes per P:/B: line.
    static func lines(_ tag: String, prefix: UInt16?, _ bytes: [UInt8]) -> String {
        var padded = bytes
        if padded.isEmpty || padded.count % 8 != 0 {
            padded += [UInt8](repeating: 0, count: 8 - padded.count % 8)
        }
        var out = ""
        for start in stride(from: 0, to: padded.count, by: 8) {
            out += tag
            if let prefix { out += " " + hex(prefix, 2) }
            for b in padded[start..<start + 8] { out += " " + hex(UInt16(b), 2) }
            out += "\n"
        }
        return out
    }

    static func hex(_ v: UInt16, _ width: Int) -> String {
        let s = String(v, radix: 16)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}
