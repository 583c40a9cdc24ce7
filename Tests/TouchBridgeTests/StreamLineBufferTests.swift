import Foundation
import Testing
import TouchCore
import Gestures
import MapEngine
@testable import TouchBridge
@testable import Kiosk

/// The event stream's hand-written encoder gives the bytes Foundation's String(format:) gave,
/// and a pipeline nobody reads encodes nothing yet moves the map and calls the delegate as
/// before.
@Suite struct StreamLineBufferTests {
    static let fixtures = repoRoot.appendingPathComponent("Tests/TouchCoreTests/Fixtures")

    func formatted(_ v: Double, _ decimals: Int) -> String {
        var b = StreamLineBuffer()
        b.number(v, decimals)
        return b.string
    }

    /// Every value against `MapEvent.number` (String(format: "%.Nf"), the stream's definition),
    /// at every precision; returns the mismatches.
    func mismatches(_ values: [Double], decimals: ClosedRange<Int> = 0...10) -> [String] {
        var bad: [String] = []
        for v in values {
            for d in decimals {
                let want = MapEvent.number(v, d), got = formatted(v, d)
                if want != got { bad.append("\(v.debugDescription) %.\(d)f: want \(want), got \(got)") }
            }
        }
        return bad
    }

    @Test func numbersMatchStringFormatOverRandomValuesOfEveryMagnitude() {
        var rng = SplitMix64(seed: 17)
        var values: [Double] = []
        for _ in 0..<20_000 {
            // Log-uniform magnitude from 1e-12 to 1e17 (past 2^53, where the fallback takes over), either sign.
            let v = pow(10, rng.range(-12, 17)) * (rng.next() & 1 == 0 ? 1 : -1)
            values.append(v)
        }
        for _ in 0..<5_000 {
            // Arbitrary bit patterns: any exponent, denormals, NaN payloads, infinities.
            values.append(Double(bitPattern: rng.next()))
        }
        for _ in 0..<5_000 {
            // The stream's own ranges: pixels, degrees, zoom levels, seconds.
            values.append(rng.range(-2000, 2000)); values.append(rng.range(-180, 180)); values.append(rng.range(0, 24))
        }
        let bad = mismatches(values)
        #expect(bad.isEmpty, "\(bad.count) mismatches, e.g. \(bad.prefix(5))")
    }

    @Test func numbersMatchStringFormatAtTheEdges() {
        var values: [Double] = [0, -0.0, 1, -1, 0.5, -0.5, 1.5, 2.5, -2.5, 0.05, 0.15, 0.25, 0.35, 0.125, 0.375, -0.125,
                                0.0005, -0.0005, 0.00049999999999999996, 0.0004999, -0.0004999, 1e-7, -1e-7, 5e-8, -5e-8,
                                4.9999999e-8, 0.99995, 9.9995, 99.995, 999.9995, 0.9999999999, -0.9999999999,
                                Double.leastNonzeroMagnitude, -Double.leastNonzeroMagnitude, Double.leastNormalMagnitude,
                                Double.ulpOfOne, Double.greatestFiniteMagnitude, -Double.greatestFiniteMagnitude,
                                .infinity, -.infinity, .nan, -.nan,
                                4503599627370496, 4503599627370495.5, 9007199254740991, 9007199254740992, 9007199254740993,
                                -9007199254740991, 1e15, 1e16, 1e21, 1e22, 1e23, 123456789.123456789, 1e300, -1e-300]
        // Halfway cases at each last digit, exact in binary (k + 1/2) / 2^j and the decimal
        // ones that are not (x.xx5), with their neighbours one ulp either side.
        for k in 0..<200 {
            for j in 0..<12 {
                values.append((Double(k) + 0.5) / Double(1 << j))
            }
            for d in 0...7 {
                let p = pow(10.0, Double(d))
                values.append((Double(k) + 0.5) / p)
                values.append((Double(k) * 37 + 0.5) / p)
            }
        }
        values += values.flatMap { [$0.nextUp, $0.nextDown, -$0] }
        let bad = mismatches(values)
        #expect(bad.isEmpty, "\(bad.count) mismatches, e.g. \(bad.prefix(5))")
    }

    @Test func negativeValuesThatRoundToZeroAreWrittenWithoutTheSign() {
        #expect(formatted(-0.0, 3) == "0.000")
        #expect(formatted(-0.0004, 3) == "0.000")
        #expect(formatted(-0.0005, 3) == "-0.001")   // 0.0005 is a hair above the tie in binary
        #expect(formatted(-0.4, 0) == "0")
        #expect(formatted(-3.14159, 2) == "-3.14")
        #expect(formatted(.nan, 3) == "null")
    }

