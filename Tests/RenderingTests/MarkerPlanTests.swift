import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// The markers' drawing order: z-index, then lower on screen above (drawn later), then the
/// order of the list; markers out of view are left out.
@Suite struct MarkerPlanTests {
    @Test func plannedInZIndexThenScreenYThenListOrder() {
        let camera = CameraPosition(target: Coordinate(latitude: 48, longitude: 9), zoom: 6)
        let view = GroundView(projection: Projection(camera: camera, screen: Size(width: 800, height: 600)))
        let north = Coordinate(latitude: 49, longitude: 9), south = Coordinate(latitude: 47, longitude: 9)
        let markers = [
            MarkerSprite(id: "high-south", coordinate: south, zIndex: 1),
            MarkerSprite(id: "south", coordinate: south),
            MarkerSprite(id: "north", coordinate: north),
            MarkerSprite(id: "away", coordinate: Coordinate(latitude: -30, longitude: 120)),
            MarkerSprite(id: "north-again", coordinate: north, icon: .defaultPin(RGBColor(hex: 0x1565C0))),
            MarkerSprite(id: "high-north", coordinate: north, zIndex: 1),
        ]
        let plan = OverlayPainter(style: .standard).planMarkers(scene: MapScene(camera: camera, markers: markers), view: view,
                                                                icons: IconCache(), text: nil)
        // Expected: north, north-again, south (z 0), then high-north, high-south (z 1).
        let n = view.visiblePoint(north, slack: 64)!, s = view.visiblePoint(south, slack: 64)!
        let tipY = Double(OverlayPainter.pinSpriteTip.y)
        let ys = plan.map { $0.y + tipY }
        #expect(plan.count == 5)
        #expect(ys.map { abs($0 - n.y) < 1 } == [true, true, false, true, false])
        #expect(ys.map { abs($0 - s.y) < 1 } == [false, false, true, false, true])
        // Same place and z-index: the list's order, the red pin under the blue one.
        func redness(_ m: OverlayPainter.PlacedMarker) -> Int {
            guard let img = m.image else { return 0 }
            var sum = 0
            for y in 0..<img.height { for x in 0..<img.width { let p = img.pixel(x: x, y: y); sum += Int((p >> 16) & 0xff) - Int(p & 0xff) } }
            return sum
        }
        #expect(plan[0].x == plan[1].x && plan[0].y == plan[1].y)
        #expect(redness(plan[0]) > 0 && redness(plan[1]) < 0)
    }
}
