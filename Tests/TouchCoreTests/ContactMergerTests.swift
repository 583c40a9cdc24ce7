import Testing
@testable import TouchCore

/// Several panels, one surface: ids unique across devices, kept for a contact's life,
/// cancellations mapped, nothing leaking when devices come and go.
@Suite struct ContactMergerTests {
    func c(_ id: Int, _ x: Double) -> Contact { Contact(id: id, position: Point(x: x, y: 0)) }

    @Test func oneDevicePassesThroughUnchanged() {
        var m = ContactMerger()
        let frames = [ContactFrame(time: 1, contacts: [c(0, 10)]),
                      ContactFrame(time: 2, contacts: [c(0, 11), c(1, 50)]),
                      ContactFrame(time: 3, contacts: [c(1, 51)], cancelled: [0])]
        for f in frames { #expect(m.merge(f, from: "/dev/input/event5") == f) }
    }

    @Test func twoDevicesWithTheSameIdsGetDistinctIds() {
        var m = ContactMerger()
        let a = m.merge(ContactFrame(time: 1, contacts: [c(0, 10)]), from: "A")
        #expect(a.contacts.map(\.id) == [0])
        let b = m.merge(ContactFrame(time: 2, contacts: [c(0, 700)]), from: "B")
        #expect(b.contacts.count == 2)
        #expect(Set(b.contacts.map(\.id)).count == 2)
        let bID = b.contacts.first { $0.position.x == 700 }!.id
        #expect(bID != 0)
        // A moves: B's contact keeps its id and position in the merged frame.
        let a2 = m.merge(ContactFrame(time: 3, contacts: [c(0, 12)]), from: "A")
        #expect(a2.contacts.first { $0.id == 0 }?.position.x == 12)
        #expect(a2.contacts.first { $0.id == bID }?.position.x == 700)
        // B's contact is cancelled: the merged frame cancels B's merged id, not A's 0.
        let b2 = m.merge(ContactFrame(time: 4, contacts: [], cancelled: [0]), from: "B")
        #expect(b2.cancelled == [bID])
        #expect(b2.contacts.map(\.id) == [0])
    }

    /// The old scheme (device number x 1,000,000 + id) collided once a device's ids passed a
    /// million; here ids far apart or equal never collide.
    @Test func largeIdsDoNotCollideAcrossDevices() {
        var m = ContactMerger()
        _ = m.merge(ContactFrame(time: 1, contacts: [c(1_000_000, 1)]), from: "A")
        let f = m.merge(ContactFrame(time: 2, contacts: [c(0, 2)]), from: "B")
        #expect(Set(f.contacts.map(\.id)).count == 2)
        let g = m.merge(ContactFrame(time: 3, contacts: [c(1_000_000, 3)]), from: "B")
        #expect(Set(g.contacts.map(\.id)).count == 2)
    }

    @Test func liftedAndRemovedDevicesReleaseTheirIds() {
        var m = ContactMerger()
        _ = m.merge(ContactFrame(time: 1, contacts: [c(0, 1)]), from: "A")
        _ = m.merge(ContactFrame(time: 2, contacts: [c(0, 2)]), from: "B")
        _ = m.merge(ContactFrame(time: 3, contacts: []), from: "A")
        m.remove(device: "B")
        #expect(m.ids.isEmpty)
        #expect(m.down.isEmpty)
        let f = m.merge(ContactFrame(time: 4, contacts: [c(0, 5)]), from: "B")
        #expect(f.contacts.map(\.id) == [0])
    }
}
