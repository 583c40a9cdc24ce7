import Foundation
import Rendering

/// Whether a folder or file the configuration names can be written (the kiosk's file checks
/// and the view's PNG display use these).
package enum FolderCheck {
    /// Whether this process may write into `folder` (and enter it).
    package static func writable(_ folder: String) -> Bool { access(folder, W_OK | X_OK) == 0 }

    /// nil when a file may be created at `path` (or written, if it exists); else why not.
    package static func creatableFileProblem(_ path: String, what: String) -> String? {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDir) {
            if isDir.boolValue { return "\(path) is a folder: name a file for the \(what)" }
            return access(path, W_OK) == 0 ? nil : "\(path) exists but this user (uid \(getuid())) may not write it: change its owner or mode, or name another file"
        }
        let folder = (path as NSString).deletingLastPathComponent.isEmpty ? "." : (path as NSString).deletingLastPathComponent
        return folderProblem(folder, create: false, for: what)
    }

    /// nil when `folder` exists and may be written (or, with `create`, may be made); else why not.
    package static func folderProblem(_ folder: String, create: Bool, for what: String) -> String? {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) {
            if !isDir.boolValue { return "\(folder) is a file, not a folder: name a folder for the \(what)" }
            return writable(folder) ? nil : "this user (uid \(getuid())) may not write in the folder \(folder) (for the \(what)): change its owner or mode (systemd: RuntimeDirectory= / StateDirectory=), or name another folder"
        }
        guard create else {
            return "the folder \(folder) (for the \(what)) does not exist: create it (systemd: RuntimeDirectory=touchbridge makes /run/touchbridge), or name a folder that exists"
        }
        // `run` creates the folder: its nearest existing parent must be writable.
        var parent = folder
        while true {
            let up = (parent as NSString).deletingLastPathComponent
            if up.isEmpty || up == parent { return nil }
            parent = up
            if FileManager.default.fileExists(atPath: parent, isDirectory: &isDir) {
                if !isDir.boolValue { return "\(parent) is a file: the folder \(folder) (for the \(what)) cannot be made in it" }
                return writable(parent) ? nil : "the folder \(folder) (for the \(what)) does not exist and this user (uid \(getuid())) may not create it in \(parent): create it, or name another folder"
            }
        }
    }
}

/// Whether a tile set file can be shown: it opens as MBTiles or PMTiles and holds raster or
/// vector tiles. Used by `check` and `run` (which refuses what it cannot show) and `reload`.
package enum TileFileCheck {
    /// nil when the file opens; else what is wrong, naming the file.
    public static func problem(path: String) -> String? {
        let opened = MapRenderer.openTiles(path: path, rasterCacheCapacity: 1, vectorCacheBytes: 1 << 20)
        if opened.raster != nil || opened.vector != nil { return nil }
        let why = opened.warnings.first.map(clean) ?? "\(path): not a tile set"
        return why + " (source = \"tiles\" needs an MBTiles or PMTiles file this user may read; or write source = \"builtin\")"
    }

    /// A renderer warning as a sentence of an error: no "warning: ", no fallback promise.
    static func clean(_ w: String) -> String {
        var s = w
        if s.hasPrefix("warning: ") { s.removeFirst("warning: ".count) }
        s = s.replacingOccurrences(of: " Showing the built-in world map instead.", with: "")
        while s.hasSuffix(".") || s.hasSuffix(" ") { s.removeLast() }
        return s
    }

    /// "MBTiles" or "PMTiles", told by the file's first bytes (as `TileArchive.open` does), or nil.
    public static func container(path: String) -> String? {
        guard let h = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? h.close() }
        let head = (try? h.read(upToCount: 16)) ?? Data()
        if head.starts(with: Array("SQLite format 3".utf8)) { return "MBTiles" }
        if head.starts(with: Array("PMTiles".utf8)) { return "PMTiles" }
        return nil
    }
}
