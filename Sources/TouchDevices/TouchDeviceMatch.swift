import TouchCore

/// How the config picks a touch device, overriding discovery: an explicit node path, a
/// vendor:product pair ("04f3:0732", hex), or a case-insensitive substring of the device name.
/// The text form is read by TouchBridge's `ConfigStrings.deviceMatch`, the one parser for the
/// file's `match` and the command line's `--device`.
public enum TouchDeviceMatch: Sendable, Hashable, CustomStringConvertible {
    case path(String)
    case vendorProduct(vendor: UInt16, product: UInt16)
    case name(String)

    public func matches(path: String, capabilities: DeviceCapabilities) -> Bool {
        switch self {
        case .path(let p): return p == path
        case .vendorProduct(let v, let p): return capabilities.vendor == v && capabilities.product == p
        case .name(let n): return n.isEmpty || capabilities.name.lowercased().contains(n.lowercased())
        }
    }

    public var description: String {
        switch self {
        case .path(let p): return p
        case .vendorProduct(let v, let p): return "\(hex4(v)):\(hex4(p))"
        case .name(let n): return "name containing \"\(n)\""
        }
    }
}

func hex4(_ v: UInt16) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: 4 - s.count) + s
}
