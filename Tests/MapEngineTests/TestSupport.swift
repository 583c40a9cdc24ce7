import TouchCore
import Gestures
@testable import MapEngine

let testScreen = Size(width: 1280, height: 800)
let paris = Coordinate(latitude: 48.8566, longitude: 2.3522)

func controller(zoom: Double = 12, bearing: Double = 0, tilt: Double = 0,
                configuration: MapConfiguration = MapConfiguration()) -> MapController {
    MapController(camera: CameraPosition(target: paris, zoom: zoom, bearing: bearing, tilt: tilt),
                  screenSize: testScreen, configuration: configuration)
}

func gesture(_ kind: GestureKind, _ phase: GesturePhase, _ t: Double, at p: Point, from anchor: Point? = nil,
             scale: Double = 1, rotation: Double = 0, tilt: Double = 0, velocity: Point = .zero,
             fingers: Int = 1) -> GestureEvent {
    GestureEvent(kind: kind, phase: phase, time: t, position: p, anchor: anchor, scale: scale, rotation: rotation,
                 tilt: tilt, velocity: velocity, fingers: fingers)
}

func tap(_ t: Double, at p: Point) -> GestureEvent { gesture(.tap, .recognized, t, at: p) }

/// Runs the controller's clock from deadline to deadline until nothing is pending (at most `limit` s).
@discardableResult
func runUntilIdle(_ c: MapController, limit: Double = 60) -> Int {
    var steps = 0
    while let d = c.nextDeadline, d <= limit, steps < 100_000 {
        c.advance(to: d)
        steps += 1
    }
    return steps
}

/// The screen point of a coordinate for the controller's current camera.
func screenPoint(_ c: MapController, _ coord: Coordinate) -> Point { c.projection.point(for: coord)! }

/// Event types only, as the JSON stream names them.
func types(_ events: [TimedMapEvent]) -> [String] { events.map(\.event.typeName) }

/// Remembers every delegate call, in order.
final class RecordingDelegate: MapViewDelegate {
    var calls: [String] = []
    var handlesMarkerTaps = false
    var customContent: [String: InfoWindowContent] = [:]

    func willMove(gesture: Bool) { calls.append("willMove(\(gesture))") }
    func didChange(_ camera: CameraPosition) { calls.append("didChange") }
    func idleAt(_ camera: CameraPosition) { calls.append("idleAt") }
    func didTapAt(_ coordinate: Coordinate) { calls.append("didTapAt") }
    func didLongPressAt(_ coordinate: Coordinate) { calls.append("didLongPressAt") }
    func didTap(marker: Marker) -> Bool { calls.append("didTap(\(marker.id))"); return handlesMarkerTaps }
    func didTapInfoWindowOf(_ marker: Marker) { calls.append("didTapInfoWindowOf(\(marker.id))") }
    func didLongPressInfoWindowOf(_ marker: Marker) { calls.append("didLongPressInfoWindowOf(\(marker.id))") }
    func didCloseInfoWindowOf(_ marker: Marker) { calls.append("didCloseInfoWindowOf(\(marker.id))") }
    func didTapPOI(name: String, coordinate: Coordinate) { calls.append("didTapPOI(\(name))") }
    func markerInfoWindow(_ marker: Marker) -> InfoWindowContent? { customContent[marker.id] }
    func cameraModeDidChange(_ mode: CameraMode) { calls.append("cameraMode(\(mode.rawValue))") }
}
