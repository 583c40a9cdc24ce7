import TouchCore
import Platform

/// The one device manager: keeps this machine's touchscreens open for an event loop: those
/// found at start (discovery, or the configured matches), and those the udev monitor reports
/// later. A device that vanishes has its contacts cancelled and is closed; when it comes back
/// it is opened again. The kiosk (`MapView`, and so `tune`), `calibrate` and
/// `replay --live --follow` all read touch input through it.
///
/// Either `attach(to:onEvents:)` it to an `EventLoop` (it adds and removes its descriptors
/// itself), or poll `pollFDs` for POLLIN and hand each readable fd to `handle(fd:)`.
public final class TouchInputHub {
    public enum Event: Sendable {
        case opened(path: String, name: String, kind: TouchscreenKind, foundBy: String)
        /// The device went away; its last frames (ending with the cancelling one) came before.
        case closed(path: String, reason: CloseReason)
        case frames(path: String, [ContactFrame])
        /// Something the operator should know (a node that cannot be opened, no hotplug), at
        /// the level the kiosk logs it.
        case warning(String, Severity)
    }

    /// Why a device was closed.
    public enum CloseReason: Sendable, Equatable, CustomStringConvertible {
        /// Its node vanished under a read (ENODEV: unplugged); it may come back.
        case gone
        /// udev announced its removal.
        case removed
        /// A read failed otherwise (EIO, a driver fault): the message names the device and what to do.
        case failed(String)

        public var description: String {
            switch self {
            case .gone: return "gone"
            case .removed: return "removed"
            case .failed(let message): return message
            }
        }

        /// A fault to report as an error (an unplug is not one).
        public var isFault: Bool { if case .failed = self { return true } else { return false } }
    }

    /// How much a warning matters: `.warning` for what the kiosk works around (no hotplug, an
    /// input buffer overflow it resynchronised from), `.error` for a device it cannot use.
    public enum Severity: Sendable, Equatable { case warning, error }

    /// Which devices to open and how: one entry per `[[touch]]` table of the configuration
    /// (a device is opened by the first entry that selects it).
    public struct Entry: Sendable {
        /// nil: every touchscreen (udev's ID_INPUT_TOUCHSCREEN, or its capabilities).
        public var match: TouchDeviceMatch?
        /// The device's calibration from udev's LIBINPUT_CALIBRATION_MATRIX (nil when unset)
        /// to the one used: the default keeps udev's, else identity.
        public var calibration: @Sendable (Calibration?) -> Calibration
        public var filters: FilterOptions
        /// Take the device exclusively (EVIOCGRAB).
        public var grab: Bool
        /// Also open pen/stylus nodes (`DeviceCapabilities.isPenNode`) as touch devices.
        public var pens: Bool = false

        public init(match: TouchDeviceMatch? = nil, calibration: Calibration? = nil,
                    filters: FilterOptions = .default, grab: Bool = false) {
            self.init(match: match, filters: filters, grab: grab) { udev in calibration ?? udev ?? .identity }
        }

        public init(match: TouchDeviceMatch?, filters: FilterOptions, grab: Bool,
                    calibration: @escaping @Sendable (Calibration?) -> Calibration) {
            self.match = match
            self.calibration = calibration
            self.filters = filters
            self.grab = grab
        }
    }

    public let entries: [Entry]
    public private(set) var screen: Size
    public private(set) var devices: [Int32: TouchDevice] = [:]
    /// Every touchscreen the last `openAll()` found, in entry then path order (opened or not).
    public private(set) var discovered: [TouchscreenInfo] = []
    public let monitor: TouchDeviceMonitor?
    let monitorWarning: String?
    weak var loop: EventLoop?
    var sink: (([Event]) -> Void)?

    public init(entries: [Entry], screen: Size, hotplug: Bool = true) {
        self.entries = entries.isEmpty ? [Entry()] : entries
        self.screen = screen
        var warning: String?
        var monitor: TouchDeviceMonitor?
        if hotplug {
            do { monitor = try TouchDeviceMonitor() } catch { warning = "no hotplug: \(error)" }
        }
        self.monitor = monitor
        self.monitorWarning = warning
    }

    /// One entry: `match` (nil = every touchscreen), `calibration` overriding udev's.
    public convenience init(match: TouchDeviceMatch? = nil, screen: Size, calibration: Calibration? = nil,
                            filters: FilterOptions = .default, hotplug: Bool = true) {
        self.init(entries: [Entry(match: match, calibration: calibration, filters: filters)], screen: screen, hotplug: hotplug)
    }

    public var pollFDs: [Int32] { (monitor.map { [$0.fd] } ?? []) + devices.keys.sorted() }

    /// The paths of the open touchscreens, sorted.
    public var openPaths: [String] { devices.values.map(\.path).sorted() }

    /// The open device at `path`.
    public func device(path: String) -> TouchDevice? { devices.values.first { $0.path == path } }

    /// Adds the monitor and every device (now and later) to `loop`; what they produce goes to
    /// `onEvents`. Call before `openAll()`.
    public func attach(to loop: EventLoop, onEvents: @escaping ([Event]) -> Void) throws {
        self.loop = loop
        sink = onEvents
        if let monitor { try loop.add(fd: monitor.fd) { [weak self] fd in self?.deliver(fd) } }
        for fd in devices.keys { try loop.add(fd: fd) { [weak self] fd in self?.deliver(fd) } }
    }

