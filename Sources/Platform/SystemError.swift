import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A failed system call: what was attempted, on which device or file, and the errno as a typed
/// `Errno` (so callers compare with `.permissionDenied`, not with 13).
public struct SystemError: Error, Sendable, CustomStringConvertible {
    public let operation: String
    /// The device node or file the call was about, when there is one.
    public let path: String?
    public let errno: Errno

    public init(_ operation: String, path: String? = nil, errno: Errno = Errno.current) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    public var description: String {
        (path.map { "\(operation) \($0)" } ?? operation) + ": " + errno.readableDescription
    }
}

extension Errno {
    /// errno of the calling thread now.
    public static var current: Errno { Errno(rawValue: Glibc.errno) }

    /// strerror's text ("Permission denied"), which is what an operator searches for.
    public var readableDescription: String { String(cString: strerror(rawValue)) }
}

/// The one place a raw system call is retried after EINTR. `body` returns the call's result;
/// negative means failure with errno set. Returns the first non-EINTR result.
@discardableResult
public func retryingEINTR<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let r = body()
        if r >= 0 || Glibc.errno != EINTR { return r }
    }
}

/// Calls `body` (retrying EINTR) and throws a `SystemError` naming `operation` and `path`
/// when it fails. For calls whose result must not be ignored (timerfd_settime, fcntl, ioctl).
@discardableResult
public func checkedSystemCall<T: BinaryInteger>(_ operation: String, path: String? = nil, _ body: () -> T) throws -> T {
    let r = retryingEINTR(body)
    guard r >= 0 else { throw SystemError(operation, path: path) }
    return r
}
