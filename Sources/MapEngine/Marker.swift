import TouchCore

/// What a marker looks like on screen. Icons are drawn upright (billboards) whatever the bearing.
public enum MarkerIcon: Sendable, Hashable, Codable {
    /// The default pin of `PinGeometry`: its tip is at the marker's coordinate.
    case defaultPin
    /// An image from the renderer's resources, drawn `size` px large with the unit point `anchor`
    /// ((0, 0) top left, (1, 1) bottom right) at the marker's coordinate.
    case image(name: String, size: Size, anchor: Point)

    /// Size of the icon's box, px.
    public var size: Size {
        switch self {
        case .defaultPin: return PinGeometry.size
        case .image(_, let size, _): return size
        }
    }

    /// Unit point of the box that sits on the coordinate.
    public var anchor: Point {
        switch self {
        case .defaultPin: return Point(x: 0.5, y: 1)
        case .image(_, _, let anchor): return anchor
        }
    }
}

/// A marker, as in GMSMarker. `id` names it in delegate calls and the JSON event stream.
public struct Marker: Sendable, Hashable, Codable, Identifiable {
    public var id: String
    public var position: Coordinate
    public var title: String?
    public var snippet: String?
    public var icon: MarkerIcon
    /// Higher is drawn above and hit first; ties go to the marker added later.
    public var zIndex: Int
    /// Unit point of the icon box where the info window's bottom centre sits; (0.5, 0) is the
    /// top centre of the icon.
    public var infoWindowAnchor: Point
    /// When true the renderer redraws the info window's content every frame (it may change);
    /// when false it may draw it once and reuse the drawing while the window stays open.
    public var tracksInfoWindowChanges: Bool
    /// Colour of the default pin as 0xRRGGBB; nil for the standard red.
    public var pinColorRGB: UInt32? = nil
    /// The drawn pixels of an image icon; a tap hits only these (nil: the whole box).
    public var iconHitMask: IconHitMask? = nil

    public init(id: String, position: Coordinate, title: String? = nil, snippet: String? = nil,
                icon: MarkerIcon = .defaultPin, zIndex: Int = 0,
                infoWindowAnchor: Point = Point(x: 0.5, y: 0), tracksInfoWindowChanges: Bool = false) {
        self.id = id
        self.position = position
        self.title = title
        self.snippet = snippet
        self.icon = icon
        self.zIndex = zIndex
        self.infoWindowAnchor = infoWindowAnchor
        self.tracksInfoWindowChanges = tracksInfoWindowChanges
    }

    /// Whether the default info window has anything to show.
    public var hasInfo: Bool { !(title ?? "").isEmpty || !(snippet ?? "").isEmpty }

    /// The icon's box on screen when the marker's coordinate is at `point`.
    public func iconFrame(at point: Point) -> ScreenRect {
        let s = icon.size, a = icon.anchor
        return ScreenRect(origin: Point(x: point.x - a.x * s.width, y: point.y - a.y * s.height), size: s)
    }

    /// Whether a screen point hits the icon: the whole box for the default pin (as Google Maps
    /// and HERE test a marker's icon box: a finger beside the pin's narrow tail still takes it),
    /// the box for an image, narrowed to its drawn pixels when it has a hit mask.
    public func iconContains(_ p: Point, markerAt point: Point) -> Bool {
        switch icon {
        case .defaultPin: return iconFrame(at: point).contains(p)
        case .image:
            let f = iconFrame(at: point)
            guard f.contains(p) else { return false }
            guard let mask = iconHitMask else { return true }
            // The renderer puts the image's top left on a whole pixel (rounded), as here.
            let x = Int((p.x - f.minX.rounded()).rounded(.down)), y = Int((p.y - f.minY.rounded()).rounded(.down))
            return mask.isOpaque(x: x, y: y)
        }
    }

    /// Where the info window's bottom centre sits when the marker's coordinate is at `point`.
    public func infoWindowAnchorPoint(at point: Point) -> Point {
        let f = iconFrame(at: point)
        return Point(x: f.minX + infoWindowAnchor.x * f.size.width, y: f.minY + infoWindowAnchor.y * f.size.height)
    }
}

/// What an info window shows. The default is the marker's title and snippet; a delegate may
/// return its own from `markerInfoWindow(_:)` and the renderer draws it.
public struct InfoWindowContent: Sendable, Hashable, Codable {
    public var title: String?
    /// Further lines under the title.
    public var lines: [String]
    /// An image from the renderer's resources drawn to the left of the text, if any.
    public var imageName: String?
    /// Background colour as 0xRRGGBB; nil for the default white.
    public var backgroundRGB: UInt32?

    public init(title: String? = nil, lines: [String] = [], imageName: String? = nil, backgroundRGB: UInt32? = nil) {
        self.title = title
        self.lines = lines
        self.imageName = imageName
        self.backgroundRGB = backgroundRGB
    }

    /// The lines under the title as one text (nil when there are none).
    public var snippetText: String? { lines.isEmpty ? nil : lines.joined(separator: "\n") }

    /// The default content for a marker: its title and snippet.
    public init(marker: Marker) {
        self.init(title: marker.title, lines: marker.snippet.map { [$0] } ?? [])
    }
}

/// A labelled place of the base map (a city of the built-in world, a place name or point of
/// interest of a street map), tappable at zoom >= `minZoom`.
public struct PointOfInterest: Sendable, Hashable, Codable {
    public var name: String
    public var coordinate: Coordinate
    public var minZoom: Double
    /// The feature's class as the data names it ("cafe", "village", "city"), when known.
    public var featureClass: String?
    /// The feature's id in its tile set (an OpenStreetMap-derived id for OpenMapTiles), when known.
    public var id: UInt64?
    /// The label's box on screen relative to the coordinate's screen point: a tap anywhere on
    /// the drawn name hits it (without a box, `poiHitRadius` around the point does).
    public var labelBox: ScreenRect?
    public init(name: String, coordinate: Coordinate, minZoom: Double = 0, featureClass: String? = nil,
                id: UInt64? = nil, labelBox: ScreenRect? = nil) {
        self.name = name
        self.coordinate = coordinate
        self.minZoom = minZoom
        self.featureClass = featureClass
        self.id = id
        self.labelBox = labelBox
    }
}
