import Foundation
import Testing
import TouchCore
import Gestures
import Rendering
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

@Suite struct TuneOverlayTests {
    @Test func contactsTrailsAndStatusAreDrawn() throws {
        let frame = OwnedFrameBuffer(width: 800, height: 480)
        memset(frame.buffer.pixels, 0xff, frame.buffer.stride * frame.buffer.height) // white
        var model = TuneModel()
        for i in 0..<40 {
            let t = Double(i) / 100
            model.add(ContactFrame(time: t, contacts: [Contact(id: 1, position: Point(x: 200 + Double(i) * 5, y: 300), pressure: 0.8),
                                                       Contact(id: 2, position: Point(x: 600 - Double(i) * 5, y: 200))]))
        }
        model.add(GestureEvent(kind: .pinch, phase: .began, time: 0.2, position: Point(x: 400, y: 250), fingers: 2,
                               reason: "span changed 6.2 mm > pinchStartSpanChange 5.0 mm"))
        TuneOverlay.draw(model, on: frame.buffer, pixelsPerMM: 5)
        if let dir = ProcessInfo.processInfo.environment["TB_TEST_OUT"] { try frame.buffer.writePNG(to: dir + "/tune-overlay.png") }
        // Contact 1's trail (palette blue) at a point it passed; contact 2's (green) likewise.
        func rgb(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let p = frame.buffer.pixel(x: x, y: y)
            return (Int(p >> 16 & 0xff), Int(p >> 8 & 0xff), Int(p & 0xff))
        }
        let blue = rgb(250, 300), green = rgb(550, 200)
        #expect(blue.2 > 180 && blue.0 < 120)
        #expect(green.1 > 130 && green.0 < 120 && green.2 < 120)
        #expect(rgb(250, 330) == (255, 255, 255)) // nothing where no finger went
        // The status box has dark text pixels in its first line.
        var dark = 0
        for x in 20..<400 { for y in 18..<36 where rgb(x, y).0 < 80 { dark += 1 } }
        #expect(dark > 50)
        #expect(model.statusLines[0] == "gesture: pinch began (2 fingers)")
    }
}
