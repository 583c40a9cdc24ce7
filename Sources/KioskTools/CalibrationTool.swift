import Foundation
import TouchCore
import TouchDevices
import Gestures
import TouchBridge

/// `touchbridge calibrate`: five targets on the screen, one after another; the matrix fitted
/// from the touches; a verification screen; the matrix written into the configuration.
/// Progress goes to `emit` as JSON lines (and to the screen for the person at the panel).
public final class CalibrationTool {
    public struct Outcome {
        public var matrix: [Double]
        public var residualsPX: [Double]
        public var udevRule: String
    }

    let screen: BenchScreen
    /// The device manager, holding just the device being calibrated (no hotplug: unplugging
    /// it ends the session).
    let input: TouchInputHub
    let info: TouchscreenInfo
    var session: CalibrationSession
    let emit: (String) -> Void
    let verifySeconds: Double
    var message = ""
    var verifyUntil: Double?
    var verifyTouches: [Point] = []
    public private(set) var outcome: Outcome?

    public init(screen: BenchScreen, info: TouchscreenInfo, verifySeconds: Double,
                emit: @escaping (String) -> Void) throws {
        self.screen = screen
        self.info = info
        self.emit = emit
        self.verifySeconds = verifySeconds
        // Normalised device coordinates: an identity mapping onto a 1x1 "screen".
        input = TouchInputHub(match: .path(info.path), screen: Size(width: 1, height: 1), calibration: .identity,
                              filters: FilterOptions(hysteresis: false), hotplug: false)
        _ = input.openAll()
        if input.device(path: info.path) == nil {
            // The node's own reason (missing, permission, not a touchscreen).
            _ = try TouchDevice(path: info.path, screen: Size(width: 1, height: 1))
        }
        let s = screen.size
        let density = Replay.density(for: info.capabilities, screen: s, displayMM: screen.display.physicalSizeMillimetres)
        session = CalibrationSession(screen: s, pixelsPerMM: density.pixelsPerMillimetre)
    }

    func line(_ type: String, _ fill: (inout JSONLine) -> Void = { _ in }) {
        var o = JSONLine()
        o.string("type", type)
        fill(&o)
        emit(o.text)
    }

    func announceTarget() {
        guard case .waiting(let i) = session.state else { return }
        let t = session.targets[i]
        line("target") { $0.int("index", i); $0.number("x", t.x, 1); $0.number("y", t.y, 1) }
    }

    /// Below the top targets, above the centre one.
    var statusOrigin: Point { Point(x: max(12, screen.size.width / 2 - 380), y: screen.size.height * 0.2) }

    func redraw() {
        screen.draw { c in
            c.color(0.12, 0.13, 0.15); c.fill()
            if let until = verifyUntil, let m = outcome {
                // Verification: each target, where its touch lands with the new matrix, and live touches.
                for (k, t) in session.targets.enumerated() {
                    c.color(0.6, 0.6, 0.65); c.cross(t)
                    if k < session.accepted.count {
                        let p = CalibrationFit.apply(m.matrix, session.accepted[k].device)
                        c.color(0.2, 0.85, 0.3); c.circle(Point(x: p.x * screen.size.width, y: p.y * screen.size.height), 5)
                    }
                }
                c.color(0.95, 0.75, 0.2)
                for p in verifyTouches.suffix(400) { c.circle(p, 3) }
                let worst = m.residualsPX.max() ?? 0
                c.statusBox(at: statusOrigin, ["Calibration done: residual error at most \(String(format: "%.2f", worst)) px",
                             "Touch anywhere to check: yellow dots show where touches land",
                             String(format: "closing in %.0f s", max(0, until - MonotonicClock.now()))])
            } else if let t = session.currentTarget, case .waiting(let i) = session.state {
                c.color(1, 0.3, 0.25); c.cross(t, size: 28)
                c.statusBox(at: statusOrigin, ["Calibration: touch the centre of the red cross (\(i + 1) of \(session.targets.count))",
                             message].filter { !$0.isEmpty })
            } else if let t = session.currentTarget {
                c.color(0.3, 0.9, 0.4); c.cross(t, size: 28)
                c.statusBox(at: statusOrigin, ["Hold still, then lift"])
            }
        }
        screen.present()
    }

    /// Runs until the five targets and the verification are done, a signal, or `timeout`.
    public func run(timeout: Double) throws -> Outcome? {
        let loop = try EventLoop()
        let deadline = MonotonicClock.now() + timeout
        try loop.handleSignals([SIGINT, SIGTERM]) { [unowned loop] _ in loop.stop() }
        try input.attach(to: loop) { [weak self, unowned loop] events in
            guard let self else { return }
            for event in events {
                switch event {
                case .frames(_, let frames): for f in frames { self.handle(f) }
                case .closed(let path, let reason):
                    let error = reason == .gone ? "\(TouchDeviceError.gone(path: path, frames: []))" : "\(reason)"
                    self.line("error") { $0.string("message", error) }
                    loop.stop()
                case .warning(let text, _): self.line("error") { $0.string("message", text) }
                case .opened: break
                }
            }
            if self.finished { loop.stop() }
        }
        defer { input.detach() }
        loop.onTimer { }
        redraw()
        announceTarget() // after the frame is up: a script may wait for this line
        try loop.run {
            let now = MonotonicClock.now()
            if now >= deadline { loop.stop(); return }
            if let until = verifyUntil, now >= until { loop.stop(); return }
            loop.setDeadline(min(deadline, verifyUntil.map { min($0, now + 1) } ?? deadline))
            if verifyUntil != nil { redraw() }
        }
        if outcome == nil { line("timeout") { $0.string("message", "calibration did not finish") } }
        return outcome
    }

    var finished: Bool {
        if case .failed = session.state { return true }
        return false
    }

    func handle(_ f: ContactFrame) {
        let pts = f.contacts.map(\.position)
        if verifyUntil != nil {
            if let m = outcome?.matrix {
                for p in pts {
                    let q = CalibrationFit.apply(m, p)
                    verifyTouches.append(Point(x: q.x * screen.size.width, y: q.y * screen.size.height))
                }
            }
            return
        }
        guard let o = session.process(contacts: pts) else { return }
        switch o {
        case .accepted(let i, let d):
            message = ""
            line("accepted") { $0.int("index", i); $0.number("device_x", d.x, 5); $0.number("device_y", d.y, 5) }
        case .rejectedMisclick(let i, let mm):
            message = String(format: "That touch was %.0f mm from the cross: touch its centre", mm)
            line("rejected") { $0.int("index", i); $0.string("reason", "misclick"); $0.number("distance_mm", mm, 1) }
        case .rejectedMultiTouch(let i):
            message = "Two fingers were down: touch with one finger"
            line("rejected") { $0.int("index", i); $0.string("reason", "multitouch") }
        case .finished(let m):
            let res = session.residuals(m)
            outcome = Outcome(matrix: m, residualsPX: res, udevRule: CalibrationFit.udevRule(matrix: m, deviceName: info.capabilities.name))
            line("matrix") {
                $0.raw("matrix", "[" + m.map { JSONLine.number($0, 6) }.joined(separator: ",") + "]")
                $0.raw("residuals_px", "[" + res.map { JSONLine.number($0, 3) }.joined(separator: ",") + "]")
            }
            verifyUntil = MonotonicClock.now() + verifySeconds
        case .failed(let why):
            line("failed") { $0.string("message", why) }
        }
        redraw()
        if case .waiting = session.state, verifyUntil == nil { announceTarget() }
    }
}
