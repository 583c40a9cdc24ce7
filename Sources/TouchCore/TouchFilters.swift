/// Per-contact position filters, in device units, applied before calibration.
public struct FilterOptions: Sendable, Hashable, Codable {
    /// Use the axis fuzz (device units) as a hysteresis radius, like libinput: a resting finger
    /// does not creep and jitter within the fuzz gives no motion. No effect when fuzz is 0.
    public var hysteresis: Bool
    /// Minimum hysteresis radius in device units, for panels that report fuzz 0 but jitter.
    public var minimumHysteresis: Double
    /// Exponential smoothing weight of a new sample (0 < w <= 1); nil = off (the default).
    public var smoothing: Double?

    public init(hysteresis: Bool = true, minimumHysteresis: Double = 0, smoothing: Double? = nil) {
        self.hysteresis = hysteresis; self.minimumHysteresis = minimumHysteresis; self.smoothing = smoothing
    }
    public static let `default` = FilterOptions()
}

/// The filter state of one contact.
struct ContactFilter: Sendable, Hashable {
    /// Current hysteresis centre (device units): the position last reported.
    var center: Point
    var smoothed: Point

    init(start: Point) { center = start; smoothed = start }

    /// libinput's circular hysteresis: inside the margin the contact stays put; outside it, the
    /// centre follows the finger, lagging by the margin along the direction of motion.
    mutating func apply(_ raw: Point, margin: Double, smoothing: Double?) -> Point {
        var p = raw
        if margin > 0 {
            let d = raw - center
            let len = d.length
            if len <= margin {
                p = center
            } else {
                p = raw - d * (margin / len)
            }
            center = p
        } else {
            center = raw
        }
        if let w = smoothing, w > 0, w < 1 {
            smoothed = smoothed * (1 - w) + p * w
            return smoothed
        }
        smoothed = p
        return p
    }
}