    @Test func stringsAndIntegersMatchTheStringForms() {
        let strings = ["", "pan", "a\"b", "back\\slash", "line\nfeed\r\ttab", "\u{01}\u{1f}\u{7f}", "Café \"Am Eck\"",
                       "東京 🗺️", "still 500.0 ms (longPressTime), moved 0.3 mm <= longPressSlop 3.0 mm"]
        for s in strings {
            var b = StreamLineBuffer()
            b.string(s)
            #expect(b.string == MapEvent.string(s))
        }
        for v in [0, 1, -1, 9, 10, 99, 100, 12345, -987654321, Int.max, Int.min] {
            var b = StreamLineBuffer()
            b.int(v)
            #expect(b.string == String(v))
        }
        var b = StreamLineBuffer()
        b.unsigned(UInt64.max)
        #expect(b.string == String(UInt64.max))
    }

    /// Every kind of map event against `MapEvent.jsonLine`, the String form MapEngine keeps.
    @Test func mapEventLinesMatchJSONLine() {
        let cams = [CameraPosition(target: Coordinate(latitude: 47.1410, longitude: 9.5215), zoom: 13.25, bearing: 322.5, tilt: 30),
                    CameraPosition(target: Coordinate(latitude: -33.86880004, longitude: -151.20930005), zoom: 0, bearing: 0, tilt: 0),
                    CameraPosition(target: Coordinate(latitude: -0.00000001, longitude: 179.99999995), zoom: 21.99995, bearing: 359.995, tilt: 59.999)]
        var events: [MapEvent] = [.willMove(gesture: true), .willMove(gesture: false), .cameraMode(.following), .cameraMode(.free),
                                  .didTapMarker("m\"1"), .didTapInfoWindow("ü"), .didLongPressInfoWindow("x"), .didCloseInfoWindow("")]
        for c in cams {
            events += [.didChange(c), .idleAt(c), .didTapAt(c.target), .didLongPressAt(c.target),
                       .didTapPOI(name: "Vaduz", coordinate: c.target),
                       .didTapPOI(name: "Café \"Am Eck\"\n", coordinate: c.target, featureClass: "cafe", id: 4_207_121_563)]
        }
        let encoder = EventStreamEncoder(origin: 100)
        var line = StreamLineBuffer()
        for e in events {
            for t in [100, 100.0005, 100.3165, 99, 1e6] {
                line.reset()
                encoder.mapEvent(e, time: t, into: &line)
                #expect(line.string == e.jsonLine(t: encoder.relative(t)))
            }
        }
    }

