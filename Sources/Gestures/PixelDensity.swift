import TouchCore

/// How many screen pixels make a millimetre on the touch surface, and where that figure came
/// from. Gesture thresholds are in millimetres; the recogniser multiplies by this.
public struct PixelDensity: Sendable, Hashable, Codable, CustomStringConvertible {
    public enum Source: String, Sendable, Hashable, Codable {
        /// The touch device's axis resolution (units per mm) over the screen it is mapped onto.
        case deviceResolution
        /// The display's physical size (from DRM/EDID).
        case displaySize
        /// Neither known: a 96 dpi screen is assumed.
        case assumed
    }

    public var pixelsPerMillimetre: Double
    public var source: Source

    public init(pixelsPerMillimetre: Double, source: Source) {
        self.pixelsPerMillimetre = pixelsPerMillimetre
        self.source = source
    }

    /// 96 dpi = 3.78 px/mm, the figure used when no size is known.
    public static let assumed = PixelDensity(pixelsPerMillimetre: 96 / 25.4, source: .assumed)

    /// The best figure available: the touch area (its axis ranges divided by its resolutions,
    /// in mm) when the device reports a resolution, else the display's physical size in mm,
    /// else 96 dpi. `screen` is the area in pixels that the touch surface or display covers.
    /// Sizes that are missing, zero or not finite are skipped (many EDIDs report 0x0 mm).
    public init(screen: Size, touchAreaMillimetres: Size? = nil, displayMillimetres: Size? = nil) {
        if let d = Self.density(screen: screen, millimetres: touchAreaMillimetres) {
            self.init(pixelsPerMillimetre: d, source: .deviceResolution)
        } else if let d = Self.density(screen: screen, millimetres: displayMillimetres) {
            self.init(pixelsPerMillimetre: d, source: .displaySize)
        } else {
            self = .assumed
        }
    }

    /// Mean of the horizontal and vertical densities, nil when the size is unusable.
    private static func density(screen: Size, millimetres: Size?) -> Double? {
        guard let mm = millimetres, mm.width > 0, mm.height > 0, screen.width > 0, screen.height > 0
        else { return nil }
        let d = (screen.width / mm.width + screen.height / mm.height) / 2
        return d.isFinite && d > 0 ? d : nil
    }

    public var description: String {
        let dpi = pixelsPerMillimetre * 25.4
        return "\((pixelsPerMillimetre * 100).rounded() / 100) px/mm (\(dpi.rounded()) dpi, \(source.rawValue))"
    }
}
