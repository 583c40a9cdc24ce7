import ArgumentParser
import Foundation
import MapEngine
import Rendering
import TouchCore
import TouchBridge
import Kiosk

// What the subcommands share: parsing sizes and cameras, failing with a message, and the
// check that the built-in map is installed.

/// A file the user named cannot be used: said without the usage text a flag error gets.
struct InputFileError: Error, CustomStringConvertible {
    var description: String
}

/// Frames are cairo image surfaces: at most 32767 pixels a side (cairo's limit) and at most
/// 2^27 pixels (512 MiB of XRGB8888), so that a typo cannot ask for tens of gigabytes.
let maxFrameSide = 32767
let maxFramePixels = 1 << 27

/// WIDTHxHEIGHT, each side 1...32767; with `frame`, also few enough pixels to allocate.
/// A value out of range is a configuration error: exit 2 with a message, never a trap.
func parseSize(_ s: String, option: String, frame: Bool = false) throws -> Size {
    let p = s.lowercased().split(separator: "x", omittingEmptySubsequences: false)
    guard p.count == 2, let w = Int(p[0]), let h = Int(p[1]) else {
        fail("\(option) needs WIDTHxHEIGHT, e.g. 1280x800; got '\(s)'", code: 2)
    }
    guard (1...maxFrameSide).contains(w), (1...maxFrameSide).contains(h) else {
        fail("\(option): width and height must be 1 to \(maxFrameSide) pixels; got '\(s)'", code: 2)
    }
    if frame && w * h > maxFramePixels {
        fail("\(option): \(w)x\(h) is \(w * h / 1_000_000) megapixels, more than the \(maxFramePixels / 1_000_000) a frame may have; got '\(s)'", code: 2)
    }
    return Size(width: Double(w), height: Double(h))
}

/// LAT,LON,ZOOM[,BEARING,TILT], every number finite and in range (exit 2 otherwise).
func parseCamera(_ s: String) throws -> CameraPosition {
    let v = s.split(separator: ",").map { Double($0.trimmingCharacters(in: .whitespaces)) }
    guard (3...5).contains(v.count), v.allSatisfy({ $0?.isFinite == true }) else {
        fail("--camera needs LAT,LON,ZOOM[,BEARING,TILT] (finite numbers); got '\(s)'", code: 2)
    }
    let n = v.map { $0 ?? 0 }
    guard (-90...90).contains(n[0]), (-180...180).contains(n[1]), (0...24).contains(n[2]),
          n.count < 4 || (-360...360).contains(n[3]), n.count < 5 || (0...90).contains(n[4]) else {
        fail("--camera: latitude -90...90, longitude -180...180, zoom 0...24, bearing -360...360, tilt 0...90; got '\(s)'", code: 2)
    }
    return CameraPosition(target: Coordinate(latitude: n[0], longitude: n[1]), zoom: n[2],
                          bearing: n.count > 3 ? n[3] : 0, tilt: n.count > 4 ? n[4] : 0)
}

/// A number of seconds from the command line: finite and within `range` (exit 2 otherwise).
/// 10^9 s (31 years) is more than any run; beyond it a deadline is as good as none.
func checkSeconds(_ v: Double?, option: String, range: ClosedRange<Double> = 0...1e9) {
    guard let v else { return }
    guard v.isFinite, range.contains(v) else {
        fail(String(format: "%@ needs seconds from %g to %g; got %g", option, range.lowerBound, range.upperBound, v), code: 2)
    }
}

/// A count from the command line within `range` (exit 2 otherwise).
func checkCount(_ v: Int?, option: String, range: ClosedRange<Int>) {
    guard let v else { return }
    guard range.contains(v) else { fail("\(option) needs a number from \(range.lowerBound) to \(range.upperBound); got \(v)", code: 2) }
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
