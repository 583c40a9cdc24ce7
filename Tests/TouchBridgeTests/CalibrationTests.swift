import Foundation
import Testing
import TouchCore
@testable import TouchBridge
@testable import Kiosk
@testable import KioskTools

@Suite struct CalibrationTests {
    let screen = Size(width: 1280, height: 800)

    /// A panel whose reports are skewed by a known matrix: device = inverse(M) applied to screen.
    /// Here the device is rotated 90 degrees, scaled and offset relative to the screen.
    func deviceReading(forScreen s: Point) -> Point {
        // Screen normalised -> device normalised: rotate 90 degrees, scale 0.9, offset 0.05.
        let nx = s.x / screen.width, ny = s.y / screen.height
        return Point(x: 0.05 + 0.9 * ny, y: 0.05 + 0.9 * (1 - nx))
    }

    @Test func fitRecoversAKnownMatrixExactly() throws {
        let m = [0.0, -1.0, 1.0, 1.0, 0.0, 0.0]
        let pts = [Point(x: 0.1, y: 0.1), Point(x: 0.9, y: 0.2), Point(x: 0.8, y: 0.9), Point(x: 0.2, y: 0.7), Point(x: 0.5, y: 0.5)]
        let samples = pts.map { CalibrationFit.Sample(device: $0, screen: CalibrationFit.apply(m, $0)) }
        let fitted = try CalibrationFit.fit(samples)
        for (a, b) in zip(fitted, m) { #expect(abs(a - b) < 1e-9) }
    }

    @Test func collinearPointsAreRejected() {
        let s = (0..<4).map { i in CalibrationFit.Sample(device: Point(x: Double(i) / 4, y: Double(i) / 4), screen: Point(x: 0, y: 0)) }
        #expect(throws: CalibrationFit.FitError.self) { try CalibrationFit.fit(s) }
    }

    func touch(_ session: inout CalibrationSession, at device: Point, fingers: Int = 1, jitter: Double = 0) -> CalibrationSession.Outcome? {
        var out: CalibrationSession.Outcome?
        for k in 0..<8 {
            let j = Point(x: jitter * Double((k % 3) - 1), y: jitter * Double((k % 2) * 2 - 1))
            var contacts = [device + j]
            if fingers > 1 && k > 2 { contacts.append(device + Point(x: 0.2, y: 0)) }
            if let o = session.process(contacts: contacts) { out = o }
        }
        if let o = session.process(contacts: []) { out = o }
        return out
    }

    @Test func fiveTargetsWithASkewedPanelFitWithinOnePixel() throws {
        // The panel is far from identity: misclicks are judged without trusting any prior.
        var session = CalibrationSession(screen: screen, misclickMM: 15, pixelsPerMM: 5)
        var result: [Double]?
        for target in session.targets {
            let o = touch(&session, at: deviceReading(forScreen: target), jitter: 0.0005)
            if case .finished(let m) = o { result = m }
        }
        let m = try #require(result)
        for target in session.targets {
            let p = CalibrationFit.apply(m, deviceReading(forScreen: target))
            let px = Point(x: p.x * screen.width, y: p.y * screen.height)
            #expect(px.distance(to: target) < 1.0)
        }
        #expect(session.residuals(m).allSatisfy { $0 < 1.0 })
    }

    @Test func misclickAndDoubleTouchAreRejectedAndAskedAgain() {
        var session = CalibrationSession(screen: screen, misclickMM: 15, pixelsPerMM: 5)
        for i in 0..<4 {
            guard case .accepted(i, _) = touch(&session, at: deviceReading(forScreen: session.targets[i])) else {
                Issue.record("target \(i) not accepted"); return
            }
        }
        // The centre target, touched 30 mm (150 px at 5 px/mm) to its right.
        let t4 = session.targets[4]
        guard case .rejectedMisclick(4, let d) = touch(&session, at: deviceReading(forScreen: t4 + Point(x: 150, y: 0))) else {
            Issue.record("misclick not rejected"); return
        }
        #expect(abs(d - 30) < 0.5)
        #expect(session.state == .waiting(index: 4))
        #expect(touch(&session, at: deviceReading(forScreen: t4), fingers: 2) == .rejectedMultiTouch(index: 4))
        #expect(session.state == .waiting(index: 4))
        guard case .finished = touch(&session, at: deviceReading(forScreen: t4)) else { Issue.record("not finished"); return }
    }

    @Test func aMisclickOnAnEarlyTargetIsFoundByTheFitAndAskedAgain() throws {
        var session = CalibrationSession(screen: screen, misclickMM: 15, pixelsPerMM: 5)
        // Target 0 touched 40 mm off; nothing can tell yet.
        _ = touch(&session, at: deviceReading(forScreen: session.targets[0] + Point(x: 200, y: 0)))
        for i in 1..<4 { _ = touch(&session, at: deviceReading(forScreen: session.targets[i])) }
        // The last target completes the set; the fit's worst residual is target 0.
        guard case .rejectedMisclick(0, _) = touch(&session, at: deviceReading(forScreen: session.targets[4])) else {
            Issue.record("early misclick not found: \(String(describing: session.state)) \(session.samplesByTarget.keys.sorted())"); return
        }
        #expect(session.state == .waiting(index: 0))
        // With the centre on both diagonals, target 0 and its opposite corner explain the error
        // equally: both are asked again.
        guard case .accepted(0, _) = touch(&session, at: deviceReading(forScreen: session.targets[0])) else {
            Issue.record("target 0 not accepted"); return
        }
        #expect(session.state == .waiting(index: 2))
        guard case .finished(let m) = touch(&session, at: deviceReading(forScreen: session.targets[2])) else {
            Issue.record("did not finish"); return
        }
        #expect(session.residuals(m).allSatisfy { $0 < 1 })
    }

    @Test func pointercalImportMatchesTslibMapping() throws {
        // tslib maps raw units to pixels: x = (a2 + a0 X + a1 Y) / a6.
        let xa = AbsInfo(minimum: 0, maximum: 4095), ya = AbsInfo(minimum: 0, maximum: 4095)
        let text = "20480 0 -1310720 0 12800 -819200 65536 1280 800\n"
        let m = try CalibrationFit.fromPointercal(text, xAxis: xa, yAxis: ya, screen: screen)
        for raw in [Point(x: 1000, y: 1000), Point(x: 3000, y: 200)] {
            let tslibX = (-1310720 + 20480 * raw.x) / 65536, tslibY = (-819200 + 12800 * raw.y) / 65536
            let n = CalibrationFit.apply(m, Point(x: raw.x / 4095, y: raw.y / 4095))
            #expect(abs(n.x * 1280 - tslibX) < 1e-6 && abs(n.y * 800 - tslibY) < 1e-6)
        }
        #expect(throws: CalibrationFit.PointercalError.self) { try CalibrationFit.fromPointercal("1 2 3", xAxis: xa, yAxis: ya, screen: screen) }
    }

    @Test func configWriterReplacesOnlyTheCalibrationLine() throws {
        let text = "# kiosk\n[display]\nbackend = \"drm\"\n\n[[touch]]\nmatch = \"auto\"\ncalibration = [1, 0, 0, 0, 1, 0]\nrotation = 0\n\n[map]\nzoom = 3.0\n"
        let out = ConfigWriter.settingCalibration([0, -1, 1, 1, 0, 0], in: text)
        #expect(out.contains("calibration = [0.000000, -1.000000, 1.000000, 1.000000, 0.000000, 0.000000]"))
        #expect(out.contains("# kiosk") && out.contains("rotation = 0") && out.contains("zoom = 3.0"))
        let cfg = try KioskConfiguration.parse(text: out, file: "x.toml")
        #expect(cfg.touch[0].calibration == [0, -1, 1, 1, 0, 0])
        // No [[touch]] table: one is appended.
        let added = ConfigWriter.settingCalibration([1, 0, 0, 0, 1, 0], in: "[map]\nzoom = 2.0\n", match: "/dev/input/event3")
        let cfg2 = try KioskConfiguration.parse(text: added, file: "x.toml")
        #expect(cfg2.touch.first?.match == .path("/dev/input/event3"))
    }

    @Test func atomicWriteKeepsABackup() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("tb-cfg-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("t.toml").path
        try ConfigWriter.writeAtomically("old\n", to: path)
        try ConfigWriter.writeAtomically("new\n", to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new\n")
        #expect(try String(contentsOfFile: path + ".bak", encoding: .utf8) == "old\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["t.toml", "t.toml.bak"])
    }
}
