import Foundation
import Testing
@testable import TouchBridge
@testable import Kiosk

/// The event stream survives its reader: a full disk or a closed pipe is reported once and the
/// writer goes on (the kiosk keeps running); when writing works again that is reported too.
@Suite struct EventStreamWriterTests {
    @Test func aFullDiskIsReportedOnceAndLinesAreDropped() throws {
        var reports: [String] = []
        let w = try EventStreamWriter.open(path: "/dev/full") { reports.append($0) }
        for _ in 0..<5 { #expect(w.write("{\"t\":0}\n") == .error(errno: .noSpace)) }
        #expect(reports.count == 1)
        #expect(reports.first?.contains("cannot write the event stream to /dev/full: No space left on device") == true)
        #expect(w.droppedLines == 5)
    }

    @Test func aClosedPipeIsAnErrorNotASignalOrATrap() throws {
        let old = signal(SIGPIPE, SIG_IGN)   // as under systemd
        defer { signal(SIGPIPE, old) }
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])
        defer { close(fds[1]) }
        var reports: [String] = []
        let w = EventStreamWriter(fd: fds[1], name: "pipe") { reports.append($0) }
        #expect(w.write("line\n") == .closed)
        #expect(w.write("line\n") == .closed)
        #expect(reports.count == 1 && reports[0].contains("the reader closed the pipe"))
    }

    @Test func writingAgainAfterAnOutageIsReported() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        var reports: [String] = []
        let w = EventStreamWriter(fd: fds[1], name: "slow reader") { reports.append($0) }
        let line = String(repeating: "x", count: 4095) + "\n"
        var failures = 0
        for _ in 0..<100 where w.write(line) != nil { failures += 1 }   // the pipe (64 KiB) fills
        #expect(failures > 0 && w.failure == .full)
        var buf = [UInt8](repeating: 0, count: 1 << 20)
        _ = read(fds[0], &buf, buf.count)                              // the reader catches up
        #expect(w.write("{}\n") == nil)
        #expect(reports.count == 2)
        #expect(reports[1].contains("works again (\(failures) lines were dropped)"))
    }

    @Test func aFIFOWithNoReaderIsAnErrorNotAHang() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-fifo-\(getpid())").path
        unlink(path)
        #expect(mkfifo(path, 0o600) == 0)
        defer { unlink(path) }
        do {
            _ = try EventStreamWriter.open(path: path)
            Issue.record("expected an error")
        } catch let e as EventStreamWriter.Failure {
            #expect(e.description == "it is a FIFO that no process reads")
        }
    }

    @Test func linesAreAppendedWhole() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("tb-events-\(getpid()).jsonl").path
        try "old\n".write(toFile: path, atomically: true, encoding: .utf8)
        defer { unlink(path) }
        let w = try EventStreamWriter.open(path: path)
        #expect(w.write("{\"a\":1}\n") == nil)
        w.sync()
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "old\n{\"a\":1}\n")
    }
}
