import Foundation
import Display

/// A display that keeps its frames in memory: headless apps, tests and the benchmark.
public final class MemoryDisplay: DisplayBackend {
    public let width: Int
    public let height: Int
    public var physicalSizeMM: (width: Int, height: Int)? { nil }
    public let refreshHz: Double
    public var name: String { "memory \(width)x\(height)" }
    public var isFlipPending: Bool { false }
    public var eventFileDescriptor: Int32? { nil }
    public private(set) var presented = 0
    let memory: UnsafeMutableRawPointer

    public init(width: Int, height: Int, refreshHz: Double = 60) {
        self.width = width
        self.height = height
        self.refreshHz = refreshHz
        memory = .allocate(byteCount: width * height * 4, alignment: 64)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: width * height * 4)
    }
    deinit { memory.deallocate() }

    public func backBuffer() -> DisplayFrame {
        DisplayFrame(width: width, height: height, stride: width * 4, pixels: memory)
    }
    public func present() throws -> Bool { presented += 1; return true }
    public func handleEvents() throws {}
    public func close() {}
}
