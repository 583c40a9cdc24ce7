import CUdev
import Platform

/// Follows input devices coming and going, over a udev netlink monitor. With udevd running it
/// listens to "udev" events (sent once rules ran, properties set); without udevd (a busybox
/// VM) it listens to the kernel's own uevents.
public final class TouchDeviceMonitor {
    public enum Change: Sendable, Hashable {
        case added(String)
        case removed(String)
    }
    /// Poll for POLLIN, then call `changes()`.
    public let fd: Int32
    /// "udev" or "kernel".
    public let source: String
    let udev: OpaquePointer
    let monitor: OpaquePointer

    public struct MonitorError: Error, CustomStringConvertible {
        public var description: String
    }

    /// - Parameter source: "udev", "kernel", or nil to pick "udev" when udevd runs.
    public init(source: String? = nil) throws {
        let chosen = source ?? ((try? FileStatus.of("/run/udev/control", followLinks: true)) != nil ? "udev" : "kernel")
        guard let udev = udev_new() else { throw MonitorError(description: "cannot create a udev context (is /sys mounted?)") }
        guard let monitor = udev_monitor_new_from_netlink(udev, chosen) else {
            udev_unref(udev)
            throw MonitorError(description: "cannot listen to \(chosen) device events (netlink); hotplug is off, restart to pick up new devices")
        }
        udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
        guard udev_monitor_enable_receiving(monitor) >= 0 else {
            udev_monitor_unref(monitor); udev_unref(udev)
            throw MonitorError(description: "cannot receive \(chosen) device events (netlink bind failed); hotplug is off")
        }
        let fd = udev_monitor_get_fd(monitor)
        try? FileIO.setNonBlocking(fd, true, path: "the \(chosen) device monitor")
        self.udev = udev
        self.monitor = monitor
        self.fd = fd
        self.source = chosen
    }

    deinit {
        udev_monitor_unref(monitor)
        udev_unref(udev)
    }

    /// Every event* node added or removed since the last call (non-blocking).
    public func changes() -> [Change] {
        var out: [Change] = []
        while let d = udev_monitor_receive_device(monitor) {
            defer { udev_device_unref(d) }
            guard let sysname = udev_device_get_sysname(d).map({ String(cString: $0) }), sysname.hasPrefix("event") else { continue }
            let node = udev_device_get_devnode(d).map { String(cString: $0) } ?? "/dev/input/" + sysname
            switch udev_device_get_action(d).map({ String(cString: $0) }) {
            case "add": out.append(.added(node))
            case "remove": out.append(.removed(node))
            default: continue
            }
        }
        return out
    }
}
