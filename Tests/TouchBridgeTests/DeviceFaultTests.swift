import Foundation
import Testing
import TouchCore
import Gestures
import MapEngine
import Platform
@testable import TouchDevices
@testable import TouchBridge
@testable import Kiosk

/// Touchscreens that fail while the kiosk reads them: a scripted device (the same reading code
/// as libevdev's, fed batch by batch, each batch one read) adopted by the kiosk's own device
/// manager, its events going through `MapView.handle` as in the running kiosk. Explicit times.
@Suite struct DeviceFaultTests {
    final class Recorder: MapViewDelegate {
        var calls: [String] = []
        func willMove(gesture: Bool) { calls.append("willMove") }
        func idleAt(_ camera: CameraPosition) { calls.append("idleAt") }
        func didTapAt(_ c: Coordinate) { calls.append("didTapAt") }
        func didDoubleTapAt(_ c: Coordinate) { calls.append("didDoubleTapAt") }
    }

    let path = "/dev/input/event42"

    func makeView() throws -> (MapView, Recorder) {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))] // no real devices on this host
        cfg.map.camera = CameraPosition(target: Coordinate(latitude: 47, longitude: 6), zoom: 5)
        let view = try MapView(configuration: cfg, display: MemoryDisplay(width: 1280, height: 800), log: KioskLog(level: .error))
        let rec = Recorder()
        view.delegate = rec
        return (view, rec)
    }

    /// `script`'s events split into reads: each cut is the time at which a read ends (events at
    /// or before it); the last read ends with `error` (errno) at `failTime`.
    func plug(_ view: MapView, _ script: TouchScript, cuts: [Double], error: Int32, failTime: Double) -> TouchDevice {
        var batches: [ScriptedEventSource.Batch] = []
        var rest = script.events
        for cut in cuts {
            let n = rest.firstIndex { $0.time > cut } ?? rest.count
            batches.append(.init(Array(rest[..<n])))
            rest.removeFirst(n)
        }
        batches.append(.init(rest, error: error))
        let device = TouchDevice(path: path, descriptor: pollable(),
                                 capabilities: script.device, source: ScriptedEventSource(batches), screen: view.screen, now: 0.5)
        device.clock = { failTime }
        view.handle(view.input.adopt(device, foundBy: "script"))
        return device
    }

    /// One read of the device, as the loop does when its fd is readable.
    func read(_ view: MapView, _ device: TouchDevice) -> [TouchInputHub.Event] {
        let events = view.input.handle(fd: device.fd)
        view.handle(events)
        return events
    }

    func pinch(_ view: MapView) -> TouchScript {
        var s = TouchScript(screen: view.screen, start: 1)
        let c = Point(x: 640, y: 400)
        s.move([0: c + Point(x: -100, y: 0), 1: c + Point(x: 100, y: 0)],
               [0: c + Point(x: -300, y: 0), 1: c + Point(x: 300, y: 0)], duration: 0.5, lift: false)
        return s
    }

    /// EIO in the middle of a pinch: the frames read before it arrive, then both fingers are
    /// cancelled; the device is closed; the gesture ends and the camera comes to rest (one
    /// idleAt), and nothing stays down.
    @Test func aReadErrorMidPinchLiftsEveryContact() throws {
        let (view, rec) = try makeView()
        let device = plug(view, pinch(view), cuts: [1.2], error: EIO, failTime: 1.6)
        var kinds: [(GestureKind, GesturePhase)] = []
        view.pipeline.gestureObserver = { kinds.append(($0.kind, $0.phase)) }

        #expect(read(view, device).count == 1)
        #expect(view.pipeline.contactsDown == 2)
        #expect(kinds.contains { $0 == (.pinch, .began) })
        let zoomMidPinch = view.controller.camera.zoom
        #expect(zoomMidPinch > 5.5)

        let events = read(view, device)
        guard events.count == 2, case .frames(let p, let frames) = events[0], case .closed(let q, let reason) = events[1] else {
            Issue.record("expected frames then closed, got \(events)"); return
        }
        #expect(p == path && q == path)
        #expect(reason.isFault && "\(reason)".contains(path) && "\(reason)".contains("Input/output error") && "\(reason)".contains("reconnect"))
        // The frames of the failing read (the pinch went on to 1.5 s), then the cancelling one.
        #expect(frames.count > 20)
        #expect(frames.last?.contacts.isEmpty == true && frames.last?.cancelled == [0, 1] && frames.last?.time == 1.6)
        #expect(view.input.devices.isEmpty)
        #expect(view.pipeline.contactsDown == 0)
        #expect(view.pipeline.recognizer.state == .idle)
        #expect(kinds.last.map { $0 == (.pinch, .cancelled) } == true)
        #expect(view.controller.camera.zoom >= zoomMidPinch) // the rest of the pinch was applied
        // A further readable fd for the closed device reads nothing.
        #expect(view.input.handle(fd: device.fd).isEmpty)

        view.pipeline.advance(to: 5)
        #expect(!view.controller.isMoving)
        #expect(rec.calls.filter { $0 == "idleAt" }.count == 1)
        #expect(rec.calls.last == "idleAt")
    }

    /// A lift read in the same read() as the error is a lift, not a cancellation: the tap stands.
    @Test func aLiftReadBeforeTheErrorStillCounts() throws {
        let (view, rec) = try makeView()
        var s = TouchScript(screen: view.screen, start: 1)
        s.tap(Point(x: 400, y: 300))
        let device = plug(view, s, cuts: [1.0], error: EIO, failTime: 1.1)
        _ = read(view, device)
        #expect(view.pipeline.contactsDown == 1)
        let events = read(view, device)
        guard case .frames(_, let frames) = events.first else { Issue.record("no frames in \(events)"); return }
        #expect(frames.map(\.contacts.count) == [0, 0])
        #expect(frames.last?.cancelled == [])
        view.pipeline.advance(to: 3)
        #expect(rec.calls == ["didTapAt"])
    }

    /// Unplugged (ENODEV) 100 ms after a tap, within the double-tap timeout: frame by frame,
    /// the tap is still pending when the device goes, and is delivered when the timeout passes,
    /// exactly once, with no gesture cancelled.
    @Test func aTapBeforeAnUnplugIsDelivered() throws {
        let (view, rec) = try makeView()
        var s = TouchScript(screen: view.screen, start: 1)
        s.tap(Point(x: 400, y: 300))
        let liftTime = s.time
        let device = plug(view, s, cuts: [liftTime], error: ENODEV, failTime: liftTime + 0.1)
        var kinds: [(GestureKind, GesturePhase)] = []
        view.pipeline.gestureObserver = { kinds.append(($0.kind, $0.phase)) }

        _ = read(view, device)
        #expect(view.pipeline.recognizer.state == .tapPending)
        let timeout = view.configuration.gestures.thresholds.doubleTapTimeout
        #expect(timeout > 0.1)

        let events = read(view, device)
        guard events.count == 2, case .frames(_, let frames) = events[0], case .closed(_, let reason) = events[1] else {
            Issue.record("expected frames then closed, got \(events)"); return
        }
        #expect(reason == .gone)
        #expect(frames.count == 1 && frames[0].contacts.isEmpty && frames[0].cancelled.isEmpty)
        #expect(view.input.devices.isEmpty)
        // Gone, but the tap is only waiting for its double-tap timeout.
        #expect(view.pipeline.recognizer.state == .tapPending)
        #expect(rec.calls.isEmpty)
        #expect(view.pipeline.nextDeadline.map { abs($0 - (liftTime + timeout)) < 1e-9 } == true)
        view.pipeline.advance(to: liftTime + timeout - 0.001)
        #expect(rec.calls.isEmpty)
        view.pipeline.advance(to: liftTime + timeout)
        #expect(rec.calls == ["didTapAt"])
        #expect(kinds.map(\.0) == [.tap])
        view.pipeline.advance(to: liftTime + 5)
        #expect(rec.calls == ["didTapAt"])
    }

    /// The lift and the unplug in one read: the tap is delivered all the same.
    @Test func aTapWhoseLiftArrivesWithTheUnplugIsDelivered() throws {
        let (view, rec) = try makeView()
        var s = TouchScript(screen: view.screen, start: 1)
        s.tap(Point(x: 400, y: 300))
        let liftTime = s.time
        let device = plug(view, s, cuts: [1.0], error: ENODEV, failTime: liftTime + 0.01)
        _ = read(view, device)
        _ = read(view, device)
        #expect(view.input.devices.isEmpty)
        #expect(view.pipeline.recognizer.state == .tapPending)
        view.pipeline.advance(to: liftTime + 1)
        #expect(rec.calls == ["didTapAt"])
    }

    /// SYN_DROPPED mid-pinch, resynced to "nothing down", then a read error: no contact is left.
    @Test func aDropThenAnErrorLeavesNothingDown() throws {
        let (view, _) = try makeView()
        let s = pinch(view)
        let cut = s.events.firstIndex { $0.time > 1.2 } ?? s.events.count
        var second = Array(s.events[cut...].prefix(20))
        second.insert(InputEvent(time: 1.25, type: EV.SYN, code: SYN.DROPPED, value: 0), at: 0)
        let source = ScriptedEventSource([.init(Array(s.events[..<cut])),
                                          .init(second, stateAfterDrop: DeviceState(slots: Array(repeating: SlotState(), count: 10))),
                                          .init([], error: EIO)])
        let device = TouchDevice(path: path, descriptor: pollable(),
                                 capabilities: s.device, source: source, screen: view.screen, now: 0.5)
        device.clock = { 2 }
        view.handle(view.input.adopt(device, foundBy: "script"))
        _ = read(view, device)
        #expect(view.pipeline.contactsDown == 2)
        _ = read(view, device)
        _ = read(view, device)
        #expect(view.input.devices.isEmpty)
        #expect(view.pipeline.contactsDown == 0)
        view.pipeline.advance(to: 5)
        #expect(!view.controller.isMoving)
    }
}
