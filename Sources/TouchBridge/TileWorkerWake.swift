import Foundation
import Platform
import Rendering
#if canImport(Glibc)
import Glibc
#endif

/// Brings the vector-tile worker's news back to the event loop's thread: when tiles a frame
/// had to go without are decoded (on the second core), the worker writes a byte to a pipe; the
/// loop wakes, and `arrived` (forget the cached base map, draw again) runs on the loop's thread.
final class TileWorkerWake {
    /// The pipe's read end (the loop watches it) and write end (the worker writes to it).
    let fd: Int32, writeFD: Int32
    let vector: VectorTileSet
    let loop: EventLoop

    init(vector: VectorTileSet, loop: EventLoop, arrived: @escaping () -> Void) throws {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        for e in ends {
            _ = fcntl(e, F_SETFL, fcntl(e, F_GETFL) | O_NONBLOCK)
            _ = fcntl(e, F_SETFD, FD_CLOEXEC)
        }
        let fd = ends[0], writeFD = ends[1]
        self.fd = fd
        self.writeFD = writeFD
        self.vector = vector
        self.loop = loop
        try loop.add(fd: fd) { fd in
            var buf = [UInt8](repeating: 0, count: 64)
            while read(fd, &buf, buf.count) > 0 {}
            arrived()
        }
        vector.onMissingTilesDecoded = {
            // A full pipe already holds a wake-up: nothing is lost when this write fails.
            var one: UInt8 = 1
            _ = write(writeFD, &one, 1)
        }
        vector.decodesOnWorker = true
    }

    /// Stops the worker's news (waiting for a decode under way) and closes the pipe.
    func close() {
        vector.onMissingTilesDecoded = nil
        vector.decodesOnWorker = false
        vector.waitForPrefetch()
        loop.remove(fd: fd)
        _ = Glibc.close(fd)
        _ = Glibc.close(writeFD)
    }
}
