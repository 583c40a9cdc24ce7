#if canImport(Glibc)
import Glibc
#endif
import CSys

/// This process's resident memory, read from /proc/self/statm (now) and /proc/self/status
/// (peak, VmHWM): the one reader the soak test, `bench` and the kiosk probe share.
public enum ProcessMemory {
    /// Resident set size now, bytes (statm's second field, in pages); nil where there is no /proc.
    public static func residentBytes() -> Int? {
        guard let text = readProcFile("/proc/self/statm") else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// Peak resident set size since the process started, bytes (VmHWM); nil where there is no /proc.
    public static func peakResidentBytes() -> Int? {
        guard let text = readProcFile("/proc/self/status") else { return nil }
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

    /// Keeps blocks of up to `mmapBytes` in the heap and up to `trimBytes` free at its top,
    /// unless the environment sets either (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_ or
    /// GLIBC_TUNABLES' glibc.malloc.mmap_threshold, trim_threshold). A frame's arrays of 128
    /// KiB to 1 MiB (the street map's layers, cells and label scratch) were each mapped and
    /// unmapped, or came from the heap top that glibc then gave back, so every frame faulted
    /// their pages in again: 40 tilted street frames took 23,100 page faults with glibc's
    /// dynamic thresholds and 12,100 with these (the same with 64 MiB and 128 MiB): 100 tilted
    /// frames' CPU 0.94 of before (flat frames the same), for 0.4 MiB more peak RSS in the 4K
    /// kiosk probe and 1.6 MiB at 1080p (docs/benchmarks.md, session 33). Called once at the
    /// start of the `touchbridge` program beside `limitMallocArenas`; a host app decides for its
    /// own process. Returns whether glibc took both settings.
    @discardableResult
    public static func keepFrameSizedBlocks(mmapBytes: Int32 = 1 << 20, trimBytes: Int32 = 8 << 20) -> Bool {
        guard getenv("MALLOC_MMAP_THRESHOLD_") == nil, getenv("MALLOC_TRIM_THRESHOLD_") == nil else { return false }
        if let t = getenv("GLIBC_TUNABLES").map({ String(cString: $0) }),
           t.contains("malloc.mmap_threshold") || t.contains("malloc.trim_threshold") { return false }
        return tb_set_malloc_thresholds(mmapBytes, trimBytes) == 1
    }

    /// Where the resident memory is, from /proc/self/smaps: resident kilobytes per kind of
    /// mapping (the heap, anonymous mmaps, each shared library by file name, the stacks), largest
    /// first, with VmRSS and VmHWM. For `bench --probe-kiosk --memory-trace`, which prints it at
    /// a few points of a kiosk run to find what the peak is made of.
    public struct Breakdown: Sendable {
        public var residentKiB = 0
        public var peakKiB = 0
        /// (mapping, resident KiB), largest first.
        public var mappings: [(name: String, kib: Int)] = []
    }

    public static func breakdown() -> Breakdown? {
        guard let text = readProcFile("/proc/self/smaps") else { return nil }
        var out = Breakdown()
        var sums: [String: Int] = [:]
        var current = "?"
        for line in text.split(separator: "\n") {
            let head = line.prefix { $0 != " " }
            if head.contains("-"), head.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                // "start-end perms offset dev inode [path]": a new mapping.
                let f = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
                let path = f.count > 5 ? String(f[5].drop { $0 == " " || $0 == "\t" }) : ""
                current = path.isEmpty ? "[anonymous mmap]" : (path.hasPrefix("[") ? path : String(path.split(separator: "/").last ?? Substring(path)))
            } else if line.hasPrefix("Rss:") {
                let kib = line.split(separator: " ").compactMap { Int($0) }.first ?? 0
                sums[current, default: 0] += kib
            }
        }
        out.mappings = sums.filter { $0.value > 0 }.map { ($0.key, $0.value) }.sorted { $0.1 > $1.1 }
        out.residentKiB = (residentBytes() ?? 0) / 1024
        out.peakKiB = (peakResidentBytes() ?? 0) / 1024
        return out
    }

    /// A /proc file read to its end (they report size 0, and one read may return part of one).
    static func readProcFile(_ path: String) -> String? {
        (try? FileIO.readFile(path)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func mib(_ bytes: Int?) -> Double? { bytes.map { Double($0) / 1_048_576 } }
    /// The same in MiB.
    public static func residentMiB() -> Double? { mib(residentBytes()) }
    public static func peakResidentMiB() -> Double? { mib(peakResidentBytes()) }
}
