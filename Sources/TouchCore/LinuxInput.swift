/// The Linux input event codes TouchBridge uses (from <linux/input-event-codes.h>), kept in
/// Swift so that the pure stages need no C module.
public enum EV {
    public static let SYN: UInt16 = 0x00, KEY: UInt16 = 0x01, REL: UInt16 = 0x02, ABS: UInt16 = 0x03, MSC: UInt16 = 0x04
}
public enum SYN {
    public static let REPORT: UInt16 = 0, CONFIG: UInt16 = 1, MT_REPORT: UInt16 = 2, DROPPED: UInt16 = 3
}
public enum ABS {
    public static let X: UInt16 = 0x00, Y: UInt16 = 0x01, PRESSURE: UInt16 = 0x18, DISTANCE: UInt16 = 0x19
    public static let MT_SLOT: UInt16 = 0x2f, MT_TOUCH_MAJOR: UInt16 = 0x30, MT_TOUCH_MINOR: UInt16 = 0x31
    public static let MT_WIDTH_MAJOR: UInt16 = 0x32, MT_WIDTH_MINOR: UInt16 = 0x33, MT_ORIENTATION: UInt16 = 0x34
    public static let MT_POSITION_X: UInt16 = 0x35, MT_POSITION_Y: UInt16 = 0x36, MT_TOOL_TYPE: UInt16 = 0x37
    public static let MT_BLOB_ID: UInt16 = 0x38, MT_TRACKING_ID: UInt16 = 0x39, MT_PRESSURE: UInt16 = 0x3a
    public static let MT_DISTANCE: UInt16 = 0x3b
    public static let CNT = 0x40
}
public enum BTN {
    public static let TOOL_PEN: UInt16 = 0x140, TOOL_RUBBER: UInt16 = 0x141, TOOL_FINGER: UInt16 = 0x145
    public static let TOUCH: UInt16 = 0x14a, STYLUS: UInt16 = 0x14b, TOOL_DOUBLETAP: UInt16 = 0x14d
    public static let TOOL_TRIPLETAP: UInt16 = 0x14e, TOOL_QUADTAP: UInt16 = 0x14f, TOOL_QUINTTAP: UInt16 = 0x148
    public static let LEFT: UInt16 = 0x110
}
public enum INPUT_PROP {
    public static let POINTER: UInt16 = 0x00, DIRECT: UInt16 = 0x01, BUTTONPAD: UInt16 = 0x02
}
public enum MT_TOOL {
    public static let FINGER: Int32 = 0, PEN: Int32 = 1, PALM: Int32 = 2
}

/// One evdev event as the kernel (or an evemu file) gives it.
public struct InputEvent: Sendable, Hashable, Codable {
    /// Seconds on CLOCK_MONOTONIC (or the recording's clock).
    public var time: Double
    public var type: UInt16
    public var code: UInt16
    public var value: Int32
    public init(time: Double, type: UInt16, code: UInt16, value: Int32) {
        self.time = time; self.type = type; self.code = code; self.value = value
    }
    public init(sec: Int, usec: Int, type: UInt16, code: UInt16, value: Int32) {
        self.init(time: Double(sec) + Double(usec) / 1_000_000, type: type, code: code, value: value)
    }
}

/// An absolute axis as EVIOCGABS reports it.
public struct AbsInfo: Sendable, Hashable, Codable {
    public var minimum: Int32
    public var maximum: Int32
    public var fuzz: Int32
    public var flat: Int32
    /// Units per millimetre (0 when the device does not say).
    public var resolution: Int32
    public init(minimum: Int32, maximum: Int32, fuzz: Int32 = 0, flat: Int32 = 0, resolution: Int32 = 0) {
        self.minimum = minimum; self.maximum = maximum; self.fuzz = fuzz; self.flat = flat; self.resolution = resolution
    }
    public var range: Double { Double(maximum) - Double(minimum) }
}

