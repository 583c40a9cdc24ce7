#if canImport(Glibc)
import Glibc
#endif
import CSys
import SystemPackage

/// The one event loop: an epoll set over file descriptors (touchscreens, the udev monitor, the
/// DRM fd, and whatever the host app adds), one timerfd armed for the earliest deadline (the
/// kiosk's own plus any timers scheduled here) and a signalfd. Idle means blocked in
/// epoll_wait: no wake-ups, no CPU. Single-threaded; handlers run on the caller's thread
/// inside `run`, so they may add and remove descriptors and timers freely.
///
/// Host apps reach the kiosk's loop through `MapView.eventLoop` and use the public API below:
/// `add(fd:interest:handler:)` / `modify` / `remove` for their own descriptors (a socket, a
/// serial port), `schedule(at:)` / `cancel` for their own timers.
public final class EventLoop {
    public typealias Handler = (Int32) -> Void

    /// What a descriptor is watched for.
    public struct Interest: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Readable, or hung up / in error (a read then tells which).
        public static let read = Interest(rawValue: UInt32(EPOLLIN.rawValue))
        /// Writable (a non-blocking socket whose send buffer has room again).
        public static let write = Interest(rawValue: UInt32(EPOLLOUT.rawValue))
    }

    /// A timer scheduled with `schedule(at:)`, for `cancel(_:)`.
    public struct TimerID: Hashable, Sendable { let value: Int }

    private struct Timer { var time: Double; var interval: Double?; var handler: () -> Void }

    private let epfd: OwnedDescriptor
    private let timerfd: OwnedDescriptor
    private var signalfd: OwnedDescriptor?
    private var handlers: [Int32: (Int32, Interest) -> Void] = [:]
    private var signalHandler: ((Int32) -> Void)?
    private var timerHandler: (() -> Void)?
    private var timers: [Int: Timer] = [:]
    private var nextTimer = 0
    private var armed: Double?
    private var blockedSignals = sigset_t()
    private var stopRequested = false
    /// The kiosk's deadline (`setDeadline`), seconds on CLOCK_MONOTONIC, or nil.
    public private(set) var deadline: Double?

    public init() throws {
        let ep = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard ep >= 0 else { throw SystemError("epoll_create1") }
        epfd = OwnedDescriptor(adopting: ep, path: "epoll")
        let tfd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard tfd >= 0 else { throw SystemError("timerfd_create") }
        timerfd = OwnedDescriptor(adopting: tfd, path: "timerfd")
        try control(EPOLL_CTL_ADD, tfd, .read)
    }

    deinit {
        if signalfd != nil { sigprocmask(SIG_UNBLOCK, &blockedSignals, nil) }
    }

    private func control(_ op: Int32, _ fd: Int32, _ interest: Interest) throws {
        var ev = epoll_event()
        tb_epoll_event_set(&ev, interest.rawValue, fd)
        let name = op == EPOLL_CTL_ADD ? "epoll_ctl(ADD)" : "epoll_ctl(MOD)"
        try checkedSystemCall(name, path: "fd \(fd)") { epoll_ctl(epfd.rawValue, op, fd, &ev) }
    }

    /// Watch `fd` for input; `handler` runs when it is readable (or hung up).
    public func add(fd: Int32, handler: @escaping Handler) throws {
        try add(fd: fd, interest: .read) { fd, _ in handler(fd) }
    }

    /// Watch `fd` for `interest`; `handler` gets the fd and what it is ready for. The caller
    /// keeps owning the fd: `remove(fd:)` it before closing it.
    public func add(fd: Int32, interest: Interest, handler: @escaping (Int32, Interest) -> Void) throws {
        try control(EPOLL_CTL_ADD, fd, interest)
        handlers[fd] = handler
    }

    /// Change what a watched fd is waited for (e.g. add `.write` while output is queued).
    public func modify(fd: Int32, interest: Interest) throws {
        try control(EPOLL_CTL_MOD, fd, interest)
    }

    /// Also wake for `fd` when it becomes writable (true), or only when readable again (false):
    /// a socket with queued output asks for this until its queue is empty.
    public func setWriteInterest(fd: Int32, _ on: Bool) {
        guard handlers[fd] != nil else { return }
        try? modify(fd: fd, interest: on ? [.read, .write] : .read)
    }

    /// Stop watching `fd` (call before closing it). An fd the kernel already dropped from the
    /// set (closed first: EBADF, or never added: ENOENT) is not an error.
    public func remove(fd: Int32) {
        handlers[fd] = nil
        if epoll_ctl(epfd.rawValue, EPOLL_CTL_DEL, fd, nil) != 0 {
            let e = Errno.current
            precondition(e == .badFileDescriptor || e == .noSuchFileOrDirectory, "epoll_ctl(DEL, fd \(fd)): \(e)")
        }
    }

    /// Deliver these signals through the loop instead of asynchronously (SIGINT, SIGTERM,
    /// SIGHUP...: `ProcessSignal`). They stay blocked until the loop is released.
    public func handleSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws {
        sigemptyset(&blockedSignals)
        for s in signals { sigaddset(&blockedSignals, s) }
        try checkedSystemCall("sigprocmask") { sigprocmask(SIG_BLOCK, &blockedSignals, nil) }
        let fd = CSys.signalfd(signalfd?.rawValue ?? -1, &blockedSignals, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else { throw SystemError("signalfd") }
        if signalfd == nil {
            signalfd = OwnedDescriptor(adopting: fd, path: "signalfd")
            try control(EPOLL_CTL_ADD, fd, .read)
        }
        signalHandler = handler
    }

    /// Called when the kiosk's deadline passes.
    public func onTimer(_ handler: @escaping () -> Void) { timerHandler = handler }

    /// The kiosk's own single deadline: an absolute CLOCK_MONOTONIC time (nil disarms it).
    /// Independent of the timers scheduled with `schedule(at:)`.
    public func setDeadline(_ time: Double?) {
        deadline = time
        rearm()
    }

    /// Runs `handler` once, at or after the absolute CLOCK_MONOTONIC `time`.
    @discardableResult
    public func schedule(at time: Double, handler: @escaping () -> Void) -> TimerID {
        nextTimer += 1
        timers[nextTimer] = Timer(time: time, interval: nil, handler: handler)
        rearm()
        return TimerID(value: nextTimer)
    }

    /// Runs `handler` every `interval` seconds (the first time `interval` from now) until
    /// cancelled. A loop held up past several periods runs it once, then keeps the period
    /// from then (no burst of catch-up calls).
    @discardableResult
    public func scheduleRepeating(every interval: Double, handler: @escaping () -> Void) -> TimerID {
        let period = max(interval, 0.001)
        nextTimer += 1
        timers[nextTimer] = Timer(time: MonotonicClock.now() + period, interval: period, handler: handler)
        rearm()
        return TimerID(value: nextTimer)
    }

    /// Runs `handler` once, `seconds` from now.
    @discardableResult
    public func schedule(after seconds: Double, handler: @escaping () -> Void) -> TimerID {
        schedule(at: MonotonicClock.now() + seconds, handler: handler)
    }

    /// Cancels a timer that has not fired yet (a fired or unknown one is ignored).
    public func cancel(_ timer: TimerID) {
        timers[timer.value] = nil
        rearm()
    }

    /// Arms the timerfd for the earliest of the deadline and the scheduled timers.
    private func rearm() {
        let earliest = timers.values.map(\.time).min().map { t in deadline.map { min($0, t) } ?? t } ?? deadline
        if earliest == armed { return }
        armed = earliest
        var spec = itimerspec()
        if let t = earliest {
            let clamped = max(t, 1e-6)
            spec.it_value.tv_sec = Int(clamped)
            spec.it_value.tv_nsec = Int((clamped - Double(Int(clamped))) * 1e9)
            if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        }
        // Only EINVAL/EBADF can fail here: both are programming errors in this file.
        let rc = timerfd_settime(timerfd.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil)
        precondition(rc == 0, "timerfd_settime: \(Errno.current)")
    }

    private func timerFired() {
        var expirations: UInt64 = 0
        _ = read(timerfd.rawValue, &expirations, 8) // EAGAIN when re-armed meanwhile: fine
        armed = nil
        let now = MonotonicClock.now()
        let due = timers.filter { $0.value.time <= now }.sorted { ($0.value.time, $0.key) < ($1.value.time, $1.key) }
        for (id, t) in due {
            if let period = t.interval {
                var next = t.time + period
                if next <= now { next = now + period }
                timers[id]?.time = next
            } else {
                timers[id] = nil
            }
        }
        var kiosk = false
        if let d = deadline, d <= now { deadline = nil; kiosk = true }
        rearm()
        for (_, t) in due { t.handler() }
        if kiosk { timerHandler?() }
    }

    public func stop() { stopRequested = true }

    /// Run until `stop()`. `beforeWait` runs before each wait (e.g. to draw a frame and re-arm the timer).
    public func run(beforeWait: () -> Void = {}) throws {
        stopRequested = false
        var events = [epoll_event](repeating: epoll_event(), count: 32)
        while !stopRequested {
            beforeWait()
            if stopRequested { break }
            let n = epoll_wait(epfd.rawValue, &events, Int32(events.count), -1)
            if n < 0 {
                if Errno.current == .interrupted { continue }
                throw SystemError("epoll_wait")
            }
            for i in 0..<Int(n) {
                let fd = tb_epoll_event_fd(&events[i])
                let flags = tb_epoll_event_flags(&events[i])
                if fd == timerfd.rawValue {
                    timerFired()
                } else if let sfd = signalfd, fd == sfd.rawValue {
                    var info = signalfd_siginfo()
                    while read(sfd.rawValue, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                        signalHandler?(Int32(info.ssi_signo))
                    }
                } else if let h = handlers[fd] {
                    // Hang-up and error count as readable: the handler's read reports them.
                    var ready = Interest(rawValue: flags & (Interest.read.rawValue | Interest.write.rawValue))
                    if flags & UInt32(EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 { ready.insert(.read) }
                    h(fd, ready)
                }
            }
        }
    }
}

/// The signals a program hands to `EventLoop.handleSignals`, named, so a caller needs no libc.
public enum ProcessSignal {
    public static let interrupt: Int32 = SIGINT
    public static let terminate: Int32 = SIGTERM
    public static let hangUp: Int32 = SIGHUP
}
