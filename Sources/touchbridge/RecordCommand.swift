import ArgumentParser
import Foundation
import TouchCore
import TouchBridge
import Kiosk
import TouchDevices

/// `touchbridge record`: a live device written in evemu format (description, then events) until
/// SIGINT, --duration, or the device going away. Replays with `touchbridge replay` or evemu-play.
struct RecordCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "record",
        abstract: "Record a live input device in evemu format.")

    @Option(help: "the /dev/input/eventN node")
    var device: String

    @Option(help: "output file (default: standard output)")
    var output: String?

    @Option(help: "stop after this many seconds (default: until Ctrl-C)")
    var duration: Double?

    func run() throws {
        checkSeconds(duration, option: "--duration")
        // Errors as every other command says them ("touchbridge: ...", exit 1), not ArgumentParser's "Error: ".
        do { try record() } catch { fail("\(error)", code: 1) }
    }

    func record() throws {
        let dev = try TouchDevice(path: device, screen: Size(width: 1, height: 1), requireTouch: false)
        // Written with write(2): a full disk says so (exit 1) and a closed pipe ends the
        // recording (exit 0) instead of a trap in FileHandle.write.
        signal(SIGPIPE, SIG_IGN)
        let out: EventStreamWriter
        if let output {
            // A FIFO, a device node, a folder or a symlink is refused and left alone (issue 31).
            do { out = try EventStreamWriter.createFile(path: output) } catch let e as EventStreamWriter.CreateError {
                throw InputFileError(description: e.description)
            }
        } else {
            out = EventStreamWriter(fd: STDOUT_FILENO, name: "standard output")
        }
        var pending = ""
        var recorder = EvemuRecorder(capabilities: dev.capabilities) { pending += $0 }
        func flush() {
            guard !pending.isEmpty else { return }
            switch out.write(pending) {
            case nil: pending = ""
            case .closed?: Foundation.exit(0)
            case let failure?: fail("cannot write the recording to \(out.name): \(failure)", code: 1)
            }
        }
        flush()
        let ending = try LiveReadLoop.run(dev, duration: duration, onEvent: { recorder.record($0) }) { _ in flush() }
        flush()
        if ending == .deviceGone {
            FileHandle.standardError.write(Data("touchbridge record: \(device) disappeared; recording ends here\n".utf8))
        }
    }
}
