import Foundation
import Testing
@testable import TouchCore

/// `libinput record` YAML (libinput-record(1)): the fixture was written from an evemu recording
/// by an independent script (Fixtures/libinput-record/make-from-evemu.py), in the format
/// libinput's bug reports carry; reading it gives the evemu recording's device and events.
struct LibinputRecordTests {
    static let yml = Fixtures.directory.deletingLastPathComponent().appendingPathComponent("libinput-record/atmel-2-fingers.yml")

    func parse(_ text: String, source: String = "t.yml") throws -> Evemu.Recording {
        var r = LibinputRecord.Reader(source: source)
        var events: [InputEvent] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if let e = try r.line(line) { events.append(e) }
        }
        return Evemu.Recording(capabilities: try r.capabilities(), events: events)
    }

    /// Microseconds from the first event, as libinput record writes times.
    func relative(_ events: [InputEvent]) -> [[Int]] {
        let first = events.first.map { Int(($0.time * 1e6).rounded()) } ?? 0
        return events.map { [Int(($0.time * 1e6).rounded()) - first, Int($0.type), Int($0.code), Int($0.value)] }
    }

    @Test func aRealFormatFileReadsAsTheEvemuRecordingItWasMadeFrom() throws {
        let evemu = try Fixtures.recording("Atmel maXTouch Touchscreen.2-fingers-touch-release.events")
        let text = try String(contentsOf: Self.yml, encoding: .utf8)
        #expect(LibinputRecord.looksLikeRecord(firstLine: text.split(separator: "\n")[0]))
        let rec = try parse(text)
        let a = rec.capabilities, b = evemu.capabilities
        #expect(a.name == "Atmel maXTouch Touchscreen" && a.name == b.name)
        #expect([a.bustype, a.vendor, a.product, a.version] == [b.bustype, b.vendor, b.product, b.version])
        #expect(a.properties == b.properties && a.absinfo == b.absinfo)
        #expect(a.codes[EV.ABS] == b.codes[EV.ABS] && a.codes[EV.KEY] == b.codes[EV.KEY])
        #expect(a.touchKind == b.touchKind && a.touchKind != nil)
        #expect(rec.events.count == 64 && relative(rec.events) == relative(evemu.events))
    }

    @Test func writeThenReadRoundTrips() throws {
        let evemu = try Fixtures.recording("N-Trig MultiTouch.1-finger-drag-NW-SE.events")
        let back = try parse(LibinputRecord.write(evemu))
        #expect(back.capabilities.absinfo == evemu.capabilities.absinfo && back.capabilities.name == evemu.capabilities.name)
        #expect(back.capabilities.codes[EV.ABS] == evemu.capabilities.codes[EV.ABS])
        #expect(relative(back.events) == relative(evemu.events))
    }

    @Test func otherKeysEntriesAndLaterDevicesAreSkipped() throws {
        let text = """
        version: 1
        ndevices: 2
        devices:
        - node: /dev/input/event3
          evdev:
            name: 'Goodix Capacitive TouchScreen' # a comment
            id: [24, 1046, 911, 256]
            codes:
              0: [0, 1, 2] # EV_SYN
              3: [47, 53, 54, 57] # EV_ABS
            absinfo:
              47: [0, 9, 0, 0, 0]
              53: [0, 1279, 0, 0, 12]
              54: [0, 799, 0, 0, 12]
              57: [0, 65535, 0, 0, 0]
            properties: [1]
          hid: [5, 13]
          udev:
            properties:
            - ID_PATH=pci-0000:00:15.1-platform-i2c_designware.1
          events:
          # Current time is 10:00:00
          - hid:
              time: [0, 0]
              hidraw0: [1, 2, 3]
          - evdev:
            - [  0,      0,   3,  57,     7] # EV_ABS / ABS_MT_TRACKING_ID 7
            - [  0,      0,   0,   0,     0] # ------------ SYN_REPORT (0) ---------- +0ms
          - libinput:
            - {time: 0.0, type: TOUCH_DOWN}
          - evdev:
            - [  1,     25,   3,  57,    -1]
            - [  1,     25,   0,   0,     0]
        - node: /dev/input/event4
          evdev:
            name: "Other"
          events:
          - evdev:
            - [  2,      0,   1, 330,     1]
        """
        let rec = try parse(text)
        #expect(rec.capabilities.name == "Goodix Capacitive TouchScreen")
        #expect(rec.capabilities.vendor == 1046 && rec.capabilities.absinfo[53]?.resolution == 12)
        #expect(rec.events.map(\.value) == [7, 0, -1, 0])
        #expect(abs(rec.events[2].time - 1.000025) < 1e-9)
    }

    @Test func malformedLinesNameTheirLine() {
        let bad = "devices:\n- node: /x\n  evdev:\n    name: x\n  events:\n  - evdev:\n    - [0, 0, 3, 57]\n"
        #expect(throws: Evemu.ParseError.self) { _ = try parse(bad) }
        do { _ = try parse(bad) } catch let e as Evemu.ParseError { #expect(e.line == 7 && e.description.contains("[sec, usec, type, code, value]")) } catch {}
        #expect(throws: Evemu.ParseError.self) { _ = try parse("devices:\n- node: /x\n  evdev:\n    name: x\n  events:\n  - evdev:\n    - [0, 2000000, 3, 57, 1]\n") }
        #expect(throws: Evemu.ParseError.self) { _ = try parse("devices:\n- node: /x\n  evdev:\n    absinfo:\n      53: [0, x, 0, 0, 0]\n") }
        // No description before the events: said so.
        #expect(throws: Evemu.ParseError.self) { _ = try parse("devices:\n- node: /x\n  events:\n  - evdev:\n    - [0, 0, 0, 0, 0]\n") }
    }
}
