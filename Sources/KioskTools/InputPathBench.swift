import TouchCore
import Gestures
import MapEngine
import TouchBridge

/// The whole input path per frame, as the kiosk runs it: evdev events of a protocol B panel
/// through `FrameAssembler` (calibration, filters), `ContactMerger` and `MapPipeline.handle`
/// (recogniser, map controller, the event stream's lines), for one and for ten fingers.
extension Benchmarks {
    /// A 1920x1080 protocol B panel with ten slots, one device unit per pixel.
    static let inputPathDevice: DeviceCapabilities = {
        var absinfo: [UInt16: AbsInfo] = [
            ABS.X: AbsInfo(minimum: 0, maximum: 1919), ABS.Y: AbsInfo(minimum: 0, maximum: 1079),
            ABS.MT_SLOT: AbsInfo(minimum: 0, maximum: 9), ABS.MT_TRACKING_ID: AbsInfo(minimum: 0, maximum: 65535),
            ABS.MT_POSITION_X: AbsInfo(minimum: 0, maximum: 1919, resolution: 8),
            ABS.MT_POSITION_Y: AbsInfo(minimum: 0, maximum: 1079, resolution: 8),
        ]
        absinfo[ABS.MT_PRESSURE] = AbsInfo(minimum: 0, maximum: 255)
        return DeviceCapabilities(name: "bench protocol B", properties: [INPUT_PROP.DIRECT],
                                  codes: [EV.KEY: [BTN.TOUCH], EV.ABS: Set(absinfo.keys)], absinfo: absinfo)
    }()

    /// The events of `scriptedFrames` as the panel sends them: per frame and finger the slot,
    /// the position (and the tracking id at a touch-down or lift), then SYN_REPORT.
    static func inputPathEvents(fingers: Int, count: Int) -> [InputEvent] {
        var events: [InputEvent] = []
        var down = false
        var nextTrackingID: Int32 = 1
        for f in scriptedFrames(fingers: fingers, count: count) {
            let t = f.time
            if f.contacts.isEmpty {
                for slot in 0..<fingers where down {
                    events.append(InputEvent(time: t, type: EV.ABS, code: ABS.MT_SLOT, value: Int32(slot)))
                    events.append(InputEvent(time: t, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: -1))
                }
                down = false
            } else {
                for (slot, c) in f.contacts.enumerated() {
                    events.append(InputEvent(time: t, type: EV.ABS, code: ABS.MT_SLOT, value: Int32(slot)))
                    if !down {
                        events.append(InputEvent(time: t, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: nextTrackingID))
                        nextTrackingID += 1
                    }
                    events.append(InputEvent(time: t, type: EV.ABS, code: ABS.MT_POSITION_X, value: Int32(c.position.x.rounded())))
                    events.append(InputEvent(time: t, type: EV.ABS, code: ABS.MT_POSITION_Y, value: Int32(c.position.y.rounded())))
                    events.append(InputEvent(time: t, type: EV.ABS, code: ABS.MT_PRESSURE, value: 90))
                }
                down = true
            }
            events.append(InputEvent(time: t, type: EV.SYN, code: SYN.REPORT, value: 0))
        }
        return events
    }

    mutating func inputPath() {
        let n = options.quick ? 2_000 : 50_000
        let screen = Size(width: 1920, height: 1080)
        // Without and then with an event-stream reader (every gesture and map event encoded as
        // its line).
        let variants: [(key: String, what: String, workload: ([InputEvent], Size) -> Int)] = [
            ("input_path", "evdev events -> assembler -> merger -> recogniser + controller", Self.inputPathWorkload),
            ("input_path_reader", "  the same with the event stream read", Self.inputPathReaderWorkload),
        ]
        for v in variants {
            for fingers in [1, 10] {
                let events = Self.inputPathEvents(fingers: fingers, count: n)
                var sink = 0
                let runs = BenchSupport.timeRuns(warmup: 1, minRuns: 3, minSeconds: minSeconds) {
                    sink &+= v.workload(events, screen)
                }
                precondition(sink >= 0)
                add("\(v.key)_ns_per_frame_\(fingers)f", BenchSupport.median(runs) * 1e6 / Double(n), "ns",
                    "\(v.what), \(fingers) finger\(fingers > 1 ? "s" : "")")
            }
        }
    }

    /// One pass over `events` through a fresh kiosk input path with nothing reading the event
    /// stream (the kiosk without `log.events` or a subscriber); returns the frames made.
    @inline(never)
    public static func inputPathWorkload(_ events: [InputEvent], screen: Size) -> Int {
        inputPath(events, screen: screen, sink: nil)
    }

    /// The same with a reader: every line is encoded and handed over (its bytes are counted).
    @inline(never)
    public static func inputPathReaderWorkload(_ events: [InputEvent], screen: Size) -> Int {
        var bytes = 0
        let frames = inputPath(events, screen: screen) { bytes &+= $0.utf8.count }
        return frames &+ (bytes & 1)
    }

    static func inputPath(_ events: [InputEvent], screen: Size, sink: ((String) -> Void)?) -> Int {
        var assembler = FrameAssembler(capabilities: inputPathDevice, screen: screen)
        var merger = ContactMerger()
        let pipeline = MapPipeline(configuration: KioskConfiguration(), screen: screen,
                                   density: PixelDensity(pixelsPerMillimetre: 8, source: .deviceResolution), sink: sink)
        pipeline.begin(at: events.first?.time ?? 0)
        var frames = 0
        for e in events {
            guard let f = assembler.process(e) else { continue }
            pipeline.handle(merger.merge(f, from: "/dev/input/event5"))
            frames += 1
        }
        return frames
    }
}
