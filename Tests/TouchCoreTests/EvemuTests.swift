import Testing
@testable import TouchCore

struct EvemuTests {
    @Test func writeThenReadRoundTrips() throws {
        let caps = TestDevices.protocolB(fuzz: 3, toolType: true, pressure: true)
        var s = Script(start: 1_700_000_000.000_001)
        s.slot(0, id: 4, x: 10, y: -20); s.syn(advance: 0.016_667)
        s.slot(0, id: -1); s.syn(advance: 0.999_999_6)
        s.syn()
        let recording = Evemu.Recording(capabilities: caps, events: s.events)
        let text = Evemu.write(recording)
        let back = try Evemu.parse(text, source: "roundtrip")
        #expect(back.capabilities.name == caps.name)
        #expect(back.capabilities.vendor == 0x1234 && back.capabilities.product == 0x5678)
        #expect(back.capabilities.properties == caps.properties)
        #expect(back.capabilities.absinfo == caps.absinfo)
        #expect(back.capabilities.codes[EV.ABS] == caps.codes[EV.ABS])
        #expect(back.capabilities.codes[EV.KEY] == caps.codes[EV.KEY])
        #expect(back.events.count == s.events.count)
        for (a, b) in zip(back.events, s.events) {
            #expect(a.type == b.type && a.code == b.code && a.value == b.value)
            #expect(abs(a.time - b.time) < 1e-6)
        }
    }

    @Test func rewritingARealRecordingReproducesIt() throws {
        let rec = try Fixtures.recording("N-Trig MultiTouch.1-finger-drag-NW-SE.events")
        let again = try Evemu.parse(Evemu.write(rec))
        #expect(again.capabilities == rec.capabilities)
        #expect(again.events == rec.events)
    }

    @Test func eventLineFormat() {
        #expect(Evemu.eventLine(InputEvent(sec: 12, usec: 3400, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: -1))
                == "E: 12.003400 0003 0039 -1\n")
    }

    @Test func badLinesNameTheSourceAndLine() {
        do {
            _ = try Evemu.parse("N: x\nE: 1.5 0003 zz 1\n", source: "panel.events")
            Issue.record("expected an error")
        } catch let e as Evemu.ParseError {
            #expect(e.line == 2)
            #expect(e.description.contains("panel.events:2"))
        } catch { Issue.record("unexpected \(error)") }
        #expect(throws: Evemu.ParseError.self) { try Evemu.parse("E: 1.000000 0000 0000 0\n") }
        #expect(throws: Evemu.ParseError.self) { try Evemu.parse("N: x\nA: 00 1 2\n") }
    }
}
