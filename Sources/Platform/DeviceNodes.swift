#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The kernel's numbered device nodes in a directory ("event3" under /dev/input, "card1" under
/// /dev/dri): the one directory scan the input and display inventories share.
public enum DeviceNodes {
    /// Paths of the entries named `prefix` + a number, in numeric order (event2 before event10);
    /// empty when the directory cannot be read.
    public static func numbered(_ prefix: String, in directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var numbers: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix(prefix), let n = Int(name.dropFirst(prefix.count)) { numbers.append(n) }
        }
        return numbers.sorted().map { "\(directory)/\(prefix)\($0)" }
    }
}
