/// Every command of the control socket (docs/control.md), in the order `help` lists them: the
/// one list the dispatcher, `help` and the unknown-command message are derived from.
enum ControlCommand: String, CaseIterable, Sendable {
    case getCamera = "get_camera", moveCamera = "move_camera", fit
    case addMarker = "add_marker", updateMarker = "update_marker", removeMarker = "remove_marker"
    case listMarkers = "list_markers", selectMarker = "select_marker"
    case getGestures = "get_gestures", setGestures = "set_gestures", setCameraMode = "set_camera_mode"
    case setPosition = "set_position"
    case addOverlay = "add_overlay", updateOverlay = "update_overlay", removeOverlay = "remove_overlay"
    case listOverlays = "list_overlays", clearOverlays = "clear_overlays", clearMarkers = "clear_markers"
    case setClusterMarkers = "set_cluster_markers", setRoute = "set_route"
    case setLanguage = "set_language", screenshot, reload, stats, subscribe, unsubscribe, help

    /// Changes nothing on the screen, so it never draws a frame (mpv's and sway's get_* rule).
    var readsOnly: Bool {
        switch self {
        case .getCamera, .getGestures, .listMarkers, .listOverlays, .help, .subscribe, .unsubscribe, .screenshot, .stats:
            return true
        case .moveCamera, .fit, .addMarker, .updateMarker, .removeMarker, .selectMarker, .setGestures, .setCameraMode,
             .setPosition, .addOverlay, .updateOverlay, .removeOverlay, .clearOverlays, .clearMarkers, .setClusterMarkers,
             .setRoute, .setLanguage, .reload:
            return false
        }
    }

    /// Changes the renderer rather than the scene (text scale, style, label language): always redraws.
    var changesRenderer: Bool { self == .reload || self == .setLanguage }

    /// Every command name, for `help` and the unknown-command message.
    static let names = allCases.map(\.rawValue)
}
