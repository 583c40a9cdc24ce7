import Testing
import TouchCore
@testable import TouchDevices

struct TouchDeviceMatchTests {
    @Test func parsesPathVendorProductAndName() {
        #expect(TouchDeviceMatch("/dev/input/event3") == .path("/dev/input/event3"))
        #expect(TouchDeviceMatch("04f3:0732") == .vendorProduct(vendor: 0x04f3, product: 0x0732))
        #expect(TouchDeviceMatch(" maXTouch ") == .name("maXTouch"))
        #expect(TouchDeviceMatch("12:34") == .name("12:34"))
        #expect(TouchDeviceMatch("zzzz:0001") == .name("zzzz:0001"))
    }

    @Test func matchesCapabilities() {
        let caps = DeviceCapabilities(name: "ELAN CANDO Windows7", vendor: 0x04f3, product: 0x0732)
        #expect(TouchDeviceMatch("elan cando").matches(path: "/dev/input/event5", capabilities: caps))
        #expect(!TouchDeviceMatch("wacom").matches(path: "/dev/input/event5", capabilities: caps))
        #expect(TouchDeviceMatch("04F3:0732").matches(path: "/x", capabilities: caps))
        #expect(!TouchDeviceMatch("04f3:0733").matches(path: "/x", capabilities: caps))
        #expect(TouchDeviceMatch("/dev/input/event5").matches(path: "/dev/input/event5", capabilities: caps))
        #expect(!TouchDeviceMatch("/dev/input/event6").matches(path: "/dev/input/event5", capabilities: caps))
    }
}

struct TouchDeviceErrorTests {
    @Test func missingNodeSaysWhichPathAndWhatToDo() {
        do {
            _ = try TouchDevice(path: "/nonexistent/event9", screen: Size(width: 800, height: 480))
            Issue.record("opened a missing node")
        } catch let e as TouchDeviceError {
            guard case .cannotOpen(let path, _) = e else { Issue.record("wrong error \(e)"); return }
            #expect(path == "/nonexistent/event9")
            #expect(e.description.contains("/nonexistent/event9"))
            #expect(e.description.contains("check the path"))
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func aNonEvdevNodeIsRejected() {
        #expect(throws: TouchDeviceError.self) {
            _ = try TouchDevice(path: "/dev/null", screen: Size(width: 800, height: 480))
        }
        do {
            _ = try TouchDiscovery.capabilities(path: "/dev/null")
        } catch let e as TouchDeviceError {
            guard case .notEvdev = e else { Issue.record("wrong error \(e)"); return }
            #expect(e.description.contains("/dev/null is not an evdev input device"))
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func goneErrorExplainsRecovery() {
        let e = TouchDeviceError.gone(path: "/dev/input/event4", frames: [ContactFrame(time: 1, contacts: [], cancelled: [3])])
        #expect(e.description.contains("/dev/input/event4"))
        #expect(e.description.contains("cancelled"))
    }

    /// This host has no /dev/input: discovery finds nothing and does not crash; a path match
    /// for a missing node finds nothing either.
    @Test func discoveryWithoutDevicesIsEmptyNotFatal() {
        _ = TouchDiscovery.touchscreens()
        #expect(TouchDiscovery.touchscreens(matching: .path("/nonexistent/event1")).isEmpty)
    }
}

struct EvemuRecorderTests {
    @Test func writesDescriptionThenEventsThatParseBack() throws {
        let caps = DeviceCapabilities(name: "Recorded panel", bustype: 3, vendor: 1, product: 2,
                                      properties: [INPUT_PROP.DIRECT],
                                      codes: [EV.KEY: [BTN.TOUCH]],
                                      absinfo: [ABS.X: AbsInfo(minimum: 0, maximum: 100), ABS.Y: AbsInfo(minimum: 0, maximum: 100)])
        var out = ""
        var recorder = EvemuRecorder(capabilities: caps) { out += $0 }
        recorder.record(InputEvent(sec: 5, usec: 10, type: EV.ABS, code: ABS.X, value: 50))
        recorder.record(InputEvent(sec: 5, usec: 10, type: EV.KEY, code: BTN.TOUCH, value: 1))
        recorder.record(InputEvent(sec: 5, usec: 10, type: EV.SYN, code: SYN.REPORT, value: 0))
        #expect(recorder.eventsWritten == 3)
        let back = try Evemu.parse(out)
        #expect(back.capabilities.name == "Recorded panel")
        #expect(back.capabilities.touchKind == .singleTouch)
        #expect(back.events.count == 3)
        var a = FrameAssembler(capabilities: back.capabilities, screen: Size(width: 200, height: 200))
        let frames = back.events.compactMap { a.process($0) }
        #expect(frames.map(\.contacts.count) == [1])
        #expect(frames[0].contacts[0].position.x == 100)
    }
}

struct TouchInputHubTests {
    /// A hub whose only entry names a missing node opens nothing, whatever this host has
    /// plugged in; it polls only the monitor, and a call for an unknown fd does nothing.
    @Test func hubWhoseMatchFindsNothingOpensNothing() {
        let hub = TouchInputHub(match: .path("/nonexistent/event7"), screen: Size(width: 800, height: 480))
        let events = hub.openAll()
        #expect(hub.devices.isEmpty)
        #expect(hub.discovered.isEmpty)
        for event in events {
            if case .opened(let path, _, _, _) = event { Issue.record("opened \(path) for a missing node") }
        }
        #expect(hub.pollFDs == (hub.monitor.map { [$0.fd] } ?? []))
        #expect(hub.handle(fd: 12345).isEmpty)
        #expect(hub.readAll().isEmpty)
    }

    /// The kernel-uevent monitor is non-blocking: with nothing plugged, changes() is empty.
    @Test func monitorDrainsWithoutBlocking() throws {
        let monitor = try TouchDeviceMonitor(source: "kernel")
        #expect(monitor.source == "kernel")
        #expect(monitor.changes().isEmpty)
    }
}
