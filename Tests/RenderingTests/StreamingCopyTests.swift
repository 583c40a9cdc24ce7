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
        for from in 0..<20 {
            for to in 0..<20 {
                for n in lengths {
                    memset(dst, 0xA5, size)
                    tb_copy_streaming(dst + to, src + from, UInt(n))
                    tb_store_fence()
                    #expect(memcmp(dst + to, src + from, n) == 0, "from +\(from) to +\(to), \(n) bytes")
                    let before = (0..<to).allSatisfy { dst.load(fromByteOffset: $0, as: UInt8.self) == 0xA5 }
                    let after = (to + n..<size).allSatisfy { dst.load(fromByteOffset: $0, as: UInt8.self) == 0xA5 }
                    #expect(before && after, "from +\(from) to +\(to), \(n) bytes: written outside")
                }
            }
        }
    }
}
