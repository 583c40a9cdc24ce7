/// SplitMix64: a small, fast, deterministic generator, so a scripted or random stream (the
/// soak, the randomised tests) is the same on every run and a failure names its seed.
public struct SplitMix64: Sendable {
    public var state: UInt64
    public init(seed: UInt64) { state = seed }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// Uniform in 0..<1.
    public mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
    /// Uniform in -1..<1.
    public mutating func signedUnit() -> Double { unit() * 2 - 1 }
    public mutating func range(_ a: Double, _ b: Double) -> Double { a + (b - a) * unit() }
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}
