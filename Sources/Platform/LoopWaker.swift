import Glibc

/// Wakes an `EventLoop` from another thread (a worker, a driver thread): `wake()` may be called
/// from any thread, and the handler runs on the loop's thread, once for each batch of wakes
/// that arrived while it slept. A non-blocking pipe underneath: a full pipe already holds a
/// wake-up, so a `wake()` that finds it full loses nothing.
public final class LoopWaker: @unchecked Sendable {
    private let readEnd: OwnedDescriptor
    private let writeEnd: OwnedDescriptor
    private let writeFD: Int32
    private weak var loop: EventLoop?

    public init(loop: EventLoop, name: String, handler: @escaping () -> Void) throws {
        (readEnd, writeEnd) = try Pipe.make(nonBlocking: true, name: name)
        writeFD = writeEnd.rawValue
        self.loop = loop
        let readEnd = readEnd
        try loop.add(fd: readEnd.rawValue) { _ in
            var buf = [UInt8](repeating: 0, count: 64)
            while (try? buf.withUnsafeMutableBytes { try readEnd.read(into: $0) }) ?? 0 > 0 {}
            handler()
        }
    }

    /// From any thread: the handler runs on the loop's thread soon after.
    public func wake() {
        var one: UInt8 = 1
        _ = try? withUnsafeBytes(of: &one) { try FileIO.write(writeFD, $0, path: writeEnd.path) }
    }

    /// Takes the read end off the loop and closes both ends; no `wake()` may follow.
    public func close() {
        loop?.remove(fd: readEnd.rawValue)
        readEnd.close()
        writeEnd.close()
    }
}
