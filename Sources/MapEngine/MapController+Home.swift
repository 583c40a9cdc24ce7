import Foundation
import TouchCore

/// Home reset (`[camera] home_after_s`): a kiosk left by one visitor is fresh for the next. In
/// free mode, once no finger has been down for `homeAfterInterval` seconds, the camera animates
/// back to `homeCamera` and the info window closes. The timer runs only while there is
/// something to reset (the camera away from home or an info window open); a finger lift or a
/// programmatic move restarts it; a finger down holds it.
extension MapController {
    /// The home timer's part of a change in the number of contacts (called by `touchesChanged`,
    /// which owns `fingersDown`): a finger down holds the timer, the last lift restarts it.
    func homeFingersChanged(from before: Int, to count: Int, at t: Double) {
        if count > 0 {
            homeQuietSince = nil
        } else if before > 0 {
            homeQuietSince = t
        }
    }

    /// When the home reset will happen if nothing else happens.
    var homeTime: Double? {
        guard let interval = configuration.homeAfterInterval, cameraMode == .free, fingersDown == 0,
              let since = homeQuietSince else { return nil }
        return since + interval
    }

    var awayFromHome: Bool {
        camera != configuration.limits.clamp(homeCamera) || shownInfoWindowID != nil
    }

    func checkHome(at t: Double) {
        guard configuration.homeAfterInterval != nil, cameraMode == .free, fingersDown == 0 else { return }
        guard awayFromHome else { homeQuietSince = nil; return }
        if homeQuietSince == nil { homeQuietSince = t }
        guard let h = homeTime, t >= h else { return }
        homeQuietSince = nil
        closeInfoWindow(at: t)
        if camera != configuration.limits.clamp(homeCamera) {
            startAnimation(to: homeCamera, duration: configuration.modeTransitionDuration, byGesture: false, at: t)
        }
    }
}

extension MapController {
    /// Back to the home camera at once, from any mode (the attract loop's end, a kiosk's own
    /// "start over"): the info window closes and the camera animates home over the mode
    /// transition time; free mode.
    public func goHome(at t: Double) {
        closeInfoWindow(at: t)
        if cameraMode != .free { setCameraMode(.free, at: t) }
        homeQuietSince = nil
        if camera != configuration.limits.clamp(homeCamera) {
            startAnimation(to: homeCamera, duration: configuration.modeTransitionDuration, byGesture: false, at: t)
        }
    }
}
