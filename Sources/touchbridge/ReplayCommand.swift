import ArgumentParser
import Foundation
import MapEngine
import TouchCore
import TouchDevices

/// `touchbridge replay`: an evemu recording (or, with --live, a device) through the same frame
/// assembler as the app, printed as the JSON lines of design.md.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay an evemu recording through the touch pipeline and print JSON lines.")

    @Argument(help: "evemu recording (description + events), or an events file with --desc; with --live, a /dev/input/eventN node")
    var file: String

    @Option(help: "evemu device description (FILE.desc) when FILE holds only events")
    var desc: String?

    @Option(help: "output size in pixels, WxH (the device's axis range maps onto it)")
    var screen: String

    @Flag(help: "print a contacts line for every frame")
    var contacts = false

    @Option(help: "start camera LAT,LON,ZOOM[,BEARING,TILT]")
    var camera: String?

    @Option(help: "libinput calibration matrix \"a b c d e f\" (normalised coordinates)")
    var calibration: String?

    @Flag(help: "read FILE as a live evdev device until SIGINT, --duration, or unplug")
    var live = false

    @Option(help: "with --live: stop after this many seconds")
    var duration: Double?

    @Flag(help: "with --live: FILE is a path, a name substring or vvvv:pppp; follow the device through unplug and replug")
    var follow = false

    func run() throws {
        let size = try Self.parseScreen(screen)
        let cam = try Self.parseCamera(camera)
        var cal = Calibration.identity
        if let calibration {
            guard let c = Calibration(libinputString: calibration) else {
                throw ValidationError("--calibration needs six numbers \"a b c d e f\", got \"\(calibration)\"")
            }
            cal = c
        }
        var out = ReplayPrinter(screen: size, camera: cam, printContacts: contacts)
        if live && follow {
            let hub = TouchInputHub(match: TouchDeviceMatch(file), screen: size,
                                    calibration: calibration == nil ? nil : cal)
            var down: [String: Int] = [:]
            _ = try LiveReadLoop.run(hub, duration: duration) { events in
                for event in events {
                    switch event {
                    case .opened(let path, let name, let kind):
                        Self.note("opened \(path) (\(name), \(kind))")
                        out.start() // a script may wait for this line
                    case .closed(let path, let reason):
                        Self.note("\(path) closed (\(reason)); its contacts were cancelled; waiting for it to come back")
                        down[path] = nil
                    case .frames(let path, let frames):
                        for f in frames { out.frame(f) }
                        down[path] = frames.last?.contacts.count
                    case .warning(let text):
                        Self.note(text)
                    }
                }
                fflush(nil)
            }
            out.end(contactsDown: down.values.reduce(0, +))
            return
        }
        if live {
            let device = try TouchDevice(path: file, screen: size, calibration: cal)
            out.start() // printed once the device is open: a script may wait for this line
            fflush(nil)
            let ending = try LiveReadLoop.run(device, duration: duration) { frames in
                for f in frames { out.frame(f) }
                fflush(nil)
            }
            out.end(contactsDown: device.assembler.contactsDown)
            if ending == .deviceGone {
                FileHandle.standardError.write(Data("touchbridge replay: \(file) disappeared; its contacts were cancelled\n".utf8))
            }
            return
        }
        let recording = try Self.loadRecording(file: file, desc: desc)
        guard recording.capabilities.positionAxes != nil else {
            throw InputFileError(description: "\(recording.capabilities.name) (\(desc ?? file)) has no absolute position axes; is this a touchscreen recording?")
        }
        var assembler = FrameAssembler(capabilities: recording.capabilities, calibration: cal, screen: size)
        for e in recording.events {
            out.sawEvent(time: e.time)
            if let f = assembler.process(e) { out.frame(f) }
        }
        out.end(contactsDown: assembler.contactsDown)
    }

    /// A combined file, or events + --desc, or events with "<device>.desc" beside them.
    static func loadRecording(file: String, desc: String?) throws -> Evemu.Recording {
        let text = try readText(file)
        if let desc {
            return try Evemu.parse(description: try readText(desc), events: text,
                                   descriptionSource: desc, eventsSource: file)
        }
        if text.split(separator: "\n").contains(where: { $0.hasPrefix("N:") }) {
            return try Evemu.parse(text, source: file)
        }
        let url = URL(fileURLWithPath: file)
        let device = url.lastPathComponent.prefix { $0 != "." }
        let sibling = url.deletingLastPathComponent().appendingPathComponent(device + ".desc").path
        guard FileManager.default.fileExists(atPath: sibling) else {
            throw InputFileError(description: "\(file) holds events only and no description; pass --desc DEVICE.desc")
        }
        return try Evemu.parse(description: try readText(sibling), events: text,
                               descriptionSource: sibling, eventsSource: file)
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data("touchbridge replay: \(text)\n".utf8))
    }

    static func readText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw InputFileError(description: "cannot read \(path): check the path and its permissions")
        }
        return String(decoding: data, as: UTF8.self)
    }

    static func parseScreen(_ s: String) throws -> Size {
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]), w > 0, h > 0 else {
            throw ValidationError("--screen must be WxH in pixels, e.g. 1280x800; got \"\(s)\"")
        }
        return Size(width: w, height: h)
    }

    static func parseCamera(_ s: String?) throws -> CameraPosition {
        guard let s else { return CameraPosition(target: Coordinate(latitude: 0, longitude: 0), zoom: 1) }
        let v = s.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
        guard v.count == 3 || v.count == 5, v.allSatisfy({ $0 != nil }) else {
            throw ValidationError("--camera must be LAT,LON,ZOOM[,BEARING,TILT]; got \"\(s)\"")
        }
        let n = v.map { $0! }
        return CameraPosition(target: Coordinate(latitude: n[0], longitude: n[1]), zoom: n[2],
                              bearing: n.count == 5 ? n[3] : 0, tilt: n.count == 5 ? n[4] : 0)
    }
}

