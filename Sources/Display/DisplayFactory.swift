import Foundation

/// Which display to open: the one factory every user of a display goes through (the kiosk's
/// `[display]` table, `render --display`, the bench tools).
public enum DisplayRequest: Sendable, Equatable {
    /// A DRM/KMS card (nil: the first card with a connected connector), an optional connector
    /// name and mode (nil: the connector's preferred mode).
    case drm(card: String?, connector: String?, mode: ModeRequest?)
    /// A legacy Linux framebuffer device.
    case fbdev(path: String)
    /// Numbered PNG files in a folder (`frame-00001.png`, ...), frames of the given size.
    case png(directory: String, width: Int, height: Int)
}

public enum DisplayFactory {
    /// Opens the display a request names. `note` hears why each card of an automatic DRM
    /// search was passed over (debug detail: the first card's error is the one thrown).
    public static func open(_ request: DisplayRequest, note: (String) -> Void = { _ in }) throws -> DisplayBackend {
        switch request {
        case let .png(directory, width, height):
            return PNGDisplay(width: width, height: height,
                              output: .numbered(pattern: (directory as NSString).appendingPathComponent("frame-%05d.png")))
        case let .fbdev(path):
            return try FBDevDisplay(path: path)
        case let .drm(card?, connector, mode):
            return try DRMDisplay(path: card, connector: connector, mode: mode)
        case let .drm(nil, connector, mode):
            var firstError: Error? = nil
            for card in DRMInventory.cardPaths() {
                do { return try DRMDisplay(path: card, connector: connector, mode: mode) } catch {
                    note("\(card): \(error)")
                    if firstError == nil { firstError = error }
                }
            }
            throw firstError ?? DisplayError.noDevice(path: "/dev/dri/card0")
        }
    }
}
