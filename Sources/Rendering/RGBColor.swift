/// An opaque RGB colour, components 0...1.
public struct RGBColor: Sendable, Hashable {
    public var r: Double, g: Double, b: Double
    public init(r: Double, g: Double, b: Double) { self.r = r; self.g = g; self.b = b }
    /// From 0xRRGGBB.
    public init(hex: UInt32) {
        r = Double((hex >> 16) & 0xff) / 255; g = Double((hex >> 8) & 0xff) / 255; b = Double(hex & 0xff) / 255
    }
    /// As an XRGB8888 pixel value.
    public var pixel: UInt32 {
        func c(_ v: Double) -> UInt32 { UInt32((min(max(v, 0), 1) * 255).rounded()) }
        return 0xff00_0000 | c(r) << 16 | c(g) << 8 | c(b)
    }
}
