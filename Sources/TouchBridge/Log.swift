import Foundation
import Logging

/// Messages for the person running the map: the call API is `log(.warning, "...")`;
/// underneath it is a swift-log `Logger`, so an app embedding `MapView` routes the messages
/// through its own `LoggingSystem` (swift-log's default: standard error). The kiosk logs to
/// the journal with each line at its own priority (`KioskLog.journal`, the Kiosk module).
public struct KioskLog: Sendable {
    public enum Level: Int, Sendable, Comparable {
        case error = 0, warning, info, debug
        public static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
        public init(name: String) {
            switch name {
            case "error": self = .error
            case "warning": self = .warning
            case "debug": self = .debug
            default: self = .info
            }
        }
        /// The word shown in front of a message on a terminal.
        public var name: String { ["error", "warning", "info", "debug"][rawValue] }
        var loggerLevel: Logger.Level {
            switch self {
            case .error: return .error
            case .warning: return .warning
            case .info: return .info
            case .debug: return .debug
            }
        }
    }

    public var level: Level {
        didSet { logger.logLevel = level.loggerLevel }
    }
    public private(set) var logger: Logger

    /// Logs through the process's `LoggingSystem` (label "touchbridge").
    public init(level: Level = .info) {
        self.init(level: level, logger: Logger(label: "touchbridge"))
    }

    /// Logs through `logger` (e.g. one made by an app's own `LoggingSystem`).
    public init(level: Level, logger: Logger) {
        self.level = level
        self.logger = logger
        self.logger.logLevel = level.loggerLevel
    }

    /// Told of every warning and error, whatever `level` lets through (the kiosk's `stats`
    /// keeps the last of each with its time).
    public var problemObserver: (@Sendable (Level, String) -> Void)?

    public func callAsFunction(_ l: Level, _ message: @autoclosure () -> String) {
        if l <= .warning, let problemObserver {
            let text = KioskLog.strippingLevelWord(message(), l)
            problemObserver(l, text)
            if l <= level { logger.log(level: l.loggerLevel, "\(text)") }
            return
        }
        guard l <= level else { return }
        logger.log(level: l.loggerLevel, "\(KioskLog.strippingLevelWord(message(), l))")
    }

    /// Some messages are built elsewhere already starting with "warning: " (text meant for a
    /// bare stderr); the handler adds the level itself, so drop the copy: one prefix per line.
    static func strippingLevelWord(_ message: String, _ l: Level) -> String {
        let word = l.name + ": "
        return message.hasPrefix(word) ? String(message.dropFirst(word.count)) : message
    }
}
