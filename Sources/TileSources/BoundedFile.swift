import Foundation
import Platform
import SystemPackage

/// Reads a whole file that must not be larger than a limit, checking the size on the open
/// descriptor before reading and never reading more than the limit (a file that grows while it
/// is read is refused too). A FIFO or a device is refused without blocking (O_NONBLOCK); a
/// configuration, a style, a GeoJSON file or an image is then at most `maxBytes` in memory
/// before it is parsed (issue 31: a 150 MB configuration took 886 MB, a 1 GiB one trapped).
public enum BoundedFile {
    public struct ReadError: Error, CustomStringConvertible, Equatable {
        public enum Kind: Sendable, Equatable { case unreadable, notAFile, tooLarge }
        public let kind: Kind
        public let message: String
        public var description: String { message }
    }

    /// The file's bytes; `what` names it in messages ("configuration file").
    public static func read(_ path: String, maxBytes: Int, what: String) throws -> Data {
        let file: OwnedDescriptor
        do { file = try OwnedDescriptor.open(path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY) } catch {
            let e = (error as? SystemError)?.errno ?? .ioError
            let why = e == .noSuchFileOrDirectory ? "no such file" : e == .permissionDenied ? "permission denied" : e.readableDescription
            throw ReadError(kind: .unreadable, message: "cannot read the \(what) \(path): \(why)")
        }
        defer { file.close() }
        guard let st = try? FileStatus.of(descriptor: file.rawValue), st.kind == .regular else {
            throw ReadError(kind: .notAFile, message: "\(path) is not a regular file (a folder, a FIFO or a device): the \(what) must be a file")
        }
        guard st.size <= Int64(maxBytes) else {
            throw ReadError(kind: .tooLarge, message: "\(path) is \(st.size) bytes: a \(what) may be at most \(size(maxBytes))")
        }
        // One byte more than the limit, to see a file that grew since fstat.
        var out = Data(count: Swift.min(maxBytes + 1, Int(st.size) + 4096))
        var got = 0
        do {
            try out.withUnsafeMutableBytes { buf in
                while got < buf.count {
                    let n = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buf[got...])) ?? 0
                    if n == 0 { break }
                    got += n
                }
            }
        } catch let e as SystemError {
            throw ReadError(kind: .unreadable, message: "cannot read the \(what) \(path): \(e.errno.readableDescription)")
        }
        guard got <= maxBytes else {
            throw ReadError(kind: .tooLarge, message: "\(path) grew beyond \(size(maxBytes)) while it was read: a \(what) may be at most that")
        }
        out.count = got
        return out
    }

    static func size(_ n: Int) -> String { n >= 1 << 20 ? "\(n >> 20) MiB" : "\(n >> 10) KiB" }
}
