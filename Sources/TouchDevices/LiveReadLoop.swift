import TouchCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A minimal poll loop for the command-line tools (`record`, `replay --live`): waits on device
/// fds with SIGINT/SIGTERM blocked and checked as pending at least every 100 ms (Glibc's Swift
/// module has no signalfd), until a signal, the optional duration, or the end the caller asks
/// for. The map app has its own loop; this is not it.
public enum LiveReadLoop {
    public enum Ending: Sendable, Hashable {
        case signal, duration, deviceGone
    }

    /// One device until it goes away.
    /// - Parameters:
    ///   - duration: seconds to run, nil = until a signal.
    ///   - onEvent: every event read (for recording).
    ///   - onFrames: the frames each read produced, including the cancelling frame when the device goes.
    public static func run(_ device: TouchDevice, duration: Double?,
                           onEvent: ((InputEvent) -> Void)? = nil,
                           onFrames: ([ContactFrame]) -> Void) throws -> Ending {
        var failure: Error?
        func read() -> Bool {
            do {
                onFrames(try device.readAvailable(events: onEvent))
                return true
            } catch TouchDeviceError.gone(_, let frames) {
                onFrames(frames)
            } catch {
                onFrames([device.cancelAll()])
                failure = error
            }
            return false
        }
        // Events already queued before the first poll.
        guard read() else {
            if let failure { throw failure }
            return .deviceGone
        }
        let ending = try wait(fds: { [device.fd] }, duration: duration) { _ in read() ? nil : .deviceGone }
        if let failure { throw failure }
        return ending
    }

    /// Every device a hub keeps open, across unplug and replug, until a signal or the duration.
    public static func run(_ hub: TouchInputHub, duration: Double?, onEvents: ([TouchInputHub.Event]) -> Void) throws -> Ending {
        onEvents(hub.openAll())
        return try wait(fds: { hub.pollFDs }, duration: duration) { fd in
            onEvents(hub.handle(fd: fd))
            return nil
        }
    }

    /// Polls `fds()` and calls `readable` for each ready fd until it returns an ending.
    static func wait(fds: () -> [Int32], duration: Double?, readable: (Int32) -> Ending?) throws -> Ending {
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGINT)
        sigaddset(&mask, SIGTERM)
        var old = sigset_t()
        sigprocmask(SIG_BLOCK, &mask, &old)
        defer { sigprocmask(SIG_SETMASK, &old, nil) }
        let deadline = duration.map { TouchDevice.monotonicNow() + $0 }
        while true {
            var pending = sigset_t()
            sigpending(&pending)
            if sigismember(&pending, SIGINT) == 1 || sigismember(&pending, SIGTERM) == 1 {
                var got: Int32 = 0
                sigwait(&mask, &got) // consume it, so it does not fire when the mask is restored
                return .signal
            }
            var timeout: Int32 = 100 /* ms */
            if let deadline {
                let left = deadline - TouchDevice.monotonicNow()
                if left <= 0 { return .duration }
                timeout = Int32(min(left * 1000, 100).rounded(.up))
            }
            var polled = fds().map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let n = poll(&polled, nfds_t(polled.count), timeout)
            if n < 0 {
                if errno == EINTR { continue }
                throw TouchDeviceError.readFailed(path: "poll", errno: errno)
            }
            for p in polled where p.revents != 0 {
                if let ending = readable(p.fd) { return ending }
            }
        }
    }
}
