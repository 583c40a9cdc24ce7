/// Colours and sizes of the built-in map.
public struct MapStyle: Sendable {
    public var sea = RGBColor(hex: 0xAAD3DF)
    public var land = RGBColor(hex: 0xF2EFE9)
    public var coastline = RGBColor(hex: 0x9AB8C2)
    public var border = RGBColor(hex: 0xA08CA8)
    public var river = RGBColor(hex: 0x7FB4D0)
    public var sky = RGBColor(hex: 0xDCE9F5)
    public var cityDot = RGBColor(hex: 0x333333)
    public var cityText = RGBColor(hex: 0x222222)
    public var countryText = RGBColor(hex: 0x6A5A72)
    public var halo = RGBColor(hex: 0xFFFFFF)
    /// Font family for every label (pango font description family).
    public var fontFamily = "DejaVu Sans"
    public init() {}
    public static let standard = MapStyle()
}
