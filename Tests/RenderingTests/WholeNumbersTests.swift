import Testing
@testable import Rendering

/// The written-out floor and round of the pixel loops give libm's values in their ranges,
/// the awkward ones included (just under a half, halves, negative values, whole numbers).
@Suite struct WholeNumbersTests {
    static let awkward: [Double] = [0, 0.5, 1, 1.5, 2.5, 255.5, 255.99999999999997, 0.49999999999999994,
                                    0.5000000000000001, 1e-300, 127.49999999999999, 4294967294.25]

    @Test func floorIsLibmFloor() {
        var x: UInt64 = 0x9E37_79B9_7F4A_7C15
        var values: [Double] = Self.awkward.flatMap { [$0, -$0, $0 - 1, -$0 - 0.5] } + [-0.0, -1e-300, -1, -2, 4e18, -4e18]
        for _ in 0..<20_000 {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            values.append((Double(x % 2_000_001) - 1_000_000) / 997)
        }
        for v in values {
            #expect(WholeNumbers.floor(v) == Int(v.rounded(.down)), "floor(\(v))")
        }
    }

    @Test func roundHalfUpIsLibmRound() {
        var x: UInt64 = 0x2545_F491_4F6C_DD1D
        var values = Self.awkward
        for _ in 0..<20_000 {
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            // The glyph turner's weights: a fraction of a pixel times 256.
            values.append(Double(x % 1_000_003) / 1_000_003 * 256)
        }
        for v in values {
            #expect(WholeNumbers.roundHalfUp(v) == UInt32(v.rounded()), "round(\(v))")
        }
    }

    @Test func byteIsUInt8() {
        var values: [Double] = [0, 0.5, 1, 254.99999999999997, 255, 255.49999999999997, 255.5, 255.99999999999997, 127.5, 1e-300]
        for k in 0...25_500 { values.append(Double(k) / 100) }
        for v in values {
            #expect(WholeNumbers.byte(v) == UInt8(v), "byte(\(v))")
        }
    }
}
