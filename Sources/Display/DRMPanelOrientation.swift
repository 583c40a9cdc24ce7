import CDRM

/// The kernel's "panel orientation" connector property (set from firmware quirks and device
/// tree for panels built into a case turned): how the panel is mounted, as a `[display]
/// rotation` in degrees clockwise. A panel whose left side is at the top of the case is turned
/// 90 degrees clockwise, as in Configs/portrait-panel.toml.
public enum DRMPanelOrientation {
    /// Rotation for one of the property's enum names; nil for a name the kernel does not use.
    public static func rotation(forName name: String) -> Int? {
        switch name {
        case "Normal": return 0
        case "Upside Down": return 180
        case "Left Side Up": return 90
        case "Right Side Up": return 270
        default: return nil
        }
    }

    /// Reads the property of a connector; nil when the driver does not expose it.
    static func read(fd: Int32, connectorID: UInt32) -> Int? {
        guard let props = drmModeObjectGetProperties(fd, connectorID, UInt32(DRM_MODE_OBJECT_CONNECTOR)) else { return nil }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(prop) }
            guard cString(prop.pointee.name) == "panel orientation" else { continue }
            let value = props.pointee.prop_values[i]
            for j in 0..<Int(prop.pointee.count_enums) {
                let e = prop.pointee.enums[j]
                if e.value == value { return rotation(forName: cString(e.name)) }
            }
        }
        return nil
    }

    /// The id and current value of a connector property by name; nil when the driver does not expose it.
    static func property(fd: Int32, connectorID: UInt32, named name: String) -> (id: UInt32, value: UInt64)? {
        guard let props = drmModeObjectGetProperties(fd, connectorID, UInt32(DRM_MODE_OBJECT_CONNECTOR)) else { return nil }
        defer { drmModeFreeObjectProperties(props) }
        for i in 0..<Int(props.pointee.count_props) {
            guard let prop = drmModeGetProperty(fd, props.pointee.props[i]) else { continue }
            defer { drmModeFreeProperty(prop) }
            if cString(prop.pointee.name) == name { return (prop.pointee.prop_id, props.pointee.prop_values[i]) }
        }
        return nil
    }

    /// A fixed-size C char array (imported as a tuple) as a String.
    static func cString<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { raw in
            let bytes = raw.prefix { $0 != 0 }
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
