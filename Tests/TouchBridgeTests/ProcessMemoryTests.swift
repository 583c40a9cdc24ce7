import Foundation
import Testing
@testable import TouchBridge

/// The one resident-memory reader (soak, bench and the kiosk probe use it).
@Suite struct ProcessMemoryTests {
    @Test func memoryTouchedShowsInTheResidentAndPeakFigures() throws {
        let before = try #require(ProcessMemory.residentBytes())
        let bytes = 64 << 20
        let p = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
        defer { p.deallocate() }
        // Write every page so it is resident.
        for offset in stride(from: 0, to: bytes, by: 4096) { p.storeBytes(of: UInt8(offset & 0xff), toByteOffset: offset, as: UInt8.self) }
        let during = try #require(ProcessMemory.residentBytes())
        let peak = try #require(ProcessMemory.peakResidentBytes())
        #expect(during - before >= 48 << 20, "resident grew by \(during - before) bytes after touching 64 MiB")
        #expect(peak >= during - (1 << 20), "peak \(peak) below resident \(during)")
        #expect(Soak.residentBytes() > 0)
        #expect(abs((ProcessMemory.residentMiB() ?? 0) - Double(ProcessMemory.residentBytes() ?? 0) / 1_048_576) < 8)
    }

    /// glibc takes the arena cap (mallopt returns 1); the environment's MALLOC_ARENA_MAX wins.
    @Test func theMallocArenaCapIsTakenUnlessTheEnvironmentSetsIt() {
        let fromEnvironment = getenv("MALLOC_ARENA_MAX") != nil
        // 16 arenas: this test process keeps about glibc's own default (8 per core).
        #expect(ProcessMemory.limitMallocArenas(to: 16) == !fromEnvironment)
    }
}
