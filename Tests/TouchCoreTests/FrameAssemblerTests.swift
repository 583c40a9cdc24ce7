import Testing
@testable import TouchCore

/// Scripted streams for the cases libinput's touch tests cover, with explicit timestamps.
struct FrameAssemblerTests {
    let screen = TestDevices.square

    @Test func firstFrameWithoutSlotEventUsesSlotZero() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen)
        var s = Script()
        s.abs(ABS.MT_TRACKING_ID, 5); s.abs(ABS.MT_POSITION_X, 100); s.abs(ABS.MT_POSITION_Y, 200); s.syn()
        let frames = a.frames(s.events)
        #expect(frames.count == 1)
        #expect(frames[0].contacts.map(\.position) == [Point(x: 100, y: 200)])
        #expect(frames[0].time == 100.0)
    }

    @Test func releaseOnUnplugCancelsEveryContact() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen)
        var s = Script()
        s.slot(0, id: 1, x: 100, y: 100); s.slot(1, id: 2, x: 300, y: 300); s.syn()
        let down = a.frames(s.events)
        #expect(down.last?.contacts.count == 2)
        let gone = a.cancelAll(time: 100.5)
        #expect(gone.contacts.isEmpty)
        #expect(gone.cancelled == down.last!.ids)
        #expect(gone.time == 100.5)
        #expect(a.contactsDown == 0)
        // A later SYN_REPORT (say, a replugged device) does not resurrect them.
        var t = Script(start: 101); t.syn()
        #expect(a.frames(t.events).last?.contacts.isEmpty == true)
    }

    @Test func tenPlusSimultaneousSlots() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(slots: 16), screen: screen)
        var s = Script()
        for i in 0..<16 { s.slot(Int32(i), id: Int32(100 + i), x: Int32(50 * i), y: Int32(20 * i)) }
        s.syn()
        for i in 0..<16 { s.slot(Int32(i), id: -1) }
        s.syn()
        let frames = a.frames(s.events)
        #expect(frames[0].contacts.count == 16)
        #expect(Set(frames[0].ids).count == 16)
        #expect(frames[0].contacts.map(\.position.x).sorted() == (0..<16).map { Double(50 * $0) })
        #expect(frames[1].contacts.isEmpty)
        #expect(frames[1].cancelled.isEmpty)
    }

    @Test func moreContactsThanSlotsAreIgnoredNotStuck() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(slots: 2), screen: screen)
        var s = Script()
        s.slot(0, id: 1, x: 10, y: 10); s.slot(1, id: 2, x: 20, y: 20); s.slot(2, id: 3, x: 30, y: 30)
        s.slot(-4, id: 4, x: 40, y: 40); s.syn()
        s.slot(2, id: -1); s.slot(0, id: -1); s.slot(1, id: -1); s.syn()
        let frames = a.frames(s.events)
        #expect(frames[0].contacts.map(\.position.x) == [10, 20])
        #expect(frames[1].contacts.isEmpty)
    }

    @Test func repeatedTrackingIDStartsAFreshContact() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen)
        var s = Script()
        s.slot(0, id: 7, x: 100, y: 100); s.syn()
        s.slot(0, id: -1); s.syn()
        s.slot(0, id: 7, x: 500, y: 500); s.syn()      // the same tracking id again: a new touch
        s.slot(0, id: 7); s.abs(ABS.MT_POSITION_X, 510); s.syn() // repeated id while down: same touch
        s.slot(0, id: 8, x: 900, y: 900); s.syn()      // new id without a -1 first: the old touch ended
        s.slot(0, id: -1); s.syn()
        let f = a.frames(s.events)
        #expect(f[1].contacts.isEmpty)
        #expect(f[2].ids.count == 1 && f[2].ids != f[0].ids)
        #expect(f[3].ids == f[2].ids && f[3].contacts[0].position.x == 510)
        #expect(f[4].ids.count == 1 && f[4].ids != f[3].ids)
        #expect(f[5].contacts.isEmpty)
    }

    @Test func twoTouchesWithTheSameTrackingIDInDifferentSlotsAreDistinct() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen)
        var s = Script()
        s.slot(0, id: 3, x: 100, y: 100); s.slot(1, id: 3, x: 800, y: 800); s.syn()
        s.slot(0, id: -1); s.syn()
        s.slot(1, id: -1); s.syn()
        let f = a.frames(s.events)
        #expect(Set(f[0].ids).count == 2)
        #expect(f[1].contacts.map(\.position.x) == [800])
        #expect(f[2].contacts.isEmpty)
    }

    @Test func fuzzIsHysteresisSoJitterGivesNoMotion() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(fuzz: 4), screen: screen)
        var s = Script()
        s.slot(0, id: 1, x: 500, y: 500); s.syn()
        for (dx, dy) in [(1, 0), (0, 1), (-1, 0), (1, -1), (-1, 1), (0, 0), (1, 1)] {
            s.abs(ABS.MT_POSITION_X, Int32(500 + dx)); s.abs(ABS.MT_POSITION_Y, Int32(500 + dy)); s.syn()
        }
        s.abs(ABS.MT_POSITION_X, 520); s.syn() // a real move of 20 units
        let f = a.frames(s.events)
        for frame in f.dropLast() { #expect(frame.contacts[0].position == Point(x: 500, y: 500)) }
        // Beyond the margin the contact follows, lagging by the fuzz (4 units).
        let moved = f.last!.contacts[0].position
        #expect(abs(moved.x - 516) < 0.5)
        #expect(f.last!.ids == f[0].ids)
    }

    @Test func withoutFuzzEveryUnitMoves() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(fuzz: 0), screen: screen)
        var s = Script()
        s.slot(0, id: 1, x: 500, y: 500); s.syn()
        s.abs(ABS.MT_POSITION_X, 501); s.syn()
        #expect(a.frames(s.events).last?.contacts[0].position.x == 501)
    }

    @Test func outOfRangeCoordinatesAreClampedToTheScreen() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), screen: Size(width: 1280, height: 800))
        var s = Script()
        s.slot(0, id: 1, x: -50, y: 2000); s.slot(1, id: 2, x: 5000, y: -3); s.syn()
        let f = a.frames(s.events)
        #expect(f[0].contacts.map(\.position) == [Point(x: 0, y: 800), Point(x: 1280, y: 0)])
    }

    @Test func garbageValuesDoNotCrash() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(toolType: true, pressure: true), screen: screen)
        var s = Script()
        s.slot(Int32.max, id: Int32.min, x: Int32.max, y: Int32.min)
        s.slot(0, id: Int32.max, x: Int32.max, y: Int32.min)
        s.abs(ABS.MT_PRESSURE, Int32.min); s.abs(ABS.MT_TOOL_TYPE, 77)
        s.abs(0x3f, 1); s.key(0x2ff, 9); s.syn()
        s.slot(0, id: -1); s.syn()
        let f = a.frames(s.events)
        #expect(f[0].contacts.count == 1)
        #expect(f[0].contacts[0].position == Point(x: 1000, y: 0))
        #expect(f[0].contacts[0].pressure == 0)
        #expect(f[1].contacts.isEmpty)
    }

    @Test func pressureIsNormalisedAndToolTypeReported() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(toolType: true, pressure: true), screen: screen)
        var s = Script()
        s.slot(0, id: 1, x: 1, y: 1); s.abs(ABS.MT_PRESSURE, 51); s.abs(ABS.MT_TOOL_TYPE, MT_TOOL.PEN); s.syn()
        let c = a.frames(s.events)[0].contacts[0]
        #expect(c.pressure == 0.2)
        #expect(c.toolType == .pen)
    }

    @Test func palmToolTypeCancelsThatContactOnly() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(toolType: true), screen: screen)
        var s = Script()
        s.slot(0, id: 1, x: 100, y: 100); s.abs(ABS.MT_TOOL_TYPE, MT_TOOL.FINGER)
        s.slot(1, id: 2, x: 600, y: 600); s.abs(ABS.MT_TOOL_TYPE, MT_TOOL.FINGER); s.syn()
        s.slot(1); s.abs(ABS.MT_TOOL_TYPE, MT_TOOL.PALM); s.syn()
        s.abs(ABS.MT_POSITION_X, 650); s.syn()
        s.abs(ABS.MT_TOOL_TYPE, MT_TOOL.FINGER); s.syn() // back to finger: still the same ignored touch
        s.abs(ABS.MT_TRACKING_ID, -1); s.syn()
        s.abs(ABS.MT_TRACKING_ID, 3); s.syn()         // a new touch in that slot counts again
        let f = a.frames(s.events)
        let finger = f[0].contacts.first { $0.position.x == 100 }!.id
        let palm = f[0].contacts.first { $0.position.x == 600 }!.id
        #expect(f[1].ids == [finger])
        #expect(f[1].cancelled == [palm])
        #expect(f[2].ids == [finger] && f[2].cancelled.isEmpty)
        #expect(f[3].ids == [finger])
        #expect(f[4].ids == [finger])
        #expect(f[5].ids.count == 2 && !f[5].ids.contains(palm))
    }

    @Test func onePanelSlotPerFrameKeepsTheOtherFingerDown() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen)
        var s = Script()
        s.slot(0, id: 1, x: 100, y: 100); s.syn()
        s.slot(1, id: 2, x: 500, y: 500); s.syn()
        // This panel sends one slot per report, alternating.
        for step in 1...4 {
            s.slot(0); s.abs(ABS.MT_POSITION_X, Int32(100 + 10 * step)); s.syn()
            s.slot(1); s.abs(ABS.MT_POSITION_X, Int32(500 + 10 * step)); s.syn()
        }
        let f = a.frames(s.events)
        let ids = f[1].ids
        #expect(ids.count == 2)
        for frame in f.dropFirst() { #expect(frame.ids == ids) }
        #expect(f.last!.contacts.map(\.position.x) == [140, 540])
    }

    /// SYN_DROPPED in the middle of a two-finger drag: the device lifted finger 0 while events
    /// were lost; the resync lifts it (a lift, not a cancellation: the gesture ends as replay
    /// ends it), and finger 1 keeps its id at its new position.
    @Test func synDroppedMidDragResyncsLiftsAndKeepsIDs() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen)
        var s = Script()
        s.slot(0, id: 10, x: 100, y: 100); s.slot(1, id: 11, x: 500, y: 500); s.syn()
        s.slot(0); s.abs(ABS.MT_POSITION_X, 120); s.slot(1); s.abs(ABS.MT_POSITION_X, 520); s.syn()
        s.abs(ABS.MT_POSITION_X, 530); s.dropped() // partial frame, then the buffer overflowed
        s.abs(ABS.MT_POSITION_X, 999); s.syn()      // the kernel's own SYN_REPORT after the drop: discarded
        let before = a.frames(s.events)
        #expect(before.count == 2)
        let ids = before[1].ids
        #expect(ids.count == 2)

        var slots = [SlotState](repeating: SlotState(), count: 10)
        slots[0] = SlotState(trackingID: -1, x: 140, y: 100)
        slots[1] = SlotState(trackingID: 11, x: 600, y: 650)
        let resynced = a.resync(to: DeviceState(slots: slots, currentSlot: 1), time: s.time)
        #expect(resynced.ids == [ids[1]])
        #expect(resynced.contacts[0].position == Point(x: 600, y: 650))
        #expect(resynced.cancelled.isEmpty)
        #expect(resynced.time == s.time)

        // Normal events continue in the current slot from libevdev (1).
        var t = Script(start: s.time + 0.01)
        t.abs(ABS.MT_POSITION_X, 610); t.syn()
        t.abs(ABS.MT_TRACKING_ID, -1); t.syn()
        let after = a.frames(t.events)
        #expect(after[0].ids == [ids[1]] && after[0].contacts[0].position.x == 610)
        #expect(after[0].cancelled.isEmpty)
        #expect(after[1].contacts.isEmpty)
    }

    @Test func resyncStartsContactsThatBeganDuringTheDrop() {
        var a = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen)
        var slots = [SlotState](repeating: SlotState(), count: 10)
        slots[3] = SlotState(trackingID: 40, x: 250, y: 750)
        let f = a.resync(to: DeviceState(slots: slots, currentSlot: 3), time: 5)
        #expect(f.contacts.map(\.position) == [Point(x: 250, y: 750)])
        #expect(f.cancelled.isEmpty)
    }

    @Test func protocolATwoFingersKeepStableIDsByNearestDistance() {
        var a = FrameAssembler(capabilities: TestDevices.protocolA(), screen: screen)
        var s = Script()
        s.contactA(x: 100, y: 100); s.key(BTN.TOUCH, 1); s.syn()
        s.contactA(x: 105, y: 100); s.contactA(x: 800, y: 800); s.syn()
        // The order of the anonymous contacts swaps: ids must follow positions, not order.
        s.contactA(x: 790, y: 800); s.contactA(x: 110, y: 100); s.syn()
        s.contactA(x: 780, y: 800); s.syn()      // the first finger lifted
        s.mtReport(); s.key(BTN.TOUCH, 0); s.syn() // empty report: all up
        let f = a.frames(s.events)
        let first = f[0].ids[0]
        #expect(f[1].contact(id: first)?.position == Point(x: 105, y: 100))
        let second = f[1].ids.first { $0 != first }!
        #expect(f[2].contact(id: first)?.position == Point(x: 110, y: 100))
        #expect(f[2].contact(id: second)?.position == Point(x: 790, y: 800))
        #expect(f[3].ids == [second])
        #expect(f[4].contacts.isEmpty && f[4].cancelled.isEmpty)
    }

    @Test func protocolAWithTrackingIDsMatchesByID() {
        var a = FrameAssembler(capabilities: TestDevices.protocolA(trackingID: true), screen: screen)
        var s = Script()
        s.contactA(x: 100, y: 100, id: 1); s.contactA(x: 110, y: 110, id: 2); s.key(BTN.TOUCH, 1); s.syn()
        // The fingers cross: nearest distance would swap them, tracking ids do not.
        s.contactA(x: 110, y: 110, id: 1); s.contactA(x: 100, y: 100, id: 2); s.syn()
        let f = a.frames(s.events)
        let one = f[0].contacts.first { $0.position.x == 100 }!.id
        #expect(f[1].contact(id: one)?.position.x == 110)
    }

    @Test func protocolAButtonTouchUpLiftsAll() {
        var a = FrameAssembler(capabilities: TestDevices.protocolA(), screen: screen)
        var s = Script()
        s.contactA(x: 1, y: 1); s.contactA(x: 900, y: 900); s.key(BTN.TOUCH, 1); s.syn()
        s.contactA(x: 1, y: 1); s.key(BTN.TOUCH, 0); s.syn()
        let f = a.frames(s.events)
        #expect(f[0].contacts.count == 2)
        #expect(f[1].contacts.isEmpty)
    }

    @Test func singleTouchWithButtonTouch() {
        var a = FrameAssembler(capabilities: TestDevices.singleTouch(), screen: screen)
        var s = Script()
        s.abs(ABS.X, 200); s.abs(ABS.Y, 300); s.key(BTN.TOUCH, 1); s.syn()
        s.abs(ABS.X, 250); s.syn()
        s.key(BTN.TOUCH, 0); s.syn()
        s.abs(ABS.X, 10); s.key(BTN.TOUCH, 1); s.syn()
        let f = a.frames(s.events)
        #expect(f[0].contacts.map(\.position) == [Point(x: 200, y: 300)])
        #expect(f[1].ids == f[0].ids && f[1].contacts[0].position.x == 250)
        #expect(f[2].contacts.isEmpty)
        #expect(f[3].ids.count == 1 && f[3].ids != f[0].ids)
    }

    @Test func singleTouchPressureOnly() {
        var a = FrameAssembler(capabilities: TestDevices.singleTouch(buttonTouch: false), screen: screen)
        var s = Script()
        s.abs(ABS.X, 200); s.abs(ABS.Y, 300); s.abs(ABS.PRESSURE, 128); s.syn()
        s.abs(ABS.PRESSURE, 0); s.syn()
        let f = a.frames(s.events)
        #expect(f[0].contacts.count == 1)
        #expect(f[0].contacts[0].pressure.map { abs($0 - 128.0 / 255) < 1e-9 } == true)
        #expect(f[1].contacts.isEmpty)
    }

    @Test func singleTouchResyncLiftsALostLift() {
        var a = FrameAssembler(capabilities: TestDevices.singleTouch(), screen: screen)
        var s = Script()
        s.abs(ABS.X, 200); s.abs(ABS.Y, 300); s.key(BTN.TOUCH, 1); s.syn()
        let id = a.frames(s.events)[0].ids
        let f = a.resync(to: DeviceState(single: SlotState(trackingID: -1, x: 200, y: 300)), time: 101)
        #expect(f.contacts.isEmpty && f.cancelled.isEmpty && !id.isEmpty)
    }

    @Test func smoothingIsOffByDefaultAndLightWhenOn() {
        var s = Script()
        s.slot(0, id: 1, x: 0, y: 0); s.syn()
        s.abs(ABS.MT_POSITION_X, 100); s.syn()
        var plain = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen)
        #expect(plain.frames(s.events).last?.contacts[0].position.x == 100)
        var smooth = FrameAssembler(capabilities: TestDevices.protocolB(), screen: screen,
                                    filters: FilterOptions(smoothing: 0.5))
        #expect(smooth.frames(s.events).last?.contacts[0].position.x == 50)
    }
}
