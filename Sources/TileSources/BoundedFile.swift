import Foundation
#if canImport(Glibc)
import Glibc
#endif

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
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else {
            let e = errno
            let why = e == ENOENT ? "no such file" : e == EACCES ? "permission denied" : String(cString: strerror(e))
            throw ReadError(kind: .unreadable, message: "cannot read the \(what) \(path): \(why)")
        }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else {
            throw ReadError(kind: .notAFile, message: "\(path) is not a regular file (a folder, a FIFO or a device): the \(what) must be a file")
        }
        guard Int(st.st_size) <= maxBytes else {
            throw ReadError(kind: .tooLarge, message: "\(path) is \(st.st_size) bytes: a \(what) may be at most \(size(maxBytes))")
        }
        // One byte more than the limit, to see a file that grew since fstat.
        var out = Data(count: Swift.min(maxBytes + 1, Int(st.st_size) + 4096))
        var got = 0
        let failed: Int32 = out.withUnsafeMutableBytes { buf in
            while got < buf.count {
                let n = Glibc.read(fd, buf.baseAddress! + got, buf.count - got)
                if n < 0 && errno == EINTR { continue }
                if n < 0 { return errno }
                if n == 0 { break }
                got += n
            }
            return 0
        }
        guard failed == 0 else { throw ReadError(kind: .unreadable, message: "cannot read the \(what) \(path): \(String(cString: strerror(failed)))") }
        guard got <= maxBytes else {
            throw ReadError(kind: .tooLarge, message: "\(path) grew beyond \(size(maxBytes)) while it was read: a \(what) may be at most that")
        }
        out.count = got
        return out
    }

    static func size(_ n: Int) -> String { n >= 1 << 20 ? "\(n >> 20) MiB" : "\(n >> 10) KiB" }
}
