import Foundation
import TouchCore
import Gestures
import MapEngine
import TouchBridge
import Kiosk

/// How well the map stays glued to the fingers over a gesture, measured through the whole pure
/// chain (recogniser, controller, the pipeline's touch-down handling): for every finger, the
/// map point under it when it landed is projected with the camera at its last report before
/// its lift and compared with where the finger was; and the largest change of zoom and
/// bearing from one input frame to the next (a visible jump shows there).
package struct FeelFigures: Sendable, CustomStringConvertible {
    public var name: String
    /// Largest distance, px, between a finger's last position and its touch-down map point.
    public var liftErrorPx = 0.0
    /// Largest zoom change in one frame, zoom levels.
    public var maxZoomStep = 0.0
    /// Largest bearing change in one frame, degrees.
    public var maxBearingStep = 0.0
    /// Zoom and bearing change over the whole gesture.
    public var zoomChange = 0.0
    public var bearingChange = 0.0
    /// The fingers measured.
    public var fingers = 0
    /// The gestures that began or were recognised, in order.
    public var gestures: [GestureKind] = []

    public var description: String {
        String(format: "%@ [%@]: lift error %.2f px over %d fingers; zoom %+.3f (max %.4f/frame); bearing %+.2f deg (max %.3f deg/frame)",
               name, gestures.map(\.rawValue).joined(separator: " "), liftErrorPx, fingers, zoomChange, maxZoomStep,
               bearingChange, maxBearingStep)
    }
}

package enum FeelMeasurement {
    /// Runs the frames through a fresh pipeline (default configuration) and measures them.
    public static func measure(_ name: String, frames: [ContactFrame], screen: Size, density: PixelDensity,
                               configuration: KioskConfiguration = KioskConfiguration()) -> FeelFigures {
        var cfg = configuration
        cfg.markers = []
        let pipeline = MapPipeline(configuration: cfg, screen: screen, density: density)
        var figures = FeelFigures(name: name)
        var kinds: [GestureKind] = []
        pipeline.gestureObserver = { e in if e.phase == .began || e.phase == .recognized { kinds.append(e.kind) } }
        guard let first = frames.first else { return figures }
        pipeline.begin(at: first.time)
        let start = pipeline.controller.camera
        var anchors: [Int: Coordinate] = [:]
        var lastSeen: [Int: Point] = [:]
        var cameraAtLastReport: [Int: Projection] = [:]
        for frame in frames {
            let before = pipeline.controller.camera
            pipeline.handle(frame)
            let cam = pipeline.controller.camera
            figures.maxZoomStep = max(figures.maxZoomStep, abs(cam.zoom - before.zoom))
            figures.maxBearingStep = max(figures.maxBearingStep,
                                         abs(CameraInterpolation.shortestTurn(from: before.bearing, to: cam.bearing)))
            let down = Set(frame.contacts.map(\.id))
            // Lifted: compare the finger's last position with its touch-down map point, on the
            // camera of its last report (before the lift's own events, e.g. a fling, moved it).
            for (id, coord) in anchors where !down.contains(id) {
                if let p = lastSeen[id], let q = (cameraAtLastReport[id] ?? pipeline.controller.projection).point(for: coord) {
                    figures.liftErrorPx = max(figures.liftErrorPx, q.distance(to: p))
                    figures.fingers += 1
                }
                anchors[id] = nil
                lastSeen[id] = nil
                cameraAtLastReport[id] = nil
            }
            for c in frame.contacts {
                if anchors[c.id] == nil, let coord = pipeline.controller.projection.coordinate(at: c.position) {
                    anchors[c.id] = coord
                }
                lastSeen[c.id] = c.position
                cameraAtLastReport[c.id] = Projection(camera: cam, screen: screen)
            }
        }
        pipeline.finish()
        figures.gestures = kinds
        let end = pipeline.controller.camera
        figures.zoomChange = end.zoom - start.zoom
        figures.bearingChange = CameraInterpolation.shortestTurn(from: start.bearing, to: end.bearing)
        return figures
    }

    /// Scripted two-finger gestures on a virtual panel (5 px/mm) at a report rate, through the
    /// frame assembler as a real panel's events: pinch out, pinch in, a 60 degree twist, and a
    /// pinch with twist and drift.
    public static func scriptedGestures(screen: Size, hz: Double) -> [(name: String, frames: [ContactFrame])] {
        let c = Point(x: screen.width / 2, y: screen.height / 2)
        func pair(_ span: Double, _ angle: Double, _ focal: Point) -> [Int: Point] {
            let r = angle * Double.pi / 180
            let half = Point(x: cos(r), y: sin(r)) * (span / 2)
            return [0: focal - half, 1: focal + half]
        }
        func gesture(_ name: String, from a: (Double, Double, Point), to b: (Double, Double, Point),
                     duration: Double) -> (String, [ContactFrame]) {
            var s = TouchScript(screen: screen)
            s.period = 1 / hz
            s.frame(pair(a.0, a.1, a.2))
            s.wait(s.period)
            // Constant speed in span, angle and focal point, then a lift of both fingers.
            let steps = max(1, Int((duration * hz).rounded()))
            for i in 1...steps {
                s.wait(s.period)
                let f = Double(i) / Double(steps)
                s.frame(pair(a.0 + (b.0 - a.0) * f, a.1 + (b.1 - a.1) * f, a.2 + (b.2 - a.2) * f))
            }
            s.wait(s.period)
            s.frame([:], lift: [0, 1])
            var assembler = FrameAssembler(capabilities: s.device, screen: screen)
            let frames = s.events.compactMap { assembler.process($0) }
            return ("\(name) @ \(Int(hz)) Hz", frames)
        }
        return [
            gesture("pinch out 200 -> 500 px", from: (200, 10, c), to: (500, 10, c), duration: 0.5),
            gesture("pinch in 500 -> 200 px", from: (500, -20, c), to: (200, -20, c), duration: 0.5),
            gesture("rotate 60 deg", from: (300, 0, c), to: (300, 60, c), duration: 0.6),
            gesture("pinch + rotate + drift", from: (250, 30, c), to: (450, -20, c + Point(x: 80, y: -40)), duration: 0.7),
        ].map { (name: $0.0, frames: $0.1) }
    }

    /// The real recordings with more than one finger (whot/evemu-devices, in the repository).
    public static func recordings(in dir: String, screen: Size) -> [(name: String, frames: [ContactFrame], density: PixelDensity)] {
        let names = ["Atmel maXTouch Touchscreen.2-fingers-touch-release", "Atmel maXTouch Touchscreen.4-finger-drag-down",
                     "N-Trig MultiTouch.2-fingers-touch-release"]
        return names.compactMap { name in
            let path = (dir as NSString).appendingPathComponent(name + ".events")
            guard let rec = try? Replay.load(path: path, descPath: nil) else { return nil }
            var assembler = FrameAssembler(capabilities: rec.capabilities, screen: screen)
            let frames = rec.events.compactMap { assembler.process($0) }
            return (name, frames, Replay.density(for: rec.capabilities, screen: screen, displayMM: nil))
        }
    }
}
