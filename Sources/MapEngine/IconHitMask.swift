import TouchCore

/// Which pixels of a marker's image icon are drawn (alpha above a threshold), so that a tap on
/// a transparent corner of a round or irregular icon falls through to the map, as on the
/// phone SDKs. One bit per pixel, rows top to bottom.
public struct IconHitMask: Sendable, Hashable, Codable {
    public let width: Int
    public let height: Int
    private var bits: [UInt8]

    /// `opaque(x, y)` for every pixel of a `width` x `height` image.
    public init(width: Int, height: Int, opaque: (Int, Int) -> Bool) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        bits = [UInt8](repeating: 0, count: (self.width * self.height + 7) / 8)
        for y in 0..<self.height {
            for x in 0..<self.width where opaque(x, y) {
                let i = y * self.width + x
                bits[i >> 3] |= 1 << UInt8(i & 7)
            }
        }
    }

    /// Whether the pixel at (x, y) (image coordinates, px) is drawn; false outside the image.
    public func isOpaque(x: Int, y: Int) -> Bool {
        guard x >= 0, y >= 0, x < width, y < height else { return false }
        let i = y * width + x
        return bits[i >> 3] & (1 << UInt8(i & 7)) != 0
    }
}
