import Foundation
import TouchCore
import Platform

import CCairo

extension FrameBuffer {
    /// Writes the frame as a PNG file (RGB, no alpha).
    public func writePNG(to path: String) throws {
        let s = cairo_image_surface_create_for_data(pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                    Int32(width), Int32(height), Int32(stride))!
        defer { cairo_surface_destroy(s) }
        let status = cairo_surface_write_to_png(s, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw PNGWriteError(path: path, reason: String(cString: cairo_status_to_string(status)))
        }
    }
}

extension FrameBuffer {
    /// Writes the frame as a PNG file at `path` for someone else's request (the control
    /// socket's `screenshot`): into a new file beside it (O_EXCL, O_NOFOLLOW) that is then
    /// renamed over `path`, so a failed write (a full disk) leaves the old file whole, a
    /// symlink at `path` is replaced rather than followed, and a FIFO or a device is refused
    /// instead of blocking the kiosk's loop.
    public func writePNGReplacing(path: String) throws {
        var st = stat()
        if lstat(path, &st) == 0 && (st.st_mode & S_IFMT) != S_IFREG && (st.st_mode & S_IFMT) != S_IFLNK {
            throw PNGWriteError(path: path, reason: "it exists and is not a regular file (a folder, a FIFO or a device): a screenshot replaces only a file", refused: true)
        }
        let folder = (path as NSString).deletingLastPathComponent
        let dir = open(folder.isEmpty ? "." : folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dir >= 0 else { throw PNGWriteError(path: path, reason: "cannot open its folder \(folder): \(String(cString: strerror(errno)))") }
        defer { close(dir) }
        try writePNGReplacing(directory: dir, name: (path as NSString).lastPathComponent, path: path, replaceCheck: nil)
    }

    /// The same, in the folder open as `directory` (`openat`, `renameat`): the control socket's
    /// confined paths (TouchBridge's ConfinedPath). `replaceCheck`, given the folder and the
    /// name, returns why an existing entry must not be replaced; it is asked once the new file
    /// is written, just before the rename.
    public func writePNGReplacing(directory dir: Int32, name: String, path: String,
                                  replaceCheck: ((Int32, String) -> String?)?) throws {
        let tmp = ".\(name.prefix(100)).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = openat(dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw PNGWriteError(path: path, reason: "cannot create a file in its folder: \(String(cString: strerror(errno)))") }
        final class Sink { let fd: Int32; var failed: Int32 = 0; init(_ fd: Int32) { self.fd = fd } }
        let sink = Sink(fd)
        let s = cairo_image_surface_create_for_data(pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                    Int32(width), Int32(height), Int32(stride))!
        let status = withExtendedLifetime(sink) {
            cairo_surface_write_to_png_stream(s, { closure, data, length in
                let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
                do { try FileIO.writeAll(sink.fd, UnsafeRawBufferPointer(start: data, count: Int(length)), path: "screenshot") } catch {
                    sink.failed = (error as? SystemError)?.errno.rawValue ?? EIO
                    return CAIRO_STATUS_WRITE_ERROR
                }
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        cairo_surface_destroy(s)
        let closed = close(fd)
        guard status == CAIRO_STATUS_SUCCESS, closed == 0 else {
            unlinkat(dir, tmp, 0)
            let why = sink.failed != 0 ? String(cString: strerror(sink.failed)) : String(cString: cairo_status_to_string(status))
            throw PNGWriteError(path: path, reason: why)
        }
        if let problem = replaceCheck?(dir, name) {
            unlinkat(dir, tmp, 0)
            throw PNGWriteError(path: path, reason: problem, refused: true)
        }
        guard renameat(dir, tmp, dir, name) == 0 else {
            let e = errno
            unlinkat(dir, tmp, 0)
            throw PNGWriteError(path: path, reason: "cannot put the new file in place: \(String(cString: strerror(e)))")
        }
    }
}

public struct PNGWriteError: Error, CustomStringConvertible {
    public let path: String, reason: String
    /// Refused on purpose (a link, another user's file, a FIFO): the folder is fine, so the
    /// message does not send the reader to check it.
    public var refused = false
    public init(path: String, reason: String, refused: Bool = false) { self.path = path; self.reason = reason; self.refused = refused }
    public var description: String {
        refused ? "cannot write the PNG file \(path): \(reason)" : "cannot write the PNG file \(path): \(reason). Check that its folder exists and is writable."
    }
}
