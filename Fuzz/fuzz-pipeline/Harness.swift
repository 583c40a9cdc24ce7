import Glibc
import Gestures
import MapEngine
import TouchCore

/// libFuzzer target: the bytes script a touchscreen (its kind, axis ranges, slots and screen)
/// and an event stream (slots, tracking ids, positions, SYN_DROPPED with resync, unplug, time
/// jumps). The stream goes through FrameAssembler -> GestureRecognizer -> MapController as in
/// MapPipeline. Invariants: the camera stays finite and within its limits after every step,
/// and once every finger lifts (or the device is unplugged) and time runs on, no contact is
/// down and the recogniser is idle with nothing pending.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPipeline(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var b = ByteStream(UnsafeBufferPointer(start: data, count: size))
    let caps = device(&b)
    let screen = Size(width: Double(1 + Int(b.u16()) % 4000), height: Double(1 + Int(b.u16()) % 4000))
    let endByUnplug = b.u8() & 1 == 1
    var mask = GestureMask(rawValue: UInt32(b.u16()) & GestureMask.all.rawValue)
    if b.u8() & 1 == 0 { mask = .all }
    var rig = Rig(caps: caps, screen: screen, mask: mask)

    var time = Double(b.u16())
    var ops = 0
    while !b.isEmpty && ops < 4000 {
        ops += 1
        let op = b.u8()
        switch op % 12 {
        case 0: rig.event(time, EV.ABS, ABS.MT_SLOT, Int32(Int8(bitPattern: b.u8())))
        case 1: rig.event(time, EV.ABS, ABS.MT_TRACKING_ID, b.u8() < 64 ? -1 : Int32(b.u8()))
        case 2: rig.event(time, EV.ABS, ABS.MT_POSITION_X, b.i32())
        case 3: rig.event(time, EV.ABS, ABS.MT_POSITION_Y, b.i32())
        case 4:
            let dt = b.u8()
            time += dt == 255 ? Double(b.u16()) * 10 : Double(dt) / 400   // mostly 0...0.64 s, sometimes hours
            rig.event(time, EV.SYN, SYN.REPORT, 0)
        case 5: rig.event(time, EV.KEY, BTN.TOUCH, Int32(b.u8() & 1))
        case 6: rig.event(time, EV.ABS, [ABS.X, ABS.Y, ABS.PRESSURE, ABS.MT_PRESSURE, ABS.MT_TOOL_TYPE, ABS.MT_TOUCH_MAJOR][Int(b.u8()) % 6], b.i32())
        case 7: rig.event(time, EV.SYN, SYN.MT_REPORT, 0)
        case 8:
            // The kernel dropped events: the reader (TouchDevice, through libevdev) always
            // re-reads the device state and hands it to the assembler.
            rig.event(time, EV.SYN, SYN.DROPPED, 0)
            let slots = (0..<Int(b.u8() % 12)).map { _ in
                SlotState(trackingID: b.u8() < 100 ? -1 : Int32(b.u8()), x: b.i32(), y: b.i32())
            }
            rig.resync(DeviceState(slots: slots, currentSlot: Int(Int8(bitPattern: b.u8())),
                                   single: SlotState(trackingID: b.u8() & 1 == 0 ? -1 : 0, x: b.i32(), y: b.i32())), time)
        case 9: rig.unplug(time)
        case 10: time += Double(b.u8()) / 100; rig.advance(to: time)
        default:
            // A whole move of one slot: slot, position, report (the common case, made cheap to find).
            rig.event(time, EV.ABS, ABS.MT_SLOT, Int32(b.u8() % 4))
            rig.event(time, EV.ABS, ABS.MT_TRACKING_ID, Int32(b.u8() % 3))
            rig.event(time, EV.ABS, ABS.MT_POSITION_X, Int32(b.u16()))
            rig.event(time, EV.ABS, ABS.MT_POSITION_Y, Int32(b.u16()))
            time += 1.0 / 120
            rig.event(time, EV.SYN, SYN.REPORT, 0)
        }
    }

    // Every finger up (or the device gone), then time runs on.
    time += 0.01
    if endByUnplug {
        rig.unplug(time)
    } else {
        for slot in 0..<64 {
            rig.event(time, EV.ABS, ABS.MT_SLOT, Int32(slot))
            rig.event(time, EV.ABS, ABS.MT_TRACKING_ID, -1)
        }
        rig.event(time, EV.KEY, BTN.TOUCH, 0)
        rig.event(time, EV.ABS, ABS.PRESSURE, caps.absinfo[ABS.PRESSURE]?.minimum ?? 0)
        rig.event(time, EV.SYN, SYN.REPORT, 0)
        rig.event(time, EV.SYN, SYN.REPORT, 0)   // protocol A: an empty report lifts all
    }
    require(rig.assembler.contactsDown == 0, "a contact is still down after every finger lifted: \(rig.assembler.kind), \(caps.absinfo), by unplug \(endByUnplug)")
    rig.advance(to: time + 30)
    require(rig.recognizer.state == .idle, "recogniser not idle after all lifted: \(rig.recognizer.state)")
    require(rig.recognizer.nextDeadline == nil, "recogniser deadline pending after all lifted")
    return 0
}

