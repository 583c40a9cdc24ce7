import Foundation
import Logging
import Testing
@testable import TouchBridge
@testable import Kiosk
#if canImport(Glibc)
import Glibc
#endif

/// Collects what a handler writes (the handler's write closure must be Sendable).
final class WrittenText: @unchecked Sendable {
    private let lock = NSLock()
    private var parts: [String] = []
    func append(_ s: String) { lock.lock(); parts.append(s); lock.unlock() }
    var text: String { lock.lock(); defer { lock.unlock() }; return parts.joined() }
}

@Suite struct JournalLogTests {
    func kioskLog(_ style: JournalLogHandler.Style, level: KioskLog.Level = .info) -> (KioskLog, WrittenText) {
        let out = WrittenText()
        let logger = Logger(label: "touchbridge") { JournalLogHandler(label: $0, style: style, write: out.append) }
        return (KioskLog(level: level, logger: logger), out)
    }

    @Test func journalLinesCarryTheSyslogPriority() {
        let (log, out) = kioskLog(.journal, level: .debug)
        log(.error, "display: gone")
        log(.warning, "no touchscreen found yet")
        log(.info, "first frame")
        log(.debug, "card1: no connector")
        #expect(out.text == "<3>display: gone\n<4>no touchscreen found yet\n<6>first frame\n<7>card1: no connector\n")
    }

    @Test func aTerminalGetsPlainTextWithTheLevelWord() {
        let (log, out) = kioskLog(.plain)
        log(.warning, "no touchscreen found yet")
        #expect(out.text == "touchbridge warning: no touchscreen found yet\n")
    }

    @Test func oneLevelPrefixPerLineEvenWhenTheMessageCarriesItsOwn() {
        // MapRenderer.openRaster's text starts with "warning: " (it is also printed bare by render).
        let (log, out) = kioskLog(.plain)
        log(.warning, "warning: x.mbtiles: not a tile set. Showing the built-in world map instead.")
        #expect(out.text == "touchbridge warning: x.mbtiles: not a tile set. Showing the built-in world map instead.\n")
        let (jlog, jout) = kioskLog(.journal)
        jlog(.warning, "warning: x")
        #expect(jout.text == "<4>x\n")
    }

    @Test func everyLineOfAMessageKeepsItsPriority() {
        // journald makes one entry per line: without its own prefix a second line would be info.
        let (log, out) = kioskLog(.journal)
        log(.error, "SIGHUP: /etc/touchbridge/touchbridge.toml:3: bad\nsecond line\n")
        #expect(out.text == "<3>SIGHUP: /etc/touchbridge/touchbridge.toml:3: bad\n<3>second line\n")
        #expect(JournalLogHandler.errorText("a\nb", style: .journal) == "<3>a\n<3>b\n")
        #expect(JournalLogHandler.errorText("touchbridge: a", style: .plain) == "touchbridge: a\n")
    }

    @Test func levelsBelowTheConfiguredOneAreDropped() {
        var (log, out) = kioskLog(.journal, level: .warning)
        log(.info, "quiet")
        log(.debug, "quieter")
        log(.error, "loud")
        log.level = .debug
        log(.debug, "now shown")
        #expect(out.text == "<3>loud\n<7>now shown\n")
    }

    @Test func metadataFollowsTheMessage() {
        let text = JournalLogHandler.format("opened", level: .notice, label: "touchbridge",
                                            metadata: ["path": "/dev/input/event3", "kind": "protocolB"], style: .journal)
        #expect(text == "<5>opened kind=protocolB path=/dev/input/event3\n")
        #expect(JournalLogHandler.priority(.critical) == 2 && JournalLogHandler.priority(.trace) == 7)
    }

    /// JOURNAL_STREAM is "device:inode" of the stream systemd connected; only a descriptor
    /// that is that very file is the journal.
    @Test func theJournalIsRecognisedByDeviceAndInodeOfTheDescriptor() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("journal-\(getpid()).txt").path
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(path) }
        var st = stat()
        try #require(fstat(fd, &st) == 0)
        let mine = "\(st.st_dev):\(st.st_ino)"
        #expect(JournalLogHandler.detectStyle(environment: ["JOURNAL_STREAM": mine], fd: fd) == .journal)
        #expect(JournalLogHandler.detectStyle(environment: ["JOURNAL_STREAM": "\(st.st_dev):\(st.st_ino + 1)"], fd: fd) == .plain)
        #expect(JournalLogHandler.detectStyle(environment: [:], fd: fd) == .plain)
        #expect(JournalLogHandler.detectStyle(environment: ["JOURNAL_STREAM": "garbage"], fd: fd) == .plain)
        #expect(JournalLogHandler.detectStyle(environment: ["JOURNAL_STREAM": mine], fd: 987) == .plain)
    }
}
