/// Summary figures over measured values: the kiosk's latency log line and the bench tables.
public enum Statistics {
    /// The p-th percentile (0...100), interpolated between the two nearest ranks; nan when empty.
    public static func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return .nan }
        let s = values.sorted()
        let rank = min(Double(s.count - 1), max(0, p / 100 * Double(s.count - 1)))
        let lo = Int(rank.rounded(.down)), hi = Int(rank.rounded(.up))
        return s[lo] + (s[hi] - s[lo]) * (rank - Double(lo))
    }
}