/// The three touchscreen kinds, with axis ranges that include empty, inverted and extreme ones.
func device(_ b: inout ByteStream) -> DeviceCapabilities {
    let kind = b.u8() % 3
    func axis() -> AbsInfo {
        switch b.u8() % 6 {
        case 0: return AbsInfo(minimum: b.i32(), maximum: b.i32(), fuzz: b.i32(), flat: 0, resolution: b.i32())
        case 1: return AbsInfo(minimum: 0, maximum: 0)
        case 2: return AbsInfo(minimum: Int32.min, maximum: Int32.max, fuzz: Int32(b.u8()), resolution: Int32(b.u8()))
        default: return AbsInfo(minimum: 0, maximum: Int32(b.u16()), fuzz: Int32(b.u8() % 8), resolution: Int32(b.u8() % 40))
        }
    }
    var absinfo: [UInt16: AbsInfo] = [:]
    var keys: Set<UInt16> = []
    switch kind {
    case 0:
        absinfo[ABS.MT_POSITION_X] = axis(); absinfo[ABS.MT_POSITION_Y] = axis()
        let slotMax = b.u8()
        absinfo[ABS.MT_SLOT] = slotMax == 255 ? AbsInfo(minimum: Int32.min, maximum: Int32.max)
            : AbsInfo(minimum: Int32(Int8(bitPattern: b.u8()) % 3), maximum: Int32(slotMax % 16))
        absinfo[ABS.MT_TRACKING_ID] = AbsInfo(minimum: 0, maximum: 65535)
    case 1:
        absinfo[ABS.MT_POSITION_X] = axis(); absinfo[ABS.MT_POSITION_Y] = axis()
    default:
        absinfo[ABS.X] = axis(); absinfo[ABS.Y] = axis()
    }
    let extras = b.u8()
    if extras & 1 != 0 { keys.insert(BTN.TOUCH) }
    if extras & 2 != 0 { absinfo[ABS.PRESSURE] = axis() }
    if extras & 4 != 0 { absinfo[ABS.MT_PRESSURE] = axis() }
    if extras & 8 != 0 { absinfo[ABS.MT_TOOL_TYPE] = AbsInfo(minimum: 0, maximum: 2) }
    if extras & 16 != 0 { absinfo[ABS.MT_TOUCH_MAJOR] = axis() }
    return DeviceCapabilities(name: "fuzz", properties: [INPUT_PROP.DIRECT],
                              codes: [EV.KEY: keys, EV.ABS: Set(absinfo.keys)], absinfo: absinfo)
}

/// The pure pipeline as MapPipeline wires it, with the camera checked after every step.
struct Rig {
    var assembler: FrameAssembler
    var recognizer: GestureRecognizer
    let controller: MapController
    let limits: CameraLimits

    init(caps: DeviceCapabilities, screen: Size, mask: GestureMask) {
        assembler = FrameAssembler(capabilities: caps, screen: screen)
        recognizer = GestureRecognizer(mask: mask, screen: screen)
        var config = MapConfiguration()
        config.gestureMask = mask
        limits = config.limits
        controller = MapController(camera: CameraPosition(target: Coordinate(latitude: 47.1, longitude: 9.5), zoom: 12),
                                   screenSize: screen, configuration: config)
        controller.add(Marker(id: "m", position: Coordinate(latitude: 47.1, longitude: 9.52), title: "M"))
    }

    mutating func event(_ time: Double, _ type: UInt16, _ code: UInt16, _ value: Int32) {
        if let frame = assembler.process(InputEvent(time: time, type: type, code: code, value: value)) { handle(frame) }
    }
    mutating func resync(_ state: DeviceState, _ time: Double) { handle(assembler.resync(to: state, time: time)) }
    mutating func unplug(_ time: Double) { handle(assembler.cancelAll(time: time)) }

    mutating func handle(_ frame: ContactFrame) {
        for c in frame.contacts {
            require(c.position.x.isFinite && c.position.y.isFinite, "non-finite contact position")
        }
        advance(to: frame.time)
        deliver(recognizer.process(frame))
    }

    mutating func advance(to time: Double) {
        var guardCount = 0
        while let d = [recognizer.nextDeadline, controller.nextDeadline].compactMap({ $0 }).min(), d <= time, guardCount < 10_000 {
            guardCount += 1
            if let rd = recognizer.nextDeadline, rd <= d { deliver(recognizer.expire(at: rd)) }
            controller.advance(to: max(d, controller.now))
            check()
        }
        controller.advance(to: max(time, controller.now))
        check()
    }

    mutating func deliver(_ events: [GestureEvent]) {
        for e in events {
            require(e.position.x.isFinite && e.position.y.isFinite && e.scale.isFinite && e.rotation.isFinite
                         && e.tilt.isFinite && e.velocity.x.isFinite && e.velocity.y.isFinite, "non-finite gesture \(e)")
            controller.handle(e)
            check()
        }
        _ = controller.drainEvents()
    }

    func check() {
        let c = controller.camera
        require(c.target.latitude.isFinite && c.target.longitude.isFinite && c.zoom.isFinite
                     && c.bearing.isFinite && c.tilt.isFinite, "non-finite camera \(c)")
        require(c.zoom >= limits.minZoom - 1e-9 && c.zoom <= limits.maxZoom + 1e-9, "zoom out of limits \(c)")
        require(c.tilt >= -1e-9 && c.tilt <= limits.maxTilt(atZoom: c.zoom) + 1e-6, "tilt out of limits \(c)")
        require(abs(c.target.latitude) <= 85.06 && abs(c.target.longitude) <= 180, "target out of range \(c)")
        require(c.bearing >= 0 && c.bearing < 360, "bearing not folded \(c)")
    }
}

/// Reads the fuzzer's bytes as numbers; zeros once they run out.
struct ByteStream {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }
    var isEmpty: Bool { i >= bytes.count }
    mutating func u8() -> UInt8 {
        guard i < bytes.count else { return 0 }
        defer { i += 1 }
        return bytes[i]
    }
    mutating func u16() -> UInt16 { UInt16(u8()) << 8 | UInt16(u8()) }
    mutating func i32() -> Int32 { Int32(bitPattern: UInt32(u16()) << 16 | UInt32(u16())) }
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
