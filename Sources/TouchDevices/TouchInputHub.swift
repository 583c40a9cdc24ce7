import TouchCore

/// Keeps this machine's touchscreens open for an event loop: those found at start (discovery,
/// or the config's match), and those the udev monitor reports later. A device that vanishes
/// has its contacts cancelled and is closed; when it comes back it is opened again.
///
/// Poll `pollFDs` for POLLIN and hand each readable fd to `handle(fd:)`.
public final class TouchInputHub {
    public enum Event: Sendable {
        case opened(path: String, name: String, kind: TouchscreenKind)
        /// The device went away; its last frames (ending with the cancelling one) came before.
        case closed(path: String, reason: String)
        case frames(path: String, [ContactFrame])
        /// Something the operator should know (a node that cannot be opened, no hotplug).
        case warning(String)
    }

    public let match: TouchDeviceMatch?
    public private(set) var screen: Size
    /// From the config; overrides the udev property LIBINPUT_CALIBRATION_MATRIX when set.
    public let calibration: Calibration?
    public let filters: FilterOptions
    public private(set) var devices: [Int32: TouchDevice] = [:]
    public let monitor: TouchDeviceMonitor?
    let monitorWarning: String?

    public init(match: TouchDeviceMatch? = nil, screen: Size, calibration: Calibration? = nil,
                filters: FilterOptions = .default, hotplug: Bool = true) {
        self.match = match
        self.screen = screen
        self.calibration = calibration
        self.filters = filters
        var warning: String?
        var monitor: TouchDeviceMonitor?
        if hotplug {
            do { monitor = try TouchDeviceMonitor() } catch { warning = "\(error)" }
        }
        self.monitor = monitor
        self.monitorWarning = warning
    }

    public var pollFDs: [Int32] { (monitor.map { [$0.fd] } ?? []) + devices.keys.sorted() }

    /// Opens every device present now.
    public func openAll() -> [Event] {
        var events: [Event] = monitorWarning.map { [.warning($0)] } ?? []
        for info in TouchDiscovery.touchscreens(matching: match) { events += open(info) }
        return events
    }

    /// Reads a readable fd: a device's frames, or the monitor's added/removed devices.
    public func handle(fd: Int32) -> [Event] {
        if let monitor, fd == monitor.fd {
            var events: [Event] = []
            for change in monitor.changes() {
                switch change {
                case .added(let path):
                    guard !devices.values.contains(where: { $0.path == path }),
                          let info = TouchDiscovery.touchscreen(path: path, matching: match) else { continue }
                    events += open(info)
                case .removed(let path):
                    // Normally ENODEV on the device's own fd came first; this catches the rest.
                    if let (fd, device) = devices.first(where: { $0.value.path == path }) {
                        let frame = device.cancelAll()
                        devices[fd] = nil
                        events.append(.frames(path: path, [frame]))
                        events.append(.closed(path: path, reason: "removed"))
                    }
                }
            }
            return events
        }
        guard let device = devices[fd] else { return [] }
        do {
            let frames = try device.readAvailable()
            return frames.isEmpty ? [] : [.frames(path: device.path, frames)]
        } catch TouchDeviceError.gone(let path, let frames) {
            devices[fd] = nil
            return [.frames(path: path, frames), .closed(path: path, reason: "gone")]
        } catch {
            devices[fd] = nil
            return [.frames(path: device.path, [device.cancelAll()]), .closed(path: device.path, reason: "\(error)")]
        }
    }

    /// A new output size (a mode change or rotation) for every open device.
    public func setScreen(_ size: Size) {
        screen = size
        for device in devices.values {
            device.setMapping(calibration: device.assembler.mapping.calibration, screen: size)
        }
    }

    func open(_ info: TouchscreenInfo) -> [Event] {
        do {
            let device = try TouchDevice(path: info.path, screen: screen,
                                         calibration: calibration ?? info.calibration ?? .identity, filters: filters)
            devices[device.fd] = device
            return [.opened(path: info.path, name: device.capabilities.name, kind: device.assembler.kind)]
        } catch {
            return [.warning("\(error)")]
        }
    }
}
