import Foundation
import TouchCore
import Display

/// A display that keeps its frames in memory: headless apps, tests and the benchmark.
package final class MemoryDisplay: DisplayBackend {
    public let width: Int
    public let height: Int
    public var physicalSizeMM: (width: Int, height: Int)? { nil }
    public let refreshHz: Double
    public var name: String { "memory \(width)x\(height)" }
    public var isFlipPending: Bool { false }
    public var eventFileDescriptor: Int32? { nil }
    /// Its back buffer is ordinary memory that nothing else reads.
    public var backBufferIsDrawable: Bool { true }
    public private(set) var presented = 0
    /// False while blanked (`setPowered(false)`).
    public private(set) var powered = true
    public func setPowered(_ on: Bool) throws -> Bool { powered = on; return true }
    /// The next this many presents are refused (return false with no flip pending), as a DRM
    /// driver does when its previous commit is still being cleaned up (EBUSY).
    public var busyPresents = 0
    let memory: UnsafeMutableRawPointer

    public init(width: Int, height: Int, refreshHz: Double = 60) {
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
        memory = .allocate(byteCount: width * height * 4, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: width * height * 4)
    }
    deinit { memory.deallocate() }

    public func backBuffer() -> FrameBuffer {
        FrameBuffer(width: width, height: height, stride: width * 4, pixels: memory)
    }
    public func present() throws -> Bool {
        if busyPresents > 0 { busyPresents -= 1; return false }
        presented += 1
        return true
    }
    public func handleEvents() throws {}
    public func close() {}
}

/// A display that forwards to another but does not let the map be drawn into its buffer: the
/// map view draws into a frame of its own and copies it (for measuring and testing what drawing
/// in place saves).
package final class CopyOnlyDisplay: DisplayBackend {
    public let inner: DisplayBackend
    public init(_ inner: DisplayBackend) { self.inner = inner }
    public var width: Int { inner.width }
    public var height: Int { inner.height }
    public var physicalSizeMM: (width: Int, height: Int)? { inner.physicalSizeMM }
    public var refreshHz: Double { inner.refreshHz }
    public var name: String { inner.name + " (copied into)" }
    public func backBuffer() -> FrameBuffer { inner.backBuffer() }
    public func present() throws -> Bool { try inner.present() }
    public var isFlipPending: Bool { inner.isFlipPending }
    public var eventFileDescriptor: Int32? { inner.eventFileDescriptor }
    public func handleEvents() throws { try inner.handleEvents() }
    public func close() { inner.close() }
}
