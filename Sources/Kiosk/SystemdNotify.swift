import TouchBridge
import Foundation
import Platform

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
package final class SystemdNotifier {
    /// The notification socket, as in NOTIFY_SOCKET; nil when not run under a service manager.
    public let socketPath: String?
    /// WatchdogSec= of the unit (WATCHDOG_USEC), when the watchdog is on and meant for this process.
    public let watchdogInterval: Double?
    private var socket: OwnedDescriptor?
    private var address: UnixAddress?
    private var watchdogTimer: EventLoop.TimerID?
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
            if pid == nil || pid == ProcessInfo.processInfo.processIdentifier { interval = Double(usec) / 1e6 }
        }
        watchdogInterval = interval
        guard let path, let address = UnixAddress(path) else {
            socketPath = nil
            return
        }
        socketPath = path
        self.address = address
        socket = try? UnixSocket.datagram(name: "NOTIFY_SOCKET \(path)")
    }

    public var isEnabled: Bool { socket != nil }

    /// Sends one notification ("READY=1\nSTATUS=..."). False when not under systemd or the
    /// send failed (the service manager gone: nothing to do about it but go on).
    @discardableResult
    public func send(_ state: String) -> Bool {
        guard let socket, let address else { return false }
        let bytes = Array(state.utf8)
        return (try? UnixSocket.send(socket, bytes, to: address)) == bytes.count
    }

    /// The service is up: systemd moves it from "activating" to "active (running)".
    public func ready(status: String? = nil) {
        sentReady = true
        if let status { lastStatus = status }
        send("READY=1" + (status.map { "\nSTATUS=" + SystemdNotifier.oneLine($0) } ?? ""))
    }

    /// A reload begins; `ready` ends it. MONOTONIC_USEC lets systemd match the two (253+).
    public func reloading() {
        send("RELOADING=1\nMONOTONIC_USEC=\(UInt64(MonotonicClock.now() * 1e6))")
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
    /// on a repeating timer of the loop: the ping comes only while the loop turns. Does
    /// nothing when the watchdog is off.
    public func attachWatchdog(to loop: EventLoop) throws {
        guard let interval = watchdogInterval, isEnabled, watchdogTimer == nil else { return }
        watchdogTimer = loop.scheduleRepeating(every: max(interval / 2, 0.001)) { [weak self] in self?.watchdogPing() }
        watchdogPing()
    }

    /// Stops the pings (before the loop goes away).
    public func detachWatchdog(from loop: EventLoop) {
        guard let t = watchdogTimer else { return }
        loop.cancel(t)
        watchdogTimer = nil
    }

    static func oneLine(_ s: String) -> String { s.replacingOccurrences(of: "\n", with: "; ") }
}

extension Kiosk {
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
