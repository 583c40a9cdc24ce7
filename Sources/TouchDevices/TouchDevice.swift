import CEvdev
import TouchCore
import Platform
import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One evdev touchscreen read through libevdev: non-blocking reads of everything available,
/// turned into contact frames by a `FrameAssembler`; SYN_DROPPED resynced from libevdev's state;
/// an unplugged device (ENODEV) cancels all its contacts.
///
/// A class (not a ~Copyable struct) so that the event loop can keep devices in a dictionary
/// keyed by fd; it owns its fd and libevdev handle and releases both exactly once, in deinit.
public final class TouchDevice {
    public let path: String
    /// Poll this fd for POLLIN, then call `readAvailable()`.
    public var fd: Int32 { descriptor.rawValue }
    /// Owned: closed exactly once, after libevdev has let go of it.
    let descriptor: OwnedDescriptor
    public let capabilities: DeviceCapabilities
    public internal(set) var assembler: FrameAssembler
    /// True after ENODEV: close this device and wait for the monitor to report it again.
    public private(set) var isGone = false
    let dev: OpaquePointer
    var lastEventTime = 0.0
    /// Frames to hand out with the next read (the contacts already down at open).
    var pendingFrames: [ContactFrame] = []

    /// Opens `path` (O_RDONLY|O_NONBLOCK|O_CLOEXEC) with timestamps on CLOCK_MONOTONIC.
    /// - Parameter requireTouch: throw `notATouchscreen` when the node has no absolute touch axes.
    public init(path: String, screen: Size, calibration: Calibration = .identity,
                filters: FilterOptions = .default, requireTouch: Bool = true) throws {
        let descriptor = try TouchDevice.openNode(path)
        var handle: OpaquePointer?
        let rc = libevdev_new_from_fd(descriptor.rawValue, &handle)
        guard rc == 0, let handle else { throw TouchDeviceError.notEvdev(path: path, errno: Errno(rawValue: -rc)) }
        _ = libevdev_set_clock_id(handle, CLOCK_MONOTONIC)
        let caps = EvdevInventory.capabilities(of: handle)
        if requireTouch && caps.touchKind == nil {
            libevdev_free(handle)
            throw TouchDeviceError.notATouchscreen(path: path, name: caps.name)
        }
        self.path = path
        self.descriptor = descriptor
        self.dev = handle
        self.capabilities = caps
        self.assembler = FrameAssembler(capabilities: caps, calibration: calibration, screen: screen, filters: filters)
        // Fingers already down when the device is opened, and the kernel's current slot (not
        // necessarily 0 mid-stream): start from the device's state, as libinput does.
        let initial = assembler.resync(to: LiveCapabilities.state(handle, kind: assembler.kind),
                                       time: MonotonicClock.now())
        if !initial.contacts.isEmpty { pendingFrames = [initial] }
    }

    deinit {
        libevdev_free(dev) // does not close the fd; `descriptor` does, after this
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
    /// - Throws: `TouchDeviceError.gone` (carrying the frames read and the cancelling frame) when
    ///   the device vanished, `readFailed` for other errors.
    public func readAvailable(events sink: ((InputEvent) -> Void)? = nil) throws -> [ContactFrame] {
        guard !isGone else { return [] }
        var frames = pendingFrames
        pendingFrames = []
        var ev = input_event()
        var syncing = false
        var dropTime = lastEventTime
        let normal = LIBEVDEV_READ_FLAG_NORMAL.rawValue, sync = LIBEVDEV_READ_FLAG_SYNC.rawValue
        while true {
            let rc = libevdev_next_event(dev, syncing ? sync : normal, &ev)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
                let e = Self.event(ev)
                lastEventTime = e.time
                sink?(e)
                if let f = assembler.process(e) { frames.append(f) }
            } else if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue {
                let e = Self.event(ev)
                lastEventTime = e.time
                if syncing {
                    sink?(e) // the state delta: only for the recorder; the assembler resyncs from state
                } else {
                    syncing = true // SYN_DROPPED: drain the delta, then resync
                    dropTime = e.time
                }
            } else if rc == -EAGAIN {
                guard syncing else { break }
                syncing = false
                frames.append(assembler.resync(to: LiveCapabilities.state(dev, kind: assembler.kind), time: dropTime))
            } else if rc == -EINTR {
                continue
            } else if rc == -ENODEV {
                isGone = true
                frames.append(assembler.cancelAll(time: MonotonicClock.now()))
                throw TouchDeviceError.gone(path: path, frames: frames)
            } else {
                throw TouchDeviceError.readFailed(path: path, errno: Errno(rawValue: -rc))
            }
        }
        return frames
    }

    /// Cancels every contact now, for a device dropped without an ENODEV read (udev said
    /// "remove", or the app is letting it go). Stamped with CLOCK_MONOTONIC now.
    public func cancelAll() -> ContactFrame {
        assembler.cancelAll(time: MonotonicClock.now())
    }

    static func event(_ ev: input_event) -> InputEvent {
        InputEvent(sec: Int(ev.time.tv_sec), usec: Int(ev.time.tv_usec), type: ev.type, code: ev.code, value: ev.value)
    }

}
