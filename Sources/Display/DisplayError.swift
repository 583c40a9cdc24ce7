import Foundation
import Platform
import SystemPackage

/// Why a display cannot be used; each message names the device and says what to do.
public enum DisplayError: Error, CustomStringConvertible, Equatable {
    case noDevice(path: String)
    case permissionDenied(path: String)
    case notDRMDevice(path: String)
    case noDumbBuffers(path: String)
    case noConnectedConnector(path: String, connectors: [String])
    case connectorNotFound(path: String, name: String, available: [String])
    case modeNotFound(path: String, connector: String, requested: String, available: [String])
    case noCRTC(path: String, connector: String)
    case masterHeld(path: String)
    /// The device stopped working while in use (its fd failed); nothing more is shown.
    case lost(path: String, reason: String)
    case notFramebuffer(path: String)
    /// The framebuffer's line length or memory size cannot hold the visible mode.
    case framebufferLayout(path: String, detail: String)
    case unsupportedPixelFormat(path: String, bitsPerPixel: Int)
    case systemCall(path: String, call: String, errno: Errno)

    public var description: String {
        switch self {
        case let .noDevice(path):
            return "no display device at \(path): is a DRM driver loaded (ls /dev/dri) or is another card configured? Use --display png for headless output."
        case let .permissionDenied(path):
            return "permission denied opening \(path): run as root or add the user to the 'video' group."
        case let .notDRMDevice(path):
            return "\(path) is not a DRM device (no DRM capabilities). Point the display at /dev/dri/cardN."
        case let .noDumbBuffers(path):
            return "the DRM device \(path) does not support dumb buffers, which this program draws into."
        case let .noConnectedConnector(path, connectors):
            return "no connected display on \(path) (connectors: \(connectors.isEmpty ? "none" : connectors.joined(separator: ", "))). Check the cable or the VM's display device."
        case let .connectorNotFound(path, name, available):
            return "no connector named \(name) on \(path); available: \(available.joined(separator: ", "))."
        case let .modeNotFound(path, connector, requested, available):
            return "the mode \(requested) does not exist on \(connector) of \(path); available modes: \(available.joined(separator: ", "))."
        case let .noCRTC(path, connector):
            return "no CRTC on \(path) can drive the connector \(connector)."
        case let .masterHeld(path):
            return "cannot set a mode on \(path): another process holds DRM master; a display server may be running (stop it, or run on a free VT)."
        case let .lost(path, reason):
            return "the display \(path) stopped working (\(reason)); the kiosk goes on without it: restart it once the display is back."
        case let .framebufferLayout(path, detail):
            return "the framebuffer \(path) reports a layout its memory cannot hold (\(detail)); check the driver's mode (fbset -i) or use the DRM backend."
        case let .notFramebuffer(path):
            return "\(path) is not a Linux framebuffer device (FBIOGET_VSCREENINFO failed)."
        case let .unsupportedPixelFormat(path, bpp):
            return "the framebuffer \(path) uses \(bpp) bits per pixel; only 32 bpp (XRGB8888) is supported. Set it with fbset -depth 32."
        case let .systemCall(path, call, errno):
            return "\(call) failed on \(path): \(errno.readableDescription) (errno \(errno.rawValue))."
        }
    }

    /// The error for opening a device node that failed with `errno`.
    static func opening(_ path: String, errno e: Int32) -> DisplayError {
        switch e {
        case ENOENT, ENODEV, ENXIO: return .noDevice(path: path)
        case EACCES, EPERM: return .permissionDenied(path: path)
        default: return .systemCall(path: path, call: "open", errno: Errno(rawValue: e))
        }
    }

    /// The error for a failed drmModeSetCrtc: EACCES/EPERM/EBUSY mean someone else is master.
    static func settingCrtc(_ path: String, errno e: Int32) -> DisplayError {
        switch e {
        case EACCES, EPERM, EBUSY: return .masterHeld(path: path)
        default: return .systemCall(path: path, call: "drmModeSetCrtc", errno: Errno(rawValue: e))
        }
    }
}

/// A mode asked for by the user (the text "WIDTHxHEIGHT[@HZ]" is read by TouchBridge's
/// `ConfigStrings.mode`, the one parser for the file and the command line).
public struct ModeRequest: Sendable, Equatable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var refreshHz: Int?

    public init(width: Int, height: Int, refreshHz: Int? = nil) {
        self.width = width; self.height = height; self.refreshHz = refreshHz
    }

    public var description: String { "\(width)x\(height)" + (refreshHz.map { "@\($0)" } ?? "") }
}

/// A display mode as offered by a connector.
public struct ModeDescription: Sendable, Equatable, CustomStringConvertible {
    public var width: Int, height: Int, refreshHz: Int, preferred: Bool
    public init(width: Int, height: Int, refreshHz: Int, preferred: Bool) {
        self.width = width; self.height = height; self.refreshHz = refreshHz; self.preferred = preferred
    }
    public var description: String { "\(width)x\(height)@\(refreshHz)" + (preferred ? " (preferred)" : "") }

    /// The index of the mode to use: the one requested, or else the preferred one (or the first).
    public static func select(_ modes: [ModeDescription], request: ModeRequest?, path: String, connector: String) throws -> Int {
        guard let r = request else {
            return modes.firstIndex { $0.preferred } ?? 0
        }
        let fits = modes.indices.filter { modes[$0].width == r.width && modes[$0].height == r.height
            && (r.refreshHz == nil || modes[$0].refreshHz == r.refreshHz) }
        guard let best = fits.first(where: { modes[$0].preferred }) ?? fits.max(by: { modes[$0].refreshHz < modes[$1].refreshHz }) else {
            throw DisplayError.modeNotFound(path: path, connector: connector, requested: r.description,
                                            available: modes.map(\.description))
        }
        return best
    }
}

/// A connector as the kernel reports it.
public struct ConnectorDescription: Sendable, Equatable {
    public var name: String
    public var connected: Bool
    public var modeCount: Int
    public init(name: String, connected: Bool, modeCount: Int) {
        self.name = name; self.connected = connected; self.modeCount = modeCount
    }

    /// The index of the connector to use: the named one, or the first connected one with modes.
    public static func select(_ all: [ConnectorDescription], name: String?, path: String) throws -> Int {
        let described = all.map { "\($0.name) (\($0.connected ? "connected" : "disconnected"))" }
        if let name {
            guard let i = all.firstIndex(where: { $0.name == name }) else {
                throw DisplayError.connectorNotFound(path: path, name: name, available: described)
            }
            guard all[i].connected, all[i].modeCount > 0 else {
                throw DisplayError.noConnectedConnector(path: path, connectors: described)
            }
            return i
        }
        guard let i = all.firstIndex(where: { $0.connected && $0.modeCount > 0 }) else {
            throw DisplayError.noConnectedConnector(path: path, connectors: described)
        }
        return i
    }
}
