import CCairo
import Foundation
import Testing

/// `tb_copy_streaming` (the cached base map copied into a pan frame with stores around the
/// caches): the bytes memcpy gives, whatever the alignment and length, and nothing written
/// outside the destination's range.
@Suite struct StreamingCopyTests {
    @Test func copiesAsMemcpyAtEveryAlignmentAndLength() {
        let size = 4096
        let src = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        let dst = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        defer { src.deallocate(); dst.deallocate() }
        var rng = SystemRandomNumberGenerator()
        for i in 0..<size { src.storeBytes(of: UInt8.random(in: 0...255, using: &rng), toByteOffset: i, as: UInt8.self) }
        let lengths = [0, 1, 3, 15, 16, 17, 63, 64, 65, 127, 128, 200, 1000, 1920 * 4 / 3, 3000]
        // 64 bytes of 0xA5 before and after the destination: a copy writing past either end shows.
        let guardBytes = [UInt8](repeating: 0xA5, count: 64 + 20)
        for from in 0..<20 {
            for to in 0..<20 {
                for n in lengths {
                    memset(dst, 0xA5, 64 + to + n + 64)
                    tb_copy_streaming(dst + 64 + to, src + from, UInt(n))
                    tb_store_fence()
                    #expect(memcmp(dst + 64 + to, src + from, n) == 0, "from +\(from) to +\(to), \(n) bytes")
                    let outside = guardBytes.withUnsafeBytes { g in
                        memcmp(dst, g.baseAddress!, 64 + to) == 0 && memcmp(dst + 64 + to + n, g.baseAddress!, 64) == 0
                    }
                    #expect(outside, "from +\(from) to +\(to), \(n) bytes: written outside")
                }
            }
        }
    }
}