    /// Gesture, contacts, start and end lines against the String-building encoder they replaced.
    @Test func gestureContactsStartAndEndLinesMatchTheFormerEncoder() {
        var rng = SplitMix64(seed: 4)
        let encoder = EventStreamEncoder(origin: 10)
        let reasons: [String?] = [nil, "span 12.0 mm > pinchSlop 8.0 mm", "moved \"far\"\n"]
        for i in 0..<3_000 {
            let kind = GestureKind.allCases[rng.int(GestureKind.allCases.count)]
            let phases: [GesturePhase] = [.recognized, .began, .changed, .ended, .cancelled]
            let e = GestureEvent(kind: kind, phase: phases[rng.int(5)], time: 10 + rng.range(0, 100),
                                 position: Point(x: rng.range(-50, 2000), y: rng.range(-50, 1200)),
                                 scale: i % 3 == 0 ? 1 : rng.range(0.5, 2), rotation: i % 4 == 0 ? 0 : rng.range(-30, 30),
                                 tilt: i % 5 == 0 ? rng.range(-3, 3) : 0,
                                 velocity: i % 2 == 0 ? .zero : Point(x: rng.range(-5000, 5000), y: i % 6 == 1 ? 0 : rng.range(-5000, 5000)),
                                 fingers: rng.int(4), reason: reasons[rng.int(3)])
            #expect(encoder.gesture(e) == FormerEncoder(origin: 10).gesture(e))
            let contacts = (0..<rng.int(4)).map { j in
                Contact(id: j * 3 + 1, position: Point(x: rng.range(0, 1920), y: rng.range(0, 1080)),
                        pressure: j == 1 ? nil : rng.unit(), touchMajor: j == 2 ? nil : rng.range(0, 400),
                        toolType: j == 2 ? .pen : .finger)
            }
            let frame = ContactFrame(time: 10 + Double(i) / 120, contacts: contacts, cancelled: i % 7 == 0 ? [2, 5] : [])
            #expect(encoder.contacts(frame) == FormerEncoder(origin: 10).contacts(frame))
            let cam = CameraPosition(target: Coordinate(latitude: rng.range(-85, 85), longitude: rng.range(-180, 180)),
                                     zoom: rng.range(0, 22), bearing: rng.range(0, 360), tilt: rng.range(0, 60))
            #expect(encoder.end(time: 10 + Double(i), contacts: i % 11, camera: cam)
                    == FormerEncoder(origin: 10).end(time: 10 + Double(i), contacts: i % 11, camera: cam))
            #expect(encoder.start(screen: Size(width: 1920, height: 1080), camera: cam)
                    == FormerEncoder(origin: 10).start(screen: Size(width: 1920, height: 1080), camera: cam))
        }
    }

    /// `touchbridge replay --contacts --config streams/pixels-per-mm-4.toml
    /// --camera=-33.8688,151.2093,12.5,322.5,30` of four recordings, written by the build before
    /// the hand-written encoder (String(format:)): the same bytes, line for line (the start
    /// line's `mode`, added in issue 30, appended to the files).
    @Test(arguments: ["Atmel maXTouch Touchscreen.1-finger-fast-taps", "Atmel maXTouch Touchscreen.4-finger-drag-down",
                      "ELAN CANDO Windows7.1-finger-drag-up-down", "N-Trig MultiTouch.2-fingers-touch-release"])
    func replayWithContactsGivesTheFormerBytes(_ name: String) throws {
        let golden = try String(contentsOfFile: Self.fixtures.appendingPathComponent("streams/\(name).contacts.jsonl").path,
                                encoding: .utf8).split(separator: "\n").map(String.init)
        var cfg = try KioskConfiguration.load(path: Self.fixtures.appendingPathComponent("streams/pixels-per-mm-4.toml").path)
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: -33.8688, longitude: 151.2093), zoom: 12.5, bearing: 322.5, tilt: 30)
        var lines: [String] = []
        let rec = try Replay.load(path: Self.fixtures.appendingPathComponent("evemu/\(name).events").path, descPath: nil)
        Replay.run(rec, screen: Size(width: 1280, height: 800), configuration: cfg, contacts: true) { lines.append($0) }
        #expect(golden.count > 80)
        #expect(lines.count == golden.count)
        let first = zip(lines, golden).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(first == nil, "line \((first?.offset ?? 0) + 1): \(first?.element.0 ?? "") != \(first?.element.1 ?? "")")
    }

    /// What the delegate hears, in order.
    final class Calls: MapViewDelegate {
        var log: [String] = []
        func willMove(gesture: Bool) { log.append("willMove \(gesture)") }
        func didChange(_ camera: CameraPosition) { log.append("didChange \(camera)") }
        func idleAt(_ camera: CameraPosition) { log.append("idleAt \(camera)") }
        func didTapAt(_ coordinate: Coordinate) { log.append("tap \(coordinate)") }
        func didLongPressAt(_ coordinate: Coordinate) { log.append("longPress \(coordinate)") }
        func cameraModeDidChange(_ mode: CameraMode) { log.append("mode \(mode)") }
    }

    struct Run { var lines: [String] = []; var cameras: [CameraPosition] = []; var calls: [String] = []; var gestures: [GestureEvent] = [] }

    /// A recording through a pipeline; the camera after every frame and at the end.
    func run(_ name: String, sink: Bool, reader: (() -> Bool)? = nil) throws -> Run {
        let rec = try Replay.load(path: Self.fixtures.appendingPathComponent("evemu/\(name).events").path, descPath: nil)
        let screen = Size(width: 1280, height: 800)
        var cfg = KioskConfiguration()
        cfg.gestures.pixelsPerMM = 4
        var out = Run()
        let pipeline = MapPipeline(configuration: cfg, screen: screen, density: PixelDensity(pixelsPerMillimetre: 4, source: .assumed))
        if sink { pipeline.sink = { out.lines.append($0) } }
        if let reader { pipeline.sinkHasReader = reader }
        let calls = Calls()
        pipeline.controller.delegate = calls
        pipeline.gestureObserver = { out.gestures.append($0) }
        var a = FrameAssembler(capabilities: rec.capabilities, screen: screen)
        pipeline.start()
        pipeline.begin(at: rec.events[0].time)
        for e in rec.events {
            guard let f = a.process(e) else { continue }
            pipeline.handle(f)
            out.cameras.append(pipeline.controller.camera)
        }
        pipeline.finish()
        out.cameras.append(pipeline.controller.camera)
        out.calls = calls.log
        return out
    }

    @Test(arguments: ["ELAN CANDO Windows7.1-finger-drag-up-down", "Atmel maXTouch Touchscreen.1-finger-fast-taps",
                      "Atmel maXTouch Touchscreen.4-finger-drag-down"])
    func noReaderMeansNoLinesAndTheSameMap(_ name: String) throws {
        let read = try run(name, sink: true)
        let unread = try run(name, sink: false)
        let noSubscriber = try run(name, sink: true, reader: { false })
        #expect(read.lines.count > 20)
        #expect(unread.lines.isEmpty)
        #expect(noSubscriber.lines.isEmpty)
        #expect(read.calls.count > 5)
        for other in [unread, noSubscriber] {
            #expect(other.cameras == read.cameras)
            #expect(other.calls == read.calls)
            #expect(other.gestures == read.gestures)
        }
    }

    /// A reader that comes and goes (a control-socket subscriber): lines while it reads, the
    /// same lines as an always-read stream's at those places.
    @Test func aReaderThatComesAndGoesGetsTheLinesOfItsTime() throws {
        let name = "ELAN CANDO Windows7.1-finger-drag-up-down"
        let all = try run(name, sink: true)
        var calls = 0
        // Reads every other question: its lines are a subsequence of the full stream, in order.
        let some = try run(name, sink: true, reader: { calls += 1; return calls % 2 == 0 })
        #expect(some.lines.count > 10 && some.lines.count < all.lines.count)
        var i = all.lines.startIndex
        for l in some.lines {
            guard let j = all.lines[i...].firstIndex(of: l) else { Issue.record("line not in the full stream: \(l)"); break }
            i = j + 1
        }
        #expect(some.cameras == all.cameras)
    }
}

