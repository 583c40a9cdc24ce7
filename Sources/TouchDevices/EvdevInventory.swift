import CEvdev
import TouchCore
import Platform
import SystemPackage

/// One evdev node found under /dev/input: what the device says about itself, or why it could
/// not be read.
public struct EvdevNodeInfo: Sendable {
    public let path: String
    public let capabilities: Result<DeviceCapabilities, EvdevInventoryError>
}

/// An evdev node that could not be opened or queried, with what to do about it.
public struct EvdevInventoryError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let code: Errno
    public let reason: String
    public let advice: String
    public var description: String { advice.isEmpty ? "\(path): \(reason)" : "\(path): \(reason); \(advice)" }

    init(path: String, code: Errno, during action: String) {
        self.path = path
        self.code = code
        self.reason = "\(action) failed: \(code.readableDescription)"
        switch code {
        case .permissionDenied, .notPermitted:
            advice = "add the user to the 'input' group (usermod -aG input USER, then log in again) or run as root"
        case .noSuchFileOrDirectory, .operationNotSupportedByDevice:
            advice = "the device went away while it was being listed; unplugged?"
        default:
            advice = ""
        }
    }
}

/// Lists the evdev devices under /dev/input with libevdev and fills `DeviceCapabilities`.
public enum EvdevInventory {
    public static let defaultDirectory = "/dev/input"

    /// The event nodes in `directory`, in numeric order (event2 before event10).
    public static func nodePaths(in directory: String = defaultDirectory) -> [String] {
        DeviceNodes.numbered("event", in: directory)
    }

    /// Every event node in `directory`, each with its capabilities or the reason it is unreadable.
    public static func scan(directory: String = defaultDirectory) -> [EvdevNodeInfo] {
        nodePaths(in: directory).map { path in
            EvdevNodeInfo(path: path, capabilities: Result { () throws(EvdevInventoryError) in try capabilities(ofNodeAt: path) })
        }
    }

    /// Opens `path` read-only (no grab) and asks the kernel what the device reports.
    public static func capabilities(ofNodeAt path: String) throws(EvdevInventoryError) -> DeviceCapabilities {
        let node: OwnedDescriptor
        do { node = try OwnedDescriptor(path: path, .readOnly, options: .nonBlocking) } catch {
            throw EvdevInventoryError(path: path, code: (error as? SystemError)?.errno ?? .ioError, during: "open")
        }
        defer { node.close() }
        let fd = node.rawValue
        var handle: OpaquePointer?
        let rc = libevdev_new_from_fd(fd, &handle)
        guard rc == 0, let dev = handle else {
            throw EvdevInventoryError(path: path, code: Errno(rawValue: -rc), during: "libevdev_new_from_fd")
        }
        defer { libevdev_free(dev) }
        return capabilities(of: dev)
    }

    static func capabilities(of dev: OpaquePointer) -> DeviceCapabilities {
        var caps = DeviceCapabilities(
            name: libevdev_get_name(dev).map { String(cString: $0) } ?? "",
            bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev)),
            vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev)),
            product: UInt16(truncatingIfNeeded: libevdev_get_id_product(dev)),
            version: UInt16(truncatingIfNeeded: libevdev_get_id_version(dev)))
        for prop in 0..<UInt32(INPUT_PROP_CNT) where libevdev_has_property(dev, prop) == 1 {
            caps.properties.insert(UInt16(prop))
        }
        for type in 1..<UInt32(EV_CNT) where libevdev_has_event_type(dev, type) == 1 {
            let maxCode = libevdev_event_type_get_max(type)
            guard maxCode >= 0 else { continue }
            var codes = Set<UInt16>()
            for code in 0...UInt32(maxCode) where libevdev_has_event_code(dev, type, code) == 1 {
                codes.insert(UInt16(code))
                if type == UInt32(EV_ABS), let info = libevdev_get_abs_info(dev, code) {
                    caps.absinfo[UInt16(code)] = AbsInfo(
                        minimum: info.pointee.minimum, maximum: info.pointee.maximum, fuzz: info.pointee.fuzz,
                        flat: info.pointee.flat, resolution: info.pointee.resolution)
                }
            }
            caps.codes[UInt16(type)] = codes
        }
        return caps
    }

    /// The kernel's name of an absolute axis, e.g. "ABS_MT_POSITION_X".
    public static func axisName(_ code: UInt16) -> String {
        libevdev_event_code_get_name(UInt32(EV_ABS), UInt32(code)).map { String(cString: $0) }
            ?? "ABS_0x" + String(code, radix: 16)
    }
}
