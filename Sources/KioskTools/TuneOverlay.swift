import Foundation
import TouchCore
import Rendering
import TouchBridge

/// Draws the `tune` screen over the map: each contact with its id and trail (ended ones faded),
/// pressure and size as the circle's fill and radius, and the status lines (gesture and why,
/// report rate, frame rate, latency).
public enum TuneOverlay {
    static let palette: [(Double, Double, Double)] = [(0.90, 0.22, 0.21), (0.12, 0.53, 0.90), (0.26, 0.63, 0.28),
                                                       (0.98, 0.55, 0.0), (0.56, 0.27, 0.68), (0.0, 0.59, 0.53)]

    public static func draw(_ model: TuneModel, on frame: FrameBuffer, pixelsPerMM: Double) {
        let c = Canvas(frame)
        for t in model.ended {
            let col = palette[abs(t.id) % palette.count]
            c.color(col.0, col.1, col.2, 0.35)
            c.line(t.trail, width: 3)
        }
        for t in model.tracks.values.sorted(by: { $0.id < $1.id }) {
            let col = palette[abs(t.id) % palette.count]
            c.color(col.0, col.1, col.2, 0.9)
            c.line(t.trail, width: 4)
            let radius = max(14, (t.last.touchMajor ?? 0) * pixelsPerMM / 2)
            c.color(col.0, col.1, col.2, 0.25 + 0.6 * (t.last.pressure ?? 0.5))
            c.circle(t.last.position, radius)
            c.color(col.0, col.1, col.2)
            c.circle(t.last.position, radius, filled: false, width: 3)
            c.color(0.1, 0.1, 0.1)
            c.text("\(t.id)", at: Point(x: t.last.position.x + radius + 4, y: t.last.position.y - radius - 4), font: "DejaVu Sans Bold 16")
        }
        c.statusBox(model.statusLines)
    }
}
