import TouchBridge
import Foundation
import Platform
import Logging

/// A swift-log handler for a service: when stderr is connected to the journal (systemd sets
/// JOURNAL_STREAM to the "device:inode" of that stream), each line starts with the syslog
/// priority in angle brackets (`<3>` error, `<4>` warning, `<6>` info, `<7>` debug), which
/// journald turns into the entry's PRIORITY, so `journalctl -p err` finds errors. Anywhere
/// else (a terminal, a pipe, a file) it writes "touchbridge LEVEL: message". A message of
/// several lines is written as several lines, each with its own prefix, because journald
/// makes one entry per line.
package struct JournalLogHandler: LogHandler {
    public enum Style: Sendable, Equatable {
        case journal  // "<N>message"
        case plain    // "touchbridge warning: message"
    }

    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public let label: String
    public let style: Style
    private let write: @Sendable (String) -> Void

    /// Writes to stderr, in the style `JournalLogHandler.detectStyle()` finds for it.
    public init(label: String) {
        self.init(label: label, style: JournalLogHandler.detectStyle()) { text in
            // One write per message: lines from one message are not interleaved with others.
            try? FileIO.writeAll(2, text, path: "stderr")
        }
    }

    /// Writes through `write` (tests).
    public init(label: String, style: Style, write: @escaping @Sendable (String) -> Void) {
        self.label = label
        self.style = style
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var merged = metadata
        if let m = event.metadata { merged.merge(m) { _, new in new } }
        write(JournalLogHandler.format(event.message.description, level: event.level, label: label,
                                       metadata: merged, style: style))
    }

    /// syslog priority of a swift-log level (sd-daemon.h's SD_ERR etc.).
    public static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// The text written for one message: every line prefixed, ending in a newline.
    public static func format(_ message: String, level: Logger.Level, label: String,
                              metadata: Logger.Metadata = [:], style: Style) -> String {
        var text = message
        if !metadata.isEmpty {
            text += " " + metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        let prefix: String
        switch style {
        case .journal: prefix = "<\(priority(level))>"
        case .plain: prefix = "\(label) \(level == .critical ? "critical" : level.rawValue): "
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        return lines.map { prefix + $0.replacingOccurrences(of: "\r", with: "") + "\n" }.joined()
    }

    /// A message that already carries its own words (a command's error): plain on a terminal,
    /// at priority err in the journal; every line prefixed.
    public static func errorText(_ message: String, style: Style = detectStyle()) -> String {
        var lines = message.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1, lines.last == "" { lines.removeLast() }
        let prefix = style == .journal ? "<3>" : ""
        return lines.map { prefix + $0 + "\n" }.joined()
    }

    /// `.journal` when fd 2 is the stream JOURNAL_STREAM names ("DEV:INODE", decimal), else
    /// `.plain`. Comparing the numbers (not just the variable being set) matters: a child
    /// whose stderr was redirected to a file inherits JOURNAL_STREAM but not the journal.
    public static func detectStyle(environment: [String: String] = ProcessInfo.processInfo.environment,
                                   fd: Int32 = 2) -> Style {
        guard let value = environment["JOURNAL_STREAM"] else { return .plain }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return .plain }
        guard let st = try? FileStatus.of(descriptor: fd) else { return .plain }
        return st.device == dev && st.inode == ino ? .journal : .plain
    }
}

extension KioskLog {
    /// The kiosk's log: standard error through `JournalLogHandler` (journal priorities under
    /// systemd, "touchbridge warning: ..." lines on a terminal).
    public static func journal(level: Level = .info) -> KioskLog {
        KioskLog(level: level, logger: Logger(label: "touchbridge") { JournalLogHandler(label: $0) })
    }
}
