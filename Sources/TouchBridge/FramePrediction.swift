import Foundation
import TouchCore
import MapEngine
import Rendering

/// Touch prediction for drawing: the camera a frame shows follows where the fingers will be when
/// that frame reaches the glass (the time it is drawn plus the draw-to-flip time the display's
/// page-flip timestamps have shown), not where they were when input was read.
///
/// Only the picture is predicted. The real contact frames alone drive the recogniser and the
/// controller, so the event stream and the delegate calls are the same with prediction on or
/// off. Kiosk configuration: `[[touch]] prediction` and `prediction_latency_ms`.
package final class FramePrediction {
    public var predictor: TouchPredictor
    public private(set) var latency: FlipLatencyEstimator
    /// A configured draw-to-flip time (s) used instead of the learned one.
    public var fixedLatency: Double?
    /// Predict for the vertical blank each frame will be flipped at (true), or for the median
    /// draw-to-flip time of the recent frames (false; for measuring, the lag bench's
    /// `TOUCHBRIDGE_PREDICT=grid=0`).
    public var usesFlipGrid = true
    /// The newest real frame.
    public private(set) var frame: ContactFrame?
    /// How far (screen px) the last camera given out led the real one at the focal point.
    public private(set) var lastLead: Double = 0
    /// Whether the last camera given out was not the controller's own.
    public private(set) var drewPrediction = false
    /// When a frame must be drawn again so that a lead left on screen goes away once the fingers
    /// hold still (a still finger sends no input, so nothing else would redraw it).
    public var settleAt: Double?

    /// - Parameters:
    ///   - refreshHz: the display's refresh; until flips are measured the draw-to-flip time is
    ///     taken as one and a half refreshes (the frame waits for the next vertical blank).
    public init(settings: TouchPredictor.Settings = .init(), fixedLatency: Double? = nil, refreshHz: Double = 60) {
        predictor = TouchPredictor(settings: settings)
        latency = FlipLatencyEstimator(initial: 1.5 / max(refreshHz, 1), refreshPeriod: refreshHz > 0 ? 1 / refreshHz : nil)
        self.fixedLatency = fixedLatency
    }

    public func observe(_ f: ContactFrame) {
        predictor.observe(f)
        frame = f
    }

    /// A frame drawn at `drawTime` reached the glass at `flipTime` (the display's timestamp).
    public func frameFlipped(drawnAt drawTime: Double, flippedAt flipTime: Double) {
        latency.record(drawTime: drawTime, flipTime: flipTime)
    }

    /// The draw-to-flip time predictions are made for (s): a frame drawn at `now` is flipped at
    /// the first vertical blank after it is ready (`FlipLatencyEstimator.estimate(now:)`); the
    /// median of the recent frames without `now`.
    public func drawToFlip(now: Double? = nil) -> Double {
        if let fixedLatency { return fixedLatency }
        guard let now, usesFlipGrid else { return latency.estimate() }
        return latency.estimate(now: now)
    }

    /// The camera to draw at `now`: the controller's, moved as the fingers are expected to move
    /// by the time the frame is flipped.
    public func camera(for controller: MapController, now: Double) -> CameraPosition {
        let c = predictedCamera(for: controller, now: now)
        // Any difference from the real camera, even one far under a pixel at the fingers, can
        // move the frame's whole-pixel copy offset or its zoom: such a frame must not be the
        // last one left on the glass.
        drewPrediction = c != controller.camera
        return c
    }

    private func predictedCamera(for controller: MapController, now: Double) -> CameraPosition {
        lastLead = 0
        let target = now + drawToFlip(now: now)
        // No finger on the map: a fling or an animation is shown where it will be at the flip,
        // so the frames after a release go on from the predicted ones instead of stepping back.
        if frame?.contacts.isEmpty ?? true, let c = controller.motionCamera(at: target) { return c }
        guard let f = frame, !f.contacts.isEmpty, controller.followsFingers else { return controller.camera }
        // Focal point, span and angle of the real and the predicted contacts (no arrays: this
        // runs every frame).
        var real = Point.zero, predicted = Point.zero
        var first: (Point, Point)? = nil, second: (Point, Point)? = nil
        for c in f.contacts {
            let p = predictor.position(of: c.id, at: target, now: now) ?? c.position
            real += c.position
            predicted += p
            if first == nil { first = (c.position, p) } else if second == nil { second = (c.position, p) }
        }
        let n = Double(f.contacts.count)
        real = real / n
        predicted = predicted / n
        var scale = 1.0, rotation = 0.0
        if let (r0, p0) = first, let (r1, p1) = second {
            let rs = r0.distance(to: r1), ps = p0.distance(to: p1)
            if rs > 1, ps > 1 { scale = ps / rs }
            let ra = atan2(r1.y - r0.y, r1.x - r0.x), pa = atan2(p1.y - p0.y, p1.x - p0.x)
            var d = (pa - ra) * 180 / .pi
            if d > 180 { d -= 360 } else if d < -180 { d += 360 }
            rotation = d
        }
        // The lead on screen: of the focal point, and at the fingers of a pinch or a twist
        // (a still pinch must be redrawn without its predicted scale, as a still drag is).
        var lead = predicted.distance(to: real)
        if let (r0, _) = first, let (r1, _) = second {
            let span = r0.distance(to: r1)
            lead = max(lead, abs(scale - 1) * span / 2, abs(rotation) * .pi / 180 * span / 2)
        }
        lastLead = lead
        guard lastLead > 0.01 || scale != 1 || rotation != 0 else { return controller.camera }
        return controller.cameraFollowing(anchor: real, position: predicted, scale: scale, rotation: rotation)
    }

    /// After drawing at `now`: when the frame was not drawn at the real camera, ask for a frame
    /// once the device would have reported again had the finger kept moving.
    public func didDraw(at now: Double) {
        settleAt = drewPrediction ? now + predictor.settings.maxLead : nil
    }
}

extension MapPipeline {
    /// What the renderer draws at `now`: `scene(attribution:)` with the predicted camera when
    /// prediction is on.
    public func drawingScene(attribution: String?, now: Double) -> MapScene {
        var s = scene(attribution: attribution)
        if let p = prediction { s.camera = p.camera(for: controller, now: now) }
        return s
    }
}

extension KioskConfiguration {
    /// Touch prediction is on unless a [[touch]] table turns it off.
    public var touchPrediction: Bool { touch.allSatisfy(\.prediction) }
    /// A configured draw-to-flip time (s), the first [[touch]] table's that sets one.
    public var predictionLatency: Double? { touch.lazy.compactMap(\.predictionLatencyMS).first.map { $0 / 1000 } }
}
