import Foundation
import Testing
import TouchCore
@testable import TouchBridge
@testable import Kiosk

/// The real recordings (whot/evemu-devices, MIT) replayed through assembler, recogniser and
/// controller give the gestures a person made.
@Suite struct RecordingGestureTests {
    static let dir = repoRoot.appendingPathComponent("Tests/TouchCoreTests/Fixtures/evemu")

    func replay(_ name: String) throws -> [[String: Any]] {
        let path = Self.dir.appendingPathComponent(name + ".events").path
        let rec = try Replay.load(path: path, descPath: nil)
        var lines: [String] = []
        Replay.run(rec, screen: Size(width: 1280, height: 800), configuration: KioskConfiguration(), contacts: false) { lines.append($0) }
        return try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
    }

    func started(_ lines: [[String: Any]]) -> [String] {
        lines.filter { $0["type"] as? String == "gesture" && ["recognized", "began"].contains($0["phase"] as? String) }
            .map { $0["gesture"] as! String }
    }

    func checkEnd(_ lines: [[String: Any]]) {
        #expect(lines.first?["type"] as? String == "start")
        #expect(lines.last?["type"] as? String == "end")
        #expect(lines.last?["contacts"] as? Int == 0)
        // The camera is idle at the end: after the last didChange comes an idleAt.
        let types = lines.map { $0["type"] as! String }
        if let lastChange = types.lastIndex(of: "didChange") {
            #expect(types[lastChange...].contains("idleAt"))
        }
        // Continuous gestures end.
        let began = lines.filter { $0["phase"] as? String == "began" }.count
        let ended = lines.filter { ["ended", "cancelled"].contains($0["phase"] as? String) }.count
        #expect(began == ended)
    }

    @Test(arguments: ["Atmel maXTouch Touchscreen.1-finger-drag-up-down", "ELAN CANDO Windows7.1-finger-drag-up-down",
                      "N-Trig MultiTouch.1-finger-drag-NW-SE", "QUANTA OpticalTouchScreen.touch-hover"])
    func aDragIsAPan(_ name: String) throws {
        let lines = try replay(name)
        checkEnd(lines)
        #expect(started(lines) == ["pan"])
    }

    @Test func fastTapsAreTapsOrDoubleTaps() throws {
        let lines = try replay("Atmel maXTouch Touchscreen.1-finger-fast-taps")
        checkEnd(lines)
        let g = started(lines)
        #expect(!g.isEmpty)
        #expect(g.allSatisfy { $0 == "tap" || $0 == "doubleTap" })
    }

    @Test(arguments: ["Atmel maXTouch Touchscreen.2-fingers-touch-release", "N-Trig MultiTouch.2-fingers-touch-release"])
    func twoFingerTouchAndReleaseMovesNothing(_ name: String) throws {
        let lines = try replay(name)
        checkEnd(lines)
        // A two-finger tap, or nothing; the N-Trig one holds one finger 1.3 s first: a long press.
        #expect(started(lines).allSatisfy { ["twoFingerTap", "longPress"].contains($0) })
        #expect(!lines.contains { $0["type"] as? String == "didChange" } || started(lines).contains("twoFingerTap"))
    }

    @Test func fourFingersNeverCrashAndLeaveNothingDown() throws {
        let lines = try replay("Atmel maXTouch Touchscreen.4-finger-drag-down")
        checkEnd(lines)
        #expect(!started(lines).contains("tap"))
    }

    @Test func aLongSessionEndsClean() throws {
        let lines = try replay("QUANTA OpticalTouchScreen")
        checkEnd(lines)
        #expect(started(lines).contains("pan"))
    }
}
