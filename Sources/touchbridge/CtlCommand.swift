import ArgumentParser
import Foundation
import TouchBridge
import Kiosk

/// Where the control socket is: --socket, else the configuration's [control] socket, else the
/// documented default.
struct SocketOptions: ParsableArguments {
    @Option(help: "control socket path (default: [control] socket of --config, else /run/touchbridge/control.sock)")
    var socket: String?

    @Option(help: "configuration file to read [control] socket from")
    var config: String = "/etc/touchbridge/touchbridge.toml"

    func path() -> String {
        if let socket { return socket }
        if FileManager.default.fileExists(atPath: config) {
            do {
                let c = try KioskConfiguration.load(path: config, checkFiles: false)
                if !c.control.socket.isEmpty { return c.control.socket }
                fail("\(config) turns the control socket off ([control] socket = \"\"); set it, or pass --socket PATH", code: 2)
            } catch {
                fail("\(error)", code: 2)
            }
        }
        return "/run/touchbridge/control.sock"
    }
}

/// `touchbridge ctl CMD [key=value ...]`: one command to a running kiosk, its reply printed.
struct CtlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ctl",
        abstract: "Send one command to a running kiosk's control socket and print the reply.",
        discussion: """
        Values are JSON when they parse as JSON (zoom=12, animate=1.5, marker=null, enabled='["pan","pinch"]', \
        bounds='[9.47,47.05,9.64,47.27]'), else strings (title=Cafe). Exits 1 with the error when the \
        reply says "ok": false. docs/control.md lists the commands.
        """)

    @OptionGroup var socket: SocketOptions

    @Option(help: "seconds to wait for the reply")
    var timeout: Double = 10

    @Argument(help: "the command, e.g. get_camera, move_camera, add_marker")
    var command: String

    @Argument(parsing: .captureForPassthrough, help: "arguments as key=value")
    var arguments: [String] = []

    func run() throws {
        // (issue 31: `--timeout inf` trapped converting to a timeval)
        checkSeconds(timeout, option: "--timeout", range: 0.001...86_400)
        do {
            let args = try ControlClient.arguments(arguments)
            let client = try ControlClient(path: socket.path(), timeout: timeout)
            let reply = try client.request(command, args)
            print(reply.text)
            if reply["ok"] != .bool(true) {
                fail(reply["error"]?.string ?? "the kiosk refused the command", code: 1)
            }
        } catch let e as ControlError {
            fail(e.message, code: 1)
        }
    }
}

/// `touchbridge events`: subscribes and prints the kiosk's event stream, one JSON object a line.
struct EventsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "events",
        abstract: "Print a running kiosk's event stream (docs/event-stream.md) from its control socket.")

    @OptionGroup var socket: SocketOptions

    @Option(help: "stop after this many lines of the stream")
    var count: Int?

    func run() throws {
        // Unbuffered: a pipe reader sees each event as it happens.
        // write(2), not FileHandle.write (which traps): `events | head` ends cleanly (exit 0).
        signal(SIGPIPE, SIG_IGN)
        let out = EventStreamWriter(fd: STDOUT_FILENO, name: "standard output")
        // `events | head -1` on an idle kiosk: the closed pipe is seen at once, not at the next event.
        OutputWatch.exitWhenClosed(fd: STDOUT_FILENO)
        func emit(_ line: String) {
            switch out.write(line + "\n") {
            case nil: break
            case .closed?: Foundation.exit(0)
            case let failure?: fail("cannot write the event stream: \(failure)", code: 1)
            }
        }
        do {
            let client = try ControlClient(path: socket.path(), timeout: 10)
            var printed = 0
            let reply = try client.request("subscribe") { line in emit(line); printed += 1 }
            guard reply["ok"] == .bool(true) else { fail(reply["error"]?.string ?? "the kiosk refused to subscribe", code: 1) }
            client.setTimeout(nil)
            while count.map({ printed < $0 }) ?? true {
                guard let line = try client.readLine() else {
                    // The kiosk closed the socket: it stopped, restarted or died. A script or a
                    // unit watching the stream must see that (issue 30), not a clean end.
                    fail("the kiosk closed the control socket \(socket.path()) after \(printed) lines (stopped, restarted or crashed?); no more events", code: 1)
                }
                emit(line)
                printed += 1
            }
        } catch let e as ControlError {
            fail(e.message, code: 1)
        }
    }
}
