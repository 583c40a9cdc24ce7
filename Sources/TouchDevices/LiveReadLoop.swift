import TouchCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A minimal poll loop over one touch device for the command-line tools (`record`, `replay
/// --live`): waits on the device fd with SIGINT/SIGTERM blocked and checked as pending at least
/// every 100 ms (Glibc's Swift module has no signalfd), until a signal, the optional duration, or
/// the device going away. The map app has its own loop; this is not it.
public enum LiveReadLoop {
    public enum Ending: Sendable, Hashable {
        case signal, duration, deviceGone
    }

    /// - Parameters:
    ///   - duration: seconds to run, nil = until a signal.
    ///   - onEvent: every event read (for recording).
    ///   - onFrames: the frames each read produced, including the cancelling frame when the device goes.
    public static func run(_ device: TouchDevice, duration: Double?,
                           onEvent: ((InputEvent) -> Void)? = nil,
                           onFrames: ([ContactFrame]) -> Void) throws -> Ending {
        var mask = sigset_t()
        sigemptyset(&mask)
        sigaddset(&mask, SIGINT)
        sigaddset(&mask, SIGTERM)
        var old = sigset_t()
        sigprocmask(SIG_BLOCK, &mask, &old)
        defer { sigprocmask(SIG_SETMASK, &old, nil) }
        let deadline = duration.map { TouchDevice.monotonicNow() + $0 }

        // Events already queued before the first poll.
        do { onFrames(try device.readAvailable(events: onEvent)) } catch TouchDeviceError.gone(_, let frames) {
            onFrames(frames); return .deviceGone
        }
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
            var fds = pollfd(fd: device.fd, events: Int16(POLLIN), revents: 0)
            let n = poll(&fds, 1, timeout)
            if n < 0 {
                if errno == EINTR { continue }
                throw TouchDeviceError.readFailed(path: device.path, errno: errno)
            }
            if fds.revents != 0 {
                do { onFrames(try device.readAvailable(events: onEvent)) } catch TouchDeviceError.gone(_, let frames) {
                    onFrames(frames); return .deviceGone
                }
            }
        }
    }
}
