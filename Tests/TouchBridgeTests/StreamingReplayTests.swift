import Foundation
import Testing
import TouchCore
@testable import TouchBridge
@testable import Kiosk

/// Recordings are streamed a line at a time (a 200 MB recording does not become 600 MB of
/// memory), with LF or CRLF line ends, and the result is the same as reading them whole.
@Suite struct StreamingReplayTests {
    static let dir = repoRoot.appendingPathComponent("Tests/TouchCoreTests/Fixtures/evemu")

    func temp(_ name: String, _ contents: String) throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-stream-\(getpid())")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let path = dir.appendingPathComponent(name).path
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func streamed(_ path: String, desc: String? = nil) throws -> [String] {
        var lines: [String] = []
        try Replay.stream(path: path, descPath: desc, screen: Size(width: 1280, height: 800),
                          configuration: KioskConfiguration(), contacts: true) { lines.append($0) }
        return lines
    }

    @Test(arguments: ["Atmel maXTouch Touchscreen.2-fingers-touch-release", "N-Trig MultiTouch.1-finger-drag-NW-SE",
                      "QUANTA OpticalTouchScreen.touch-hover"])
    func streamingGivesTheSameStreamAsReadingWhole(_ name: String) throws {
        let path = Self.dir.appendingPathComponent(name + ".events").path
        var whole: [String] = []
        Replay.run(try Replay.load(path: path, descPath: nil), screen: Size(width: 1280, height: 800),
                   configuration: KioskConfiguration(), contacts: true) { whole.append($0) }
        let lines = try streamed(path)
        #expect(lines.count > 10)
        #expect(lines == whole)
    }

    @Test func aCRLFCombinedRecordingReplaysLikeItsLFOriginal() throws {
        let base = Self.dir.appendingPathComponent("N-Trig MultiTouch").path
        let text = try String(contentsOfFile: base + ".desc", encoding: .utf8)
            + (try String(contentsOfFile: base + ".1-finger-drag-NW-SE.events", encoding: .utf8))
        let lf = try temp("lf.evemu", text)
        let crlf = try temp("crlf.evemu", text.replacingOccurrences(of: "\n", with: "\r\n"))
        #expect(try streamed(crlf) == (try streamed(lf)))
    }

    @Test func aBadLineMidFileNamesFileAndLine() throws {
        let base = Self.dir.appendingPathComponent("N-Trig MultiTouch").path
        let desc = try String(contentsOfFile: base + ".desc", encoding: .utf8)
        let descLines = desc.split(separator: "\n", omittingEmptySubsequences: false).count - 1
        let path = try temp("bad.evemu", desc + "E: 0.000000 0000 0000 0\r\nE: 0.1 0003 0035 nope\r\n")
        do {
            _ = try streamed(path)
            Issue.record("expected an error")
        } catch let e as Replay.ReplayError {
            #expect(e.description.hasPrefix("\(path):\(descLines + 2): bad number nope"))
        }
    }

    @Test func aDeviceWithoutPositionAxesIsRefusedBeforeAnyOutput() throws {
        let path = try temp("keyboard.evemu", "N: Keyboard\nB: 01 ff ff\nE: 0.000000 0001 001e 1\n")
        var lines: [String] = []
        #expect(throws: Replay.ReplayError.self) {
            try Replay.stream(path: path, descPath: nil, screen: Size(width: 100, height: 100),
                              configuration: KioskConfiguration(), contacts: false) { lines.append($0) }
        }
        #expect(lines.isEmpty)
    }

    @Test func lineReaderSplitsLFAndCRLFAndKeepsALastLineWithoutEnd() throws {
        let path = try temp("lines.txt", "a\r\nb\n\nc\r")
        let r = try TextLineReader(path: path)
        var got: [String] = []
        while let l = try r.next() { got.append(String(l)) }
        #expect(got == ["a", "b", "", "c"])
        #expect(r.lineNumber == 4)
    }

    @Test func lineReaderRefusesALineLongerThanItsLimitAndFolders() throws {
        let path = try temp("long.txt", "short\n" + String(repeating: "x", count: 300_000) + "\n")
        let r = try TextLineReader(path: path, maxLineBytes: 100_000)
        #expect(try r.next() == "short")
        do { _ = try r.next(); Issue.record("expected an error") } catch let e as TextLineReader.ReadError {
            #expect(e.description.contains(":2: a line longer than 100000 bytes"))
        }
        #expect(throws: TextLineReader.ReadError.self) { try TextLineReader(path: FileManager.default.temporaryDirectory.path) }
        #expect(throws: TextLineReader.ReadError.self) { try TextLineReader(path: "/nonexistent/recording.evemu") }
    }

    @Test func lineReaderReadsManyLinesThroughOneSmallBuffer() throws {
        // 4 MB in 65,536-byte reads: lines that straddle reads come out whole.
        let line = "E: 1.000000 0003 0035 1234567\n"
        let count = 4_000_000 / line.utf8.count
        let path = try temp("many.evemu", String(repeating: line, count: count))
        let r = try TextLineReader(path: path)
        var n = 0
        while let l = try r.next() {
            if l != line.dropLast() { Issue.record("line \(n + 1) is \(l)"); break }
            n += 1
        }
        #expect(n == count)
    }

    /// Issue 30: a `libinput record` YAML file replays as the evemu recording it was made from
    /// (Tests/TouchCoreTests/Fixtures/libinput-record/make-from-evemu.py): the same event stream.
    @Test func aLibinputRecordFileReplaysAsItsEvemuRecording() throws {
        let yml = repoRoot.appendingPathComponent("Tests/TouchCoreTests/Fixtures/libinput-record/atmel-2-fingers.yml").path
        let evemu = Self.dir.appendingPathComponent("Atmel maXTouch Touchscreen.2-fingers-touch-release.events").path
        let a = try streamed(yml), b = try streamed(evemu)
        #expect(a.count > 10 && a == b)
        // Found by its content, whatever its name.
        let renamed = try temp("bug-report-recording.txt", try String(contentsOfFile: yml, encoding: .utf8))
        #expect(try streamed(renamed) == b)
    }
}
