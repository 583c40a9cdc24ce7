import Foundation
import Platform
import Rendering

/// Brings the vector-tile worker's news back to the event loop's thread: when tiles a frame
/// had to go without are decoded (on the second core), the worker writes a byte to a pipe; the
/// loop wakes, and `arrived` (forget the cached base map, draw again) runs on the loop's thread.
final class TileWorkerWake {
    let waker: LoopWaker
    let vector: VectorTileSet

    init(vector: VectorTileSet, loop: EventLoop, arrived: @escaping () -> Void) throws {
        let waker = try LoopWaker(loop: loop, name: "the tile worker's wake-up pipe", handler: arrived)
        self.waker = waker
        self.vector = vector
        vector.onMissingTilesDecoded = { waker.wake() }
        vector.decodesOnWorker = true
    }

    /// Stops the worker's news (waiting for a decode under way) and closes the pipe.
    func close() {
        vector.onMissingTilesDecoded = nil
        vector.decodesOnWorker = false
        vector.waitForPrefetch()
        waker.close()
    }
}
