import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

    static func mib(_ bytes: Int?) -> Double? { bytes.map { Double($0) / 1_048_576 } }
    /// The same in MiB.
    public static func residentMiB() -> Double? { mib(residentBytes()) }
    public static func peakResidentMiB() -> Double? { mib(peakResidentBytes()) }
}
