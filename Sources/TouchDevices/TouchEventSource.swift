import CEvdev
import SystemPackage
import TouchCore

/// One step of reading a device, in libevdev_next_event's terms.
public enum TouchRead: Sendable, Equatable {
    /// An ordinary event.
    case event(InputEvent)
    /// SYN_DROPPED (the first) or, after it, one event of the state delta libevdev synthesises.
    case sync(InputEvent)
    /// Nothing more now (EAGAIN).
    case empty
    /// The read failed with this errno (ENODEV: unplugged; anything else: a device fault).
    case failed(Int32)
}

/// Where a `TouchDevice`'s events come from: libevdev over an evdev node, or a script (tests,
/// tools without a kernel). The reading logic (frames, SYN_DROPPED, faults) is the same.
public protocol TouchEventSource: AnyObject {
    /// The next event; `syncing` asks for the state delta after SYN_DROPPED.
    func next(syncing: Bool) -> TouchRead
    /// The device's current state (contacts down, current slot), as after a resync.
    func state(kind: TouchscreenKind) -> DeviceState
}

/// The real source: libevdev on an open evdev node. Owns the libevdev handle (not the fd).
final class EvdevEventSource: TouchEventSource {
    let handle: OpaquePointer

    init(handle: OpaquePointer) { self.handle = handle }

    deinit { libevdev_free(handle) } // does not close the fd

    func next(syncing: Bool) -> TouchRead {
        var ev = input_event()
        let flags = syncing ? LIBEVDEV_READ_FLAG_SYNC.rawValue : LIBEVDEV_READ_FLAG_NORMAL.rawValue
        while true {
            let rc = libevdev_next_event(handle, flags, &ev)
            if rc == LIBEVDEV_READ_STATUS_SUCCESS.rawValue { return .event(TouchDevice.event(ev)) }
            if rc == LIBEVDEV_READ_STATUS_SYNC.rawValue { return .sync(TouchDevice.event(ev)) }
            if rc == -Errno.resourceTemporarilyUnavailable.rawValue { return .empty }
            if rc == -Errno.interrupted.rawValue { continue }   // libevdev's own return code, not a retried call
            return .failed(-rc)
        }
    }

    func state(kind: TouchscreenKind) -> DeviceState { LiveCapabilities.state(handle, kind: kind) }
}

/// A device played from a script, read by read: each `readAvailable()` takes the next batch of
/// events, then reports EAGAIN (or the batch's error). The state after SYN_DROPPED is the one
/// the script gives. For tests of what the kiosk does with a device that misbehaves.
public final class ScriptedEventSource: TouchEventSource {
    public struct Batch: Sendable {
        public var events: [InputEvent]
        /// Ends the batch with this errno instead of EAGAIN (e.g. EIO, ENODEV).
        public var error: Int32?
        /// The state a SYN_DROPPED in this batch resyncs to.
        public var stateAfterDrop: DeviceState?
        public init(_ events: [InputEvent], error: Int32? = nil, stateAfterDrop: DeviceState? = nil) {
            self.events = events; self.error = error; self.stateAfterDrop = stateAfterDrop
        }
    }

    var batches: [Batch]
    var current: [InputEvent] = []
    var currentError: Int32?
    var started = false
    var resyncState = DeviceState()
    /// Whether the source returned EAGAIN since the last batch began (the batch is over).
    var ended = true

    public init(_ batches: [Batch]) { self.batches = batches }

    public func next(syncing: Bool) -> TouchRead {
        if ended {
            // A new read(): the next batch.
            guard !batches.isEmpty else { return .empty }
            let b = batches.removeFirst()
            current = b.events
            currentError = b.error
            if let s = b.stateAfterDrop { resyncState = s }
            ended = false
        }
        if syncing { // the scripted state replaces libevdev's delta: nothing to hand out
            return .empty
        }
        if !current.isEmpty {
            let e = current.removeFirst()
            return e.type == EV.SYN && e.code == SYN.DROPPED ? .sync(e) : .event(e)
        }
        if let error = currentError {
            currentError = nil
            batches = [] // a failed device reads nothing more
            return .failed(error)
        }
        ended = true
        return .empty
    }

    public func state(kind: TouchscreenKind) -> DeviceState { resyncState }
}
