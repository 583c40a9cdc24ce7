import Testing
import TouchCore
import Gestures
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

@Suite struct TuneModelTests {
    @Test func tracksTrailsRatesAndGestures() {
        var m = TuneModel()
        for i in 0..<61 {
            let t = 10 + Double(i) / 120
            m.add(ContactFrame(time: t, contacts: [Contact(id: 3, position: Point(x: Double(i), y: 5), pressure: 0.5),
                                                   Contact(id: 4, position: Point(x: 100, y: Double(i)))]))
        }
        #expect(m.tracks[3]?.trail.count == 61)
        #expect(abs((m.reportRate ?? 0) - 120) < 1e-6)
        m.add(GestureEvent(kind: .pinch, phase: .began, time: 10.5, position: .zero, fingers: 2, reason: "span changed 7.1 mm >= 6.0 mm"))
        #expect(m.statusLines.contains("gesture: pinch began (2 fingers)"))
        #expect(m.statusLines.contains("why: span changed 7.1 mm >= 6.0 mm"))
        #expect(m.statusLines.contains { $0.hasPrefix("contact 3 at (60, 5) pressure 0.50") })
        // Lift: the trail stays visible as ended until the next touch-down.
        m.add(ContactFrame(time: 11, contacts: []))
        #expect(m.tracks.isEmpty && m.ended.count == 2)
        m.add(ContactFrame(time: 12, contacts: [Contact(id: 5, position: .zero)]))
        #expect(m.ended.isEmpty && m.tracks.count == 1)
    }

    @Test func latencyIsMeasuredFromTheKernelTimestamp() {
        var m = TuneModel()
        m.frameShown(at: 1.010, inputTime: 1.000)
        m.frameShown(at: 1.030, inputTime: 1.024)
        m.frameShown(at: 1.050, inputTime: 1.042)
        #expect(abs((m.latencyMedianMS ?? 0) - 8) < 1e-6)
        #expect(abs((m.frameRate ?? 0) - 50) < 1e-6)
    }
}
