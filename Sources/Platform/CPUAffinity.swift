import CSys

/// The CPUs this process may run on: its affinity mask (as `taskset`, systemd's `CPUAffinity=`
/// or a container's cpuset sets it), not the machine's count. Foundation's
/// `activeProcessorCount` reports the machine's CPUs under `taskset -c 0` (2 on a 2-core
/// machine), while libdispatch's `concurrentPerform` honours the mask (one thread): a renderer
/// that took its band count from Foundation split a one-core frame into two bands drawn one
/// after the other.
public enum CPUAffinity {
    /// CPUs the calling thread may run on (at least 1).
    public static func usableCount() -> Int { max(1, Int(tb_affinity_cpu_count())) }

    /// Narrows the calling thread's mask to its first `count` CPUs; the threads and processes it
    /// starts afterwards inherit it. Returns how many it kept (fewer when the mask had fewer),
    /// nil when the kernel refused. libdispatch reads the mask once, when the program loads: to
    /// limit `concurrentPerform` too, pin and then exec (`touchbridge bench --cores`).
    @discardableResult
    public static func pin(toFirst count: Int) -> Int? {
        let kept = tb_affinity_keep_first(Int32(clamping: count))
        return kept > 0 ? Int(kept) : nil
    }
}
