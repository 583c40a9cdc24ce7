import Foundation
import TouchCore

/// The five-target calibration as a pure state machine: contact frames in (positions in
/// normalised device coordinates, i.e. with an identity calibration), prompts and a fitted
/// matrix out. Targets: four near the corners, one in the centre, shown one after another.
/// Each target averages the samples of one touch; a touch far from the target (a misclick)
/// or with two fingers is rejected and the target asked again.
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
    /// The prior mapping from normalised device to normalised screen used to judge misclicks
    /// (the current calibration; identity by default).
    public let prior: [Double]
    /// A touch farther than this from its target (after the prior mapping) is a misclick.
    public let misclickMM: Double
    public let pixelsPerMM: Double
    public private(set) var state: State = .waiting(index: 0)
    public private(set) var accepted: [CalibrationFit.Sample] = []

    private var samples: [Point] = []
    private var sawMultiTouch = false

    public init(screen: Size, margin: Double = 0.1, prior: [Double] = [1, 0, 0, 0, 1, 0],
                misclickMM: Double = 15, pixelsPerMM: Double) {
        self.screen = screen
        let w = screen.width, h = screen.height
        self.targets = [Point(x: w * margin, y: h * margin), Point(x: w * (1 - margin), y: h * margin),
                        Point(x: w * (1 - margin), y: h * (1 - margin)), Point(x: w * margin, y: h * (1 - margin)),
                        Point(x: w / 2, y: h / 2)]
        self.prior = prior
        self.misclickMM = misclickMM
        self.pixelsPerMM = pixelsPerMM
    }

    public var currentTarget: Point? {
        switch state {
        case .waiting(let i), .collecting(let i): return targets[i]
        case .done, .failed: return nil
        }
    }

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
            // Lift: judge the touch.
            state = .waiting(index: i)
            if sawMultiTouch { return .rejectedMultiTouch(index: i) }
            // Average the samples after the first few (the finger settles).
            let settled = samples.count > 4 ? Array(samples.dropFirst(samples.count / 4)) : samples
            let avg = settled.reduce(Point.zero, +) / Double(settled.count)
            let mapped = CalibrationFit.apply(prior, avg)
            let px = Point(x: mapped.x * screen.width, y: mapped.y * screen.height)
            let distMM = px.distance(to: targets[i]) / pixelsPerMM
            if distMM > misclickMM { return .rejectedMisclick(index: i, distanceMM: distMM) }
            accepted.append(.init(device: avg, screen: Point(x: targets[i].x / screen.width, y: targets[i].y / screen.height)))
            if i + 1 < targets.count {
                state = .waiting(index: i + 1)
                return .accepted(index: i, device: avg)
            }
            do {
                let m = try CalibrationFit.fit(accepted)
                state = .done(matrix: m)
                return .finished(matrix: m)
            } catch {
                state = .failed("\(error)")
                return .failed("\(error)")
            }
        }
    }

    /// Residual error in screen pixels of each target under a matrix.
    public func residuals(_ m: [Double]) -> [Double] {
        accepted.map { s in
            let p = CalibrationFit.apply(m, s.device)
            return Point(x: (p.x - s.screen.x) * screen.width, y: (p.y - s.screen.y) * screen.height).length
        }
    }
}
