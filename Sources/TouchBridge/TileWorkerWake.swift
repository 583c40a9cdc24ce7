import Foundation
import Platform
import Rendering

/// Brings the vector-tile worker's news back to the event loop's thread: when tiles a frame
/// had to go without are decoded (on the second core), the worker writes a byte to a pipe; the
/// loop wakes, and `arrived` (forget the cached base map, draw again) runs on the loop's thread.
final class TileWorkerWake {
    /// The pipe's read end (the loop watches it) and write end (the worker writes to it).
    let readEnd: OwnedDescriptor, writeEnd: OwnedDescriptor
    let vector: VectorTileSet
    let loop: EventLoop

    init(vector: VectorTileSet, loop: EventLoop, arrived: @escaping () -> Void) throws {
        (readEnd, writeEnd) = try Pipe.make(nonBlocking: true, name: "the tile worker's wake-up pipe")
        self.vector = vector
        self.loop = loop
        let readEnd = readEnd, wakeFD = writeEnd.rawValue, wakeName = writeEnd.path
        try loop.add(fd: readEnd.rawValue) { _ in
            var buf = [UInt8](repeating: 0, count: 64)
            while (try? buf.withUnsafeMutableBytes { try readEnd.read(into: $0) }) ?? 0 > 0 {}
            arrived()
        }
        vector.onMissingTilesDecoded = {
            // A full pipe already holds a wake-up: nothing is lost when this write fails.
            var one: UInt8 = 1
            _ = try? withUnsafeBytes(of: &one) { try FileIO.write(wakeFD, $0, path: wakeName) }
        }
        vector.decodesOnWorker = true
    }

    /// Stops the worker's news (waiting for a decode under way) and closes the pipe.
    func close() {
        vector.onMissingTilesDecoded = nil
        vector.decodesOnWorker = false
        vector.waitForPrefetch()
        loop.remove(fd: readEnd.rawValue)
        readEnd.close()
        writeEnd.close()
    }
}
