import Foundation
import TouchCore
import Platform
import SystemPackage

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
        if let st = try? FileStatus.of(path), st.kind != .regular && st.kind != .symlink {
            throw PNGWriteError(path: path, reason: "it exists and is not a regular file (a folder, a FIFO or a device): a screenshot replaces only a file", refused: true)
        }
        let folder = (path as NSString).deletingLastPathComponent
        let dir: DirectoryHandle
        do { dir = try DirectoryHandle.open(folder.isEmpty ? "." : folder) } catch let e as SystemError {
            throw PNGWriteError(path: path, reason: "cannot open its folder \(folder): \(e.errno.readableDescription)")
        }
        defer { dir.close() }
        try writePNGReplacing(directory: dir, name: (path as NSString).lastPathComponent, path: path, replaceCheck: nil)
    }

    /// The same, in the folder open as `directory` (`openat`, `renameat`): the control socket's
    /// confined paths (TouchBridge's ConfinedPath). `replaceCheck`, given the folder and the
    /// name, returns why an existing entry must not be replaced; it is asked once the new file
    /// is written, just before the rename.
    public func writePNGReplacing(directory dir: DirectoryHandle, name: String, path: String,
                                  replaceCheck: ((DirectoryHandle, String) -> String?)?) throws {
        let tmp = ".\(name.prefix(100)).\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let file: OwnedDescriptor
        do { file = try dir.createNew(tmp) } catch let e as SystemError {
            throw PNGWriteError(path: path, reason: "cannot create a file in its folder: \(e.errno.readableDescription)")
        }
        final class Sink { let fd: Int32; var failed: Errno?; init(_ fd: Int32) { self.fd = fd } }
        let sink = Sink(file.rawValue)
        let s = cairo_image_surface_create_for_data(pixels.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                    Int32(width), Int32(height), Int32(stride))!
        let status = withExtendedLifetime(sink) {
            cairo_surface_write_to_png_stream(s, { closure, data, length in
                let sink = Unmanaged<Sink>.fromOpaque(closure!).takeUnretainedValue()
                do { try FileIO.writeAll(sink.fd, UnsafeRawBufferPointer(start: data, count: Int(length)), path: "screenshot") } catch {
                    sink.failed = (error as? SystemError)?.errno ?? .ioError
                    return CAIRO_STATUS_WRITE_ERROR
                }
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(sink).toOpaque())
        }
        cairo_surface_destroy(s)
        var closeFailure: SystemError?
        do { try file.closeReportingErrors() } catch { closeFailure = error as? SystemError }
        guard status == CAIRO_STATUS_SUCCESS, closeFailure == nil else {
            try? dir.remove(tmp)
            let why = sink.failed?.readableDescription ?? (status != CAIRO_STATUS_SUCCESS ? String(cString: cairo_status_to_string(status))
                                                          : closeFailure?.errno.readableDescription ?? "")
            throw PNGWriteError(path: path, reason: why)
        }
        if let problem = replaceCheck?(dir, name) {
            try? dir.remove(tmp)
            throw PNGWriteError(path: path, reason: problem, refused: true)
        }
        do { try dir.rename(tmp, to: name) } catch let e as SystemError {
            try? dir.remove(tmp)
            throw PNGWriteError(path: path, reason: "cannot put the new file in place: \(e.errno.readableDescription)")
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
