import Foundation
import TouchCore
import TouchBridge

/// The five-target calibration as a pure state machine: contact frames in (positions in
/// normalised device coordinates, i.e. with an identity calibration), prompts and a fitted
/// matrix out. Targets: four near the corners, one in the centre, shown one after another.
/// Each target averages the samples of one touch after the finger settles. A touch with two
/// fingers is rejected at once. A misclick (more than `misclickMM` from its target) is found
/// without trusting the panel's current calibration, which may be far off: three touches define
/// an affine map exactly, so an outlier shows once all five are in. The one touch the other four
/// disagree with is rejected and its target asked again.
public struct CalibrationSession {
    public enum State: Equatable {
        /// Waiting for a touch on target `index`.
        case waiting(index: Int)
        /// A finger is down on target `index`, collecting samples.
        case collecting(index: Int)
        /// All targets done.
        case done(matrix: [Double])
        case failed(String)
    }
    public enum Outcome: Equatable {
        case accepted(index: Int, device: Point)
        case rejectedMisclick(index: Int, distanceMM: Double)
        case rejectedMultiTouch(index: Int)
        case finished(matrix: [Double])
        case failed(String)
    }

    public let screen: Size
    /// Targets in screen pixels.
    public let targets: [Point]
    public let misclickMM: Double
    public let pixelsPerMM: Double
    public private(set) var state: State = .waiting(index: 0)
    /// Accepted touches by target index.
    public private(set) var samplesByTarget: [Int: CalibrationFit.Sample] = [:]
    public var accepted: [CalibrationFit.Sample] { samplesByTarget.keys.sorted().map { samplesByTarget[$0]! } }

    private var samples: [Point] = []
    private var sawMultiTouch = false

    public init(screen: Size, margin: Double = 0.1, misclickMM: Double = 15, pixelsPerMM: Double) {
        self.screen = screen
        let w = screen.width, h = screen.height
        self.targets = [Point(x: w * margin, y: h * margin), Point(x: w * (1 - margin), y: h * margin),
                        Point(x: w * (1 - margin), y: h * (1 - margin)), Point(x: w * margin, y: h * (1 - margin)),
                        Point(x: w / 2, y: h / 2)]
        self.misclickMM = misclickMM
        self.pixelsPerMM = pixelsPerMM
    }

    public var currentTarget: Point? {
        switch state {
        case .waiting(let i), .collecting(let i): return targets[i]
        case .done, .failed: return nil
        }
    }

    func normalisedTarget(_ i: Int) -> Point { Point(x: targets[i].x / screen.width, y: targets[i].y / screen.height) }

    /// Distance in mm on the screen between where `m` puts a device point and target `i`.
    func errorMM(_ m: [Double], _ device: Point, _ i: Int) -> Double {
        let p = CalibrationFit.apply(m, device)
        return Point(x: (p.x - normalisedTarget(i).x) * screen.width, y: (p.y - normalisedTarget(i).y) * screen.height).length / pixelsPerMM
    }

    var nextIndex: Int? { (0..<targets.count).first { samplesByTarget[$0] == nil } }

    /// `contacts`: positions in normalised device coordinates (0..1).
    public mutating func process(contacts: [Point]) -> Outcome? {
        switch state {
        case .done, .failed:
            return nil
        case .waiting(let i):
            guard !contacts.isEmpty else { return nil }
            samples = [contacts[0]]
            sawMultiTouch = contacts.count > 1
            state = .collecting(index: i)
            return nil
        case .collecting(let i):
            if !contacts.isEmpty {
                if contacts.count > 1 { sawMultiTouch = true }
                samples.append(contacts[0])
                return nil
            }
            return judge(i)
        }
    }

    private mutating func judge(_ i: Int) -> Outcome {
        state = .waiting(index: i)
        if sawMultiTouch { return .rejectedMultiTouch(index: i) }
        // Average the samples after the finger settled (drop the first quarter).
        let settled = samples.count > 4 ? Array(samples.dropFirst(samples.count / 4)) : samples
        let avg = settled.reduce(Point.zero, +) / Double(settled.count)
        samplesByTarget[i] = .init(device: avg, screen: normalisedTarget(i))
        if let next = nextIndex {
            state = .waiting(index: next)
            return .accepted(index: i, device: avg)
        }
        let m: [Double]
        do { m = try CalibrationFit.fit(accepted) } catch {
            samplesByTarget[i] = nil
            state = .waiting(index: i)
            return .rejectedMisclick(index: i, distanceMM: .infinity)
        }
        let errors = samplesByTarget.map { ($0.key, errorMM(m, $0.value.device, $0.key)) }
        if let worst = errors.max(by: { $0.1 < $1.1 }), worst.1 > misclickMM / 2 {
            // Ask again every touch that alone could be the misclick (with the centre target on
            // both diagonals, a corner and its opposite corner can explain the same error).
            let suspects = outliers()
            for j in suspects.map(\.0) { samplesByTarget[j] = nil }
            let first = suspects.min { $0.0 < $1.0 }!
            state = .waiting(index: first.0)
            return .rejectedMisclick(index: first.0, distanceMM: first.1)
        }
        state = .done(matrix: m)
        return .finished(matrix: m)
    }

    /// The touches the others disagree with: left out, the other four fit each other (within a
    /// third of the misclick distance) and put it more than `misclickMM` from its target. When no
    /// single touch explains the error, the worst one under the full fit.
    func outliers() -> [(Int, Double)] {
        var found: [(Int, Double)] = []
        for j in samplesByTarget.keys.sorted() {
            let others = samplesByTarget.filter { $0.key != j }
            guard let m = try? CalibrationFit.fit(others.keys.sorted().map { others[$0]! }) else { continue }
            let rest = others.map { errorMM(m, $0.value.device, $0.key) }.max() ?? 0
            let e = errorMM(m, samplesByTarget[j]!.device, j)
            if rest < misclickMM / 3, e > misclickMM { found.append((j, e)) }
        }
        if found.isEmpty, let m = try? CalibrationFit.fit(accepted),
           let worst = samplesByTarget.map({ ($0.key, errorMM(m, $0.value.device, $0.key)) }).max(by: { $0.1 < $1.1 }) {
            found = [worst]
        }
        return found
    }

    /// Residual error in screen pixels of each target under a matrix.
    public func residuals(_ m: [Double]) -> [Double] {
        samplesByTarget.keys.sorted().map { i in
            errorMM(m, samplesByTarget[i]!.device, i) * pixelsPerMM
        }
    }
}
