/// Maps device coordinates to screen pixels, the libinput way: device units are normalised to
/// 0..1 over the axis range, the 3x2 matrix `[a b c; d e f]` turns them into normalised screen
/// coordinates (x' = a·x + b·y + c, y' = d·x + e·y + f), and those are scaled to the output
/// size in pixels and clamped to the screen.
public struct Calibration: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Row-major a b c d e f.
    public var matrix: [Double]

    public init(matrix: [Double]) {
        precondition(matrix.count == 6, "a calibration matrix has six values")
        self.matrix = matrix
    }

    public static let identity = Calibration(matrix: [1, 0, 0, 0, 1, 0])

    /// The screen is rotated clockwise by `degrees` (0, 90, 180 or 270) relative to the panel:
    /// the same matrices libinput documents for LIBINPUT_CALIBRATION_MATRIX.
    public static func rotation(degrees: Int) -> Calibration? {
        switch ((degrees % 360) + 360) % 360 {
        case 0: return .identity
        case 90: return Calibration(matrix: [0, -1, 1, 1, 0, 0])
        case 180: return Calibration(matrix: [-1, 0, 1, 0, -1, 1])
        case 270: return Calibration(matrix: [0, 1, 0, -1, 0, 1])
        default: return nil
        }
    }

    /// Mirror left-right (`horizontal`) and/or top-bottom (`vertical`).
    public static func mirrored(horizontal: Bool, vertical: Bool) -> Calibration {
        Calibration(matrix: [horizontal ? -1 : 1, 0, horizontal ? 1 : 0,
                             0, vertical ? -1 : 1, vertical ? 1 : 0])
    }

    /// Parses the udev property / config string "a b c d e f" (whitespace separated floats).
    public init?(libinputString: String) {
        let values = libinputString.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "," })
            .compactMap { Double($0) }
        guard values.count == 6, values.allSatisfy({ $0.isFinite }) else { return nil }
        self.matrix = values
    }

    /// First `self`, then `next` (both on normalised coordinates).
    public func then(_ next: Calibration) -> Calibration {
        let m = matrix, n = next.matrix
        return Calibration(matrix: [
            n[0] * m[0] + n[1] * m[3], n[0] * m[1] + n[1] * m[4], n[0] * m[2] + n[1] * m[5] + n[2],
            n[3] * m[0] + n[4] * m[3], n[3] * m[1] + n[4] * m[4], n[3] * m[2] + n[4] * m[5] + n[5],
        ])
    }

    /// Normalised device point -> normalised screen point (not clamped).
    public func apply(_ p: Point) -> Point {
        Point(x: matrix[0] * p.x + matrix[1] * p.y + matrix[2],
              y: matrix[3] * p.x + matrix[4] * p.y + matrix[5])
    }

    public var description: String { matrix.map { "\($0)" }.joined(separator: " ") }
}

/// Device units -> screen pixels for one device and one output.
public struct ScreenMapping: Sendable, Hashable {
    public var xAxis: AbsInfo
    public var yAxis: AbsInfo
    public var calibration: Calibration
    public var screen: Size

    public init(xAxis: AbsInfo, yAxis: AbsInfo, calibration: Calibration = .identity, screen: Size) {
        self.xAxis = xAxis; self.yAxis = yAxis; self.calibration = calibration; self.screen = screen
    }

    /// Normalised device coordinates: 0 at the axis minimum, 1 at the maximum.
    public func normalised(x: Double, y: Double) -> Point {
        Point(x: xAxis.range > 0 ? (x - Double(xAxis.minimum)) / xAxis.range : 0,
              y: yAxis.range > 0 ? (y - Double(yAxis.minimum)) / yAxis.range : 0)
    }

    /// Screen pixels, clamped to 0...width and 0...height so that a coordinate outside the axis
    /// range (or calibrated off-screen) lands on the screen's edge rather than being dropped.
    public func screenPoint(x: Double, y: Double) -> Point {
        let n = calibration.apply(normalised(x: x, y: y))
        return Point(x: Self.clamp(n.x * screen.width, 0, screen.width),
                     y: Self.clamp(n.y * screen.height, 0, screen.height))
    }

    static func clamp(_ v: Double, _ lo: Double, _ hi: Double) -> Double {
        v.isNaN ? lo : min(max(v, lo), hi)
    }
}
