import Foundation
import TouchCore
import Testing
import Rendering
import Display
@testable import TouchBridge
@testable import Kiosk

/// A panel mounted at 90/180/270 degrees: the map drawn upright for the viewer is turned into
/// the display's own orientation.
@Suite struct FrameCopyTests {
    func source() -> OwnedFrameBuffer {
        // 4x2 logical frame, pixel value = 10 * y + x.
        let f = OwnedFrameBuffer(width: 4, height: 2)
        for y in 0..<2 { for x in 0..<4 {
            f.buffer.pixels.advanced(by: y * f.buffer.stride).assumingMemoryBound(to: UInt32.self)[x] = UInt32(10 * y + x)
        } }
        return f
    }

    func copied(_ rotation: Int) -> (MemoryDisplay, [[UInt32]]) {
        let (w, h) = FrameCopy.logicalSize(width: rotation % 180 == 0 ? 4 : 2, height: rotation % 180 == 0 ? 2 : 4, rotation: rotation)
        #expect((w, h) == (4, 2))
        let d = MemoryDisplay(width: rotation % 180 == 0 ? 4 : 2, height: rotation % 180 == 0 ? 2 : 4)
        let src = source()
        FrameCopy.copy(src.buffer, to: d.backBuffer(), rotation: rotation)
        let b = d.backBuffer()
        let rows = (0..<b.height).map { y in (0..<b.width).map { x in b.pixels.advanced(by: y * b.stride).assumingMemoryBound(to: UInt32.self)[x] } }
        return (d, rows)
    }

    @Test func noRotationCopiesAsIs() {
        #expect(copied(0).1 == [[0, 1, 2, 3], [10, 11, 12, 13]])
    }

    @Test func ninetyDegreesTurnsThePictureCounterClockwiseOnThePanel() {
        // The panel is turned clockwise: its top row shows the picture's right column.
        #expect(copied(90).1 == [[3, 13], [2, 12], [1, 11], [0, 10]])
    }

    @Test func oneEightyAndTwoSeventy() {
        #expect(copied(180).1 == [[13, 12, 11, 10], [3, 2, 1, 0]])
        #expect(copied(270).1 == [[10, 0], [11, 1], [12, 2], [13, 3]])
    }
}
