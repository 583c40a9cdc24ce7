#if canImport(Glibc)
import Glibc
#endif
import Foundation
import CSys

/// The service manager's notification protocol (sd_notify(3)), spoken directly: one datagram
/// of "KEY=VALUE" lines to the AF_UNIX socket named by NOTIFY_SOCKET (a path, or "@name" for
/// the abstract namespace). No libsystemd needed. When NOTIFY_SOCKET is unset (a terminal, a
/// test, `Type=simple`) every call does nothing.
///
/// What the kiosk sends: READY=1 once the first frame is on the display (so a unit ordered
/// after touchbridge.service starts when the map is visible), RELOADING=1 then READY=1
/// around SIGHUP, STATUS= naming the display and touchscreens, STOPPING=1 on SIGTERM, and
/// WATCHDOG=1 from the event loop every half WatchdogSec, so a loop that hangs (or a
/// SIGSTOPped process) stops pinging and systemd restarts it.
public final class SystemdNotifier {
    /// The notification socket, as in NOTIFY_SOCKET; nil when not run under a service manager.
    public let socketPath: String?
    /// WatchdogSec= of the unit (WATCHDOG_USEC), when the watchdog is on and meant for this process.
    public let watchdogInterval: Double?
    private var fd: Int32 = -1
    private var address = sockaddr_un()
    private var addressLength = socklen_t(0)
    private var watchdogTimer: Int32 = -1
    public private(set) var lastStatus: String?
    public private(set) var sentReady = false

    public convenience init() {
        self.init(environment: ProcessInfo.processInfo.environment)
    }

    public init(environment: [String: String]) {
        let path = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        var interval: Double? = nil
        if let usec = environment["WATCHDOG_USEC"].flatMap({ UInt64($0) }), usec > 0 {
            // WATCHDOG_PID names the process the watchdog is for (sd_watchdog_enabled(3)).
            let pid = environment["WATCHDOG_PID"].flatMap { Int32($0) }
            if pid == nil || pid == getpid() { interval = Double(usec) / 1e6 }
        }
        watchdogInterval = interval
        guard let path, SystemdNotifier.makeAddress(path, &address, &addressLength) else {
            socketPath = nil
            return
        }
        socketPath = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }

    deinit {
        if fd >= 0 { close(fd) }
        if watchdogTimer >= 0 { close(watchdogTimer) }
    }

    public var isEnabled: Bool { fd >= 0 }

    /// "/run/x" -> a path; "@x" -> the abstract name "\0x". False when it does not fit sun_path.
    static func makeAddress(_ path: String, _ addr: inout sockaddr_un, _ length: inout socklen_t) -> Bool {
        var bytes = Array(path.utf8)
        guard bytes.first == UInt8(ascii: "/") || bytes.first == UInt8(ascii: "@") else { return false }
        if bytes[0] == UInt8(ascii: "@") { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: addr.sun_path)
        guard bytes.count < capacity else { return false }
        addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        // Abstract names are exactly as long as given; paths include their NUL.
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path) ?? 2
        length = socklen_t(pathOffset + bytes.count + (bytes[0] == 0 ? 0 : 1))
        return true
    }

    /// Sends one notification ("READY=1\nSTATUS=..."). False when not under systemd or the
    /// send failed (the service manager gone: nothing to do about it but go on).
    @discardableResult
    public func send(_ state: String) -> Bool {
        guard fd >= 0 else { return false }
        let bytes = Array(state.utf8)
        let sent = withUnsafePointer(to: &address) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bytes.withUnsafeBufferPointer { b in
                    sendto(fd, b.baseAddress, b.count, Int32(MSG_NOSIGNAL), sa, addressLength)
                }
            }
        }
        return sent == bytes.count
    }

    /// The service is up: systemd moves it from "activating" to "active (running)".
    public func ready(status: String? = nil) {
        sentReady = true
        if let status { lastStatus = status }
        send("READY=1" + (status.map { "\nSTATUS=" + SystemdNotifier.oneLine($0) } ?? ""))
    }

    /// A reload begins; `ready` ends it. MONOTONIC_USEC lets systemd match the two (253+).
    public func reloading() {
        send("RELOADING=1\nMONOTONIC_USEC=\(UInt64(EventLoop.now() * 1e6))")
    }

    public func stopping() { send("STOPPING=1") }

    /// Shown by `systemctl status`; sent only when it changed.
    public func status(_ text: String) {
        guard text != lastStatus else { return }
        lastStatus = text
        send("STATUS=" + SystemdNotifier.oneLine(text))
    }

    public func watchdogPing() { send("WATCHDOG=1") }

    /// Pings the watchdog from `loop` every half WatchdogSec (sd_watchdog_enabled(3)'s advice)
    /// through a periodic timerfd in the same epoll set as the touchscreens: the ping comes
    /// only while the loop turns. Does nothing when the watchdog is off.
    public func attachWatchdog(to loop: EventLoop) throws {
        guard let interval = watchdogInterval, fd >= 0, watchdogTimer < 0 else { return }
        let tfd = timerfd_create(CLOCK_MONOTONIC, Int32(TFD_NONBLOCK | TFD_CLOEXEC))
        guard tfd >= 0 else { throw SystemError("timerfd_create (watchdog)") }
        let half = max(interval / 2, 0.001)
        var spec = itimerspec()
        spec.it_interval.tv_sec = Int(half)
        spec.it_interval.tv_nsec = Int((half - Double(Int(half))) * 1e9)
        spec.it_value = spec.it_interval
        guard timerfd_settime(tfd, 0, &spec, nil) == 0 else { close(tfd); throw SystemError("timerfd_settime (watchdog)") }
        do {
            try loop.add(fd: tfd) { [weak self] fd in
                var expirations: UInt64 = 0
                _ = read(fd, &expirations, 8)
                self?.watchdogPing()
            }
        } catch {
            close(tfd)
            throw error
        }
        watchdogTimer = tfd
        watchdogPing()
    }

    /// Stops the pings (before the loop goes away).
    public func detachWatchdog(from loop: EventLoop) {
        guard watchdogTimer >= 0 else { return }
        loop.remove(fd: watchdogTimer)
        close(watchdogTimer)
        watchdogTimer = -1
    }

    static func oneLine(_ s: String) -> String { s.replacingOccurrences(of: "\n", with: "; ") }
}

extension MapView {
    /// STATUS= for `systemctl status`: the display and the touchscreens in use.
    func systemdStatus() -> String {
        let touch = input.openPaths
        return "display \(display.name); "
            + (touch.isEmpty ? "no touchscreen yet" : "touchscreens " + touch.joined(separator: " "))
    }

    /// A touchscreen came or went: tell systemd once the kiosk is up.
    func systemdDevicesChanged() {
        guard systemd.isEnabled, systemd.sentReady else { return }
        systemd.status(systemdStatus())
    }
}
