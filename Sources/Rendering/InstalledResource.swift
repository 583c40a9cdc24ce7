import Foundation

/// Where a resource of Rendering's (world.bin, the POI sprite) is found: the path in an
/// environment variable; beside an installed binary (../share/touchbridge); the SwiftPM resource
/// folder beside the binary (a build tree); /usr/local/share or /usr/share/touchbridge. The one
/// search both share, in that order.
enum InstalledResource {
    /// The places to look for `relative` (e.g. "world.bin", "sprite/sprite"), first to last.
    static func candidates(_ relative: String, override variable: String) -> [String] {
        var out: [String] = []
        if let p = ProcessInfo.processInfo.environment[variable], !p.isEmpty { out.append(p) }
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
        let dir = URL(fileURLWithPath: exe).deletingLastPathComponent()
        out += [
            dir.appendingPathComponent("../share/touchbridge/" + relative).standardizedFileURL.path,
            dir.appendingPathComponent("TouchBridge_Rendering.resources/Resources/" + relative).path,
            dir.appendingPathComponent("TouchBridge_Rendering.resources/" + relative).path,
            "/usr/local/share/touchbridge/" + relative,
            "/usr/share/touchbridge/" + relative,
        ]
        return out
    }
}
