import Foundation

/// Memory holding one XRGB8888 frame (little-endian 32-bit words 0xXXRRGGBB), as cairo's
/// CAIRO_FORMAT_RGB24 and DRM's DRM_FORMAT_XRGB8888 lay it out. Does not own the memory.
public struct FrameBuffer: @unchecked Sendable {
    public let width: Int
    public let height: Int
    /// Bytes per row (at least 4 * width, a multiple of 4).
    public let stride: Int
    public let pixels: UnsafeMutableRawPointer

    public init(width: Int, height: Int, stride: Int, pixels: UnsafeMutableRawPointer) {
        precondition(width > 0 && height > 0 && stride >= 4 * width && stride % 4 == 0)
        self.width = width
        self.height = height
        self.stride = stride
        self.pixels = pixels
    }

    /// The pixel at (x, y) as 0x00RRGGBB.
    public func pixel(x: Int, y: Int) -> UInt32 {
        precondition(x >= 0 && x < width && y >= 0 && y < height)
        return pixels.load(fromByteOffset: y * stride + 4 * x, as: UInt32.self) & 0x00ff_ffff
    }
}

/// A frame buffer that owns its memory (allocated once, zeroed so the first touch is paid here).
public final class OwnedFrameBuffer: @unchecked Sendable {
    public let buffer: FrameBuffer
    public init(width: Int, height: Int) {
        let stride = width * 4
        let mem = UnsafeMutableRawPointer.allocate(byteCount: stride * height, alignment: 64)
        mem.initializeMemory(as: UInt8.self, repeating: 0, count: stride * height)
        buffer = FrameBuffer(width: width, height: height, stride: stride, pixels: mem)
    }
    deinit { buffer.pixels.deallocate() }
}
