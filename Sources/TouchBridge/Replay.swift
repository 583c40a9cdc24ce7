import Foundation
import TouchCore
import Gestures
import MapEngine

/// Replays an evemu recording through the same stages as a live panel (assembler, recogniser,
/// controller) and writes the event stream. Used by `touchbridge replay` and the tests.
package enum Replay {
    public struct ReplayError: Error, CustomStringConvertible {
        public let description: String
        package init(description: String) { self.description = description }
    }

    /// Loads a recording: a combined evemu file, or events plus a separate description.
    /// When `descPath` is nil and FILE has no description, "<device>.desc" beside a
    /// "<device>.<name>.events" file is used (the layout of the evemu-devices collection).
    /// Holds every event in memory: for long recordings use `stream`.
    public static func load(path: String, descPath: String?) throws -> Evemu.Recording {
        var events: [InputEvent] = []
        let caps = try read(path: path, descPath: descPath) { _ in { events.append($0) } }
        return Evemu.Recording(capabilities: caps, events: events)
    }

    /// Streams a recording through the pipeline a line at a time: memory stays that of one
    /// line and the pipeline, whatever the file's size. Throws `ReplayError` (naming the file
    /// and line) for a file that cannot be read or is not an evemu touchscreen recording.
    public static func stream(path: String, descPath: String?, screen: Size, configuration: KioskConfiguration,
                              calibration: Calibration = .identity, contacts: Bool,
                              sink: @escaping (String) -> Void) throws {
        var session: Session?
        func begin(_ caps: DeviceCapabilities) throws -> Session {
            guard caps.positionAxes != nil else {
                throw ReplayError(description: "\(caps.name) (\(descPath ?? path)) has no absolute position axes; is this a touchscreen recording?")
            }
            let s = Session(capabilities: caps, screen: screen, configuration: configuration,
                            calibration: calibration, contacts: contacts, sink: sink)
            session = s
            return s
        }
        let caps = try read(path: path, descPath: descPath) { caps in
            let s = try begin(caps)
            return { s.handle($0) }
        }
        try (session ?? begin(caps)).finish()
    }

    /// Reads the description (from `descPath`, from FILE's own header, or from the .desc beside
    /// it), then hands each event of FILE to the handler `start` makes once the device is known.
    static func read(path: String, descPath: String?,
                     start: (DeviceCapabilities) throws -> (InputEvent) -> Void) throws -> DeviceCapabilities {
        do {
            var caps = try descPath.map { try description(path: $0) }
            var handler: ((InputEvent) -> Void)?
            let lines = try TextLineReader(path: path)
            var reader = Evemu.Reader(source: path)
            // A `libinput record` YAML file (libinput's bug reports) or evemu: told by the first
            // line that is not blank or a comment (or by a .yml/.yaml name).
            var libinput: LibinputRecord.Reader? = nil
            var undecided: [String]? = []
            func handle(_ event: InputEvent) throws {
                if handler == nil {
                    if caps == nil {
                        if let l = libinput { caps = try l.capabilities() } else {
                            caps = reader.hasDescription ? try reader.capabilities() : try description(path: try sideDescription(of: path))
                        }
                    }
                    handler = try start(caps!)
                }
                handler?(event)
            }
            while let line = try lines.next() {
                if var pending = undecided {
                    let t = line.drop { $0 == " " || $0 == "\t" }
                    let named = path.hasSuffix(".yml") || path.hasSuffix(".yaml")
                    if !named && (t.isEmpty || (t.hasPrefix("#") && !t.hasPrefix("# libinput record"))) {
                        pending.append(String(line)); undecided = pending; continue
                    }
                    undecided = nil
                    if named || LibinputRecord.looksLikeRecord(firstLine: line) { libinput = LibinputRecord.Reader(source: path) }
                    for p in pending {
                        if libinput != nil { _ = try libinput!.line(Substring(p)) } else { _ = try reader.line(Substring(p)) }
                    }
                }
                let event = libinput != nil ? try libinput!.line(line) : try reader.line(line)
                if let event { try handle(event) }
            }
            if let caps { return caps }
            if let l = libinput { return try l.capabilities() }
            if reader.hasDescription { return try reader.capabilities() }
            return try description(path: try sideDescription(of: path))
        } catch let e as Evemu.ParseError {
            throw ReplayError(description: e.description)
        } catch let e as TextLineReader.ReadError {
            throw ReplayError(description: e.description)
        }
    }

    /// A description file read a line at a time (its event lines, if any, are checked and dropped).
    static func description(path: String) throws -> DeviceCapabilities {
        let lines = try TextLineReader(path: path)
        var reader = Evemu.Reader(source: path)
        while let line = try lines.next() { _ = try reader.line(line) }
        return try reader.capabilities()
    }

    /// "Dev Name.gesture.events" -> "Dev Name.desc" in the same folder.
    static func sideDescription(of path: String) throws -> String {
        let url = URL(fileURLWithPath: path)
        var base = url.deletingPathExtension().lastPathComponent
        while !base.isEmpty {
            let candidate = url.deletingLastPathComponent().appendingPathComponent(base + ".desc").path
            if candidate != path && FileManager.default.fileExists(atPath: candidate) { return candidate }
            guard let dot = base.lastIndex(of: ".") else { break }
            base = String(base[..<dot])
        }
        throw ReplayError(description: "\(path) holds events but no device description: pass --desc FILE.desc (from evemu-describe)")
    }

    /// One recording going through the pipeline, an event at a time.
    public final class Session {
        public let pipeline: MapPipeline
        var assembler: FrameAssembler
        var begun = false
        /// With a vector tile set configured: its place names and POIs are what taps hit.
        let places: StreetPlaces?

        public init(capabilities caps: DeviceCapabilities, screen: Size, configuration: KioskConfiguration,
                    calibration: Calibration = .identity, contacts: Bool, sink: @escaping (String) -> Void) {
            let density = Replay.density(configuration: configuration, touch: caps, screen: screen)
            pipeline = MapPipeline(configuration: configuration, screen: screen, density: density, sink: sink)
            pipeline.writesContacts = contacts
            assembler = FrameAssembler(capabilities: caps, calibration: calibration, screen: screen)
            places = StreetPlaces(configuration: configuration, screen: screen) { warning in
                FileHandle.standardError.write(Data("touchbridge replay: \(warning)\n".utf8))
            }
            pipeline.start()
        }

        public func handle(_ e: InputEvent) {
            if !begun { begun = true; pipeline.begin(at: e.time); places?.update(pipeline) }
            if let frame = assembler.process(e) {
                pipeline.handle(frame)
                places?.update(pipeline)
            }
        }

        public func finish() { pipeline.finish() }
    }

    /// Pixel density of a device mapped over a screen: from its axis resolution when it has one.
    public static func density(for caps: DeviceCapabilities, screen: Size, displayMM: Size? = nil) -> PixelDensity {
        var touchMM: Size? = nil
        if let (x, y) = caps.positionAxes, x.resolution > 0, y.resolution > 0 {
            touchMM = Size(width: x.range / Double(x.resolution), height: y.range / Double(y.resolution))
        }
        return PixelDensity(screen: screen, touchAreaMillimetres: touchMM, displayMillimetres: displayMM)
    }

    /// The one place pixels per millimetre is decided, for the kiosk, tune, calibrate and every
    /// replay: the touch device's resolution, else the display's physical size (the file's
    /// `physical_size_mm` before what the display reports), else the file's `pixels_per_mm`,
    /// else 96 dpi.
    public static func density(configuration cfg: KioskConfiguration, touch caps: DeviceCapabilities?,
                               screen: Size, displayMM reported: Size? = nil) -> PixelDensity {
        let displayMM = cfg.display.physicalSizeMM.map { Size(width: $0.0, height: $0.1) } ?? reported
        let fromDevices = caps.map { density(for: $0, screen: screen, displayMM: displayMM) }
            ?? PixelDensity(screen: screen, displayMillimetres: displayMM)
        if fromDevices.source == .assumed, let ppm = cfg.gestures.pixelsPerMM {
            return PixelDensity(pixelsPerMillimetre: ppm, source: .assumed)
        }
        return fromDevices
    }

    /// Runs the recording through the pipeline; each line of the stream goes to `sink`.
    public static func run(_ recording: Evemu.Recording, screen: Size, configuration: KioskConfiguration,
                           calibration: Calibration = .identity, contacts: Bool, sink: @escaping (String) -> Void) {
        let session = Session(capabilities: recording.capabilities, screen: screen, configuration: configuration,
                              calibration: calibration, contacts: contacts, sink: sink)
        for e in recording.events { session.handle(e) }
        session.finish()
    }
}