    /// Takes the hub's descriptors out of its loop (the devices stay open).
    public func detach() {
        if let loop {
            for fd in pollFDs { loop.remove(fd: fd) }
        }
        loop = nil
        sink = nil
    }

    func deliver(_ fd: Int32) {
        let events = handle(fd: fd)
        if !events.isEmpty { sink?(events) }
    }

    /// Opens every device present now (one already open stays as it is).
    public func openAll() -> [Event] {
        var events: [Event] = monitorWarning.map { [.warning($0, .warning)] } ?? []
        discovered = []
        for entry in entries {
            for info in TouchDiscovery.touchscreens(matching: entry.match, pens: entry.pens) where !discovered.contains(where: { $0.path == info.path }) {
                discovered.append(info)
                if device(path: info.path) == nil { events += open(info, entry) }
            }
        }
        return events
    }

    /// Reads every open device now (input that arrived while the caller was busy).
    public func readAll() -> [Event] {
        devices.keys.sorted().flatMap { handle(fd: $0) }
    }

    /// Reads a readable fd: a device's frames, or the monitor's added/removed devices.
    public func handle(fd: Int32) -> [Event] {
        if let monitor, fd == monitor.fd {
            var events: [Event] = []
            for change in monitor.changes() {
                switch change {
                case .added(let path):
                    guard device(path: path) == nil else { continue }
                    for entry in entries {
                        if let info = TouchDiscovery.touchscreen(path: path, matching: entry.match, pens: entry.pens) {
                            events += open(TouchscreenInfo(devnode: path, capabilities: info.capabilities,
                                                           calibration: info.calibration, foundBy: "hotplug"), entry)
                            break
                        }
                    }
                case .removed(let path):
                    // Normally ENODEV on the device's own fd came first; a last read gets its
                    // frames, and whatever is still down is cancelled.
                    guard let device = device(path: path) else { continue }
                    events += handle(fd: device.fd)
                    if self.device(path: path) != nil {
                        let frame = device.cancelAll()
                        close(device)
                        events.append(.frames(path: path, [frame]))
                        events.append(.closed(path: path, reason: .removed))
                    }
                }
            }
            return events
        }
        guard let device = devices[fd] else { return [] }
        do {
            let overflows = device.overflows
            let frames = try device.readAvailable()
            var events: [Event] = frames.isEmpty ? [] : [.frames(path: device.path, frames)]
            if device.overflows > overflows {
                events.append(.warning(TouchInputHub.overflowWarning(device.path), .warning))
            }
            return events
        } catch TouchDeviceError.gone(let path, let frames) {
            close(device)
            return [.frames(path: path, frames), .closed(path: path, reason: .gone)]
        } catch let e as TouchDeviceError {
            // Any other read error (EIO, a driver fault): the frames read before it, then every
            // contact the device had down cancelled, so no finger stays stuck on the surface.
            close(device)
            guard case .readFailed(_, _, let frames) = e else {
                return [.frames(path: device.path, [device.cancelAll()]), .closed(path: device.path, reason: .failed("\(e)"))]
            }
            return [.frames(path: device.path, frames), .closed(path: device.path, reason: .failed("\(e)"))]
        } catch {
            close(device)
            return [.frames(path: device.path, [device.cancelAll()]), .closed(path: device.path, reason: .failed("\(error)"))]
        }
    }

    /// What the operator reads when a device's kernel buffer overflowed (SYN_DROPPED).
    public static func overflowWarning(_ path: String) -> String {
        "touch device \(path): the kernel's event buffer overflowed (the kiosk was not scheduled in time); "
            + "the events in it were lost and the contacts were resynced from the device's state"
    }

    /// Closes every device (their contacts are not reported: the caller is shutting down).
    public func closeAll() {
        for device in Array(devices.values) { close(device) }
    }

    func close(_ device: TouchDevice) {
        loop?.remove(fd: device.fd)
        devices[device.fd] = nil
    }

    func open(_ info: TouchscreenInfo, _ entry: Entry) -> [Event] {
        do {
            let device = try TouchDevice(path: info.path, screen: screen,
                                         calibration: entry.calibration(info.calibration), filters: entry.filters)
            if entry.grab { device.grab() }
            return adopt(device, foundBy: info.foundBy)
        } catch {
            return [.warning("\(error)", .error)]
        }
    }

    /// Keeps an opened device (a real one from `open`, or a scripted one in a test) and adds it
    /// to the loop.
    func adopt(_ device: TouchDevice, foundBy: String) -> [Event] {
        devices[device.fd] = device
        do {
            try loop?.add(fd: device.fd) { [weak self] fd in self?.deliver(fd) }
        } catch {
            devices[device.fd] = nil
            return [.warning("cannot watch touch device \(device.path): \(error)", .error)]
        }
        return [.opened(path: device.path, name: device.capabilities.name, kind: device.assembler.kind, foundBy: foundBy)]
    }
}
