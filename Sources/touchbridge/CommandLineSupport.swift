import ArgumentParser
import Foundation
import MapEngine
import Rendering
import TouchCore
import TouchBridge

// What the subcommands share: parsing sizes and cameras, failing with a message, and the
// check that the built-in map is installed.

/// A file the user named cannot be used: said without the usage text a flag error gets.
struct InputFileError: Error, CustomStringConvertible {
    var description: String
}

func parseSize(_ s: String, option: String) throws -> Size {
    let p = s.lowercased().split(separator: "x")
    guard p.count == 2, let w = Int(p[0]), let h = Int(p[1]), w > 0, h > 0 else {
        throw ValidationError("\(option) needs WIDTHxHEIGHT, e.g. 1280x800; got '\(s)'")
    }
    return Size(width: Double(w), height: Double(h))
}

func parseCamera(_ s: String) throws -> CameraPosition {
    let v = s.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard (3...5).contains(v.count), v.allSatisfy({ $0 != nil }) else {
        throw ValidationError("--camera needs LAT,LON,ZOOM[,BEARING,TILT]; got '\(s)'")
    }
    let n = v.map { $0! }
    guard (-90...90).contains(n[0]), (-180...180).contains(n[1]), (0...24).contains(n[2]) else {
        throw ValidationError("--camera: latitude -90...90, longitude -180...180, zoom 0...24; got '\(s)'")
    }
    return CameraPosition(target: Coordinate(latitude: n[0], longitude: n[1]), zoom: n[2],
                          bearing: n.count > 3 ? n[3] : 0, tilt: n.count > 4 ? n[4] : 0)
}

/// Prints a message for the user on stderr and exits with `code`.
func fail(_ message: String, code: Int32) -> Never {
    // At priority err in the journal (a service's failed start or ExecReload shows in `journalctl -p err`).
    FileHandle.standardError.write(Data(JournalLogHandler.errorText("touchbridge: " + message).utf8))
    exit(code)
}

/// The map data must be there before anything draws: say where it is looked for, exit 1.
func requireWorldMap() {
    do { _ = try BuiltInWorld.load() } catch { fail("\(error)", code: 1) }
}
