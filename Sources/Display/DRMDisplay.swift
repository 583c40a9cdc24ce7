import SystemPackage
import CDRM
import Foundation
import TouchCore
import Platform

/// A DRM/KMS output driven with two dumb buffers and page flips, after dvdhrm's drm-howto:
/// open the card, check dumb-buffer support, pick the connected connector and its preferred (or
/// configured) mode and a CRTC its encoder can drive, create two buffers (CREATE_DUMB, AddFB,
/// MAP_DUMB, mmap), set the mode, then flip with DRM_MODE_PAGE_FLIP_EVENT and an explicit
/// pending state. Frames are drawn into ordinary memory and copied into the hidden dumb buffer
/// (a dumb buffer is never read). `close()` is the one teardown (a failed init uses it too): it
/// drains a pending flip, restores the saved CRTC and destroys everything in reverse order. The
/// drawing memory lives until deinit, so a frame handed out before `close()` never points at
/// freed memory; `present()` after `close()` shows nothing.
public final class DRMDisplay: DisplayBackend {
    public let path: String
    public let connectorName: String
    public let width: Int
    public let height: Int
    public let refreshHz: Double
    public let physicalSizeMM: (width: Int, height: Int)?
    public var name: String { "DRM \(path) \(connectorName) \(width)x\(height)@\(Int(refreshHz.rounded()))" }
    public var panelRotation: Int? { DRMPanelOrientation.read(fd: fd, connectorID: connectorID) }
    public private(set) var isFlipPending = false
    /// When the last page flip completed (CLOCK_MONOTONIC seconds, from the flip event).
    public private(set) var lastFlipTime: Double?
    /// nil once the card's fd has failed: it must leave the event loop.
    public var eventFileDescriptor: Int32? { fd >= 0 && failure == nil ? fd : nil }
    /// The back buffer is this backend's own RAM, copied into the hidden dumb buffer at
    /// `present()`: a dumb buffer's mapping is write-combined on most drivers (VRAM: bochs,
    /// i915 through the aperture), which cairo must not read, so only the copy touches it.
    public var backBufferIsDrawable: Bool { true }
    /// False while another DRM master holds the card (a second compositor or kiosk, a VT
    /// switch): frames are not shown, and each `present()` tries to take the display back.
    public private(set) var hasMaster = true
    /// Why the card stopped working (its flip events could not be read); nothing more is shown.
    public private(set) var failure: String?
    /// Flips completed since the display was opened.
    public private(set) var completedFlips = 0

    /// The card, closed exactly once (by `close()`).
    private let card: OwnedDescriptor
    private var fd: Int32 { card.rawValue }
    private let crtcID: UInt32
    private var connectorID: UInt32
    /// DPMS turned off by `setPowered(false)`.
    private var blanked = false
    private var mode: drmModeModeInfo
    private var savedCrtc: UnsafeMutablePointer<drmModeCrtc>?
    private var buffers: [DumbBuffer] = []
    /// Index of the dumb buffer being scanned out.
    private var front = 0
    private let back: UnsafeMutableRawPointer
    private let backStride: Int

    /// One dumb buffer with its framebuffer id and mapping.
    private struct DumbBuffer {
        var handle: UInt32 = 0, pitch: UInt32 = 0, size: UInt64 = 0, fbID: UInt32 = 0
        var map: UnsafeMutableRawPointer?
    }

