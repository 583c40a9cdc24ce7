import CEvdev
import TouchCore

/// A live device's capabilities as libevdev reports them, in the pure `DeviceCapabilities` form.
enum LiveCapabilities {
    /// Event types TouchBridge looks at, with their highest code.
    static let types: [(UInt16, UInt16)] = [(EV.SYN, 0x0f), (EV.KEY, 0x2ff), (EV.REL, 0x0f), (EV.ABS, 0x3f), (EV.MSC, 0x07)]

    static func read(_ dev: OpaquePointer) -> DeviceCapabilities {
        var codes: [UInt16: Set<UInt16>] = [:]
        var absinfo: [UInt16: AbsInfo] = [:]
        for (type, maxCode) in types where libevdev_has_event_type(dev, UInt32(type)) != 0 {
            var set = Set<UInt16>()
            for code in 0...maxCode where libevdev_has_event_code(dev, UInt32(type), UInt32(code)) != 0 {
                set.insert(code)
                if type == EV.ABS, let info = libevdev_get_abs_info(dev, UInt32(code)) {
                    absinfo[code] = AbsInfo(minimum: info.pointee.minimum, maximum: info.pointee.maximum,
                                            fuzz: info.pointee.fuzz, flat: info.pointee.flat,
                                            resolution: info.pointee.resolution)
                }
            }
            codes[type] = set
        }
        var props = Set<UInt16>()
        for p in UInt16(0)..<0x20 where libevdev_has_property(dev, UInt32(p)) != 0 { props.insert(p) }
        let name = libevdev_get_name(dev).map { String(cString: $0) } ?? ""
        return DeviceCapabilities(name: name,
                                  bustype: UInt16(truncatingIfNeeded: libevdev_get_id_bustype(dev)),
                                  vendor: UInt16(truncatingIfNeeded: libevdev_get_id_vendor(dev)),
                                  product: UInt16(truncatingIfNeeded: libevdev_get_id_product(dev)),
                                  version: UInt16(truncatingIfNeeded: libevdev_get_id_version(dev)),
                                  properties: props, codes: codes, absinfo: absinfo)
    }

    /// The device state libevdev holds (after a SYN_DROPPED it has re-read it with ioctls).
    static func state(_ dev: OpaquePointer, kind: TouchscreenKind) -> DeviceState {
        func value(_ type: UInt16, _ code: UInt16) -> Int32 { libevdev_get_event_value(dev, UInt32(type), UInt32(code)) }
        func has(_ type: UInt16, _ code: UInt16) -> Bool { libevdev_has_event_code(dev, UInt32(type), UInt32(code)) != 0 }
        var state = DeviceState()
        let touching = has(EV.KEY, BTN.TOUCH) ? value(EV.KEY, BTN.TOUCH) != 0 : value(EV.ABS, ABS.PRESSURE) > 0
        state.single = SlotState(trackingID: touching ? 0 : -1, x: value(EV.ABS, ABS.X), y: value(EV.ABS, ABS.Y),
                                 pressure: has(EV.ABS, ABS.PRESSURE) ? value(EV.ABS, ABS.PRESSURE) : nil)
        if case .protocolB = kind {
            let n = max(0, libevdev_get_num_slots(dev))
            state.currentSlot = Int(libevdev_get_current_slot(dev))
            state.slots = (0..<n).map { slot in
                func mt(_ code: UInt16) -> Int32 { libevdev_get_slot_value(dev, UInt32(slot), UInt32(code)) }
                return SlotState(trackingID: mt(ABS.MT_TRACKING_ID), x: mt(ABS.MT_POSITION_X), y: mt(ABS.MT_POSITION_Y),
                                 pressure: has(EV.ABS, ABS.MT_PRESSURE) ? mt(ABS.MT_PRESSURE) : nil,
                                 touchMajor: has(EV.ABS, ABS.MT_TOUCH_MAJOR) ? mt(ABS.MT_TOUCH_MAJOR) : nil,
                                 toolType: has(EV.ABS, ABS.MT_TOOL_TYPE) ? mt(ABS.MT_TOOL_TYPE) : nil)
            }
        }
        return state
    }
}
