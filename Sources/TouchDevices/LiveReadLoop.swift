import TouchCore
import Platform

/// The command-line tools' use of the one `EventLoop` (`record`, `replay --live`): devices
/// read as they become readable, SIGINT/SIGTERM delivered through the loop's signalfd, the
/// optional duration as one of its timers.
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
        try withoutActuallyEscaping(onFrames) { onFrames in
            var failure: Error?
            func read() -> Bool {
                do {
                    onFrames(try device.readAvailable(events: onEvent))
                    return true
                } catch TouchDeviceError.gone(_, let frames) {
                    onFrames(frames)
                } catch TouchDeviceError.readFailed(let path, let e, let frames) {
                    onFrames(frames) // ends with the frame cancelling what was down
                    failure = TouchDeviceError.readFailed(path: path, errno: e, frames: [])
                } catch {
                    onFrames([device.cancelAll()])
                    failure = error
                }
                return false
            }
            // Events already queued before the loop starts.
            guard read() else {
                if let failure { throw failure }
                return .deviceGone
            }
            let ending = try loop(duration: duration) { loop, end in
                try loop.add(fd: device.fd) { _ in if !read() { end(.deviceGone) } }
            }
            if let failure { throw failure }
            return ending
        }
    }

    /// Every device a hub keeps open, across unplug and replug, until a signal or the duration
    /// (or, with `endWhenNoneOpen`, until the last open device goes: `.deviceGone`).
    public static func run(_ hub: TouchInputHub, duration: Double?, endWhenNoneOpen: Bool = false,
                           onEvents: ([TouchInputHub.Event]) -> Void) throws -> Ending {
        try withoutActuallyEscaping(onEvents) { onEvents in
            defer { hub.detach() }
            return try loop(duration: duration) { loop, end in
                let deliver = { (events: [TouchInputHub.Event]) in
                    onEvents(events)
                    if endWhenNoneOpen && hub.devices.isEmpty { end(.deviceGone) }
                }
                try hub.attach(to: loop, onEvents: deliver)
                // Devices opened now or before, then what they hold already (fingers down at open).
                deliver(hub.openAll() + hub.readAll())
            }
        }
    }

    /// A fresh loop with SIGINT/SIGTERM and the duration wired to its end; `setUp` adds the rest.
    static func loop(duration: Double?, setUp: (EventLoop, @escaping (Ending) -> Void) throws -> Void) throws -> Ending {
        let loop = try EventLoop()
        var ending = Ending.signal
        let end = { [unowned loop] (e: Ending) in ending = e; loop.stop() }
        try loop.handleSignals([ProcessSignal.interrupt, ProcessSignal.terminate]) { _ in end(.signal) }
        if let duration { loop.schedule(after: duration) { end(.duration) } }
        try setUp(loop, end)
        try loop.run()
        return ending
    }
}
