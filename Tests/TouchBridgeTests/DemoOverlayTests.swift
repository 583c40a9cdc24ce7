import Foundation
import Testing
import MapEngine
import Rendering
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

/// `touchbridge demo` (issue 26): beside the gestures the tour shows a route with the puck
/// walking it (the travelled part grey), a polygon, a circle and a ground overlay, taps one
/// overlay, and ends in following mode behind the puck.
@Suite struct DemoOverlayTests {
    @Test func theWorldTourShowsTheWayAndTapsAnOverlay() throws {
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("tb-demo-overlays-\(getpid())").path
        defer { try? FileManager.default.removeItem(atPath: out) }
        var runner = DemoRunner(outputDirectory: out)
        var frames: [[UInt32]] = []
        runner.onFrame = { f in
            var px: [UInt32] = []
            px.reserveCapacity(f.width * f.height)
            for y in 0..<f.height { for x in 0..<f.width { px.append(f.pixel(x: x, y: y) & 0xffffff) } }
            frames.append(px)
        }
        let result = try runner.run()
        #expect(result.frames.count == 14)   // the start, eleven gestures, the overlay tap, following
        let lines = try String(contentsOfFile: result.eventStream, encoding: .utf8).split(separator: "\n")
        let taps = lines.filter { $0.contains(#""type":"didTapOverlay""#) }
        #expect(taps.count == 1 && taps[0].contains(#""overlay":"alps""#), "\(taps)")
        // The overlay tap is a tap, not a tap on the map as well.
        let tapStep = result.gesturesPerStep[DemoTour.gestureSteps]
        #expect(tapStep == ["tap"])
        // The last frame: following mode, tilted 45 degrees, facing the puck's heading.
        #expect(result.finalCamera.tilt == 45)
        #expect(lines.contains { $0.contains(#""type":"cameraMode","mode":"following""#) })
        // The first frame shows the route (blue and, behind the puck, grey), the puck's dot and
        // the shapes' colours somewhere on screen.
        let routeBlue = frames[0].contains(0x1A73E8)
        #expect(routeBlue, "the route's blue")
        let travelledGrey = frames[frames.count - 1].contains(0x9AA0A6)
        #expect(travelledGrey, "the travelled part's grey")
        // The floor plan image was written and is drawn (its wall colour).
        #expect(FileManager.default.fileExists(atPath: (out as NSString).appendingPathComponent("floor-plan.png")))
    }
}
