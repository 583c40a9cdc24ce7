import Foundation
import TouchCore
import MapEngine
import Rendering
import CCairo

/// Marker looks from the configuration and the control socket: a PNG icon file (drawn at its
/// own size, bottom centre on the coordinate, hit-tested over its drawn pixels) or a pin colour.
package enum MarkerLook {
    /// The largest icon file read (docs/limits.md).
    public static let maxIconBytes = 4 << 20
    /// An image icon and the pixels a tap may hit.
    public struct Icon: Sendable, Equatable {
        public var icon: MarkerIcon
        public var hitMask: IconHitMask?
    }

    /// Decodes the PNG to learn its size and which pixels it draws, so that hit-testing matches
    /// what the renderer draws. Returns the icon or a message naming the file and what to do.
    public static func icon(path: String) -> Result<Icon, MarkerLookError> {
        guard FileManager.default.isReadableFile(atPath: path) else {
            return .failure(MarkerLookError(message: "cannot read the icon file \(path) (does it exist, and may the kiosk's user read it?)"))
        }
        // Size and header first: nothing is decoded that could not be an icon.
        if let problem = PNGFileCheck.problem(path: path, maxSide: 512, maxBytes: maxIconBytes, what: "marker icon") {
            return .failure(MarkerLookError(message: problem))
        }
        guard let img = CairoImage.pngFile(path), img.width > 0, img.height > 0 else {
            return .failure(MarkerLookError(message: "\(path) is not a PNG image the kiosk can decode: give a PNG file"))
        }
        guard img.width <= 512, img.height <= 512 else {
            return .failure(MarkerLookError(message: "\(path) is \(img.width)x\(img.height) px: a marker icon may be at most 512x512"))
        }
        return .success(Icon(icon: .image(name: path, size: Size(width: Double(img.width), height: Double(img.height)),
                                          anchor: Point(x: 0.5, y: 1)),
                             hitMask: hitMask(img)))
    }

    /// A client's icon decoded from the bytes read through the descriptor that was checked
    /// (`ConfinedPath.read`): the image the renderer keeps (`DecodedImages`) and draws, with no
    /// second open by path.
    public static func icon(data: Data, path: String) -> Result<(icon: Icon, image: CairoImage), MarkerLookError> {
        if let problem = PNGFileCheck.problem(header: data, path: path, maxSide: 512, what: "marker icon") {
            return .failure(MarkerLookError(message: problem))
        }
        guard let img = CairoImage.png(data), img.width > 0, img.height > 0, img.width <= 512, img.height <= 512 else {
            return .failure(MarkerLookError(message: "\(path) is not a PNG image the kiosk can decode: give a PNG file"))
        }
        return .success((Icon(icon: .image(name: path, size: Size(width: Double(img.width), height: Double(img.height)),
                                           anchor: Point(x: 0.5, y: 1)),
                              hitMask: hitMask(img)), img))
    }

    /// Pixels at least an eighth opaque; nil for an image without alpha (all of it is drawn).
    public static func hitMask(_ img: CairoImage) -> IconHitMask? {
        guard cairo_image_surface_get_format(img.surface) == CAIRO_FORMAT_ARGB32 else { return nil }
        return IconHitMask(width: img.width, height: img.height) { x, y in img.pixel(x: x, y: y) >> 24 >= 32 }
    }

    /// Puts an icon (or the default pin, for nil) on a marker.
    public static func apply(_ icon: Icon?, to m: inout Marker) {
        m.icon = icon?.icon ?? .defaultPin
        m.iconHitMask = icon?.hitMask
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

package struct MarkerLookError: Error, CustomStringConvertible {
    public let message: String
    package init(message: String) { self.message = message }
    public var description: String { message }
}