/// Prints the start line, contacts lines and the end line; t counts from the first input event.
struct ReplayPrinter {
    let screen: Size
    let camera: CameraPosition
    let printContacts: Bool
    var firstTime: Double?
    var lastTime: Double?
    var started = false

    init(screen: Size, camera: CameraPosition, printContacts: Bool) {
        self.screen = screen; self.camera = camera; self.printContacts = printContacts
    }

    mutating func start() {
        guard !started else { return }
        started = true
        print(JSONLines.line(t: 0, type: "start", [
            "screen": JSONLines.array([JSONLines.int(Int(screen.width)), JSONLines.int(Int(screen.height))]),
            "camera": JSONLines.camera(camera)]))
    }

    mutating func sawEvent(time: Double) {
        if firstTime == nil { firstTime = time }
        lastTime = max(lastTime ?? time, time)
        start()
    }

    mutating func frame(_ f: ContactFrame) {
        sawEvent(time: f.time)
        guard printContacts else { return }
        let t = f.time - (firstTime ?? f.time)
        if f.cancelled.isEmpty {
            print(JSONLines.line(t: t, type: "contacts", ["contacts": JSONLines.array(f.contacts.map(JSONLines.contact))]))
        } else {
            print(JSONLines.line(t: t, type: "contacts", [
                "contacts": JSONLines.array(f.contacts.map(JSONLines.contact)),
                "cancelled": JSONLines.array(f.cancelled.map(JSONLines.int))]))
        }
    }

    mutating func end(contactsDown: Int) {
        start()
        let t = (lastTime ?? 0) - (firstTime ?? 0)
        print(JSONLines.line(t: t, type: "end", ["contacts": JSONLines.int(contactsDown), "camera": JSONLines.camera(camera)]))
    }
}

/// A file the user named cannot be used: said without the usage text a flag error gets.
struct InputFileError: Error, CustomStringConvertible {
    var description: String
}
