import TouchBridge
import Foundation
import TouchCore

/// Builds evdev event streams for a virtual protocol-B touchscreen, in screen pixels and seconds:
/// the demo's scripted tour and the e2e tests' gestures go through the same frame assembler as a
/// real panel's events (and can be written as evemu files for `evemu-play` in the VM).
package struct TouchScript {
    /// A 10-slot protocol-B panel whose axes span the screen, with a resolution so that
    /// thresholds in mm mean the same as on a real panel.
    public static func virtualPanel(screen: Size, unitsPerMM: Int32 = 20, pixelsPerMM: Double = 5) -> DeviceCapabilities {
        // The axis range covers the screen's physical size at pixelsPerMM.
        let maxX = Int32((screen.width / pixelsPerMM) * Double(unitsPerMM)) - 1
        let maxY = Int32((screen.height / pixelsPerMM) * Double(unitsPerMM)) - 1
        return DeviceCapabilities(
            name: "TouchBridge virtual panel", bustype: 0x06, vendor: 0x7462, product: 0x0001, version: 1,
            properties: [INPUT_PROP.DIRECT],
            codes: [EV.SYN: [SYN.REPORT, SYN.MT_REPORT, SYN.DROPPED], EV.KEY: [BTN.TOUCH],
                    EV.ABS: [ABS.X, ABS.Y, ABS.MT_SLOT, ABS.MT_POSITION_X, ABS.MT_POSITION_Y, ABS.MT_TRACKING_ID]],
            absinfo: [
                ABS.X: AbsInfo(minimum: 0, maximum: maxX, resolution: unitsPerMM),
                ABS.Y: AbsInfo(minimum: 0, maximum: maxY, resolution: unitsPerMM),
                ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: 9),
                ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: maxX, resolution: unitsPerMM),
                ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: maxY, resolution: unitsPerMM),
                ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
            ])
    }

    public let screen: Size
    public let device: DeviceCapabilities
    public private(set) var events: [InputEvent] = []
    /// Captions: (time, text) for the contact sheet.
    public private(set) var captions: [(time: Double, text: String)] = []
    public private(set) var time: Double
    /// Sampling period of the virtual panel (s).
    public var period: Double = 1.0 / 120

    private var nextTrackingID: Int32 = 1
    private var slots: [Int: (tracking: Int32, pos: Point)] = [:]
    private var currentSlot = 0

    public init(screen: Size, start: Double = 1.0, device: DeviceCapabilities? = nil) {
        self.screen = screen
        self.time = start
        self.device = device ?? TouchScript.virtualPanel(screen: screen)
    }

    func units(_ p: Point) -> (Int32, Int32) {
        // A device without MT axes (a caller's own capabilities) is driven in screen pixels.
        let ax = device.absinfo[ABS.MT_POSITION_X] ?? AbsInfo(minimum: 0, maximum: Int32(screen.width) - 1)
        let ay = device.absinfo[ABS.MT_POSITION_Y] ?? AbsInfo(minimum: 0, maximum: Int32(screen.height) - 1)
        let x = Double(ax.minimum) + p.x / screen.width * (ax.range + 1)
        let y = Double(ay.minimum) + p.y / screen.height * (ay.range + 1)
        return (Int32(max(Double(ax.minimum), min(Double(ax.maximum), x.rounded(.down)))),
                Int32(max(Double(ay.minimum), min(Double(ay.maximum), y.rounded(.down)))))
    }

    private mutating func emit(_ type: UInt16, _ code: UInt16, _ value: Int32) {
        events.append(InputEvent(time: time, type: type, code: code, value: value))
    }
    private mutating func select(_ slot: Int) {
        if slot != currentSlot { emit(EV.ABS, ABS.MT_SLOT, Int32(slot)); currentSlot = slot }
    }
    private mutating func report() {
        emit(EV.SYN, SYN.REPORT, 0)
    }

    public mutating func caption(_ text: String) { captions.append((time, text)) }
    public mutating func wait(_ seconds: Double) { time += seconds }

    /// One frame: put the given slots at these points (new slots touch down), lift the listed ones.
    public mutating func frame(_ positions: [Int: Point], lift: [Int] = []) {
        let wasEmpty = slots.isEmpty
        for (slot, p) in positions.sorted(by: { $0.key < $1.key }) {
            select(slot)
            let (x, y) = units(p)
            if slots[slot] == nil {
                let id = nextTrackingID; nextTrackingID += 1
                emit(EV.ABS, ABS.MT_TRACKING_ID, id)
                emit(EV.ABS, ABS.MT_POSITION_X, x)
                emit(EV.ABS, ABS.MT_POSITION_Y, y)
                slots[slot] = (id, p)
            } else {
                let old = units(slots[slot]!.pos)
                if x != old.0 { emit(EV.ABS, ABS.MT_POSITION_X, x) }
                if y != old.1 { emit(EV.ABS, ABS.MT_POSITION_Y, y) }
                slots[slot]!.pos = p
            }
        }
        for slot in lift where slots[slot] != nil {
            select(slot)
            emit(EV.ABS, ABS.MT_TRACKING_ID, -1)
            slots[slot] = nil
        }
        if wasEmpty && !slots.isEmpty { emit(EV.KEY, BTN.TOUCH, 1) }
        if !wasEmpty && slots.isEmpty { emit(EV.KEY, BTN.TOUCH, 0) }
        if let first = slots.sorted(by: { $0.key < $1.key }).first {
            let (x, y) = units(first.value.pos)
            emit(EV.ABS, ABS.X, x); emit(EV.ABS, ABS.Y, y)
        }
        report()
    }

    /// Move fingers from `from` to `to` over `duration` seconds (ease in-out), one frame per period.
    public mutating func move(_ from: [Int: Point], _ to: [Int: Point], duration: Double, lift: Bool = true) {
        let steps = max(1, Int((duration / period).rounded()))
        frame(from)
        for i in 1...steps {
            time += period
            let s = Double(i) / Double(steps)
            let e = s * s * (3 - 2 * s)
            var pos: [Int: Point] = [:]
            for (k, a) in from { let b = to[k] ?? a; pos[k] = a + (b - a) * e }
            frame(pos)
        }
        if lift { time += period; frame([:], lift: Array(from.keys)) }
    }

    /// Move at constant speed and lift while still moving (a fling).
    public mutating func fling(from a: Point, to b: Point, duration: Double) {
        let steps = max(1, Int((duration / period).rounded()))
        frame([0: a])
        for i in 1...steps {
            time += period
            frame([0: a + (b - a) * (Double(i) / Double(steps))])
        }
        time += period
        frame([:], lift: [0])
    }

    public mutating func tap(_ p: Point, hold: Double = 0.06) {
        frame([0: p])
        time += hold
        frame([:], lift: [0])
    }

    public mutating func twoFingerTap(_ a: Point, _ b: Point, hold: Double = 0.08) {
        frame([0: a, 1: b])
        time += hold
        frame([:], lift: [0, 1])
    }

    public mutating func hold(_ p: Point, duration: Double) {
        frame([0: p])
        var t = 0.0
        while t < duration { time += 1.0 / 30; t += 1.0 / 30; frame([0: p]) }
        time += period
        frame([:], lift: [0])
    }

    /// The events as an evemu recording (events part), times relative to `base`.
    public func evemuEvents(base: Double? = nil) -> String {
        TouchScript.evemuLines(events, from: base ?? (events.first?.time ?? 0))
    }

    /// `E:` lines for events, their times made relative to `origin` plus `offset` seconds.
    public static func evemuLines(_ events: [InputEvent], from origin: Double, offset: Double = 0) -> String {
        events.map { e in
            var r = e
            r.time = offset + max(0, e.time - origin)
            return Evemu.eventLine(r)
        }.joined()
    }
}
