import TouchBridge
import Gestures
import Foundation

/// Every key the configuration file may hold, with its type and documentation. The reader
/// checks the file against this list (unknown keys are errors with a suggestion), and
/// Configs/default.toml documents the same keys.
package enum ConfigValueType: String, Sendable {
    case string, integer, number, boolean, stringArray = "array of strings", numberArray = "array of numbers"
    case numberArrayOrString = "array of numbers, or numbers in a string"
    /// `[[longitude, latitude], ...]`, GeoJSON's order.
    case pointArray = "array of [longitude, latitude] pairs"
}

package struct ConfigKey: Sendable {
    public let section: String   // "display", "touch" (array of tables), "markers" (array of tables), ...
    public let name: String
    public let type: ConfigValueType
    public let doc: String
    public var path: String { "\(section).\(name)" }
}

package enum ConfigSchema {
    /// Sections written as `[[name]]` (arrays of tables).
    public static let arraySections: Set<String> = ["touch", "markers", "overlays"]

    /// Every key: the fixed list below plus one per recogniser threshold, named by
    /// `GestureThresholds.table` (the names tune, warnings and docs/gestures.md use).
    public static let keys: [ConfigKey] = fixedKeys + operationsKeys + GestureThresholds.table.map {
        ConfigKey(section: "gestures", name: $0.name, type: .number,
                  doc: "recogniser threshold in \($0.unit) (docs/gestures.md)" + ($0.fileAlias.map { "; also read as \($0)" } ?? ""))
    }

    static let fixedKeys: [ConfigKey] = [
        // [display]
        .init(section: "display", name: "backend", type: .string, doc: "drm, fbdev or png"),
        .init(section: "display", name: "card", type: .string, doc: "DRM card path, or \"auto\" for the first card with a connected connector"),
        .init(section: "display", name: "connector", type: .string, doc: "connector name (e.g. HDMI-A-1), or \"auto\" for the first connected one"),
        .init(section: "display", name: "mode", type: .string, doc: "\"preferred\", or WIDTHxHEIGHT or WIDTHxHEIGHT@HZ"),
        .init(section: "display", name: "rotation", type: .integer, doc: "0, 90, 180 or 270: how the panel is mounted (the map is drawn upright for the viewer)"),
        .init(section: "display", name: "fbdev", type: .string, doc: "framebuffer device for backend = \"fbdev\""),
        .init(section: "display", name: "png_dir", type: .string, doc: "folder for frames when backend = \"png\""),
        .init(section: "display", name: "size", type: .string, doc: "WIDTHxHEIGHT for backend = \"png\""),
        .init(section: "display", name: "max_fps", type: .integer, doc: "upper bound on frames per second (the mode's refresh rate bounds it too)"),
        .init(section: "display", name: "physical_size_mm", type: .numberArray, doc: "[width, height] of the visible area in mm, when the display does not report it"),
        // [[touch]]
        .init(section: "touch", name: "match", type: .string, doc: "\"auto\", a path (/dev/input/event3), \"name:SUBSTRING\" or \"VVVV:PPPP\" (vendor:product, hex)"),
        .init(section: "touch", name: "calibration", type: .numberArrayOrString, doc: "six numbers a b c d e f (libinput convention, normalised coordinates), as an array or as udev's LIBINPUT_CALIBRATION_MATRIX string \"0 -1 1 1 0 0\"; overrides LIBINPUT_CALIBRATION_MATRIX"),
        .init(section: "touch", name: "rotation", type: .integer, doc: "0, 90, 180 or 270: rotate touches (shorthand for a calibration matrix); default: the display's rotation"),
        .init(section: "touch", name: "mirror", type: .string, doc: "none, horizontal or vertical"),
        .init(section: "touch", name: "smoothing", type: .boolean, doc: "light smoothing of contact positions (off by default)"),
        .init(section: "touch", name: "grab", type: .boolean, doc: "take the device exclusively (EVIOCGRAB) so no other program sees its touches"),
        .init(section: "touch", name: "pens", type: .boolean, doc: "also open pen/stylus nodes (a pen panel's \"… Stylus\" node, BTN_TOOL_PEN without multitouch) as touch devices (off by default)"),
        .init(section: "touch", name: "prediction", type: .boolean, doc: "draw the map where the fingers will be when the frame reaches the glass (touch prediction; on by default); off in any [[touch]] table turns it off"),
        .init(section: "touch", name: "prediction_latency_ms", type: .number, doc: "time from drawing a frame to its page flip to predict for (ms); 0 (default) learns it from the display's flip timestamps"),
        // [gestures]
        .init(section: "gestures", name: "enabled", type: .stringArray, doc: "gestures that are on: tap, doubleTap, twoFingerTap, longPress, pan, twoFingerPan, pinch, rotate, tilt, momentum, quickZoom (or [\"all\"])"),
        .init(section: "gestures", name: "two_finger_horizontal", type: .string, doc: "\"rotate\" (HERE: a two-finger horizontal move rotates) or \"pan\" (Google Maps: it pans)"),
        .init(section: "gestures", name: "tap_slop_mm", type: .number, doc: "a tap may move at most this far (mm)"),
        .init(section: "gestures", name: "tap_max_duration_s", type: .number, doc: "a tap is shorter than this (s)"),
        .init(section: "gestures", name: "double_tap_timeout_s", type: .number, doc: "the second tap of a double tap starts within this time of the first lift (s)"),
        .init(section: "gestures", name: "double_tap_slop_mm", type: .number, doc: "the second tap lands within this distance of the first (mm)"),
        .init(section: "gestures", name: "long_press_s", type: .number, doc: "a finger held still this long is a long press (s)"),
        .init(section: "gestures", name: "pan_threshold_mm", type: .number, doc: "a finger must move this far to start a pan (mm)"),
        .init(section: "gestures", name: "pinch_threshold_mm", type: .number, doc: "the finger span must change this much to start a pinch (mm)"),
        .init(section: "gestures", name: "rotate_threshold_deg", type: .number, doc: "the fingers must turn this far to start a rotation (degrees)"),
        .init(section: "gestures", name: "tilt_threshold_mm", type: .number, doc: "two side-by-side fingers must move together vertically this far to start a tilt (mm)"),
        .init(section: "gestures", name: "fling_min_speed_mm_s", type: .number, doc: "a pan released faster than this carries momentum (mm/s)"),
        .init(section: "gestures", name: "momentum_stop_speed_mm_s", type: .number, doc: "a fling ends when it slows below this (mm/s)"),
        .init(section: "gestures", name: "momentum_max_speed_mm_s", type: .number, doc: "a fling starts no faster than this (mm/s)"),
        .init(section: "gestures", name: "pixels_per_mm", type: .number, doc: "screen pixels per mm on the touch surface, when neither the device resolution nor the display size tells"),
        // [map]
        .init(section: "map", name: "source", type: .string, doc: "\"builtin\" (Natural Earth world, no download) or \"tiles\" (\"mbtiles\" is the older name)"),
        .init(section: "map", name: "mbtiles", type: .string, doc: "older name of tiles"),
        .init(section: "map", name: "tiles", type: .string, doc: "path of a tile set (source = \"tiles\"): MBTiles or PMTiles, raster (PNG, JPEG, WebP) or vector (OpenMapTiles schema)"),
        .init(section: "map", name: "style", type: .string, doc: "MapLibre style JSON for vector tiles (default: the built-in street style)"),
        .init(section: "map", name: "language", type: .string, doc: "street map label language, e.g. \"ja\": name:xx, else name_int, name:latin, name (default: the local names)"),
        .init(section: "map", name: "text_scale", type: .number, doc: "scale of the map's label text, world and street map, 0.5...3 (viewing distance, HiDPI panels; default 1)"),
        .init(section: "map", name: "latitude", type: .number, doc: "start camera target latitude (degrees)"),
        .init(section: "map", name: "longitude", type: .number, doc: "start camera target longitude (degrees)"),
        .init(section: "map", name: "zoom", type: .number, doc: "start zoom (0 = whole world in 256 px)"),
        .init(section: "map", name: "bearing", type: .number, doc: "start bearing (degrees clockwise from north)"),
        .init(section: "map", name: "tilt", type: .number, doc: "start viewing angle (degrees from straight down)"),
        .init(section: "map", name: "min_zoom", type: .number, doc: "lowest zoom a gesture can reach"),
        .init(section: "map", name: "max_zoom", type: .number, doc: "highest zoom a gesture can reach"),
        .init(section: "map", name: "bounds", type: .numberArray, doc: "[west, south, east, north]: the camera target stays inside (gestures and momentum stop at the edge)"),
        .init(section: "map", name: "cluster_markers", type: .boolean, doc: "draw markers close together on screen as one bubble with their count (a tap zooms to them; default false)"),
        // [[markers]]
        .init(section: "markers", name: "id", type: .string, doc: "marker id, reported in didTapMarker"),
        .init(section: "markers", name: "latitude", type: .number, doc: "marker latitude"),
        .init(section: "markers", name: "longitude", type: .number, doc: "marker longitude"),
        .init(section: "markers", name: "title", type: .string, doc: "info window title (bold)"),
        .init(section: "markers", name: "snippet", type: .string, doc: "info window text below the title"),
        .init(section: "markers", name: "z_index", type: .integer, doc: "higher is drawn on top and hit first"),
        .init(section: "markers", name: "icon", type: .string, doc: "PNG icon (at most 512x512), bottom centre on the coordinate; relative to this file's folder"),
        .init(section: "markers", name: "color", type: .string, doc: "colour of the default pin, \"#RRGGBB\""),
        // [[overlays]]
        .init(section: "overlays", name: "id", type: .string, doc: "overlay id (required), reported in didTapOverlay"),
        .init(section: "overlays", name: "geojson", type: .string, doc: "a GeoJSON file (RFC 7946: Feature, FeatureCollection or a geometry; simplestyle properties style it; Points become markers); relative to this file's folder"),
        .init(section: "overlays", name: "type", type: .string, doc: "an inline shape instead of geojson: polyline, polygon, circle or ground"),
        .init(section: "overlays", name: "coordinates", type: .pointArray, doc: "polyline or polygon points as [[longitude, latitude], ...] (GeoJSON's order)"),
        .init(section: "overlays", name: "center", type: .numberArray, doc: "circle centre [longitude, latitude]"),
        .init(section: "overlays", name: "radius_m", type: .number, doc: "circle radius in metres (on the ground)"),
        .init(section: "overlays", name: "image", type: .string, doc: "ground overlay: a PNG file laid over bounds (a floor plan); relative to this file's folder"),
        .init(section: "overlays", name: "bounds", type: .numberArray, doc: "ground overlay box [west, south, east, north]"),
        .init(section: "overlays", name: "bearing", type: .number, doc: "ground overlay: degrees clockwise the image is turned about its centre"),
        .init(section: "overlays", name: "opacity", type: .number, doc: "ground overlay opacity 0...1 (default 1)"),
        .init(section: "overlays", name: "stroke", type: .string, doc: "line colour \"#RRGGBB\" (simplestyle; default #555555)"),
        .init(section: "overlays", name: "stroke_width", type: .number, doc: "line width in px (default 2)"),
        .init(section: "overlays", name: "stroke_opacity", type: .number, doc: "line opacity 0...1 (default 1)"),
        .init(section: "overlays", name: "fill", type: .string, doc: "fill colour \"#RRGGBB\" (default #555555)"),
        .init(section: "overlays", name: "fill_opacity", type: .number, doc: "fill opacity 0...1 (default 0.6)"),
        .init(section: "overlays", name: "dash", type: .numberArray, doc: "dash pattern in px, [on, off, ...]"),
        .init(section: "overlays", name: "casing", type: .string, doc: "colour of a casing drawn under the line, \"#RRGGBB\""),
        .init(section: "overlays", name: "casing_width", type: .number, doc: "the casing's width in px on each side of the line"),
        .init(section: "overlays", name: "geodesic", type: .boolean, doc: "polyline: follow great circles (default false: straight on the map)"),
        .init(section: "overlays", name: "z_index", type: .integer, doc: "higher is drawn above and hit first (markers are always above overlays)"),
        .init(section: "overlays", name: "tappable", type: .boolean, doc: "a tap on it reports didTapOverlay (default true)"),
        .init(section: "overlays", name: "title", type: .string, doc: "a name for the overlay (list_overlays shows it)"),
        // [route]
        .init(section: "route", name: "geojson", type: .string, doc: "the route: a GeoJSON LineString file (or a Feature/FeatureCollection with one); drawn with the navigation look, the travelled part greyed; overview mode fits it"),
        // [position]
        .init(section: "position", name: "show", type: .boolean, doc: "draw the you-are-here puck at the position (default true)"),
        .init(section: "position", name: "accuracy_m", type: .number, doc: "radius of the puck's accuracy circle in metres (0: none)"),
        // [camera]
        .init(section: "camera", name: "following_zoom", type: .number, doc: "zoom of following mode (default 16: streets)"),
        .init(section: "camera", name: "following_tilt", type: .number, doc: "viewing angle of following mode in degrees (default 45, as the Navigation SDK)"),
        .init(section: "camera", name: "mode", type: .string, doc: "start mode: free, following or overview"),
        .init(section: "camera", name: "position_source", type: .string, doc: "\"fixed\" (a you-are-here position) or \"track\" (the demo's scripted track)"),
        .init(section: "camera", name: "position", type: .numberArray, doc: "[latitude, longitude] of the fixed position"),
        .init(section: "camera", name: "heading", type: .number, doc: "heading of the fixed position (degrees clockwise from north)"),
        .init(section: "camera", name: "auto_return_s", type: .number, doc: "return to following this long after the last gesture (s); 0 turns it off"),
        .init(section: "camera", name: "home_after_s", type: .number, doc: "free mode: this long with no finger down, the camera animates back to the start camera and the info window closes (s); 0 turns it off"),
        // [log]
        .init(section: "log", name: "events", type: .string, doc: "where to write the JSON event stream: \"\" (nowhere), \"-\" (stdout) or a file path"),
        .init(section: "log", name: "level", type: .string, doc: "error, warning, info or debug (to stderr)"),
        // [control]
        .init(section: "control", name: "socket", type: .string, doc: "path of the control socket for apps (docs/control.md), e.g. \"/run/touchbridge/control.sock\"; \"\" turns it off"),
        .init(section: "control", name: "screenshot_dir", type: .string, doc: "the folder `screenshot` may write into (docs/control.md, Paths); default: the socket's folder; \"\" refuses screenshots"),
        .init(section: "control", name: "files_dir", type: .string, doc: "the folder icon and ground-overlay image paths from clients must lie in (docs/control.md, Paths); default: the socket's folder; \"\" refuses them"),
    ]

    public static var sections: [String] {
        var seen: [String] = []
        for k in keys where !seen.contains(k.section) { seen.append(k.section) }
        return seen
    }
}

/// Edit distance, for "did you mean" suggestions.
func levenshtein(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    if b.isEmpty { return a.count }
    var prev = Array(0...b.count)
    var cur = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        cur[0] = i
        for j in 1...b.count {
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        }
        swap(&prev, &cur)
    }
    return prev[b.count]
}

package func suggestion(for word: String, among candidates: [String]) -> String? {
    let best = candidates.map { ($0, levenshtein(word.lowercased(), $0.lowercased())) }.min { $0.1 < $1.1 }
    guard let (name, d) = best, d <= max(2, word.count / 3) else { return nil }
    return name
}
