import CDRM
import Platform

/// A display mode as a connector offers it.
public struct DRMModeInfo: Sendable, Hashable {
    public var name: String
    public var width: Int
    public var height: Int
    /// Vertical refresh in Hz.
    public var refresh: Int
    public var preferred: Bool
}

/// One connector (a display output) of a DRM card.
public struct DRMConnectorInfo: Sendable, Hashable {
    /// The kernel's name, e.g. "Virtual-1" or "HDMI-A-1".
    public var name: String
    public var connected: Bool
    /// Physical size in millimetres (0 when the display does not say).
    public var widthMM: Int
    public var heightMM: Int
    public var modes: [DRMModeInfo]
}

/// A DRM card node and its connectors.
public struct DRMCardInfo: Sendable, Hashable {
    public var path: String
    /// The kernel driver, e.g. "bochs-drm".
    public var driver: String
    public var connectors: [DRMConnectorInfo]
}

/// A card node that could not be opened or queried, with what to do about it.
public struct DRMInventoryError: Error, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    public let advice: String
    public var description: String { advice.isEmpty ? "\(path): \(reason)" : "\(path): \(reason); \(advice)" }
}

/// One card node found under /dev/dri: its connectors, or why it could not be read.
public struct DRMNodeInfo: Sendable {
    public let path: String
    public let card: Result<DRMCardInfo, DRMInventoryError>
}

/// Lists the DRM cards under /dev/dri and their connectors with libdrm.
public enum DRMInventory {
    public static let defaultDirectory = "/dev/dri"

    /// The card nodes in `directory`, in numeric order.
    public static func cardPaths(in directory: String = defaultDirectory) -> [String] {
        DeviceNodes.numbered("card", in: directory)
    }

    public static func scan(directory: String = defaultDirectory) -> [DRMNodeInfo] {
        cardPaths(in: directory).map { path in
            DRMNodeInfo(path: path, card: Result { () throws(DRMInventoryError) in try card(at: path) })
        }
    }

    /// Opens the card (O_RDWR, as libdrm's users do; no DRM master is taken, so this works while
    /// another program drives the display) and reads its driver and connectors.
    public static func card(at path: String) throws(DRMInventoryError) -> DRMCardInfo {
        let card: OwnedDescriptor
        do { card = try OwnedDescriptor(path: path, .readWrite) } catch {
            let code = (error as? SystemError)?.errno ?? .ioError
            let advice = (code == .permissionDenied || code == .notPermitted)
                ? "add the user to the 'video' group (usermod -aG video USER, then log in again) or run as root"
                : ""
            throw DRMInventoryError(path: path, reason: "open failed: \(code.readableDescription)", advice: advice)
        }
        defer { card.close() }
        let fd = card.rawValue
        var driver = ""
        if let version = drmGetVersion(fd) {
            if let name = version.pointee.name { driver = String(cString: name) }
            drmFreeVersion(version)
        }
        guard let resources = drmModeGetResources(fd) else {
            throw DRMInventoryError(path: path, reason: "the driver '\(driver)' does no mode setting",
                                    advice: "use a card with display outputs")
        }
        defer { drmModeFreeResources(resources) }
        var connectors: [DRMConnectorInfo] = []
        for i in 0..<Int(resources.pointee.count_connectors) {
            guard let conn = drmModeGetConnector(fd, resources.pointee.connectors[i]) else { continue }
            defer { drmModeFreeConnector(conn) }
            connectors.append(connectorInfo(conn.pointee))
        }
        return DRMCardInfo(path: path, driver: driver, connectors: connectors)
    }

    static func connectorInfo(_ c: drmModeConnector) -> DRMConnectorInfo {
        let typeName = drmModeGetConnectorTypeName(c.connector_type).map { String(cString: $0) } ?? "Unknown"
        var modes: [DRMModeInfo] = []
        for i in 0..<Int(c.count_modes) {
            var m = c.modes[i]
            let name = withUnsafeBytes(of: &m.name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            modes.append(DRMModeInfo(name: name, width: Int(m.hdisplay), height: Int(m.vdisplay),
                                     refresh: Int(m.vrefresh),
                                     preferred: m.type & UInt32(DRM_MODE_TYPE_PREFERRED) != 0))
        }
        return DRMConnectorInfo(name: "\(typeName)-\(c.connector_type_id)", connected: c.connection == DRM_MODE_CONNECTED,
                                widthMM: Int(c.mmWidth), heightMM: Int(c.mmHeight), modes: modes)
    }
}
