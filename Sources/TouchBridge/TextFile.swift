import Foundation
import Platform

/// Reads a text file a line at a time through a fixed buffer, so a file of any size (a recording
/// of hundreds of megabytes) costs the memory of one line. LF and CRLF line ends; a line longer
/// than `maxLineBytes` is an error rather than an unbounded allocation.
package final class TextLineReader {
    public struct ReadError: Error, CustomStringConvertible {
        public let description: String
    }

    public let path: String
    public let maxLineBytes: Int
    private let file: OwnedDescriptor
    private var buffer: [UInt8]
    private var start = 0
    private var end = 0
    private var atEOF = false
    /// Lines handed out so far.
    public private(set) var lineNumber = 0

    public init(path: String, maxLineBytes: Int = 1 << 20) throws {
        self.path = path
        self.maxLineBytes = maxLineBytes
        do { file = try OwnedDescriptor(path: path, .readOnly) } catch let e as SystemError {
            throw ReadError(description: "cannot read \(path): \(e.errno.readableDescription); check the path and its permissions")
        }
        if (try? FileStatus.of(descriptor: file.rawValue))?.kind == .directory {
            throw ReadError(description: "cannot read \(path): it is a folder, not a file")
        }
        buffer = [UInt8](repeating: 0, count: 1 << 16)
    }

    /// The next line without its line end (a CR before the LF is dropped), or nil at the end.
    public func next() throws -> Substring? {
        while true {
            if let nl = buffer[start..<end].firstIndex(of: UInt8(ascii: "\n")) {
                var last = nl
                if last > start && buffer[last - 1] == UInt8(ascii: "\r") { last -= 1 }
                let line = Substring(decoding: buffer[start..<last], as: UTF8.self)
                start = nl + 1
                lineNumber += 1
                return line
            }
            if atEOF {
                guard start < end else { return nil }
                var last = end
                if buffer[last - 1] == UInt8(ascii: "\r") { last -= 1 }
                let line = Substring(decoding: buffer[start..<last], as: UTF8.self)
                start = end
                lineNumber += 1
                return line
            }
            try fill()
        }
    }

    /// Moves the partial line to the front and reads more after it.
    private func fill() throws {
        if start > 0 {
            buffer.withUnsafeMutableBufferPointer { b in
                _ = memmove(b.baseAddress!, b.baseAddress! + start, end - start)
            }
            end -= start
            start = 0
        }
        if end == buffer.count {
            guard buffer.count < maxLineBytes + 1 else {
                throw ReadError(description: "\(path):\(lineNumber + 1): a line longer than \(maxLineBytes) bytes; is this a text file?")
            }
            buffer += [UInt8](repeating: 0, count: min(buffer.count, maxLineBytes + 1 - buffer.count))
        }
        let n: Int
        do {
            n = try buffer.withUnsafeMutableBytes { b in try file.read(into: UnsafeMutableRawBufferPointer(rebasing: b[end...])) } ?? 0
        } catch let e as SystemError {
            throw ReadError(description: "cannot read \(path): \(e.errno.readableDescription)")
        }
        if n == 0 { atEOF = true } else { end += n }
    }
}
