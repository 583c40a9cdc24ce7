#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The one clock: seconds on CLOCK_MONOTONIC, the clock evdev timestamps use once a device is
/// opened with libevdev_set_clock_id(CLOCK_MONOTONIC), and the clock the event loop's timerfd
/// counts on. Every "now" in the program comes from here, so input, deadlines and page flips
/// can be subtracted from each other.
public enum MonotonicClock {
    /// Its clock id, for the calls that take one (libevdev_set_clock_id).
    public static let clockID: Int32 = CLOCK_MONOTONIC

    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), in nanoseconds: not a clock
/// to schedule by, only for measuring what a piece of work cost one core (the bench).
public enum ThreadCPUTime {
    public static func nanoseconds() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }
}
