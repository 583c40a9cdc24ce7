import TouchCore

/// The on-screen controls and their frames, for the renderer (which draws them at exactly these
/// frames) and the controller (a tap inside a visible control goes to it, never to the map).
///
/// - Compass: top right, 48x48 px, 16 px margin. Tapping it animates bearing and tilt to 0.
/// - Re-center button: bottom right, 120x44 px, 16 px margin, above a 20 px attribution strip.
///   Shown in overview and free modes, hidden in following. Tapping it calls `recenter`.
public struct MapControls: Sendable, Hashable, Codable {
    public static let margin = 16.0            // px
    public static let compassSize = Size(width: 48, height: 48)
    public static let recenterSize = Size(width: 120, height: 44)
    public static let attributionHeight = 20.0 // px

    public let screen: Size
    public var compassVisible: Bool
    public var recenterVisible: Bool

    public init(screen: Size, compassVisible: Bool, recenterVisible: Bool) {
        self.screen = screen
        self.compassVisible = compassVisible
        self.recenterVisible = recenterVisible
    }

    public var compassFrame: ScreenRect {
        ScreenRect(origin: Point(x: screen.width - MapControls.margin - MapControls.compassSize.width,
                                 y: MapControls.margin),
                   size: MapControls.compassSize)
    }

    public var recenterFrame: ScreenRect {
        ScreenRect(origin: Point(x: screen.width - MapControls.margin - MapControls.recenterSize.width,
                                 y: screen.height - MapControls.attributionHeight - MapControls.margin
                                    - MapControls.recenterSize.height),
                   size: MapControls.recenterSize)
    }

    /// The attribution strip along the bottom edge.
    public var attributionFrame: ScreenRect {
        ScreenRect(x: 0, y: screen.height - MapControls.attributionHeight,
                   width: screen.width, height: MapControls.attributionHeight)
    }

    public enum Control: String, Sendable, Hashable, Codable { case compass, recenter }

    /// The visible control under a screen point, if any.
    public func control(at p: Point) -> Control? {
        if compassVisible && compassFrame.contains(p) { return .compass }
        if recenterVisible && recenterFrame.contains(p) { return .recenter }
        return nil
    }
}
