import Foundation
import Rendering
import VectorTiles

extension MapView {
    /// The `[map] style` file, or nil (the built-in street style). A style that cannot be used
    /// is logged with its file, JSON path and problem, and the built-in style is drawn instead:
    /// a kiosk keeps showing a map.
    static func loadStyle(_ path: String?, log: KioskLog) -> StreetStyle? {
        guard let path else { return nil }
        do { return try StreetStyle.load(path: path) } catch {
            log(.warning, "\(error). Drawing the built-in street style instead.")
            return nil
        }
    }
}