/// The encoder as it was before the byte buffer (String(format:) through JSONLine and
/// MapEvent), kept as the reference its replacement must match byte for byte.
private struct FormerEncoder {
    var origin: Double?
    func relative(_ time: Double) -> Double { max(0, time - (origin ?? time)) }
    func head(_ time: Double, _ type: String) -> JSONLine {
        var o = JSONLine()
        o.number("t", relative(time), 3)
        o.string("type", type)
        return o
    }
    func start(screen: Size, camera: CameraPosition) -> String {
        var o = JSONLine()
        o.number("t", 0, 3)
        o.string("type", "start")
        o.raw("screen", "[\(Int(screen.width)),\(Int(screen.height))]")
        o.raw("camera", MapEvent.cameraJSON(camera))
        return o.text
    }
    func contacts(_ frame: ContactFrame) -> String {
        var o = head(frame.time, "contacts")
        let list = frame.contacts.map { c -> String in
            var j = JSONLine()
            j.int("id", c.id)
            j.number("x", c.position.x, 1)
            j.number("y", c.position.y, 1)
            if let p = c.pressure { j.number("pressure", p, 3) }
            if let m = c.touchMajor { j.number("major", m, 2) }
            if c.toolType != .finger { j.string("tool", c.toolType.rawValue) }
            return j.text
        }
        o.raw("contacts", "[" + list.joined(separator: ",") + "]")
        if !frame.cancelled.isEmpty { o.raw("cancelled", "[" + frame.cancelled.map(String.init).joined(separator: ",") + "]") }
        return o.text
    }
    func gesture(_ e: GestureEvent) -> String {
        var o = head(e.time, "gesture")
        o.string("gesture", e.kind.rawValue)
        o.string("phase", e.phase.rawValue)
        o.number("x", e.position.x, 1)
        o.number("y", e.position.y, 1)
        if e.fingers != 1 { o.int("fingers", e.fingers) }
        if e.scale != 1 { o.number("scale", e.scale, 5) }
        if e.rotation != 0 { o.number("rotation", e.rotation, 3) }
        if e.tilt != 0 { o.number("tilt", e.tilt, 3) }
        if e.velocity != .zero { o.raw("velocity", "[\(JSONLine.number(e.velocity.x, 1)),\(JSONLine.number(e.velocity.y, 1))]") }
        if let r = e.reason { o.string("reason", r) }
        return o.text
    }
    func end(time: Double, contacts: Int, camera: CameraPosition) -> String {
        var o = head(time, "end")
        o.int("contacts", contacts)
        o.raw("camera", MapEvent.cameraJSON(camera))
        return o.text
    }
}
