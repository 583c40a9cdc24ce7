import Foundation
import Platform
import TouchCore

/// Where frames go: a DRM/KMS output, a Linux framebuffer, or PNG files.
///
/// The loop draws into `backBuffer()`, calls `present()`, and while `isFlipPending` waits for
/// `eventFileDescriptor` to be readable and calls `handleEvents()`. It presents at most one
/// frame per `refreshHz` (see `FramePacer`): the VM's bochs device completes flips at once.
public protocol DisplayBackend: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Physical size of the visible area in millimetres, when the output reports it.
    var physicalSizeMM: (width: Int, height: Int)? { get }
    /// Refresh rate of the output's mode, Hz.
    var refreshHz: Double { get }
    /// A short description for logs ("DRM /dev/dri/card0 Virtual-1 1920x1080@75").
    var name: String { get }
    /// The memory to draw the next frame into (XRGB8888, TouchCore's FrameBuffer): ordinary memory
    /// owned by the backend, never a dumb buffer or framebuffer mapping (those may be
    /// write-combined and slow to read).
    func backBuffer() -> FrameBuffer
    /// Shows what was drawn into the back buffer. Returns false (and shows nothing) while the
    /// previous flip is still pending.
    @discardableResult func present() throws -> Bool
    /// True from a page flip until its completion event has been handled.
    var isFlipPending: Bool { get }
    /// A file descriptor that becomes readable when a flip completes (nil: presents complete at once).
    var eventFileDescriptor: Int32? { get }
    /// Reads and handles pending flip-complete events (call when the fd is readable).
    func handleEvents() throws
    /// Releases everything and restores what was shown before. Safe to call twice.
    func close()
    /// When the last frame reached the screen (CLOCK_MONOTONIC seconds), when the backend knows.
    var lastFlipTime: Double? { get }
    /// How the panel is mounted according to the kernel (DRM "panel orientation"), degrees
    /// clockwise; nil when the output does not say.
    var panelRotation: Int? { get }
    /// Whether the map may be drawn straight into `backBuffer()` (no frame of the renderer's
    /// own and no copy, one full frame of memory less): true only when the back buffer is
    /// ordinary cached memory that keeps what was drawn into it until the next frame is drawn,
    /// because the renderer reads it back (cairo blends over it, the overlay layer and the
    /// furniture sprites are composited onto it). The built-in backends hand out such memory
    /// (each keeps a buffer of its own in RAM and copies it to the scanout memory in
    /// `present()`: a DRM dumb buffer or an fbdev mapping may be write-combined, where every
    /// read of a blended pixel is an uncached bus read). False by default, so a host app's
    /// backend whose back buffer is device memory keeps today's draw-then-copy.
    var backBufferIsDrawable: Bool { get }
    /// Turns the output off (screen blanking: DPMS off, the panel dark) or back on. Returns
    /// false when this backend cannot (the picture stays); throws when it tried and failed.
    func setPowered(_ on: Bool) throws -> Bool
}

extension DisplayBackend {
    public var lastFlipTime: Double? { nil }
    public func setPowered(_ on: Bool) throws -> Bool { false }
    public var panelRotation: Int? { nil }
    public var backBufferIsDrawable: Bool { false }

    /// Waits at most `timeout` seconds for a pending page flip to complete (handling the
    /// display's events as they come). Nothing to wait for on a backend without flips.
    public func waitForFlip(timeout: Double) throws {
        let deadline = MonotonicClock.now() + timeout
        while isFlipPending, let fd = eventFileDescriptor {
            let left = deadline - MonotonicClock.now()
            guard left > 0 else { return }
            do {
                if try FileIO.waitReadable(fd, timeout: left, path: name) { try handleEvents() }
            } catch let e as SystemError {
                throw DisplayError.systemCall(path: name, call: e.operation, errno: e.errno)
            }
        }
    }
}

/// Frame pacing to the display's refresh: at most one present per refresh interval. Pure: the
/// caller passes the monotonic time in seconds.
public struct FramePacer: Sendable, Equatable {
    public let interval: Double
    public private(set) var lastPresent: Double?

    public init(refreshHz: Double) {
        interval = 1 / (refreshHz > 1 ? refreshHz : 60)
    }

    /// The earliest time the next frame may be presented.
    public var nextPresentTime: Double { (lastPresent ?? -.infinity) + interval }

    public func mayPresent(now: Double) -> Bool { now >= nextPresentTime - 0.0005 }

    public mutating func didPresent(at now: Double) { lastPresent = now }
}
