#if canImport(Glibc)
import Glibc
#endif
import Foundation
import CSys

/// A failed system call: what was attempted, on what, and errno.
public struct SystemError: Error, CustomStringConvertible {
    public let operation: String
    public let errno: Int32
    public init(_ operation: String, errno: Int32 = Glibc.errno) {
        self.operation = operation
        self.errno = errno
    }
    public var description: String { "\(operation): \(String(cString: strerror(errno)))" }
}

/// The one event loop: an epoll set over file descriptors (touchscreens, the udev monitor, the
/// DRM fd), one timerfd for the earliest deadline (gesture timeouts, animations, momentum,
/// auto-return) and a signalfd. Idle means blocked in epoll_wait: no wake-ups, no CPU.
/// Single-threaded; handlers run on the caller's thread inside `run`.
public final class EventLoop {
    public typealias Handler = (Int32) -> Void

    private let epfd: Int32
    private let timerfd: Int32
    private var signalfd: Int32 = -1
    private var handlers: [Int32: Handler] = [:]
    private var signalHandler: ((Int32) -> Void)?
    private var timerHandler: (() -> Void)?
    private var blockedSignals = sigset_t()
    private var stopRequested = false
    /// The armed deadline, seconds on CLOCK_MONOTONIC, or nil.
    public private(set) var deadline: Double?

    public init() throws {
        epfd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epfd >= 0 else { throw SystemError("epoll_create1") }
        timerfd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard timerfd >= 0 else { close(epfd); throw SystemError("timerfd_create") }
        try addRaw(timerfd)
    }

    deinit {
        if signalfd >= 0 {
            close(signalfd)
            sigprocmask(SIG_UNBLOCK, &blockedSignals, nil)
        }
        close(timerfd)
        close(epfd)
    }

    /// Seconds on CLOCK_MONOTONIC: the same clock as the evdev timestamps (libevdev_set_clock_id).
    public static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    private func addRaw(_ fd: Int32) throws {
        var ev = epoll_event()
        tb_epoll_event_set(&ev, UInt32(EPOLLIN.rawValue), fd)
        guard epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == 0 else { throw SystemError("epoll_ctl(ADD, fd \(fd))") }
    }

    /// Watch `fd` for input; `handler` runs when it is readable (or hung up).
    public func add(fd: Int32, handler: @escaping Handler) throws {
        try addRaw(fd)
        handlers[fd] = handler
    }

    /// Also wake for `fd` when it becomes writable (true), or only when readable again (false):
    /// a socket with queued output asks for this until its queue is empty. The handler is the
    /// same one; it finds out which by trying.
    public func setWriteInterest(fd: Int32, _ on: Bool) {
        guard handlers[fd] != nil else { return }
        var ev = epoll_event()
        tb_epoll_event_set(&ev, UInt32(EPOLLIN.rawValue) | (on ? UInt32(EPOLLOUT.rawValue) : 0), fd)
        epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev)
    }

    /// Stop watching `fd` (call before closing it).
    public func remove(fd: Int32) {
        epoll_ctl(epfd, EPOLL_CTL_DEL, fd, nil)
        handlers[fd] = nil
    }

    /// Deliver these signals through the loop instead of asynchronously (SIGINT, SIGTERM, SIGHUP...).
    public func handleSignals(_ signals: [Int32], handler: @escaping (Int32) -> Void) throws {
        sigemptyset(&blockedSignals)
        for s in signals { sigaddset(&blockedSignals, s) }
        guard sigprocmask(SIG_BLOCK, &blockedSignals, nil) == 0 else { throw SystemError("sigprocmask") }
        signalfd = CSys.signalfd(-1, &blockedSignals, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard signalfd >= 0 else { throw SystemError("signalfd") }
        try addRaw(signalfd)
        signalHandler = handler
    }

    /// Called when the deadline passes.
    public func onTimer(_ handler: @escaping () -> Void) { timerHandler = handler }

    /// Arm the single timer for an absolute CLOCK_MONOTONIC time (nil disarms it).
    public func setDeadline(_ time: Double?) {
        if time == deadline { return }
        deadline = time
        var spec = itimerspec()
        if let t = time {
            let clamped = max(t, 1e-6)
            spec.it_value.tv_sec = Int(clamped)
            spec.it_value.tv_nsec = Int((clamped - Double(Int(clamped))) * 1e9)
            if spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0 { spec.it_value.tv_nsec = 1 }
        }
        timerfd_settime(timerfd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
    }

    public func stop() { stopRequested = true }

    /// Run until `stop()`. `beforeWait` runs before each wait (e.g. to draw a frame and re-arm the timer).
    public func run(beforeWait: () -> Void = {}) throws {
        stopRequested = false
        var events = [epoll_event](repeating: epoll_event(), count: 32)
        while !stopRequested {
            beforeWait()
            if stopRequested { break }
            let n = epoll_wait(epfd, &events, Int32(events.count), -1)
            if n < 0 {
                if errno == EINTR { continue }
                throw SystemError("epoll_wait")
            }
            for i in 0..<Int(n) {
                let fd = tb_epoll_event_fd(&events[i])
                if fd == timerfd {
                    var expirations: UInt64 = 0
                    _ = read(timerfd, &expirations, 8)
                    deadline = nil
                    timerHandler?()
                } else if fd == signalfd {
                    var info = signalfd_siginfo()
                    while read(signalfd, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
                        signalHandler?(Int32(info.ssi_signo))
                    }
                } else if let h = handlers[fd] {
                    h(fd)
                }
            }
        }
    }
}
