import TouchCore

/// An axis-aligned rectangle in screen pixels (origin top left), shared by the controller's hit
/// tests and the renderer so both agree on where a control, icon or info window is.
public struct ScreenRect: Sendable, Hashable, Codable, CustomStringConvertible {
    public var origin: Point
    public var size: Size
    public init(origin: Point, size: Size) { self.origin = origin; self.size = size }
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }
    public var minX: Double { origin.x }
    public var minY: Double { origin.y }
    public var maxX: Double { origin.x + size.width }
    public var maxY: Double { origin.y + size.height }
    public var center: Point { Point(x: origin.x + size.width / 2, y: origin.y + size.height / 2) }
    /// Edges included.
    public func contains(_ p: Point) -> Bool { p.x >= minX && p.x <= maxX && p.y >= minY && p.y <= maxY }
    public var description: String { "\(origin) \(size)" }
}
