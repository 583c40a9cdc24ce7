import Foundation

/// Messages for the person running the kiosk, on stderr (the journal under systemd).
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
    }
    public var level: Level
    public init(level: Level = .info) { self.level = level }

    public func callAsFunction(_ l: Level, _ message: @autoclosure () -> String) {
        guard l <= level else { return }
        let tag = ["error", "warning", "info", "debug"][l.rawValue]
        FileHandle.standardError.write(Data("touchbridge \(tag): \(message())\n".utf8))
    }
}
