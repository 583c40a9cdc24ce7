import Foundation
import TouchCore
import MapEngine
import Rendering

/// Marker looks from the configuration and the control socket: a PNG icon file (drawn at its
/// own size, bottom centre on the coordinate, hit-tested over the drawn box) or a pin colour.
public enum MarkerLook {
    /// Decodes the PNG to learn its size, so that hit-testing matches what the renderer draws.
    /// Returns the icon or a message naming the file and what to do.
    public static func icon(path: String) -> Result<MarkerIcon, MarkerLookError> {
        guard FileManager.default.isReadableFile(atPath: path) else {
            return .failure(MarkerLookError(message: "cannot read the icon file \(path) (does it exist, and may the kiosk's user read it?)"))
        }
        guard let img = CairoImage.pngFile(path), img.width > 0, img.height > 0 else {
            return .failure(MarkerLookError(message: "\(path) is not a PNG image the kiosk can decode: give a PNG file"))
        }
        guard img.width <= 512, img.height <= 512 else {
            return .failure(MarkerLookError(message: "\(path) is \(img.width)x\(img.height) px: a marker icon may be at most 512x512"))
        }
        return .success(.image(name: path, size: Size(width: Double(img.width), height: Double(img.height)),
                               anchor: Point(x: 0.5, y: 1)))
    }

    /// "#RRGGBB" or "RRGGBB" (hex) to 0xRRGGBB.
    public static func color(_ text: String) -> UInt32? {
        var s = Substring(text.trimmingCharacters(in: .whitespaces))
        if s.hasPrefix("#") { s = s.dropFirst() }
        guard s.count == 6, s.allSatisfy(\.isHexDigit) else { return nil }
        return UInt32(s, radix: 16)
    }

    public static func colorText(_ rgb: UInt32) -> String { String(format: "#%06X", rgb) }
}

public struct MarkerLookError: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
