import Testing
@testable import TouchCore

/// Evemu files written by others: CRLF line ends, masks longer than their code space, numbers
/// out of range. Each is read correctly or rejected with the line and the reason, never a trap.
struct EvemuHostileInputTests {
    static let desc = """
        N: Panel
        I: 0003 1234 5678 0001
        P: 02 00 00 00 00 00 00 00
        B: 00 0b 00 00 00 00 00 00
        B: 03 00 00 00 00 00 80 63 02
        A: 35 0 4095 0 0 20
        A: 36 0 4095 0 0 20
        A: 2f 0 9 0 0 0
        A: 39 0 65535 0 0 0
        """

    @Test func crlfFilesReadLikeLFFiles() throws {
        let lf = Self.desc + "\nE: 1.000000 0003 0039 7\nE: 1.000000 0000 0000 0\n"
        let crlf = lf.replacingOccurrences(of: "\n", with: "\r\n")
        #expect(crlf.split(separator: "\n").count == 1, "a Swift String sees CRLF as one Character")
        let a = try Evemu.parse(lf), b = try Evemu.parse(crlf)
        #expect(a == b)
        #expect(b.events.count == 2 && b.capabilities.absinfo[ABS.MT_POSITION_X]?.maximum == 4095)
    }

    @Test func crlfErrorsNameTheRightLine() {
        let text = (Self.desc + "\nE: 1.000000 0003 0039 7\nE: 1.5 0003 zz 1\n").replacingOccurrences(of: "\n", with: "\r\n")
        do {
            _ = try Evemu.parse(text, source: "panel.evemu")
            Issue.record("expected an error")
        } catch let e as Evemu.ParseError {
            #expect(e.line == 11)
            #expect(e.reason.contains("bad hex number zz"))
            #expect(!e.text.contains("\r"))
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func aMaskLongerThanItsCodeSpaceIsRejected() {
        // 8200 bytes of EV_KEY mask: the old reader trapped converting bit 65536 to UInt16.
        let long = "N: x\n" + String(repeating: "B: 01 ff ff ff ff ff ff ff ff\n", count: 1025)
        do {
            _ = try Evemu.parse(long, source: "keys.desc")
            Issue.record("expected an error")
        } catch let e as Evemu.ParseError {
            #expect(e.line == 14, "KEY_MAX 0x2ff: 96 bytes, 12 lines are fine, the 13th is not")
            #expect(e.reason.contains("longer than its code space (96 bytes)"))
        } catch { Issue.record("unexpected \(error)") }
        #expect(throws: Evemu.ParseError.self) { try Evemu.parse("N: x\nB: 03 ff ff ff ff ff ff ff ff ff\n") }
        #expect(throws: Evemu.ParseError.self) { try Evemu.parse("N: x\nB: 20 01\n") }          // above EV_MAX
        #expect(throws: Evemu.ParseError.self) { try Evemu.parse("N: x\nP: " + String(repeating: "01 ", count: 9) + "\n") }
    }

    @Test func masksAsLongAsTheirCodeSpaceAreRead() throws {
        let keys = String(repeating: "B: 01 00 00 00 00 00 00 00 00\n", count: 11) + "B: 01 00 00 00 00 00 00 00 80\n"
        let r = try Evemu.parse("N: x\n" + keys)
        #expect(r.capabilities.codes[EV.KEY] == [0x2ff])
    }

    @Test func outOfRangeNumbersAreRejectedWithTheirLine() {
        let bad = [
            "A: 40 0 1 0 0 0",                       // above ABS_MAX
            "A: 35 0 4294967296 0 0 0",              // not a 32-bit number
            "E: -1.000000 0003 0035 1",              // negative seconds
            "E: 1.1000000 0003 0035 1",              // microseconds above 999999
            "E: 99999999999999999999.0 0003 0035 1", // seconds beyond any clock
            "E: 1.000000 10000 0035 1",              // type above 16 bits
            "I: 0003 1234 5678 10000",
        ]
        for line in bad {
            do {
                _ = try Evemu.parse("N: x\n" + line + "\n", source: "f")
                Issue.record("accepted \(line)")
            } catch let e as Evemu.ParseError {
                #expect(e.line == 2, "\(line)")
            } catch { Issue.record("unexpected \(error)") }
        }
    }

    @Test func theReaderHandsEventsOutOneLineAtATime() throws {
        var reader = Evemu.Reader(source: "s")
        for line in Self.desc.split(separator: "\n") { #expect(try reader.line(line) == nil) }
        #expect(reader.hasDescription)
        let e = try reader.line("E: 2.000250 0003 0035 17\r")
        #expect(e == InputEvent(sec: 2, usec: 250, type: EV.ABS, code: ABS.MT_POSITION_X, value: 17))
        #expect(try reader.capabilities().touchKind == .protocolB(slots: 10))
        #expect(reader.lineNumber == 10)
    }
}

/// A device that never ends its report cannot make the assembler hold unbounded state.
struct AssemblerBoundsTests {
    @Test func aProtocolAReportKeepsAtMost64Contacts() {
        var a = FrameAssembler(capabilities: TestDevices.protocolA(), screen: Size(width: 1000, height: 1000))
        var s = Script()
        for i in 0..<100_000 { s.contactA(x: Int32(i % 1000), y: 5) }
        s.syn()
        var frames: [ContactFrame] = []
        for e in s.events { if let f = a.process(e) { frames.append(f) } }
        #expect(frames.count == 1)
        #expect(frames[0].contacts.count == 64)
        #expect(frames[0].contacts.map(\.position.x) == (0..<64).map { Double($0) })
        // And the next report (two contacts) is the whole truth again.
        var t = Script(start: 101)
        t.contactA(x: 1, y: 1); t.contactA(x: 900, y: 900); t.syn()
        var last: ContactFrame?
        for e in t.events { if let f = a.process(e) { last = f } }
        #expect(last?.contacts.count == 2)
    }
}
