import SystemPackage
import CCairo
import Foundation
import TouchCore

/// Headless output: each presented frame is written as a PNG file, either always to one file
/// or to numbered files (`pattern` with one `%d`-style field, e.g. "frames/frame-%05d.png").
public final class PNGDisplay: DisplayBackend {
    public enum Output: Sendable, Equatable {
        case file(String)
        case numbered(pattern: String)
    }
    public let width: Int
    public let height: Int
    public let refreshHz: Double
    public var physicalSizeMM: (width: Int, height: Int)? { nil }
    public let output: Output
    public var name: String { "PNG \(width)x\(height)" }
    public var isFlipPending: Bool { false }
    public var eventFileDescriptor: Int32? { nil }
    /// Its back buffer is malloc'd memory, read only by the PNG writer at `present()`.
    public var backBufferIsDrawable: Bool { true }
    /// Frames written so far.
    public private(set) var framesWritten = 0
    /// The last file written.
    public private(set) var lastPath: String?

    /// The drawing memory lives until deinit, so a frame handed out before `close()` never
    /// points at freed memory; after `close()` nothing more is written.
    private let back: UnsafeMutableRawPointer
    private var closed = false
    /// False while blanked: a dark panel writes no frames.
    public private(set) var powered = true
    public func setPowered(_ on: Bool) throws -> Bool { powered = on; return true }

    public init(width: Int, height: Int, output: Output, refreshHz: Double = 60) {
        precondition(width > 0 && height > 0)
        self.width = width
        self.height = height
        self.output = output
        self.refreshHz = refreshHz
        back = UnsafeMutableRawPointer.allocate(byteCount: width * 4 * height, alignment: 64)
        back.initializeMemory(as: UInt8.self, repeating: 0, count: width * 4 * height)
    }

    deinit { back.deallocate() }

    public func backBuffer() -> FrameBuffer {
        FrameBuffer(width: width, height: height, stride: width * 4, pixels: back)
    }

    /// The file the next frame goes to.
    public var nextPath: String {
        switch output {
        case let .file(p): return p
        case let .numbered(pattern): return PNGDisplay.numbered(pattern, framesWritten)
        }
    }

    /// The pattern with its last `%d` / `%0Nd` field replaced by the number, zero-padded to N;
    /// every other character is literal (a folder named "100%frames" or "%s" is a folder, never
    /// a format: the pattern is not given to String(format:)). No field: the number is appended.
    public static func numbered(_ pattern: String, _ n: Int) -> String {
        guard let r = pattern.range(of: "%0?[0-9]{0,3}d", options: [.regularExpression, .backwards]) else { return pattern + String(n) }
        let width = min(Int(pattern[r].dropFirst().dropLast()) ?? 0, 32)
        var digits = String(n)
        if digits.count < width { digits = String(repeating: "0", count: width - digits.count) + digits }
        return pattern.replacingCharacters(in: r, with: digits)
    }

    @discardableResult
    public func present() throws -> Bool {
        guard !closed else { return false }
        let path = nextPath
        let s = cairo_image_surface_create_for_data(back.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_RGB24,
                                                    Int32(width), Int32(height), Int32(width * 4))!
        defer { cairo_surface_destroy(s) }
        let status = cairo_surface_write_to_png(s, path)
        guard status == CAIRO_STATUS_SUCCESS else {
            throw DisplayError.systemCall(path: path, call: "writing PNG (\(String(cString: cairo_status_to_string(status))))", errno: .current)
        }
        framesWritten += 1
        lastPath = path
        return true
    }

    public func handleEvents() throws {}

    public func close() { closed = true }
}
