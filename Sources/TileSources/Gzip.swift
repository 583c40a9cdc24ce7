import CZlib
import Foundation

/// gzip / zlib decompression with zlib, bounded: output beyond `limit` bytes is an error, so a
/// small hostile tile cannot expand into gigabytes.
public enum Gzip {
    public enum Failure: Error, CustomStringConvertible, Equatable {
        case tooLarge(limit: Int)
        case corrupt(String)
        public var description: String {
            switch self {
            case let .tooLarge(limit): return "it expands beyond \(limit) bytes"
            case let .corrupt(why): return "corrupt data: \(why)"
            }
        }
    }

    /// Whether the bytes start like a gzip member (1f 8b) or a zlib stream (78 xx).
    public static func isCompressed(_ d: Data) -> Bool {
        guard d.count >= 2 else { return false }
        let a = d[d.startIndex], b = d[d.startIndex + 1]
        return (a == 0x1f && b == 0x8b) || (a == 0x78 && (UInt16(a) << 8 | UInt16(b)) % 31 == 0)
    }

    public static func decompress(_ input: Data, limit: Int) throws -> Data {
        var stream = z_stream()
        // 15 + 32: a 32 KiB window, gzip or zlib header detected automatically.
        guard inflateInit2_(&stream, 15 + 32, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw Failure.corrupt("zlib could not start")
        }
        defer { inflateEnd(&stream) }
        var output = Data()
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        let bytes = [UInt8](input)
        return try bytes.withUnsafeBufferPointer { src -> Data in
            stream.next_in = UnsafeMutablePointer(mutating: src.baseAddress)
            stream.avail_in = uInt(src.count)
            while true {
                let (rc, produced) = chunk.withUnsafeMutableBufferPointer { out -> (Int32, Int) in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    let rc = inflate(&stream, Z_NO_FLUSH)
                    return (rc, out.count - Int(stream.avail_out))
                }
                if produced > 0 {
                    guard output.count + produced <= limit else { throw Failure.tooLarge(limit: limit) }
                    output.append(contentsOf: chunk[0..<produced])
                }
                switch rc {
                case Z_STREAM_END: return output
                case Z_OK: continue
                case Z_BUF_ERROR:
                    // No progress possible: the input ended before the stream did.
                    throw Failure.corrupt("the data ends early")
                default:
                    let msg = stream.msg.map { String(cString: $0) } ?? "zlib error \(rc)"
                    throw Failure.corrupt(msg)
                }
            }
        }
    }
}
