import CEvdev
import TouchCore
import Platform
import SystemPackage

/// One evdev touchscreen read through libevdev: non-blocking reads of everything available,
/// turned into contact frames by a `FrameAssembler`; SYN_DROPPED resynced from libevdev's state;
/// a device that fails (ENODEV when unplugged, or any other read error) cancels all its
/// contacts, so no finger stays down. Reads go through a `TouchEventSource` (libevdev, or a
/// script in tests).
///
/// A class (not a ~Copyable struct) so that the event loop can keep devices in a dictionary
/// keyed by fd; it owns its fd and libevdev handle and releases both exactly once, in deinit.
public final class TouchDevice {
    public let path: String
    /// Poll this fd for POLLIN, then call `readAvailable()`.
    public var fd: Int32 { descriptor.rawValue }
    /// Owned: closed exactly once (libevdev never closes or uses it when freed).
    let descriptor: OwnedDescriptor
    public let capabilities: DeviceCapabilities
    public internal(set) var assembler: FrameAssembler
    /// True after a failed read (ENODEV or another error): close this device (the monitor
    /// reports it again when it comes back).
    public private(set) var isGone = false
    let source: TouchEventSource
    /// The clock that stamps cancelling frames (CLOCK_MONOTONIC, like the kernel's events; a
    /// scripted device in a test passes its own).
    public var clock: () -> Double = MonotonicClock.now
    var lastEventTime = 0.0
    /// How many times the kernel's buffer for this reader overflowed (SYN_DROPPED): events were
    /// lost and the contacts were resynced from the device's state.
    public private(set) var overflows = 0
    /// Frames to hand out with the next read (the contacts already down at open).
    var pendingFrames: [ContactFrame] = []

    /// Opens `path` (O_RDONLY|O_NONBLOCK|O_CLOEXEC) with timestamps on CLOCK_MONOTONIC.
    /// - Parameter requireTouch: throw `notATouchscreen` when the node has no absolute touch axes.
    public convenience init(path: String, screen: Size, calibration: Calibration = .identity,
                filters: FilterOptions = .default, requireTouch: Bool = true) throws {
        let descriptor = try TouchDevice.openNode(path)
        var handle: OpaquePointer?
        let rc = libevdev_new_from_fd(descriptor.rawValue, &handle)
        guard rc == 0, let handle else { throw TouchDeviceError.notEvdev(path: path, errno: Errno(rawValue: -rc)) }
        _ = libevdev_set_clock_id(handle, MonotonicClock.clockID)
        let caps = EvdevInventory.capabilities(of: handle)
        if requireTouch && caps.touchKind == nil {
            libevdev_free(handle)
            throw TouchDeviceError.notATouchscreen(path: path, name: caps.name)
        }
        self.init(path: path, descriptor: descriptor, capabilities: caps, source: EvdevEventSource(handle: handle),
                  screen: screen, calibration: calibration, filters: filters, now: MonotonicClock.now())
    }

    /// A device over any event source; `descriptor` is what an event loop polls (for a
    /// scripted source, any open fd). Contacts the source's state has down are reported first.
    public init(path: String, descriptor: OwnedDescriptor, capabilities caps: DeviceCapabilities, source: TouchEventSource,
                screen: Size, calibration: Calibration = .identity, filters: FilterOptions = .default, now: Double) {
        self.path = path
        self.descriptor = descriptor
        self.source = source
        self.capabilities = caps
        self.assembler = FrameAssembler(capabilities: caps, calibration: calibration, screen: screen, filters: filters)
        // Fingers already down when the device is opened, and the kernel's current slot (not
        // necessarily 0 mid-stream): start from the device's state, as libinput does.
        let initial = assembler.resync(to: source.state(kind: assembler.kind), time: now)
        if !initial.contacts.isEmpty { pendingFrames = [initial] }
    }

    /// Opens an event node read-only and non-blocking, with the error the operator needs.
    static func openNode(_ path: String) throws -> OwnedDescriptor {
        do {
            return try OwnedDescriptor(path: path, .readOnly, options: .nonBlocking)
        } catch let e as SystemError {
            throw TouchDeviceError.cannotOpen(path: path, errno: e.errno)
        }
    }

    /// Replaces the calibration or output size (e.g. after a rotation), keeping contacts.
    public func setMapping(calibration: Calibration, screen: Size) {
        assembler.mapping.calibration = calibration
        assembler.mapping.screen = screen
    }

    /// Reads every event available now and returns the frames they complete.
    /// - Parameter events: sees every event read, including the delta libevdev synthesises after
    ///   SYN_DROPPED (used by the recorder); SYN_DROPPED itself is not passed on.
    /// - Throws: `TouchDeviceError.gone` when the device vanished (ENODEV) and `readFailed` for
    ///   any other error; both carry the frames read before the failure and, last, the frame that
    ///   cancels every contact still down. The device reads nothing more afterwards.
    public func readAvailable(events sink: ((InputEvent) -> Void)? = nil) throws -> [ContactFrame] {
        guard !isGone else { return [] }
        var frames = pendingFrames
        pendingFrames = []
        var syncing = false
        var dropTime = lastEventTime
        while true {
            switch source.next(syncing: syncing) {
            case .event(let e):
                lastEventTime = e.time
                sink?(e)
                if let f = assembler.process(e) { frames.append(f) }
            case .sync(let e):
                lastEventTime = e.time
                if syncing {
                    sink?(e) // the state delta: only for the recorder; the assembler resyncs from state
                } else {
                    syncing = true // SYN_DROPPED: drain the delta, then resync
                    overflows += 1
                    dropTime = e.time
                }
            case .empty:
                guard syncing else { return frames }
                syncing = false
                frames.append(assembler.resync(to: source.state(kind: assembler.kind), time: dropTime))
            case .failed(let errno):
                // Whatever the error, the device is done: lift (cancel) what it had down.
                isGone = true
                frames.append(assembler.cancelAll(time: max(clock(), lastEventTime)))
                // ENODEV (swift-system's name for it): unplugged.
                if Errno(rawValue: errno) == .operationNotSupportedByDevice { throw TouchDeviceError.gone(path: path, frames: frames) }
                throw TouchDeviceError.readFailed(path: path, errno: Errno(rawValue: errno), frames: frames)
            }
        }
    }

    /// Cancels every contact now, for a device dropped without an ENODEV read (udev said
    /// "remove", or the app is letting it go). Stamped with CLOCK_MONOTONIC now.
    public func cancelAll() -> ContactFrame {
        assembler.cancelAll(time: max(clock(), lastEventTime))
    }

    static func event(_ ev: input_event) -> InputEvent {
        InputEvent(sec: Int(ev.time.tv_sec), usec: Int(ev.time.tv_usec), type: ev.type, code: ev.code, value: ev.value)
    }

}
