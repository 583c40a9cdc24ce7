import Foundation
import MapEngine
import TouchCore

/// Everything one frame shows, as plain values. The map controller's state is mapped onto this
/// by the façade; the renderer reads nothing else. Equatable, so a loop draws only when the
/// scene changed.
public struct MapScene: Sendable, Equatable {
    public var camera: CameraPosition
    public var markers: [MarkerSprite]
    public var infoWindow: InfoWindowScene?
    public var showsCompass: Bool
    public var showsRecenterButton: Bool
    public var showsScaleBar: Bool
    /// Extra attribution (e.g. the app's own data); the base map's own is always added.
    public var attribution: String?
    /// Shapes (polylines, polygons, circles, ground images), bottom first: drawn over the base
    /// map and under place names, the puck, markers and the info window.
    public var overlays: [Overlay] = []
    /// The route with the navigation look, the part already travelled greyed.
    public var route: RouteDrawing? = nil
    /// The "you are here" puck.
    public var puck: PuckDrawing? = nil

    public init(camera: CameraPosition, markers: [MarkerSprite] = [], infoWindow: InfoWindowScene? = nil,
                showsCompass: Bool = true, showsRecenterButton: Bool = false, showsScaleBar: Bool = true,
                attribution: String? = nil) {
        self.camera = camera
        self.markers = markers
        self.infoWindow = infoWindow
        self.showsCompass = showsCompass
        self.showsRecenterButton = showsRecenterButton
        self.showsScaleBar = showsScaleBar
        self.attribution = attribution
    }
}

/// A marker as the renderer draws it: the tip (default pin) or the icon's anchor sits at the
/// coordinate's projected pixel.
public struct MarkerSprite: Sendable, Equatable {
    public enum Icon: Sendable, Equatable {
        /// The default pin (`PinGeometry`) in a colour.
        case defaultPin(RGBColor)
        /// Premultiplied ARGB32 pixels (cairo's native order: 0xAARRGGBB per 32-bit word),
        /// `size` in px, `anchor` in 0...1 of the size (0.5, 1 = bottom centre).
        case argb(pixels: [UInt32], width: Int, height: Int, anchor: Point)
        /// A PNG file; `anchor` as above.
        case png(path: String, anchor: Point)
        /// A cluster bubble holding `count` markers, centred on the coordinate.
        case cluster(count: Int)
    }
    public var id: String
    public var coordinate: Coordinate
    public var icon: Icon
    public var zIndex: Int

    public init(id: String, coordinate: Coordinate, icon: Icon = .defaultPin(RGBColor(hex: 0xE53935)), zIndex: Int = 0) {
        self.id = id
        self.coordinate = coordinate
        self.icon = icon
        self.zIndex = zIndex
    }
}

/// The one info window as drawn: its content (the marker's title and snippet, or an app's own
/// `InfoWindowContent` from its delegate: the one content type, MapEngine's) drawn upright,
/// centred horizontally on the marker's projected point shifted by `anchorOffset` (px, the
/// marker's infoWindowAnchor: for the default pin the top of the head,
/// `Point(x: 0, y: -PinGeometry.size.height)`), with its pointer's tip there.
public struct InfoWindowScene: Sendable, Equatable {
    public var content: InfoWindowContent
    public var coordinate: Coordinate
    public var anchorOffset: Point

    public init(content: InfoWindowContent, coordinate: Coordinate, anchorOffset: Point = Point(x: 0, y: -PinGeometry.size.height)) {
        self.content = content
        self.coordinate = coordinate
        self.anchorOffset = anchorOffset
    }

    /// A title and a snippet (the snippet's lines under the title).
    public init(title: String, snippet: String? = nil, coordinate: Coordinate,
                anchorOffset: Point = Point(x: 0, y: -PinGeometry.size.height)) {
        self.init(content: InfoWindowContent(title: title, lines: snippet.map { [$0] } ?? []), coordinate: coordinate, anchorOffset: anchorOffset)
    }
}

/// The route as drawn: a casing under a wide line (`ShapeStyle.route`), the part before
/// `progress` (the position's projection onto it) in `ShapeStyle.routeTravelled`.
public struct RouteDrawing: Sendable, Equatable {
    public var points: [Coordinate]
    public var progress: RouteProgress?
    public init(points: [Coordinate], progress: RouteProgress? = nil) {
        self.points = points
        self.progress = progress
    }
}

/// The location puck: a blue dot with a white ring, an accuracy circle (metres on the ground)
/// when known, a heading cone when known.
public struct PuckDrawing: Sendable, Equatable {
    public var coordinate: Coordinate
    /// Degrees clockwise from north; nil: no heading shown.
    public var heading: Double?
    /// Radius of the accuracy circle, metres; nil or 0: none.
    public var accuracy: Double?
    public init(coordinate: Coordinate, heading: Double? = nil, accuracy: Double? = nil) {
        self.coordinate = coordinate
        self.heading = heading
        self.accuracy = accuracy
    }
}
