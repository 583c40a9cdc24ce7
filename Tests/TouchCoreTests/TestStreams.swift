import TouchCore

/// Scripted evdev streams with explicit timestamps, for driving the assembler in tests.
struct Script {
    var time: Double
    var events: [InputEvent] = []

    init(start: Double = 100.0) { time = start }

    mutating func abs(_ code: UInt16, _ value: Int32) { events.append(InputEvent(time: time, type: EV.ABS, code: code, value: value)) }
    mutating func key(_ code: UInt16, _ value: Int32) { events.append(InputEvent(time: time, type: EV.KEY, code: code, value: value)) }
    mutating func mtReport() { events.append(InputEvent(time: time, type: EV.SYN, code: SYN.MT_REPORT, value: 0)) }
    mutating func dropped() { events.append(InputEvent(time: time, type: EV.SYN, code: SYN.DROPPED, value: 0)) }
    /// SYN_REPORT, then the clock advances by `dt` seconds.
    mutating func syn(advance dt: Double = 0.010) {
        events.append(InputEvent(time: time, type: EV.SYN, code: SYN.REPORT, value: 0))
        time += dt
    }

    /// Protocol B: one slot's tracking id and position.
    mutating func slot(_ slot: Int32, id: Int32? = nil, x: Int32? = nil, y: Int32? = nil) {
        abs(ABS.MT_SLOT, slot)
        if let id { abs(ABS.MT_TRACKING_ID, id) }
        if let x { abs(ABS.MT_POSITION_X, x) }
        if let y { abs(ABS.MT_POSITION_Y, y) }
    }
    /// Protocol A: one anonymous contact.
    mutating func contactA(x: Int32, y: Int32, id: Int32? = nil) {
        if let id { abs(ABS.MT_TRACKING_ID, id) }
        abs(ABS.MT_POSITION_X, x); abs(ABS.MT_POSITION_Y, y)
        mtReport()
    }
}

enum TestDevices {
    static func axis(_ max: Int32, fuzz: Int32 = 0, resolution: Int32 = 0) -> AbsInfo {
        AbsInfo(minimum: 0, maximum: max, fuzz: fuzz, resolution: resolution)
    }

    /// Protocol B panel with axes 0...1000 (so a 1000x1000 screen maps one unit to one pixel).
    static func protocolB(slots: Int32 = 10, fuzz: Int32 = 0, toolType: Bool = false, pressure: Bool = false) -> DeviceCapabilities {
        var absinfo: [UInt16: AbsInfo] = [
            ABS.X: axis(1000), ABS.Y: axis(1000),
            ABS.MT_SLOT: axis(slots - 1), ABS.MT_TRACKING_ID: axis(65535),
            ABS.MT_POSITION_X: axis(1000, fuzz: fuzz), ABS.MT_POSITION_Y: axis(1000, fuzz: fuzz),
        ]
        if toolType { absinfo[ABS.MT_TOOL_TYPE] = axis(2) }
        if pressure { absinfo[ABS.MT_PRESSURE] = axis(255) }
        return DeviceCapabilities(name: "Scripted protocol B", bustype: 3, vendor: 0x1234, product: 0x5678,
                                  properties: [INPUT_PROP.DIRECT],
                                  codes: [EV.KEY: [BTN.TOUCH], EV.ABS: Set(absinfo.keys)], absinfo: absinfo)
    }

    static func protocolA(trackingID: Bool = false) -> DeviceCapabilities {
        var absinfo: [UInt16: AbsInfo] = [
            ABS.X: axis(1000), ABS.Y: axis(1000),
            ABS.MT_POSITION_X: axis(1000), ABS.MT_POSITION_Y: axis(1000),
        ]
        if trackingID { absinfo[ABS.MT_TRACKING_ID] = axis(65535) }
        return DeviceCapabilities(name: "Scripted protocol A", codes: [EV.KEY: [BTN.TOUCH], EV.ABS: Set(absinfo.keys)],
                                  absinfo: absinfo)
    }

    static func singleTouch(buttonTouch: Bool = true) -> DeviceCapabilities {
        let absinfo: [UInt16: AbsInfo] = [ABS.X: axis(1000), ABS.Y: axis(1000), ABS.PRESSURE: axis(255)]
        return DeviceCapabilities(name: "Scripted single-touch", properties: [INPUT_PROP.DIRECT],
                                  codes: [EV.KEY: buttonTouch ? [BTN.TOUCH] : [], EV.ABS: Set(absinfo.keys)],
                                  absinfo: absinfo)
    }

    static let square = Size(width: 1000, height: 1000)
}

extension FrameAssembler {
    /// Every frame the events produce.
    mutating func frames(_ events: [InputEvent]) -> [ContactFrame] {
        events.compactMap { process($0) }
    }
}

extension ContactFrame {
    var ids: [Int] { contacts.map(\.id) }
}
