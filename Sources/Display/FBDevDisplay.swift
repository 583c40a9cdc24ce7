import SystemPackage
import CDRM
import Foundation
import TouchCore
import Platform

/// A Linux framebuffer (/dev/fb0), for panels without a DRM driver. 32 bpp only. When the
/// virtual height holds two screens, frames are double buffered by drawing into the hidden
/// half and panning to it (FBIOPAN_DISPLAY); otherwise they are copied into the visible memory.
/// Frames are drawn into ordinary memory and copied in; the mapping is never read.
public final class FBDevDisplay: DisplayBackend {
    public let path: String
    public let width: Int
    public let height: Int
    public let refreshHz: Double
    public let physicalSizeMM: (width: Int, height: Int)?
    public let doubleBuffered: Bool
    public var name: String { "fbdev \(path) \(width)x\(height)" + (doubleBuffered ? " (pan double buffer)" : "") }
    public var isFlipPending: Bool { false }
    public var eventFileDescriptor: Int32? { nil }
    /// The back buffer is this backend's own RAM (copied into the mapping, which may be
    /// write-combined, at `present()`), so the map may be drawn straight into it.
    public var backBufferIsDrawable: Bool { true }

    /// The framebuffer device, open until `close()`.
    private var file: OwnedDescriptor?
    private var fd: Int32 { file?.rawValue ?? -1 }
    private var map: UnsafeMutableRawPointer?
    private let mapLength: Int
    private let lineLength: Int
    private var vinfo: fb_var_screeninfo
    private let savedYOffset: UInt32
    private var visiblePage = 0
    private let back: UnsafeMutableRawPointer

    public init(path: String = "/dev/fb0") throws {
        self.path = path
        // Closed by its owner on every way out below (and by `close()` once the display is made).
        let file: OwnedDescriptor
        do { file = try OwnedDescriptor(path: path, .readWrite) } catch let e as SystemError {
            throw DisplayError.opening(path, errno: e.errno.rawValue)
        }
        let fd = file.rawValue
        var v = fb_var_screeninfo(), f = fb_fix_screeninfo()
        guard tb_fb_get_vscreeninfo(fd, &v) == 0, tb_fb_get_fscreeninfo(fd, &f) == 0 else {
            throw DisplayError.notFramebuffer(path: path)
        }
        guard v.bits_per_pixel == 32 else {
            throw DisplayError.unsupportedPixelFormat(path: path, bitsPerPixel: Int(v.bits_per_pixel))
        }
        let layout: FBLayout
        do {
            layout = try FBLayout(path: path, xres: Int(v.xres), yres: Int(v.yres), yresVirtual: Int(v.yres_virtual),
                                  yoffset: Int(v.yoffset), lineLength: Int(f.line_length), smemLength: Int(f.smem_len))
        } catch {
            throw error
        }
        width = layout.width
        height = layout.height
        lineLength = layout.lineLength
        mapLength = layout.mapLength
        doubleBuffered = layout.doubleBuffered
        physicalSizeMM = v.width > 0 && v.height > 0 && v.width != UInt32.max ? (Int(v.width), Int(v.height)) : nil
        // pixclock is picoseconds per pixel; the frame is all pixels plus margins and syncs.
        let htotal = Double(v.xres + v.left_margin + v.right_margin + v.hsync_len)
        let vtotal = Double(v.yres + v.upper_margin + v.lower_margin + v.vsync_len)
        refreshHz = v.pixclock > 0 ? 1e12 / (Double(v.pixclock) * htotal * vtotal) : 60
        let m = mmap(nil, mapLength, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)
        guard let m, m != MAP_FAILED else {
            let e = errno
            throw DisplayError.systemCall(path: path, call: "mmap", errno: Errno(rawValue: e))
        }
        map = m
        vinfo = v
        savedYOffset = v.yoffset
        if layout.panToTop {
            // One screen of memory but panned down: show the top, where frames are written.
            vinfo.yoffset = 0
            _ = tb_fb_pan_display(fd, &vinfo)
        }
        visiblePage = layout.visiblePage
        self.file = file
        back = UnsafeMutableRawPointer.allocate(byteCount: width * 4 * height, alignment: 64)
        back.initializeMemory(as: UInt8.self, repeating: 0, count: width * 4 * height)
    }

    deinit {
        close()
        back.deallocate()
    }

    public func backBuffer() -> FrameBuffer {
        FrameBuffer(width: width, height: height, stride: width * 4, pixels: back)
    }

    @discardableResult
    public func present() throws -> Bool {
        guard fd >= 0, let map else { return false }
        let page = doubleBuffered ? 1 - visiblePage : visiblePage
        // FBLayout checked that every page's rows lie inside the mapping.
        let base = map + page * lineLength * height
        for y in 0..<height {
            (base + y * lineLength).copyMemory(from: back + y * width * 4, byteCount: width * 4)
        }
        if doubleBuffered {
            vinfo.yoffset = UInt32(page * height)
            if tb_fb_pan_display(fd, &vinfo) != 0 {
                throw DisplayError.systemCall(path: path, call: "FBIOPAN_DISPLAY", errno: .current)
            }
            visiblePage = page
        }
        return true
    }

    public func handleEvents() throws {}

    public func close() {
        guard fd >= 0 else { return }
        if vinfo.yoffset != savedYOffset {
            vinfo.yoffset = savedYOffset
            _ = tb_fb_pan_display(fd, &vinfo)
        }
        if let map { munmap(map, mapLength) }
        map = nil
        file?.close() // the drawing memory stays until deinit: a frame handed out earlier stays valid
        file = nil
    }
}

/// Where the rows of each page lie in a framebuffer's memory, checked against what the driver
/// reports before anything is written: a row is `lineLength` bytes (at least the visible width
/// at 32 bpp), and every page written must end inside `smem_len`. Pure: tested without a device.
struct FBLayout: Equatable {
    let width: Int
    let height: Int
    let lineLength: Int
    let mapLength: Int
    /// Two screens fit (virtual height and memory): draw into the hidden one and pan.
    let doubleBuffered: Bool
    /// The page shown now (1 only when double buffered and panned to the second screen).
    let visiblePage: Int
    /// Single buffered but panned away from the top (frames are written at the top): pan there.
    let panToTop: Bool

    init(path: String, xres: Int, yres: Int, yresVirtual: Int, yoffset: Int, lineLength: Int, smemLength: Int) throws {
        guard xres > 0, yres > 0, xres <= 16384, yres <= 16384 else {
            throw DisplayError.framebufferLayout(path: path, detail: "visible size \(xres)x\(yres)")
        }
        guard lineLength >= xres * 4 else {
            throw DisplayError.framebufferLayout(path: path, detail: "line_length \(lineLength) bytes is shorter than \(xres) pixels at 32 bpp")
        }
        guard smemLength >= lineLength * yres else {
            throw DisplayError.framebufferLayout(path: path,
                detail: "smem_len \(smemLength) bytes is smaller than \(yres) lines of \(lineLength) bytes")
        }
        width = xres
        height = yres
        self.lineLength = lineLength
        mapLength = smemLength
        doubleBuffered = yresVirtual >= 2 * yres && smemLength >= 2 * lineLength * yres
        visiblePage = doubleBuffered && yoffset >= yres ? 1 : 0
        panToTop = !doubleBuffered && yoffset != 0
    }
}
