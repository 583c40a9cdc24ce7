import Foundation
import Testing
@testable import TouchCore

/// The real evemu recordings in Fixtures/evemu (MIT, Red Hat; see the LICENSE beside them).
enum Fixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/evemu")

    static func text(_ name: String) throws -> String {
        try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
    }

    /// A recording: a combined file, or a .events file with the device's .desc beside it.
    static func recording(_ events: String) throws -> Evemu.Recording {
        let eventsText = try text(events)
        if eventsText.contains("\nN: ") || eventsText.hasPrefix("N: ") {
            return try Evemu.parse(eventsText, source: events)
        }
        let device = String(events.prefix { $0 != "." })
        return try Evemu.parse(description: try text(device + ".desc"), events: eventsText,
                               descriptionSource: device + ".desc", eventsSource: events)
    }

    static func frames(_ events: String, screen: Size = Size(width: 1280, height: 800)) throws -> (FrameAssembler, [ContactFrame]) {
        let rec = try recording(events)
        var assembler = FrameAssembler(capabilities: rec.capabilities, screen: screen)
        let frames = assembler.frames(rec.events)
        return (assembler, frames)
    }
}

struct RecordingTests {
    /// Recording -> touches (distinct contacts from touch-down to lift), counted by hand from the
    /// files (tracking ids for protocol B, BTN_TOUCH and the finger count in the name for N-Trig).
    static let touches: [(String, Int)] = [
        ("Atmel maXTouch Touchscreen.1-finger-drag-up-down.events", 1),
        ("Atmel maXTouch Touchscreen.1-finger-fast-taps.events", 9),
        ("Atmel maXTouch Touchscreen.2-fingers-touch-release.events", 2),
        ("Atmel maXTouch Touchscreen.4-finger-drag-down.events", 4),
        ("ELAN CANDO Windows7.1-finger-drag-up-down.events", 1),
        ("N-Trig MultiTouch.1-finger-drag-NW-SE.events", 1),
        ("N-Trig MultiTouch.2-fingers-touch-release.events", 2),
        ("QUANTA OpticalTouchScreen.events", 9),
        ("QUANTA OpticalTouchScreen.touch-hover.events", 1),
        ("QUANTA OpticalTouchScreen.touch-on-left.events", 1),
    ]

    @Test(arguments: touches)
    func recordingHasExpectedTouchesAndNoneLeftDown(file: String, expected: Int) throws {
        let (assembler, frames) = try Fixtures.frames(file)
        #expect(!frames.isEmpty)
        let ids = Set(frames.flatMap(\.ids))
        #expect(ids.count == expected, "touches in \(file)")
        #expect(frames.last?.contacts.isEmpty == true, "contact left down at the end of \(file)")
        #expect(assembler.contactsDown == 0)
        #expect(frames.allSatisfy { $0.cancelled.isEmpty })
        // Every contact lies on the screen.
        for c in frames.flatMap(\.contacts) {
            #expect((0...1280).contains(c.position.x) && (0...800).contains(c.position.y))
        }
    }

    @Test func descriptionsClassifyEachPanel() throws {
        let atmel = try Evemu.parse(Fixtures.text("Atmel maXTouch Touchscreen.desc")).capabilities
        #expect(atmel.name == "Atmel maXTouch Touchscreen")
        #expect(atmel.bustype == 0x18)
        #expect(atmel.touchKind == .protocolB(slots: 10))
        #expect(atmel.properties == [INPUT_PROP.DIRECT])
        #expect(atmel.has(EV.KEY, BTN.TOUCH))
        #expect(atmel.absinfo[ABS.MT_POSITION_X] == AbsInfo(minimum: 0, maximum: 799))
        #expect(atmel.isTouchscreen)

        let ntrig = try Evemu.parse(Fixtures.text("N-Trig MultiTouch.desc")).capabilities
        #expect(ntrig.touchKind == .protocolA)
        #expect(!ntrig.properties.contains(INPUT_PROP.DIRECT))
        #expect(ntrig.isTouchscreen)
        #expect(ntrig.vendor == 0x1b96 && ntrig.product == 0x0001)
        #expect(ntrig.has(EV.KEY, BTN.TOOL_DOUBLETAP))

        let quanta = try Evemu.parse(Fixtures.text("QUANTA OpticalTouchScreen.desc")).capabilities
        #expect(quanta.touchKind == .protocolB(slots: 10))
        #expect(quanta.version == 0x0110)
    }

    /// evemu 1.0 lines (A: without the resolution column) parse, resolution 0.
    @Test func evemu10DescriptionParses() throws {
        let elan = try Evemu.parse(Fixtures.text("ELAN CANDO Windows7.desc")).capabilities
        #expect(elan.absinfo[ABS.X] == AbsInfo(minimum: 0, maximum: 3008, fuzz: 0, flat: 0, resolution: 0))
        #expect(elan.absinfo[ABS.MT_TOUCH_MAJOR]?.maximum == 255)
        #expect(elan.touchKind == .protocolB(slots: 10))
    }

    @Test func combinedRecordingCarriesDescriptionAndEvents() throws {
        let rec = try Evemu.parse(Fixtures.text("Atmel maXTouch Touchscreen.2-fingers-touch-release.events"))
        #expect(rec.capabilities.name == "Atmel maXTouch Touchscreen")
        // "E: 0.000001 0003 0039 0007\t# EV_ABS / ABS_MT_TRACKING_ID   7": zero-padded value, comment.
        #expect(rec.events.first == InputEvent(sec: 0, usec: 1, type: EV.ABS, code: ABS.MT_TRACKING_ID, value: 7))
    }

    /// Protocol A (N-Trig, anonymous contacts) yields the same kind of frames as protocol B
    /// (Atmel): two fingers come down, both are seen together with distinct stable ids, both lift.
    @Test func protocolAFramesMatchProtocolBFrames() throws {
        let (_, a) = try Fixtures.frames("N-Trig MultiTouch.2-fingers-touch-release.events")
        let (_, b) = try Fixtures.frames("Atmel maXTouch Touchscreen.2-fingers-touch-release.events")
        for frames in [a, b] {
            #expect(frames.map(\.contacts.count).max() == 2)
            // Each id's contact count: once a contact appears it stays until it lifts (no gaps).
            for id in Set(frames.flatMap(\.ids)) {
                let present = frames.map { $0.contact(id: id) != nil }
                let first = present.firstIndex(of: true)!, last = present.lastIndex(of: true)!
                #expect(present[first...last].allSatisfy { $0 }, "contact \(id) vanished and came back")
            }
            // Positions move smoothly: no jump larger than 1/4 of the screen between frames.
            for (prev, next) in zip(frames, frames.dropFirst()) {
                for c in next.contacts {
                    if let p = prev.contact(id: c.id) { #expect(p.position.distance(to: c.position) < 320) }
                }
            }
            #expect(frames.last?.contacts.isEmpty == true)
            #expect(frames.allSatisfy { $0.time >= frames[0].time })
        }
        // The N-Trig reports touch size, normalised to mm or device units.
        #expect(!a.flatMap(\.contacts).isEmpty) // else the next line holds for nothing
        #expect(a.flatMap(\.contacts).allSatisfy { $0.touchMajor != nil })
    }
}
