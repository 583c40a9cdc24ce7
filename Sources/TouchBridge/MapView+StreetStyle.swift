import Foundation
import Rendering
import VectorTiles

extension MapView {
    /// The `[map] style` file, or nil (the built-in street style). A style that cannot be used
    /// is logged with its file, JSON path and problem, and the built-in style is drawn instead:
    /// a kiosk keeps showing a map. What the style asks for that is not drawn is logged as
    /// warnings, once per property and layer.
    static func loadStyle(_ path: String?, log: KioskLog) -> StreetStyle? {
        guard let path else { return nil }
        do {
            let style = try StreetStyle.load(path: path)
            logNotices(style, log: log)
            return style
        } catch {
            log(.warning, "\(error). Drawing the built-in street style instead.")
            return nil
        }
    }

    /// Each of the style's notices (`StreetStyle.notices`) as a warning.
    static func logNotices(_ style: StreetStyle, log: KioskLog) {
        for n in style.notices { log(.warning, style.message(n)) }
    }
}
