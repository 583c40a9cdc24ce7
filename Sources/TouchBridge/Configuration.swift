import Foundation
import TileSources
import Gestures
import MapEngine
import Display
import TouchDevices
import VectorTiles

/// A configuration problem, written for the person who edits the file: which file, which
/// line, which key, what is wrong and (for a misspelt key) what was probably meant.
public struct ConfigError: Error, CustomStringConvertible, Equatable {
    public let file: String
    public let line: Int?
    public let key: String?
    public let message: String
    /// Set for problems found before TOML parsing (`TOMLGuard`), where the character matters.
    public var column: Int? = nil
    /// The file's other errors, after this one (`check` and `run` list them all).
    public var others: [ConfigError] = []
    public init(file: String, line: Int?, key: String?, message: String, column: Int? = nil) {
        self.file = file; self.line = line; self.key = key; self.message = message; self.column = column
    }
    /// This error and the others, one each.
    public var all: [ConfigError] {
        var first = self
        first.others = []
        return [first] + others
    }
    /// Every error, one a line.
    public var description: String {
        ([line1] + others.map(\.line1)).joined(separator: "\n")
    }
    /// This error alone: FILE:LINE: key 'KEY': message.
    public var line1: String {
        var s = file
        if let line { s += ":\(line)" }
        if line != nil, let column { s += ":\(column)" }
        s += ": "
        if let key { s += "key '\(key)': " }
        return s + message
    }
}

/// Everything `touchbridge run` is told by its configuration file. Every field has a default,
/// so an empty file is a valid configuration.
public struct KioskConfiguration: Sendable, Equatable {
    public enum DisplayBackendKind: String, Sendable, Equatable { case drm, fbdev, png }
    public struct DisplaySettings: Sendable, Equatable {
        /// Every field at its default (as an empty file gives).
        public init() {}
        public var backend: DisplayBackendKind = .drm
        public var card: String? = nil
        public var connector: String? = nil
        /// nil: the connector's preferred mode.
        public var mode: ModeRequest? = nil
        public var rotation: Int = 0
        /// The file set `rotation`; when it did not, the DRM connector's "panel orientation" decides.
        public var rotationIsExplicit = false
        public var fbdev: String = "/dev/fb0"
        public var pngDirectory: String = "out/frames"
        public var pngSize: (Int, Int) = (1280, 800)
        public var maxFPS: Int = 60
        public var physicalSizeMM: (Double, Double)? = nil
        public static func == (a: Self, b: Self) -> Bool {
            a.backend == b.backend && a.card == b.card && a.connector == b.connector && a.mode == b.mode
                && a.rotation == b.rotation && a.rotationIsExplicit == b.rotationIsExplicit && a.fbdev == b.fbdev && a.pngDirectory == b.pngDirectory
                && a.pngSize == b.pngSize && a.maxFPS == b.maxFPS
                && a.physicalSizeMM?.0 == b.physicalSizeMM?.0 && a.physicalSizeMM?.1 == b.physicalSizeMM?.1
        }
    }
    public enum Mirror: String, Sendable, Equatable { case none, horizontal, vertical }
    public struct TouchSettings: Sendable, Equatable {
        /// nil ("auto"): every touchscreen.
        public var match: TouchDeviceMatch? = nil
        public var calibration: [Double]? = nil
        /// nil: turn touches as the display is turned (`[display] rotation` or the panel orientation).
        public var rotation: Int? = nil
        public var mirror: Mirror = .none
        public var smoothing: Bool = false
        public var grab: Bool = false
        /// Also open pen/stylus nodes that this table's match selects (off: only finger touch).
        public var pens: Bool = false
        /// Draw the map where the fingers will be when the frame reaches the glass (touch prediction).
        public var prediction: Bool = true
        /// Draw-to-flip time to predict for, in ms; nil: learned from the display's flip timestamps.
        public var predictionLatencyMS: Double? = nil
        public init(match: TouchDeviceMatch? = nil, calibration: [Double]? = nil, rotation: Int? = nil, mirror: Mirror = .none,
                    smoothing: Bool = false, grab: Bool = false) {
            self.match = match; self.calibration = calibration; self.rotation = rotation
            self.mirror = mirror; self.smoothing = smoothing; self.grab = grab
        }
    }
    public struct GestureSettings: Sendable, Equatable {
        /// Every field at its default (as an empty file gives).
        public init() {}
        public var enabled: GestureMask = .all
        public var twoFingerHorizontal: TwoFingerHorizontalMode = .rotate
        /// The recogniser's thresholds: its defaults with the file's keys (e.g. "tap_slop_mm", in
        /// the key's unit) applied through `GestureThresholds.table`, typed from here on.
        public var thresholds = GestureThresholds()
        public var pixelsPerMM: Double? = nil
        /// The fling's stop and top speeds in mm/s (MomentumLaw's px/s figures at 96 dpi by
        /// default); `KioskConfiguration.mapConfiguration(density:)` converts them.
        public var momentumStopSpeed: Double = MomentumLaw().stopSpeed / PixelDensity.assumed.pixelsPerMillimetre
        public var momentumMaxSpeed: Double = MomentumLaw().maxStartSpeed / PixelDensity.assumed.pixelsPerMillimetre
    }
    /// `mbtiles(path)`: a tile set file, MBTiles or PMTiles, raster or vector (`source = "tiles"`
    /// with `tiles = FILE`; the older `source = "mbtiles"` with `mbtiles = FILE` means the same).
    public enum MapSource: Sendable, Equatable { case builtin, mbtiles(String) }
    public struct MapSettings: Sendable, Equatable {
        /// Every field at its default (as an empty file gives).
        public init() {}
        public var source: MapSource = .builtin
        public var camera = CameraPosition(target: Coordinate(latitude: 48.8566, longitude: 2.3522), zoom: 3)
        public var minZoom: Double = 0
        public var maxZoom: Double = 20
        /// Where the camera target may go; nil: anywhere.
        public var bounds: CoordinateBounds? = nil
        /// A MapLibre style JSON file for vector tiles (nil: the built-in street style).
        public var style: String? = nil
        /// Multiplies the street map's text sizes (viewing distance, HiDPI panels).
        public var textScale: Double = 1
        /// The street map's label language ("ja", "ar", ...: name:xx, then name_int, name:latin,
        /// name); nil keeps the local names.
        public var language: String? = nil
        /// Markers close together on screen drawn as one bubble with their count.
        public var clusterMarkers: Bool = false
    }
    public struct MarkerSettings: Sendable, Equatable {
        public var id: String
        public var coordinate: Coordinate
        public var title: String? = nil
        public var snippet: String? = nil
        public var zIndex: Int = 0
        /// A PNG icon (read when the file is loaded), else the default pin in `color` (0xRRGGBB).
        package var icon: MarkerLook.Icon? = nil
        public var color: UInt32? = nil