/// The three kinds of touchscreen the frame assembler understands.
public enum TouchscreenKind: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Multitouch protocol B: slots and tracking ids.
    case protocolB(slots: Int)
    /// Multitouch protocol A: anonymous contacts separated by SYN_MT_REPORT.
    case protocolA
    /// ABS_X/ABS_Y with BTN_TOUCH (or pressure only).
    case singleTouch

    public var name: String {
        switch self {
        case .protocolB: return "protocolB"
        case .protocolA: return "protocolA"
        case .singleTouch: return "singleTouch"
        }
    }
    public var description: String {
        switch self {
        case .protocolB(let n): return "multitouch protocol B, \(n) slots"
        case .protocolA: return "multitouch protocol A"
        case .singleTouch: return "single-touch"
        }
    }
}

/// What a device says about itself: from EVIOCG* ioctls on a live node or from an evemu
/// description. Pure data, so the assembler and the classification work offline.
public struct DeviceCapabilities: Sendable, Hashable, Codable {
    public var name: String
    public var bustype: UInt16
    public var vendor: UInt16
    public var product: UInt16
    public var version: UInt16
    /// INPUT_PROP_* bits that are set.
    public var properties: Set<UInt16>
    /// Supported codes per event type (EV_KEY -> key codes, EV_ABS -> axes, ...).
    public var codes: [UInt16: Set<UInt16>]
    /// Absolute axes with their ranges.
    public var absinfo: [UInt16: AbsInfo]

    public init(name: String, bustype: UInt16 = 0, vendor: UInt16 = 0, product: UInt16 = 0, version: UInt16 = 0,
                properties: Set<UInt16> = [], codes: [UInt16: Set<UInt16>] = [:], absinfo: [UInt16: AbsInfo] = [:]) {
        self.name = name; self.bustype = bustype; self.vendor = vendor; self.product = product; self.version = version
        self.properties = properties; self.codes = codes; self.absinfo = absinfo
    }

    public func has(_ type: UInt16, _ code: UInt16) -> Bool { codes[type]?.contains(code) ?? false }
    public func hasAbs(_ code: UInt16) -> Bool { absinfo[code] != nil || has(EV.ABS, code) }

    /// Which kind of touch device this is, or nil when it is not a touch device with absolute
    /// positions (a mouse, a keyboard, a touchpad without INPUT_PROP_DIRECT still counts as
    /// touch when it has MT axes: the caller decides with `isTouchscreen`).
    public var touchKind: TouchscreenKind? {
        if hasAbs(ABS.MT_POSITION_X) && hasAbs(ABS.MT_POSITION_Y) {
            if let slot = absinfo[ABS.MT_SLOT] {
                return .protocolB(slots: Int(slot.maximum) - Int(slot.minimum) + 1)
            }
            return .protocolA
        }
        if hasAbs(ABS.X) && hasAbs(ABS.Y) && (has(EV.KEY, BTN.TOUCH) || hasAbs(ABS.PRESSURE)) {
            return .singleTouch
        }
        return nil
    }

    /// A touchscreen: absolute touch axes, and either INPUT_PROP_DIRECT or no sign of being a
    /// touchpad/tablet (old drivers, e.g. N-Trig, do not set INPUT_PROP_DIRECT).
    public var isTouchscreen: Bool {
        guard touchKind != nil else { return false }
        if properties.contains(INPUT_PROP.DIRECT) { return true }
        if properties.contains(INPUT_PROP.POINTER) || properties.contains(INPUT_PROP.BUTTONPAD) { return false }
        if has(EV.KEY, BTN.TOOL_PEN) && !hasAbs(ABS.MT_POSITION_X) { return false } // a tablet
        if has(EV.KEY, BTN.LEFT) { return false } // a touchpad or mouse
        return true
    }

    /// X and Y axes used for positions (MT axes when present).
    public var positionAxes: (x: AbsInfo, y: AbsInfo)? {
        if let x = absinfo[ABS.MT_POSITION_X], let y = absinfo[ABS.MT_POSITION_Y] { return (x, y) }
        if let x = absinfo[ABS.X], let y = absinfo[ABS.Y] { return (x, y) }
        return nil
    }
}
