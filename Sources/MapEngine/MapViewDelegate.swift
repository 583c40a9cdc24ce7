import TouchCore

/// The app's side of the map, following GMSMapViewDelegate. Every method has a default no-op
/// implementation, so an app implements only what it needs.
///
/// Sequence rules the controller keeps:
/// - `willMove(gesture:)` comes before any camera change; `gesture` is true when the user moved
///   the map (including double tap and fling), false for programmatic moves, the compass,
///   the Re-center button and camera-mode transitions.
/// - `didChange(_:)` repeats while a gesture or animation runs.
/// - `idleAt(_:)` comes exactly once after the last change, when all gestures, flings and
///   animations have stopped.
/// - A gesture that interrupts an animation or fling calls `willMove(gesture: true)` again
///   (with no `idleAt` between).
public protocol MapViewDelegate: AnyObject {
    func willMove(gesture: Bool)
    func didChange(_ camera: CameraPosition)
    func idleAt(_ camera: CameraPosition)
    func didTapAt(_ coordinate: Coordinate)
    func didLongPressAt(_ coordinate: Coordinate)
    /// Return true when the app handled the tap: the default behaviour (open, switch or
    /// reopen the info window) is then skipped.
    func didTap(marker: Marker) -> Bool
    func didTapInfoWindowOf(_ marker: Marker)
    func didLongPressInfoWindowOf(_ marker: Marker)
    func didCloseInfoWindowOf(_ marker: Marker)
    func didTapPOI(name: String, coordinate: Coordinate)
    /// A tap on a labelled place with everything known about it (name, coordinate, class, id).
    /// The default calls `didTapPOI(name:coordinate:)`, so an app may implement either.
    func didTapPOI(_ poi: PointOfInterest)
    /// Custom info-window content for a marker (drawn by the renderer), or nil for the default
    /// (title and snippet). A marker with neither title nor snippet opens a window only when this
    /// returns content.
    func markerInfoWindow(_ marker: Marker) -> InfoWindowContent?
    /// Custom contents for the default info-window frame, asked when `markerInfoWindow` gives
    /// nil (GMS's markerInfoContents): drawn in the default white frame (its `backgroundRGB`
    /// is ignored). nil: the default title and snippet.
    func markerInfoContents(_ marker: Marker) -> InfoWindowContent?
    func cameraModeDidChange(_ mode: CameraMode)
    /// A tap on a tappable overlay (the topmost under the finger), with the coordinate tapped.
    func didTapOverlay(_ overlay: Overlay, at coordinate: Coordinate)
}

public extension MapViewDelegate {
    func willMove(gesture: Bool) {}
    func didChange(_ camera: CameraPosition) {}
    func idleAt(_ camera: CameraPosition) {}
    func didTapAt(_ coordinate: Coordinate) {}
    func didLongPressAt(_ coordinate: Coordinate) {}
    func didTap(marker: Marker) -> Bool { false }
    func didTapInfoWindowOf(_ marker: Marker) {}
    func didLongPressInfoWindowOf(_ marker: Marker) {}
    func didCloseInfoWindowOf(_ marker: Marker) {}
    func didTapPOI(name: String, coordinate: Coordinate) {}
    func didTapPOI(_ poi: PointOfInterest) { didTapPOI(name: poi.name, coordinate: poi.coordinate) }
    func markerInfoWindow(_ marker: Marker) -> InfoWindowContent? { nil }
    func markerInfoContents(_ marker: Marker) -> InfoWindowContent? { nil }
    func cameraModeDidChange(_ mode: CameraMode) {}
    func didTapOverlay(_ overlay: Overlay, at coordinate: Coordinate) {}
}
