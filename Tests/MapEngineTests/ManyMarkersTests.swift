import Testing
import TouchCore
@testable import MapEngine

/// 100,000 markers: adding, replacing, finding and removing keep the SDK behaviour (replace in
/// place keeps the stacking order, ids stay unique, lookups find the current value). The add is
/// a hash lookup, not a search through every marker (40,000 markers took 8 s before).
@Suite struct ManyMarkersTests {
    static let count = 100_000

    func coordinate(_ i: Int) -> Coordinate {
        Coordinate(latitude: -60 + Double(i % 1200) * 0.1, longitude: -170 + Double(i / 1200) * 0.4)
    }

    @Test func aHundredThousandMarkersAddReplaceFindAndRemove() {
        let c = controller()
        for i in 0..<Self.count { c.add(Marker(id: "m\(i)", position: coordinate(i), title: "M\(i)")) }
        #expect(c.markers.count == Self.count)
        #expect(c.marker(id: "m0")?.title == "M0")
        #expect(c.marker(id: "m99999")?.position == coordinate(99_999))
        #expect(c.marker(id: "m100000") == nil)

        // Adding an id again replaces it where it stands.
        for i in stride(from: 0, to: Self.count, by: 1000) {
            c.add(Marker(id: "m\(i)", position: paris, title: "again \(i)", zIndex: 0))
        }
        #expect(c.markers.count == Self.count)
        #expect(c.markers[5000].id == "m5000" && c.markers[5000].title == "again 5000")
        #expect(c.marker(id: "m5000")?.position == paris)
        #expect(Set(c.markers.map(\.id)).count == Self.count)

        // Removing from the middle and the end keeps every other marker findable.
        c.removeMarker(id: "m50000")
        c.removeMarker(id: "m99999")
        c.removeMarker(id: "nope")
        #expect(c.markers.count == Self.count - 2)
        #expect(c.marker(id: "m50000") == nil && c.marker(id: "m99999") == nil)
        #expect(c.marker(id: "m50001")?.title == "M50001")
        #expect(c.markers[50000].id == "m50001")
        c.add(Marker(id: "m50000", position: paris, title: "back"))
        #expect(c.markers.last?.id == "m50000" && c.marker(id: "m50000")?.title == "back")

        // Removing all, last first (as a reload does), leaves none.
        for m in c.markers.reversed() { c.removeMarker(id: m.id) }
        #expect(c.markers.isEmpty && c.marker(id: "m1") == nil)
    }
}
