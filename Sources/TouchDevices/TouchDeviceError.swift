import TouchCore
import SystemPackage

/// What can go wrong with a touch device, written for the person at the kiosk.
public enum TouchDeviceError: Error, Sendable, CustomStringConvertible {
    /// open(2) failed.
    case cannotOpen(path: String, errno: Errno)
    /// The node is not an evdev device libevdev can read.
    case notEvdev(path: String, errno: Errno)
    /// read failed for another reason than "no more events" or ENODEV. `frames` as for `gone`.
    case readFailed(path: String, errno: Errno, frames: [ContactFrame])
    /// The device vanished (unplugged, ENODEV). `frames` holds the frames read before that and,
    /// last, the frame that cancels every contact that was down.
    case gone(path: String, frames: [ContactFrame])
    /// The node has no absolute touch axes.
    case notATouchscreen(path: String, name: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let e):
            let hint = e == .permissionDenied
                ? "add the user to the 'input' group or run as root"
                : e == .noSuchFileOrDirectory ? "check the path (ls /dev/input/by-path/) and the device's cable" : "check the device"
            return "cannot open touch device \(path): \(e.readableDescription); \(hint)"
        case .notEvdev(let path, let e):
            return "\(path) is not an evdev input device (\(e.readableDescription)); give a /dev/input/eventN node"
        case .readFailed(let path, let e, _):
            return "reading touch device \(path) failed: \(e.readableDescription); its contacts were lifted and it was closed; reconnect the device"
        case .gone(let path, _):
            return "touch device \(path) disappeared (unplugged?); its contacts were cancelled; it is picked up again when it comes back"
        case .notATouchscreen(let path, let name):
            return "\(path) (\"\(name)\") reports no absolute touch axes; pick the touchscreen's node (touchbridge devices lists them)"
        }
    }
}

