import Foundation
#if canImport(Glibc)
import Glibc
#endif
import CSys

/// This process's resident memory, read from /proc/self/statm (now) and /proc/self/status
/// (peak, VmHWM): the one reader the soak test, `bench` and the kiosk probe share.
public enum ProcessMemory {
    /// Resident set size now, bytes (statm's second field, in pages); nil where there is no /proc.
    public static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .ascii) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Peak resident set size since the process started, bytes (VmHWM); nil where there is no /proc.
    public static func peakResidentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .ascii) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return line.split(separator: " ").compactMap { Int($0) }.first.map { $0 * 1024 }
        }
        return nil
    }

    /// Caps glibc's malloc arenas (default 8 per core) unless MALLOC_ARENA_MAX is set. The
    /// renderer draws its bands on worker threads, and glibc gives each thread an arena of its
    /// own that keeps what was freed in it: in a soak (seed 7, 800x480) RSS climbed to 88 MB
    /// and went on creeping (growth 22 MB in 4 min with two arenas), against 56 MB with one
    /// band and 59.5 MB with one arena (growth 8.7 MB), at no measurable cost to a banded
    /// full redraw (per-thread tcaches serve most allocations without the arena lock). Called
    /// once at the start of the `touchbridge` program; a host app decides for its own process.
    /// Returns whether glibc took the setting (false when the environment set it).
    @discardableResult
    public static func limitMallocArenas(to count: Int32 = 1) -> Bool {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return false }
        return tb_set_malloc_arena_max(count) == 1
    }

    static func mib(_ bytes: Int?) -> Double? { bytes.map { Double($0) / 1_048_576 } }
    /// The same in MiB.
    public static func residentMiB() -> Double? { mib(residentBytes()) }
    public static func peakResidentMiB() -> Double? { mib(peakResidentBytes()) }
}
