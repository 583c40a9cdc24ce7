import Foundation
import TouchCore

/// Fits a libinput calibration matrix [a b c; d e f] by least squares: device coordinates
/// normalised to 0..1 over the axis range in, screen coordinates normalised to 0..1 out.
public enum CalibrationFit {
    public struct Sample: Sendable, Equatable {
        /// Normalised device coordinate (0..1 over the axis range).
        public var device: Point
        /// Normalised screen coordinate of the target (0..1 over the output).
        public var screen: Point
        public init(device: Point, screen: Point) { self.device = device; self.screen = screen }
    }

    public enum FitError: Error, CustomStringConvertible {
        case tooFewPoints(Int)
        case degenerate
        public var description: String {
            switch self {
            case .tooFewPoints(let n): return "calibration needs at least 3 points, got \(n)"
            case .degenerate: return "the touched points are on one line: touch targets spread over the screen"
            }
        }
    }

    /// Least-squares [a, b, c, d, e, f] with x' = a x + b y + c and y' = d x + e y + f.
    public static func fit(_ samples: [Sample]) throws -> [Double] {
        guard samples.count >= 3 else { throw FitError.tooFewPoints(samples.count) }
        // Normal equations: (A^T A) p = A^T t with rows [x y 1].
        var m = [[Double]](repeating: [0, 0, 0], count: 3)
        var bx = [0.0, 0.0, 0.0], by = [0.0, 0.0, 0.0]
        for s in samples {
            let r = [s.device.x, s.device.y, 1.0]
            for i in 0..<3 {
                for j in 0..<3 { m[i][j] += r[i] * r[j] }
                bx[i] += r[i] * s.screen.x
                by[i] += r[i] * s.screen.y
            }
        }
        guard let px = solve3(m, bx), let py = solve3(m, by) else { throw FitError.degenerate }
        return px + py
    }

    /// Gaussian elimination with partial pivoting; nil when singular.
    static func solve3(_ a: [[Double]], _ b: [Double]) -> [Double]? {
        var a = a, b = b
        for col in 0..<3 {
            var pivot = col
            for r in col..<3 where abs(a[r][col]) > abs(a[pivot][col]) { pivot = r }
            guard abs(a[pivot][col]) > 1e-12 else { return nil }
            a.swapAt(col, pivot); b.swapAt(col, pivot)
            for r in 0..<3 where r != col {
                let f = a[r][col] / a[col][col]
                for c in col..<3 { a[r][c] -= f * a[col][c] }
                b[r] -= f * b[col]
            }
        }
        return (0..<3).map { b[$0] / a[$0][$0] }
    }

    /// Applies a matrix to a normalised device point.
    public static func apply(_ m: [Double], _ p: Point) -> Point {
        Calibration(matrix: m).apply(p) // the one implementation, in TouchCore
    }

    /// Converts a tslib `pointercal` file (a0 a1 a2 a3 a4 a5 a6 [xres yres]: screen pixels from raw
    /// device units, x = (a2 + a0 X + a1 Y) / a6) into the libinput matrix for this device and screen.
    public static func fromPointercal(_ text: String, xAxis: AbsInfo, yAxis: AbsInfo, screen: Size) throws -> [Double] {
        let v = text.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).compactMap { Double($0) }
        guard v.count >= 7, v[6] != 0 else {
            throw PointercalError(message: "a tslib pointercal file holds 7 numbers (a0..a6, then optionally the screen size); found \(v.count)")
        }
        var w = screen.width, h = screen.height
        if v.count >= 9, v[7] > 0, v[8] > 0 { w = v[7]; h = v[8] }
        let rx = xAxis.range, ry = yAxis.range
        let x0 = Double(xAxis.minimum), y0 = Double(yAxis.minimum)
        let a = v[0] * rx / (v[6] * w), b = v[1] * ry / (v[6] * w)
        let c = (v[2] + v[0] * x0 + v[1] * y0) / (v[6] * w)
        let d = v[3] * rx / (v[6] * h), e = v[4] * ry / (v[6] * h)
        let f = (v[5] + v[3] * x0 + v[4] * y0) / (v[6] * h)
        return [a, b, c, d, e, f]
    }

    public struct PointercalError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// The udev rule line that sets the same matrix for this device.
    public static func udevRule(matrix: [Double], deviceName: String) -> String {
        let m = matrix.map { String(format: "%.6g", $0) }.joined(separator: " ")
        return "ENV{ID_INPUT_TOUCHSCREEN}==\"1\", ATTRS{name}==\"\(deviceName)\", ENV{LIBINPUT_CALIBRATION_MATRIX}=\"\(m)\""
    }
}
