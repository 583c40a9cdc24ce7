import Display
import Platform

/// What the kiosk does when its display fails or is taken: it keeps running (input, the event
/// stream, the control socket), logs each problem once, and takes the display back when it can.
extension MapView {
    /// How often to try to take back a display another DRM master holds, and to check (DRM)
    /// that nobody took it while nothing was drawn.
    static let displayRetryInterval = 0.5
    static let displayOwnershipCheckInterval = 1.0

    /// A present or a flip-event read failed at `now`.
    func displayFailed(_ error: Error, now: Double) {
        let text = "\(error)"
        if case .masterHeld? = error as? DisplayError {
            // Another master (a second compositor, a VT switch) has the card: draw nothing until
            // it lets go; a retry is a frame attempt every half second, not a busy loop.
            if displayRetryAt == nil { log(.warning, "display: \(text) Waiting to take the display back.") }
            let retry = now + MapView.displayRetryInterval
            displayRetryAt = retry
            eventLoop.schedule(at: retry) { [weak self] in self?.pipeline.setNeedsRedraw() }
        } else if text != displayProblem {
            log(.error, "display: \(text)")
        }
        displayProblem = text
    }

    /// A frame reached the display again after a problem.
    func displayRecovered() {
        guard displayRetryAt != nil || displayProblem != nil else { return }
        log(.info, "display: showing the map again")
        displayRetryAt = nil
        displayProblem = nil
    }

    /// DRM only: about once a second, check that this process is still DRM master (one ioctl);
    /// when another master took the card while the map stood still, redraw, which waits for it
    /// and takes the display back.
    func watchDisplayOwnership(_ loop: EventLoop) {
        guard let drm = display as? DRMDisplay else { return }
        loop.schedule(after: MapView.displayOwnershipCheckInterval) { [weak self, weak drm, weak loop] in
            guard let self, let drm, let loop, self.running else { return }
            if self.displayRetryAt == nil && drm.failure == nil && !drm.isMaster { self.pipeline.setNeedsRedraw() }
            self.watchDisplayOwnership(loop)
        }
    }
}