    /// Opens `path` (e.g. /dev/dri/card0), `connector` by name (e.g. "Virtual-1", "HDMI-A-1") or
    /// the first connected one, and `mode` (or the connector's preferred mode); sets the mode.
    public init(path: String = "/dev/dri/card0", connector: String? = nil, mode request: ModeRequest? = nil) throws {
        self.path = path
        do { card = try OwnedDescriptor(path: path, .readWrite) } catch let e as SystemError {
            throw DisplayError.opening(path, errno: e.errno.rawValue)
        }
        let fd = card.rawValue

        var cap: UInt64 = 0
        if drmGetCap(fd, UInt64(DRM_CAP_DUMB_BUFFER), &cap) != 0 {
            throw errno == EINVAL ? DisplayError.noDumbBuffers(path: path) : DisplayError.notDRMDevice(path: path)
        }
        guard cap != 0 else { throw DisplayError.noDumbBuffers(path: path) }
        guard let res = drmModeGetResources(fd) else { throw DisplayError.notDRMDevice(path: path) }
        defer { drmModeFreeResources(res) }

        // Connectors.
        var connectors: [UnsafeMutablePointer<drmModeConnector>] = []
        defer { connectors.forEach { drmModeFreeConnector($0) } }
        for i in 0..<Int(res.pointee.count_connectors) {
            if let c = drmModeGetConnector(fd, res.pointee.connectors[i]) { connectors.append(c) }
        }
        let described = connectors.map {
            ConnectorDescription(name: DRMDisplay.connectorName($0.pointee), connected: $0.pointee.connection == DRM_MODE_CONNECTED,
                                 modeCount: Int($0.pointee.count_modes))
        }
        let ci = try ConnectorDescription.select(described, name: connector, path: path)
        let conn = connectors[ci].pointee
        connectorName = described[ci].name
        connectorID = conn.connector_id

        // Mode.
        let modes = (0..<Int(conn.count_modes)).map { conn.modes[$0] }
        let mi = try ModeDescription.select(modes.map(DRMDisplay.describe), request: request, path: path, connector: connectorName)
        mode = modes[mi]
        width = Int(mode.hdisplay)
        height = Int(mode.vdisplay)
        refreshHz = DRMDisplay.refresh(mode)
        physicalSizeMM = conn.mmWidth > 0 && conn.mmHeight > 0 ? (Int(conn.mmWidth), Int(conn.mmHeight)) : nil

        // A CRTC: the current encoder's, or any that one of the connector's encoders can drive.
        guard let crtc = DRMDisplay.findCrtc(fd: fd, res: res.pointee, conn: conn) else {
            throw DisplayError.noCRTC(path: path, connector: connectorName)
        }
        crtcID = crtc
        backStride = width * 4
        back = UnsafeMutableRawPointer.allocate(byteCount: backStride * height, alignment: 64)
        back.initializeMemory(as: UInt8.self, repeating: 0, count: backStride * height)
        savedCrtc = drmModeGetCrtc(fd, crtc)

        do {
            for _ in 0..<2 { buffers.append(try createBuffer()) }
            var connID = connectorID
            if drmModeSetCrtc(fd, crtcID, buffers[0].fbID, 0, 0, &connID, 1, &mode) != 0 {
                throw DisplayError.settingCrtc(path, errno: errno)
            }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
        back.deallocate()
    }

    public func backBuffer() -> FrameBuffer {
        FrameBuffer(width: width, height: height, stride: backStride, pixels: back)
    }

    @discardableResult
    public func present() throws -> Bool {
        guard fd >= 0 else { return false }
        if let failure { throw DisplayError.lost(path: path, reason: failure) }
        guard !isFlipPending else { return false }
        let target = 1 - front
        let b = buffers[target]
        guard let map = b.map else { return false }
        let rowBytes = width * 4
        if Int(b.pitch) == backStride {
            map.copyMemory(from: back, byteCount: rowBytes * height)
        } else {
            for y in 0..<height { (map + y * Int(b.pitch)).copyMemory(from: back + y * backStride, byteCount: rowBytes) }
        }
        if !hasMaster {
            // Another master had the card. SET_MASTER succeeds once it has let go (root, or the
            // process that was master before); then the mode is set again with this frame.
            guard drmSetMaster(fd) == 0 else { throw DisplayError.masterHeld(path: path) }
            var connID = connectorID
            if drmModeSetCrtc(fd, crtcID, b.fbID, 0, 0, &connID, 1, &mode) != 0 {
                throw DisplayError.settingCrtc(path, errno: errno)
            }
            hasMaster = true
            front = target
            return true // shown at once: no flip event comes for a mode set
        }
        let me = Unmanaged.passUnretained(self).toOpaque()
        if drmModePageFlip(fd, crtcID, b.fbID, UInt32(DRM_MODE_PAGE_FLIP_EVENT), me) != 0 {
            let e = errno
            if e == EBUSY { return false }   // a flip is still queued in the kernel
            if e == EACCES || e == EPERM {
                // Master was taken from this fd (DROP_MASTER through a shared fd, logind): wait.
                hasMaster = false
                throw DisplayError.masterHeld(path: path)
            }
            throw DisplayError.systemCall(path: path, call: "drmModePageFlip", errno: Errno(rawValue: e))
        }
        isFlipPending = true
        front = target
        return true
    }

    /// Whether this fd is still DRM master (one ioctl): false when another master took the card
    /// while nothing was drawn. The kiosk asks about once a second and redraws when it is not.
    public var isMaster: Bool { fd >= 0 && failure == nil && drmIsMaster(fd) != 0 }

    public func handleEvents() throws {
        guard fd >= 0 else { return }
        var ctx = drmEventContext()
        ctx.version = 2
        ctx.page_flip_handler = { _, _, sec, usec, userData in
            guard let userData else { return }
            let display = Unmanaged<DRMDisplay>.fromOpaque(userData).takeUnretainedValue()
            display.isFlipPending = false
            display.completedFlips += 1
            // The kernel's CLOCK_MONOTONIC time of the flip: the same clock as evdev's (libevdev_set_clock_id).
            display.lastFlipTime = Double(sec) + Double(usec) / 1_000_000
        }
        if drmHandleEvent(fd, &ctx) != 0 {
            // The fd cannot be read (the device went away, a driver fault): stop waiting for
            // flips on it. `eventFileDescriptor` becomes nil so the loop drops it, and every
            // later present says the display is lost instead of waiting for ever.
            let e = errno
            failure = "drmHandleEvent: \(Errno(rawValue: e).readableDescription) (errno \(e))"
            isFlipPending = false
            throw DisplayError.lost(path: path, reason: failure ?? "")
        }
    }

    /// Screen blanking through the connector's DPMS property (atomic drivers turn the CRTC's
    /// ACTIVE off behind it): off stops the scanout and lets the panel sleep; on brings the same
    /// mode and framebuffer back. Restored on at `close()`.
    public func setPowered(_ on: Bool) throws -> Bool {
        guard fd >= 0, failure == nil else { return false }
        guard let dpms = DRMPanelOrientation.property(fd: fd, connectorID: connectorID, named: "DPMS") else { return false }
        let value = UInt64(on ? DRM_MODE_DPMS_ON : DRM_MODE_DPMS_OFF)
        if dpms.value == value { blanked = !on; return true }
        if on { try? waitForFlip(timeout: 0.5) }
        guard drmModeConnectorSetProperty(fd, connectorID, dpms.id, value) == 0 else {
            throw DisplayError.systemCall(path: path, call: "setting \(connectorName)'s DPMS \(on ? "on" : "off")", errno: .current)
        }
        blanked = !on
        return true
    }

    public func close() {
        guard fd >= 0 else { return }
        if blanked { _ = try? setPowered(true) }
        // Drain a pending flip so no event refers to a buffer about to be freed.
        try? waitForFlip(timeout: 0.5)
        if let s = savedCrtc {
            var connID = connectorID
            var m = s.pointee.mode
            _ = drmModeSetCrtc(fd, s.pointee.crtc_id, s.pointee.buffer_id, s.pointee.x, s.pointee.y, &connID, 1, &m)
            drmModeFreeCrtc(s)
            savedCrtc = nil
        }
        destroyBuffers()
        card.close()
    }

    // MARK: buffers

    private func createBuffer() throws -> DumbBuffer {
        var b = DumbBuffer()
        if tb_drm_create_dumb(fd, UInt32(width), UInt32(height), 32, &b.handle, &b.pitch, &b.size) != 0 {
            throw DisplayError.systemCall(path: path, call: "DRM_IOCTL_MODE_CREATE_DUMB", errno: .current)
        }
        if drmModeAddFB(fd, UInt32(width), UInt32(height), 24, 32, b.pitch, b.handle, &b.fbID) != 0 {
            let e = errno
            _ = tb_drm_destroy_dumb(fd, b.handle)
            throw DisplayError.systemCall(path: path, call: "drmModeAddFB", errno: Errno(rawValue: e))
        }
        var offset: UInt64 = 0
        if tb_drm_map_dumb(fd, b.handle, &offset) != 0 {
            let e = errno
            drmModeRmFB(fd, b.fbID); _ = tb_drm_destroy_dumb(fd, b.handle)
            throw DisplayError.systemCall(path: path, call: "DRM_IOCTL_MODE_MAP_DUMB", errno: Errno(rawValue: e))
        }
        let m = mmap(nil, Int(b.size), PROT_READ | PROT_WRITE, MAP_SHARED, fd, off_t(offset))
        guard let m, m != MAP_FAILED else {
            let e = errno
            drmModeRmFB(fd, b.fbID); _ = tb_drm_destroy_dumb(fd, b.handle)
            throw DisplayError.systemCall(path: path, call: "mmap of a dumb buffer", errno: Errno(rawValue: e))
        }
        memset(m, 0, Int(b.size))
        b.map = m
        return b
    }

    /// Reverse order of creation: munmap, RmFB, DESTROY_DUMB; last buffer first.
    private func destroyBuffers() {
        for b in buffers.reversed() {
            if let m = b.map { munmap(m, Int(b.size)) }
            drmModeRmFB(fd, b.fbID)
            _ = tb_drm_destroy_dumb(fd, b.handle)
        }
        buffers.removeAll()
    }

    // MARK: helpers

    static func connectorName(_ c: drmModeConnector) -> String {
        let type = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
        return "\(type)-\(c.connector_type_id)"
    }

    static func refresh(_ m: drmModeModeInfo) -> Double {
        if m.htotal > 0 && m.vtotal > 0 && m.clock > 0 {
            return Double(m.clock) * 1000 / (Double(m.htotal) * Double(m.vtotal))
        }
        return m.vrefresh > 0 ? Double(m.vrefresh) : 60
    }

    static func describe(_ m: drmModeModeInfo) -> ModeDescription {
        ModeDescription(width: Int(m.hdisplay), height: Int(m.vdisplay), refreshHz: Int(refresh(m).rounded()),
                        preferred: m.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0)
    }

    static func findCrtc(fd: Int32, res: drmModeRes, conn: drmModeConnector) -> UInt32? {
        if conn.encoder_id != 0, let enc = drmModeGetEncoder(fd, conn.encoder_id) {
            defer { drmModeFreeEncoder(enc) }
            if enc.pointee.crtc_id != 0 { return enc.pointee.crtc_id }
        }
        for i in 0..<Int(conn.count_encoders) {
            guard let enc = drmModeGetEncoder(fd, conn.encoders[i]) else { continue }
            defer { drmModeFreeEncoder(enc) }
            for j in 0..<Int(res.count_crtcs) where enc.pointee.possible_crtcs & (1 << UInt32(j)) != 0 {
                return res.crtcs[j]
            }
        }
        return nil
    }
}