        package init(id: String, coordinate: Coordinate, title: String? = nil, snippet: String? = nil, zIndex: Int = 0,
                     icon: MarkerLook.Icon? = nil, color: UInt32? = nil) {
            self.id = id; self.coordinate = coordinate; self.title = title; self.snippet = snippet
            self.zIndex = zIndex; self.icon = icon; self.color = color
        }
    }
    public enum PositionSourceName: String, Sendable, Equatable { case fixed, track }
    public struct CameraSettings: Sendable, Equatable {
        /// Every field at its default (as an empty file gives).
        public init() {}
        public var mode: CameraMode = .free
        public var positionSource: PositionSourceName = .fixed
        public var position: Coordinate? = nil
        public var heading: Double = 0
        public var autoReturnSeconds: Double = 5
        /// Free mode, no finger down this long: back to the start camera, info window closed; 0 = off.
        public var homeAfterSeconds: Double = 0
        /// Viewing angle of following mode, degrees.
        public var followingTilt: Double = 45
        /// Zoom of following mode.
        public var followingZoom: Double = 16
    }
    /// `[position]`: how the you-are-here position is shown.
    public struct PositionSettings: Sendable, Equatable {
        /// Every field at its default (as an empty file gives).
        public init() {}
        public var show: Bool = true
        /// Accuracy circle radius in metres; nil: none.
        public var accuracyMeters: Double? = nil
    }
    public struct ControlSettings: Sendable, Equatable {
        /// Every field at its default (as an empty file gives).
        public init() {}
        /// Path of the control socket (docs/control.md); "" turns it off.
        public var socket: String = ""
        /// `[control] screenshot_dir`: the folder `screenshot` writes into (ConfinedPath);
        /// nil: the socket's own folder; "": screenshots over the socket are refused.
        public var screenshotDir: String? = nil
        /// `[control] files_dir`: the folder icon and ground-overlay image paths a client names
        /// must lie in; nil: the socket's own folder; "": paths from clients are refused.
        public var filesDir: String? = nil

        /// The folder a client's screenshot path must lie in ("" when none may be written).
        public var screenshotFolder: String { screenshotDir ?? socketFolder }
        /// The folder a client's icon or image path must lie in ("" when none may be read).
        public var filesFolder: String { filesDir ?? socketFolder }
        var socketFolder: String { socket.isEmpty ? "" : (socket as NSString).deletingLastPathComponent }
    }
    public struct LogSettings: Sendable, Equatable {
        /// Every field at its default (as an empty file gives).
        public init() {}
        public var events: String = ""
        public var level: String = "info"
    }

    public var display = DisplaySettings()
    public var touch: [TouchSettings] = []
    public var gestures = GestureSettings()
    public var map = MapSettings()
    public var markers: [MarkerSettings] = []
    /// `[[overlays]]`, read (GeoJSON files included) when the file is loaded.
    public var overlays: [Overlay] = []
    /// `[route] geojson`, read when the file is loaded.
    public var route: [Coordinate]? = nil
    public var position = PositionSettings()
    public var camera = CameraSettings()
    public var log = LogSettings()
    public var control = ControlSettings()
    /// Blanking, backlight, attract loop and metrics (ConfigOperations.swift).
    public var operations = OperationsSettings()

    public init() {}
}
