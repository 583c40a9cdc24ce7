import Foundation
import Display
import TouchDevices

/// The one reading of the strings a configuration file and the command line share, so that
/// `[display] mode` and `render --mode`, `[[touch]] match` and `--device` / `replay --live
/// --follow` accept the same things. Each returns the domain value (Display's `ModeRequest`,
/// TouchDevices' `TouchDeviceMatch`) or says what to write instead.
package enum ConfigStrings {
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// The largest width or height, and the most pixels, of a mode or a size.
    public static let maxSide = 16_384, maxPixels = 8_192 * 8_192

    /// "preferred" -> nil (the connector's preferred mode); "WIDTHxHEIGHT" or
    /// "WIDTHxHEIGHT@HZ" ('x' or 'X'; HZ may have decimals and is rounded: 59.94 -> 60).
    public static func mode(_ s: String) throws(Invalid) -> ModeRequest? {
        let t = s.trimmingCharacters(in: .whitespaces)
        if t == "preferred" { return nil }
        let invalid = Invalid(description: "'\(s)' is not a mode: write \"preferred\", \"1920x1080\" or \"1920x1080@60\"")
        let parts = t.lowercased().split(separator: "@", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count) else { throw invalid }
        let wh = parts[0].split(separator: "x", omittingEmptySubsequences: false)
        guard wh.count == 2, let w = Int(wh[0]), let h = Int(wh[1]), w > 0, h > 0 else { throw invalid }
        // DRM's own limit; and no frame over 256 MiB (a 100000x100000 "size" asked for 40 GB).
        guard w <= maxSide, h <= maxSide, w * h <= maxPixels else {
            throw Invalid(description: "'\(s)' is larger than a display this program drives: at most \(maxSide) px a side and \(maxPixels / 1_048_576) megapixels (8192x8192)")
        }
        var hz: Int? = nil
        if parts.count == 2 {
            guard let v = Double(parts[1]), v.isFinite, v >= 1, v < 1000 else { throw invalid }
            hz = Int(v.rounded())
        }
        return ModeRequest(width: w, height: h, refreshHz: hz)
    }

    /// A size "WIDTHxHEIGHT" (a mode without refresh rate or "preferred").
    public static func size(_ s: String) throws(Invalid) -> (Int, Int) {
        guard s.trimmingCharacters(in: .whitespaces) != "preferred", let m = try? mode(s), m.refreshHz == nil else {
            throw Invalid(description: "'\(s)' is not a size: write \"1280x800\"")
        }
        return (m.width, m.height)
    }

    /// "auto" -> nil (every touchscreen); a path ("/dev/input/event3"); "VVVV:PPPP" (USB
    /// vendor:product, four hex digits each); "name:TEXT" or any other text: a case-insensitive
    /// substring of the device name ("name:" for a name that looks like one of the others).
    public static func deviceMatch(_ s: String) throws(Invalid) -> TouchDeviceMatch? {
        let t = s.trimmingCharacters(in: .whitespaces)
        let invalid = Invalid(description: "'\(s)' is not a device match: use \"auto\", a /dev/input path, \"name:TEXT\" (or just TEXT) or \"VVVV:PPPP\" in hex")
        if t == "auto" { return nil }
        if t.hasPrefix("/") { return .path(t) }
        if t.hasPrefix("name:") {
            let n = t.dropFirst(5).trimmingCharacters(in: .whitespaces)
            guard !n.isEmpty else { throw invalid }
            return .name(n)
        }
        let p = t.split(separator: ":", omittingEmptySubsequences: false)
        if p.count == 2, p[0].count == 4, p[1].count == 4, let v = UInt16(p[0], radix: 16), let pr = UInt16(p[1], radix: 16) {
            return .vendorProduct(vendor: v, product: pr)
        }
        guard !t.isEmpty else { throw invalid }
        return .name(t)
    }
}
