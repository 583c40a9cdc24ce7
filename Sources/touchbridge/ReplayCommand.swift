import ArgumentParser
import Foundation
import TouchBridge
import Kiosk
import TouchCore
import MapEngine
import TouchDevices
import Rendering

/// `touchbridge replay`: an evemu recording through the real pipeline, as the JSON event stream.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay an evemu or libinput recording through the frame assembler, gesture recogniser and map controller.",
        discussion: """
        Prints the JSON event stream (docs/event-stream.md): start, gesture and camera events, end. \
        FILE is an evemu recording or a `libinput record` YAML file (as attached to libinput bug \
        reports; the first device of the file is replayed), told apart by its content.
        """)

    @Argument(help: "evemu recording (a combined file, or an .events file with --desc) or `libinput record` YAML; with --live, a /dev/input/eventN node")
    var file: String

    @Option(help: "evemu device description, when FILE holds only events")
    var desc: String?

    @Option(help: "screen size the device's axis range maps onto, WIDTHxHEIGHT")
    var screen: String = "1280x800"

    @Flag(help: "also print the contact frames")
    var contacts = false

    @Option(help: "start camera: LAT,LON,ZOOM[,BEARING,TILT]")
    var camera: String?

    @Option(help: "configuration file for gestures, markers and camera settings")
    var config: String?

    @Option(help: "calibration matrix, six numbers \"a b c d e f\" (libinput convention)")
    var calibration: String?

    @Flag(help: "read FILE as a live evdev device until SIGINT, --duration, or unplug")
    var live = false

    @Option(help: "with --live: stop after this many seconds")
    var duration: Double?

    @Flag(help: "with --live: FILE is a path, a name substring or vvvv:pppp; follow the device through unplug and replug")
    var follow = false

    func run() throws {
        let size = try parseSize(screen, option: "--screen")
        checkSeconds(duration, option: "--duration")
        var cfg = KioskConfiguration()
        if let config {
            // Replay draws nothing: the tiles file, style and folders are not its business.
            do { cfg = try KioskConfiguration.load(path: config, checkFiles: false) } catch let e as ConfigError { fail(e.description, code: 2) }
        }
        if let camera { cfg.map.camera = try parseCamera(camera) }
        var cal = Calibration.identity
        if let calibration {
            guard let c = Calibration(libinputString: calibration) else {
                throw ValidationError("--calibration needs six numbers, e.g. \"1 0 0 0 1 0\"")
            }
            cal = c
        }
        if live && follow {
            try runFollowing(size: size, configuration: cfg, calibration: calibration == nil ? nil : cal)
            return
        }
        if live {
            try runLive(size: size, configuration: cfg, calibration: cal)
            return
        }
        // A closed pipe (`replay x | head`) is an EPIPE to handle, not a signal: the replay stops
        // cleanly (exit 0); any other write error (a full disk) says what failed (exit 1).
        signal(SIGPIPE, SIG_IGN)
        let out = EventStreamWriter(fd: STDOUT_FILENO, name: "standard output")
        var buffer = ""
        func flush() {
            switch out.write(buffer) {
            case nil: buffer = ""
            case .closed?: Foundation.exit(0)
            case let failure?: fail("cannot write the event stream: \(failure)", code: 1)
            }
        }
        do {
            // Streamed a line at a time: a recording of any size needs the memory of one line.
            try Replay.stream(path: file, descPath: desc, screen: size, configuration: cfg, calibration: cal,
                              contacts: contacts) { line in
                buffer += line + "\n"
                if buffer.utf8.count > 1 << 16 { flush() }
            }
        } catch let e as Replay.ReplayError {
            flush()
            fail(e.description, code: 1)
        }
        flush()
    }

    /// A live device through the same pipeline; the start line is printed once the device is
    /// open (a script may wait for it), each batch of lines is flushed.
    func runLive(size: Size, configuration cfg: KioskConfiguration, calibration cal: Calibration) throws {
        let hub = TouchInputHub(match: .path(file), screen: size, calibration: cal, hotplug: false)
        _ = hub.openAll() // .opened or a warning; the reason is asked again below if it failed
        guard let device = hub.device(path: file) else {
            // Say why: the node's own open error (missing, permission, not evdev, not touch).
            do { _ = try TouchDevice(path: file, screen: size) } catch { fail("\(error)", code: 1) }
            fail("cannot open \(file)", code: 1)
        }
        let density = Replay.density(configuration: cfg, touch: device.capabilities, screen: size)
        let pipeline = MapPipeline(configuration: cfg, screen: size, density: density) { line in print(line) }
        pipeline.writesContacts = contacts
        pipeline.start()
        fflush(nil)
        let ending = try LiveReadLoop.run(hub, duration: duration, endWhenNoneOpen: true) { events in
            for case .frames(_, let frames) in events { for f in frames { pipeline.handle(f) } }
            fflush(nil)
        }
        pipeline.finish()
        fflush(nil)
        if ending == .deviceGone {
            FileHandle.standardError.write(Data("touchbridge replay: \(file) disappeared; its contacts were cancelled\n".utf8))
        }
    }
}

extension ReplayCommand {
    /// --live --follow: the device (by path, name or vendor:product) through unplug and replug.
    func runFollowing(size: Size, configuration cfg: KioskConfiguration, calibration: Calibration?) throws {
        let hub = TouchInputHub(match: try ConfigStrings.deviceMatch(file), screen: size, calibration: calibration)
        var pipeline: MapPipeline?
        var down: [String: Int] = [:]
        _ = try LiveReadLoop.run(hub, duration: duration) { events in
            for event in events {
                switch event {
                case .opened(let path, let name, let kind, _):
                    Self.note("opened \(path) (\(name), \(kind))")
                    if pipeline == nil {
                        let caps = (try? TouchDiscovery.capabilities(path: path))
                        let density = Replay.density(configuration: cfg, touch: caps, screen: size)
                        let p = MapPipeline(configuration: cfg, screen: size, density: density) { line in print(line) }
                        p.writesContacts = contacts
                        p.start() // a script may wait for this line
                        pipeline = p
                    }
                case .closed(let path, let reason):
                    Self.note("\(path) closed (\(reason)); its contacts were cancelled; waiting for it to come back")
                    down[path] = nil
                case .frames(let path, let frames):
                    for f in frames { pipeline?.handle(f) }
                    down[path] = frames.last?.contacts.count
                case .warning(let text, _):
                    Self.note(text)
                }
            }
            fflush(nil)
        }
        pipeline?.finish()
        fflush(nil)
    }

    static func note(_ text: String) {
        FileHandle.standardError.write(Data("touchbridge replay: \(text)\n".utf8))
    }
}
