import Foundation
import TouchCore
import Gestures
import MapEngine

/// Replays an evemu recording through the same stages as a live panel (assembler, recogniser,
/// controller) and writes the event stream. Used by `touchbridge replay` and the tests.
public enum Replay {
    public struct ReplayError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Loads a recording: a combined evemu file, or events plus a separate description.
    /// When `descPath` is nil and FILE has no description, "<device>.desc" beside a
    /// "<device>.<name>.events" file is used (the layout of the evemu-devices collection).
    public static func load(path: String, descPath: String?) throws -> Evemu.Recording {
        func read(_ p: String) throws -> String {
            guard let d = FileManager.default.contents(atPath: p), let s = String(data: d, encoding: .utf8) else {
                throw ReplayError(description: "cannot read \(p): check the path and its permissions")
            }
            return s
        }
        let text = try read(path)
        var desc = descPath
        if desc == nil && !text.contains("\nN:") && !text.hasPrefix("N:") {
            // "Dev Name.gesture.events" -> "Dev Name.desc"
            let url = URL(fileURLWithPath: path)
            var base = url.deletingPathExtension().lastPathComponent
            while !base.isEmpty {
                let candidate = url.deletingLastPathComponent().appendingPathComponent(base + ".desc").path
                if FileManager.default.fileExists(atPath: candidate) { desc = candidate; break }
                guard let dot = base.lastIndex(of: ".") else { break }
                base = String(base[..<dot])
            }
            if desc == nil {
                throw ReplayError(description: "\(path) holds events but no device description: pass --desc FILE.desc (from evemu-describe)")
            }
        }
        do {
            if let desc {
                return try Evemu.parse(description: try read(desc), events: text, descriptionSource: desc, eventsSource: path)
            }
            return try Evemu.parse(text, source: path)
        } catch let e as Evemu.ParseError {
            throw ReplayError(description: e.description)
        }
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
        let density = density(configuration: configuration, touch: recording.capabilities, screen: screen)
        let pipeline = MapPipeline(configuration: configuration, screen: screen, density: density, sink: sink)
        pipeline.writesContacts = contacts
        var assembler = FrameAssembler(capabilities: recording.capabilities, calibration: calibration, screen: screen)
        pipeline.start()
        if let first = recording.events.first { pipeline.begin(at: first.time) }
        for e in recording.events {
            if let frame = assembler.process(e) { pipeline.handle(frame) }
        }
        pipeline.finish()
    }
}
