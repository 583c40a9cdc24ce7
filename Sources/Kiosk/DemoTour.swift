import TouchBridge
import Foundation
import TouchCore
import MapEngine

/// The demo's scripted tour of every gesture, as synthetic evdev events for a virtual
/// protocol-B panel. It goes through the same pipeline as a real panel. The first step taps the
/// Paris marker's pin, whose place on screen follows from the start camera.
package struct DemoTour {
    public struct Step: Sendable {
        public var caption: String
        /// Time of the step's first event and of its last one (seconds, input clock).
        public var start: Double
        public var end: Double
    }

    public static let screen = Size(width: 1280, height: 800)
    public static let startCamera = CameraPosition(target: Coordinate(latitude: 47.0, longitude: 6.0), zoom: 4.2)
    public static let markers: [KioskConfiguration.MarkerSettings] = [
        .init(id: "paris", coordinate: Coordinate(latitude: 48.8566, longitude: 2.3522),
              title: "Paris", snippet: "Capital of France, on the Seine. A tap on the pin opens this window; a tap on the map closes it."),
        .init(id: "berlin", coordinate: Coordinate(latitude: 52.52, longitude: 13.405), title: "Berlin", snippet: "Capital of Germany"),
        .init(id: "rome", coordinate: Coordinate(latitude: 41.9028, longitude: 12.4964), title: "Rome", snippet: "Capital of Italy", zIndex: 1),
    ]

    public private(set) var script: TouchScript
    public private(set) var steps: [Step] = []

    /// The street-map variant (`demo --street`): Vaduz on the Liechtenstein tiles, its markers.
    /// West of the town centre: the tour's pan and fling bring the town and the castle slope into view.
    public static let streetCamera = CameraPosition(target: Coordinate(latitude: 47.1405, longitude: 9.5135), zoom: 15.5)
    public static let streetMarkers: [KioskConfiguration.MarkerSettings] = [
        .init(id: "town-hall", coordinate: Coordinate(latitude: 47.1397, longitude: 9.5222),
              title: "Rathaus Vaduz", snippet: "Städtle 6. A tap on the pin opens this window; a tap on the map closes it."),
        .init(id: "castle", coordinate: Coordinate(latitude: 47.1394, longitude: 9.5250), title: "Schloss Vaduz", snippet: "Seat of the Prince"),
        .init(id: "museum", coordinate: Coordinate(latitude: 47.1385, longitude: 9.5213), title: "Landesmuseum", snippet: "Städtle 43", zIndex: 1),
    ]

    /// The tour's gesture steps (`tour-steps/01..11`); later steps need the runner's help (the
    /// overlay tap starts from the start camera again).
    public static let gestureSteps = 11

    /// `overlayTap`: a coordinate inside an overlay, tapped (from the start camera) after the
    /// gesture steps.
    public init(screen: Size = DemoTour.screen, camera: CameraPosition = DemoTour.startCamera,
                markers: [KioskConfiguration.MarkerSettings] = DemoTour.markers, overlayTap: Coordinate? = nil) {
        script = TouchScript(screen: screen, start: 1.0)
        let c = screen.center
        let proj = Projection(camera: camera, screen: screen)
        let paris = proj.point(for: markers[0].coordinate) ?? c
        let pinHead = PinGeometry.headCenter(tip: paris)

        step("Tap on a marker: its info window opens") { $0.tap(pinHead) }
        step("Tap on the map: the window closes, didTapAt") { $0.tap(Point(x: c.x - 420, y: c.y + 260)) }
        step("Pan: the map follows the finger") {
            $0.move([0: Point(x: c.x + 120, y: c.y + 60)], [0: Point(x: c.x - 80, y: c.y - 10)], duration: 0.8)
        }
        step("Fling: released with speed, the map glides to a stop") {
            $0.fling(from: Point(x: c.x + 60, y: c.y + 10), to: Point(x: c.x - 40, y: c.y), duration: 0.12)
            $0.wait(1.5)
        }
        step("Pinch out: zoom in about the fingers") {
            $0.move([0: Point(x: c.x - 60, y: c.y - 40), 1: Point(x: c.x + 60, y: c.y + 40)],
                    [0: Point(x: c.x - 220, y: c.y - 150), 1: Point(x: c.x + 220, y: c.y + 150)], duration: 0.7)
        }
        step("Rotate: twist two fingers") {
            var from: [Int: Point] = [:], to: [Int: Point] = [:]
            let r = 180.0, a0 = 0.0, a1 = 40.0 * .pi / 180
            from[0] = c + Point(x: -r * cos(a0), y: -r * sin(a0)); from[1] = c + Point(x: r * cos(a0), y: r * sin(a0))
            to[0] = c + Point(x: -r * cos(a1), y: -r * sin(a1)); to[1] = c + Point(x: r * cos(a1), y: r * sin(a1))
            $0.move(from, to, duration: 0.8)
        }
        step("Tilt: two fingers side by side, moved up together") {
            $0.move([0: Point(x: c.x - 110, y: c.y + 290), 1: Point(x: c.x + 110, y: c.y + 290)],
                    [0: Point(x: c.x - 110, y: c.y - 130), 1: Point(x: c.x + 110, y: c.y - 130)], duration: 1.1)
        }
        step("Double tap: zoom in one level at the tap") {
            $0.tap(Point(x: c.x + 80, y: c.y + 40)); $0.wait(0.12); $0.tap(Point(x: c.x + 82, y: c.y + 41))
        }
        step("Two-finger tap: zoom out one level") {
            $0.twoFingerTap(Point(x: c.x - 80, y: c.y), Point(x: c.x + 80, y: c.y))
        }
        step("Long press: reported with its coordinate") { $0.hold(Point(x: c.x - 200, y: c.y + 120), duration: 0.8) }
        step("Tap on the compass: back to north and flat") {
            // The compass: top right, 48 px, 16 px margin (MapControls).
            $0.tap(Point(x: screen.width - 16 - 24, y: 16 + 24))
        }
        if let at = overlayTap, let p = proj.point(for: at) {
            step("Tap on an overlay: didTapOverlay with its id") { $0.tap(p) }
        }
    }

    private mutating func step(_ caption: String, _ body: (inout TouchScript) -> Void) {
        let start = script.time
        script.caption(caption)
        body(&script)
        steps.append(Step(caption: caption, start: start, end: script.time))
        script.wait(0.9) // let double-tap timeouts and animations settle between steps
    }
}
