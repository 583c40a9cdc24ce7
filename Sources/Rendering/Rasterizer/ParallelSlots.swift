import Foundation
import Synchronization

/// One result slot per iteration of `DispatchQueue.concurrentPerform`: each iteration writes its
/// own slot through a pointer, and the caller reads them once the loop has returned.
///
/// An array in a class written from several threads is not that: a constant array literal is a
/// statically allocated object in a release build, never uniquely referenced, so each write
/// copies the whole array and stores the copy back, and concurrent writes lose each other's
/// results (the world's land went missing from about one frame in a hundred that way).
final class ParallelSlots<T>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<T>

    init(count: Int, initial: T) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: initial)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Slot i: written by iteration i only, read after the loop.
    subscript(i: Int) -> T {
        get { slots[i] }
        set { slots[i] = newValue }
    }

    /// The slots in order (after the loop).
    var values: [T] { Array(slots) }
}

/// A value handed to the pool's threads while its maker waits for them: they only read what it
/// holds (made ready beforehand), and the maker does not touch it until they are done.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ v: T) { value = v }
}

/// Rows 0..<rows handed out `step` at a time, each to the first thread that asks for it: threads
/// that start at different moments (one after other work) share the rest as they come.
final class RowChunks: Sendable {
    private let next = Atomic<Int>(0)
    let rows: Int, step: Int

    init(rows: Int, step: Int) {
        self.rows = max(0, rows)
        self.step = max(1, step)
    }

    /// The next rows no thread has taken yet; nil when every row has been given out.
    func take() -> Range<Int>? {
        let k = next.add(1, ordering: .relaxed).oldValue
        guard k < (rows + step - 1) / step else { return nil }
        return k * step..<min(rows, k * step + step)
    }
}
