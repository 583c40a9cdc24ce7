import Foundation
import TouchCore
import TouchDevices
import Rendering
import Display
import TouchBridge
import Kiosk

/// What the bench tools share: a display (from the configuration or a --display override), a
/// frame in ordinary memory to draw into, and presenting it (waiting for the flip to complete).
public final class BenchScreen {
    public let display: DisplayBackend
    public let frame: OwnedFrameBuffer
    public let rotation: Int
    public var size: Size { Size(width: Double(frame.buffer.width), height: Double(frame.buffer.height)) }

    public init(configuration: KioskConfiguration, log: KioskLog) throws {
        display = try MapView.openDisplay(configuration.display, log: log)
        rotation = configuration.display.rotation
        let (w, h) = FrameCopy.logicalSize(width: display.width, height: display.height, rotation: rotation)
        frame = OwnedFrameBuffer(width: w, height: h)
    }

    public func draw(_ body: (Canvas) -> Void) {
        let c = Canvas(frame.buffer)
        body(c)
    }

    /// Shows the frame; waits (at most 200 ms) for a pending flip to complete first.
    public func present() {
        waitForFlip()
        FrameCopy.copy(frame.buffer, to: display.backBuffer(), rotation: rotation)
        _ = try? display.present()
        waitForFlip()
    }

    func waitForFlip() { try? display.waitForFlip(timeout: 0.2) }

    public func close() { display.close() }
}

/// Picks the touchscreen a bench tool works on: --device (a path, a name substring or
/// vvvv:pppp), else the configuration's first [[touch]] match, else the first touchscreen found.
public enum BenchDevice {
    public struct NotFound: Error, CustomStringConvertible {
        public let description: String
    }

    public static func find(_ spec: String?, configuration: KioskConfiguration) throws -> (TouchscreenInfo, KioskConfiguration.TouchSettings, Int) {
        let entries = configuration.touch.isEmpty ? [KioskConfiguration.TouchSettings()] : configuration.touch
        if let spec {
            let m = try ConfigStrings.deviceMatch(spec)
            if let info = TouchDiscovery.touchscreens(matching: m).first {
                let idx = entries.firstIndex { e in e.match.map { $0.matches(path: info.path, capabilities: info.capabilities) } ?? false }
                return (info, idx.map { entries[$0] } ?? KioskConfiguration.TouchSettings(match: .path(info.path)), idx ?? entries.count)
            }
            throw NotFound(description: "no touchscreen matches '\(spec)': `touchbridge devices` lists the input devices")
        }
        for (i, e) in entries.enumerated() {
            if let info = TouchDiscovery.touchscreens(matching: e.match).first { return (info, e, i) }
        }
        throw NotFound(description: "no touchscreen found: plug one in, or name it with --device (`touchbridge devices` lists input devices)")
    }
}
