import Foundation
import TouchBridge

/// The operator's keys (docs/operations.md): screen blanking and the backlight (`[display]`),
/// the attract loop (`[kiosk]`) and the metrics textfile (`[metrics]`).
extension ConfigSchema {
    static let operationsKeys: [ConfigKey] = [
        .init(section: "display", name: "blank_after_s", type: .number, doc: "seconds without a touch before the display is turned off (DPMS); the first touch wakes it and is not a gesture; 0 = never"),
        .init(section: "display", name: "backlight", type: .string, doc: "a /sys/class/backlight device (e.g. \"intel_backlight\") set to backlight_active in use and backlight_dim while blanked"),
        .init(section: "display", name: "backlight_active", type: .integer, doc: "brightness in use (default: the device's max_brightness)"),
        .init(section: "display", name: "backlight_dim", type: .integer, doc: "brightness while blanked (default 0)"),
        .init(section: "kiosk", name: "attract_after_s", type: .number, doc: "seconds without a touch before the attract tour plays; the first touch stops it (and is not a gesture) and the camera goes home; 0 = never"),
        .init(section: "kiosk", name: "attract", type: .string, doc: "\"demo\" (the built-in tour) or the absolute path of an evemu recording to play"),
        .init(section: "metrics", name: "textfile", type: .string, doc: "absolute path of a Prometheus text file written atomically every interval_s (node_exporter's textfile collector)"),
        .init(section: "metrics", name: "interval_s", type: .number, doc: "seconds between writes of the metrics textfile (1 to 3600, default 15)"),
    ]
}

extension ConfigReader {
    /// `[display]`'s blanking and backlight keys.
    func displayOperations(_ v: [String: ConfigValue], prefix: String, into o: inout KioskConfiguration.OperationsSettings) throws {
        if let n = v["blank_after_s"]?.number ?? v["blank_after_s"]?.integer.map(Double.init) {
            guard n.isFinite, (0...604_800).contains(n) else { throw error("\(prefix).blank_after_s", "must be 0 (never) to 604800 seconds, got \(n)") }
            o.blankAfter = n
        }
        if let s = v["backlight"]?.string {
            guard !s.isEmpty, !s.contains("/"), s != ".", s != ".." else {
                throw error("\(prefix).backlight", "'\(s)' is not a device name: write the name of a folder in /sys/class/backlight (ls /sys/class/backlight)")
            }
            o.backlight = s
        }
        if let i = v["backlight_active"]?.integer {
            guard i >= 0 else { throw error("\(prefix).backlight_active", "must not be negative, got \(i)") }
            o.backlightActive = i
        }
        if let i = v["backlight_dim"]?.integer {
            guard i >= 0 else { throw error("\(prefix).backlight_dim", "must not be negative, got \(i)") }
            o.backlightDim = i
        }
    }

    /// `[kiosk]`: the attract loop.
    func kiosk(_ v: [String: ConfigValue], prefix: String, into o: inout KioskConfiguration.OperationsSettings) throws {
        if let n = v["attract_after_s"]?.number ?? v["attract_after_s"]?.integer.map(Double.init) {
            guard n.isFinite, (0...604_800).contains(n) else { throw error("\(prefix).attract_after_s", "must be 0 (never) to 604800 seconds, got \(n)") }
            o.attractAfter = n
        }
        if let s = v["attract"]?.string {
            guard s == "demo" || s.hasPrefix("/") else {
                throw error("\(prefix).attract", "'\(s)' is neither \"demo\" nor an absolute path of an evemu recording")
            }
            if s != "demo" {
                var isDir: ObjCBool = false
                guard FileManager.default.fileExists(atPath: s, isDirectory: &isDir), !isDir.boolValue,
                      FileManager.default.isReadableFile(atPath: s) else {
                    throw error("\(prefix).attract", "cannot read the recording \(s) (does it exist, and may this user read it?)")
                }
            }
            o.attract = s
        }
    }

    /// `[metrics]`: the Prometheus textfile.
    func metrics(_ v: [String: ConfigValue], prefix: String, into o: inout KioskConfiguration.OperationsSettings) throws {
        if let s = v["textfile"]?.string {
            guard s.hasPrefix("/"), !s.hasSuffix("/") else {
                throw error("\(prefix).textfile", "'\(s)' is not an absolute file path: write e.g. \"/var/lib/prometheus/node-exporter/touchbridge.prom\"")
            }
            let folder = (s as NSString).deletingLastPathComponent
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir), isDir.boolValue else {
                throw error("\(prefix).textfile", "the folder \(folder) does not exist: create it, or point textfile into an existing one")
            }
            guard FileManager.default.isWritableFile(atPath: folder) else {
                throw error("\(prefix).textfile", "this user may not write in \(folder): the file is written there (a temporary file, then renamed)")
            }
            o.metricsTextfile = s
        }
        if let n = v["interval_s"]?.number ?? v["interval_s"]?.integer.map(Double.init) {
            guard n.isFinite, (1...3600).contains(n) else { throw error("\(prefix).interval_s", "must be 1 to 3600 seconds, got \(n)") }
            o.metricsInterval = n
        }
    }
}
