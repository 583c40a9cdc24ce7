import Platform
import Foundation
import Testing
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

/// The one resident-memory reader (soak, bench and the kiosk probe use it).
@Suite struct ProcessMemoryTests {
    @Test func memoryTouchedShowsInTheResidentAndPeakFigures() throws {
        // 64 MiB touched, read with it and again just after it is freed (a block that large is
        // its own mapping, unmapped at once): the readings are moments apart, so what the other
        // suites allocate and free in parallel hardly moves them (a reading before touching,
        // the whole touch loop earlier, once saw 154 MiB of theirs go in CI). Best of three.
        let bytes = 64 << 20
        var grew = 0
        var during = 0
        for _ in 0..<3 where grew < 48 << 20 {
            let p = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
            // Write every page so it is resident.
            for offset in stride(from: 0, to: bytes, by: 4096) { p.storeBytes(of: UInt8(offset & 0xff), toByteOffset: offset, as: UInt8.self) }
            let with = try #require(ProcessMemory.residentBytes())
            p.deallocate()
            let without = try #require(ProcessMemory.residentBytes())
            if with - without > grew { grew = with - without; during = with }
        }
        let peak = try #require(ProcessMemory.peakResidentBytes())
        #expect(grew >= 48 << 20, "resident fell by \(grew) bytes when 64 MiB touched were freed")
        #expect(peak >= during - (1 << 20), "peak \(peak) below resident \(during)")
        #expect(Soak.residentBytes() > 0)
        #expect(abs((ProcessMemory.residentMiB() ?? 0) - Double(ProcessMemory.residentBytes() ?? 0) / 1_048_576) < 8)
    }

    /// smaps, summed by mapping: the parts add up to the resident figure, and memory the
    /// process touches shows in its heap or anonymous mappings.
    @Test func theBreakdownAddsUpAndShowsTouchedMemory() throws {
        func anonymous(_ b: ProcessMemory.Breakdown) -> Int {
            b.mappings.filter { $0.name == "[heap]" || $0.name == "[anonymous mmap]" }.reduce(0) { $0 + $1.kib }
        }
        // 256 MiB touched, read with it and again just after it is freed (a block that large is
        // its own mapping, unmapped at once): the two readings are moments apart, so what the
        // other suites allocate and free in parallel meanwhile hardly moves them (a reading
        // before touching, seconds earlier, once saw 85 MiB of theirs go). Best of three.
        let bytes = 256 << 20
        var grew = 0
        for _ in 0..<3 where grew < 200 << 10 {
            let p = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 4096)
            for offset in stride(from: 0, to: bytes, by: 4096) { p.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self) }
            let with = try #require(ProcessMemory.breakdown())
            p.deallocate()
            let without = try #require(ProcessMemory.breakdown())
            grew = max(grew, anonymous(with) - anonymous(without))
        }
        #expect(grew >= 200 << 10, "heap and anonymous mappings held \(grew) KiB of the 256 MiB touched")
        let after = try #require(ProcessMemory.breakdown())
        // smaps and VmRSS are read one after the other while the other suites allocate and free
        // frames on other threads: one of a few readings must add up (a full unit run once saw
        // 64 MiB come and go between the two reads).
        var seen: [String] = []
        let addsUp = (0..<5).contains { _ in
            guard let b = ProcessMemory.breakdown() else { return false }
            let sum = b.mappings.reduce(0) { $0 + $1.kib }
            seen.append("mappings \(sum) KiB against VmRSS \(b.residentKiB) KiB")
            return abs(sum - b.residentKiB) < b.residentKiB / 10
        }
        #expect(addsUp, "\(seen)")
        #expect(after.peakKiB >= after.residentKiB - 1024)
        #expect(after.mappings.contains { $0.name.hasPrefix("libswiftCore") }, "shared libraries are named by file")
        #expect(zip(after.mappings, after.mappings.dropFirst()).allSatisfy { $0.kib >= $1.kib }, "largest first")
    }

    /// glibc takes the arena cap (mallopt returns 1); the environment's MALLOC_ARENA_MAX wins.
    @Test func theMallocArenaCapIsTakenUnlessTheEnvironmentSetsIt() {
        let fromEnvironment = getenv("MALLOC_ARENA_MAX") != nil
        // 16 arenas: this test process keeps about glibc's own default (8 per core).
        #expect(ProcessMemory.limitMallocArenas(to: 16) == !fromEnvironment)
    }
}
