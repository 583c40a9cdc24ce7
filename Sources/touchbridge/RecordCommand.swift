import ArgumentParser
import Foundation
import TouchCore
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
        let dev = try TouchDevice(path: device, screen: Size(width: 1, height: 1), requireTouch: false)
        let handle: FileHandle
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: nil),
                  let h = FileHandle(forWritingAtPath: output) else {
                throw InputFileError(description: "cannot write \(output): check the directory exists and is writable")
            }
            handle = h
        } else {
            handle = FileHandle.standardOutput
        }
        var pending = ""
        var recorder = EvemuRecorder(capabilities: dev.capabilities) { pending += $0 }
        func flush() {
            if !pending.isEmpty { handle.write(Data(pending.utf8)); pending = "" }
        }
        flush()
        let ending = try LiveReadLoop.run(dev, duration: duration, onEvent: { recorder.record($0) }) { _ in flush() }
        flush()
        if output != nil { try handle.close() }
        if ending == .deviceGone {
            FileHandle.standardError.write(Data("touchbridge record: \(device) disappeared; recording ends here\n".utf8))
        }
    }
}
