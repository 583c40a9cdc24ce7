import Testing
@testable import TouchCore

struct CalibrationTests {
    let axis = AbsInfo(minimum: 0, maximum: 1000)

    func map(_ c: Calibration, _ x: Double, _ y: Double, screen: Size = Size(width: 1280, height: 800)) -> Point {
        ScreenMapping(xAxis: axis, yAxis: axis, calibration: c, screen: screen).screenPoint(x: x, y: y)
    }

    @Test func identityMapsFullAxisRangeOntoTheScreen() {
        #expect(map(.identity, 0, 0) == Point(x: 0, y: 0))
        #expect(map(.identity, 500, 500) == Point(x: 640, y: 400))
        #expect(map(.identity, 1000, 1000) == Point(x: 1280, y: 800))
    }

    @Test func axisMinimumIsHonoured() {
        let m = ScreenMapping(xAxis: AbsInfo(minimum: 100, maximum: 300), yAxis: AbsInfo(minimum: -50, maximum: 50),
                              screen: Size(width: 200, height: 100))
        #expect(m.screenPoint(x: 200, y: 0) == Point(x: 100, y: 50))
    }

    @Test func scaleMatrix() {
        // The panel's active area covers only the left half of the screen, full height.
        let half = Calibration(matrix: [0.5, 0, 0, 0, 1, 0])
        #expect(map(half, 1000, 500) == Point(x: 640, y: 400))
    }

    @Test func translationMatrix() {
        let shifted = Calibration(matrix: [1, 0, 0.25, 0, 1, -0.25])
        #expect(map(shifted, 500, 500) == Point(x: 960, y: 200))
        // Translated past the edge: clamped, not dropped.
        #expect(map(shifted, 1000, 0) == Point(x: 1280, y: 0))
    }

    @Test func rotation90Clockwise() {
        let r = Calibration.rotation(degrees: 90)!
        #expect(r.matrix == [0, -1, 1, 1, 0, 0])
        let s = Size(width: 1000, height: 1000)
        #expect(map(r, 0, 0, screen: s) == Point(x: 1000, y: 0))     // panel top-left -> screen top-right
        #expect(map(r, 1000, 0, screen: s) == Point(x: 1000, y: 1000))
        #expect(map(r, 250, 0, screen: s) == Point(x: 1000, y: 250))
    }

    @Test func rotationsCompose() {
        let r90 = Calibration.rotation(degrees: 90)!
        #expect(r90.then(r90) == Calibration.rotation(degrees: 180)!)
        #expect(r90.then(r90).then(r90) == Calibration.rotation(degrees: -90)!)
        #expect(Calibration.rotation(degrees: 45) == nil)
    }

    @Test func mirroring() {
        let h = Calibration.mirrored(horizontal: true, vertical: false)
        #expect(map(h, 250, 250, screen: Size(width: 1000, height: 1000)) == Point(x: 750, y: 250))
        let both = Calibration.mirrored(horizontal: true, vertical: true)
        #expect(both == Calibration.rotation(degrees: 180)!)
    }

    @Test func parsesLibinputCalibrationMatrixString() {
        #expect(Calibration(libinputString: "0 -1 1 1 0 0") == Calibration.rotation(degrees: 90))
        #expect(Calibration(libinputString: " 1.5 0 -0.25\t0 1 0 ")?.matrix == [1.5, 0, -0.25, 0, 1, 0])
        #expect(Calibration(libinputString: "1 0 0 0 1") == nil)
        #expect(Calibration(libinputString: "1 0 0 0 1 x") == nil)
        #expect(Calibration(libinputString: "1 0 0 0 1 nan") == nil)
    }

    @Test func assemblerAppliesCalibration() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), calibration: .rotation(degrees: 90)!,
                               screen: TestDevices.square)
        var s = Script()
        s.slot(0, id: 1, x: 250, y: 0); s.syn()
        #expect(a.frames(s.events)[0].contacts[0].position == Point(x: 1000, y: 250))
    }
}
