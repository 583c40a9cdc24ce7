import CEvdev
import TouchCore

/// A live device's slot state as libevdev holds it (capabilities: `EvdevInventory.capabilities(of:)`).
enum LiveCapabilities {
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
