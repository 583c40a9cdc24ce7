import Foundation
import Testing
import TouchCore
import Gestures
@testable import MapEngine

/// Marker clustering (Google Maps Utils' NonHierarchicalDistanceBasedAlgorithm).
@Suite struct ClusterTests {
    func clustering(_ on: Bool = true, radius: Double = 48) -> MapController {
        var config = MapConfiguration()
        config.clusterMarkers = on
        config.clusterRadius = radius
        return controller(zoom: 12, configuration: config)
    }

    /// Adds markers at screen points (zoom 12 is a whole level: world px = screen px apart).
    func add(_ c: MapController, _ pts: [(String, Double, Double)]) {
        for (id, x, y) in pts { c.add(Marker(id: id, position: c.projection.coordinate(at: Point(x: x, y: y))!, title: id)) }
    }

    /// The algorithm without the grid: every pair tested.
    func bruteForce(_ markers: [Marker], zoom: Int, radius: Double) -> [String: [String]] {
        let world = WebMercator.worldSize(zoom: Double(zoom))
        let pts = markers.map { WebMercator.unitPoint($0.position) * world }
        var owner = Array(repeating: -1, count: markers.count), dist = Array(repeating: Double.infinity, count: markers.count)
        for i in markers.indices where owner[i] < 0 {
            owner[i] = i; dist[i] = 0
            for j in markers.indices where j != i && dist[j] != 0 {
                var dx = abs(pts[j].x - pts[i].x); dx = min(dx, world - dx)
                let d = (dx * dx + (pts[j].y - pts[i].y) * (pts[j].y - pts[i].y)).squareRoot()
                if d <= radius && d * d < dist[j] { owner[j] = i; dist[j] = d * d }
            }
        }
        var out: [String: [String]] = [:]
        for j in markers.indices where owner[j] != j { out[markers[owner[j]].id, default: [markers[owner[j]].id]].append(markers[j].id) }
        return out
    }

    @Test func nearbyMarkersGroupAndFarOnesStayAlone() throws {
        let c = clustering()
        add(c, [("a0", 300, 300), ("a1", 310, 305), ("s0", 600, 100), ("a2", 290, 320), ("b0", 900, 500),
                ("a3", 330, 300), ("b1", 905, 480), ("s1", 100, 700), ("a4", 300, 340), ("b2", 880, 510)])
        let (singles, clusters) = c.markerClusters()
        #expect(singles.map(\.id) == ["s0", "s1"])
        #expect(clusters.map(\.id) == ["cluster:a0", "cluster:b0"])
        #expect(clusters.map(\.memberIDs) == [["a0", "a1", "a2", "a3", "a4"], ["b0", "b1", "b2"]])
        #expect(clusters.map(\.count) == [5, 3])
        // The mean position (flat camera: the mean of the screen points).
        let p = c.projection.point(for: clusters[0].coordinate)!
        #expect(p.distance(to: Point(x: 306, y: 313)) < 1e-6)
        #expect(MarkerCluster.bubbleRadius(count: 10) == 22)
        #expect(MarkerCluster.bubbleRadius(count: 1) == 18)

        // Off: every marker alone.
        c.configuration.clusterMarkers = false
        #expect(c.markerClusters().clusters.isEmpty && c.markerClusters().singles.count == 10)
    }

    @Test func aMarkerGoesToTheNearerClusterAndTheResultIsDeterministic() {
        // m1 is 46 px from m0 (which starts a cluster) and 44 px from m2 (which starts another):
        // it moves to the nearer one. m3 is 48 px from m2: inside (edges count).
        let c = clustering()
        add(c, [("m0", 300, 400), ("m1", 346, 400), ("m2", 390, 400), ("m3", 390, 448)])
        let (singles, clusters) = c.markerClusters()
        #expect(singles.map(\.id) == ["m0"])
        #expect(clusters.map(\.memberIDs) == [["m2", "m1", "m3"]])
        let again = clustering()
        add(again, [("m0", 300, 400), ("m1", 346, 400), ("m2", 390, 400), ("m3", 390, 448)])
        #expect(again.markerClusters().clusters == clusters)
    }

    @Test func theGridGivesTheSameAnswerAsEveryPairAndIsFast() {
        var random = SplitMix64(seed: 11)
        let c = clustering()
        var ms: [Marker] = []
        for i in 0..<2_000 {
            let p = Point(x: 640 + 900 * random.signedUnit(), y: 400 + 600 * random.signedUnit())
            ms.append(Marker(id: "m\(i)", position: c.projection.coordinate(at: p)!))
        }
        for m in ms { c.add(m) }
        let (singles, clusters) = c.markerClusters()
        let brute = bruteForce(ms, zoom: 12, radius: 48)
        #expect(Dictionary(uniqueKeysWithValues: clusters.map { ($0.memberIDs[0], $0.memberIDs) }) == brute)
        #expect(singles.count + clusters.reduce(0) { $0 + $1.count } == 2_000)

        // 10,000 markers over a city: well under a second.
        let big = clustering()
        for i in 0..<10_000 {
            let p = Point(x: 640 + 3000 * random.signedUnit(), y: 400 + 3000 * random.signedUnit())
            big.add(Marker(id: "n\(i)", position: big.projection.coordinate(at: p)!))
        }
        let start = DispatchTime.now().uptimeNanoseconds
        let r = big.markerClusters()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        #expect(r.singles.count + r.clusters.reduce(0) { $0 + $1.count } == 10_000)
        #expect(seconds < 1, "clustering 10,000 markers took \(seconds) s")
    }

    @Test func theResultIsCachedPerZoomLevelAndMarkers() {
        let c = clustering()
        add(c, [("a", 300, 300), ("b", 330, 300)])
        let r0 = c.clusteringRevision
        #expect(c.markerClusters().clusters.count == 1)
        c.move(to: CameraPosition(target: c.camera.target, zoom: 12.9), at: 1)
        #expect(c.clusteringRevision == r0)                  // same zoom level: same grouping
        c.move(to: CameraPosition(target: c.camera.target, zoom: 13.2), at: 2)
        #expect(c.markerClusters().clusters.isEmpty)         // 60 px apart at level 13
        #expect(c.clusteringRevision != r0)
        let r1 = c.clusteringRevision
        c.configuration.clusterRadius = 64
        #expect(c.markerClusters().clusters.count == 1)
        #expect(c.clusteringRevision != r1)
        let r2 = c.clusteringRevision
        c.add(Marker(id: "far", position: Coordinate(latitude: 10, longitude: 10)))
        #expect(c.clusteringRevision != r2)
    }

    @Test func clusteredMarkersAreNotHitTheirBubbleIs() {
        let c = clustering()
        let d = RecordingDelegate()
        c.delegate = d
        add(c, [("a", 400, 400), ("b", 420, 400), ("alone", 900, 400)])
        let tipA = screenPoint(c, c.marker(id: "a")!.position)
        #expect(c.marker(at: tipA + Point(x: 0, y: -30)) == nil)       // a's pin is not drawn
        #expect(c.marker(at: screenPoint(c, c.marker(id: "alone")!.position) + Point(x: 0, y: -30))?.id == "alone")
        let bubble = c.projection.point(for: c.markerClusters().clusters[0].coordinate)!
        // The bubble's radius for two: 18 + 4 log10(2) = 19.2 px.
        #expect(c.markerCluster(at: bubble + Point(x: 0, y: 19))?.id == "cluster:a")
        #expect(c.markerCluster(at: bubble + Point(x: 0, y: 19.5)) == nil)
        // Off: the pins are hit again.
        c.configuration.clusterMarkers = false
        #expect(c.marker(at: tipA + Point(x: 0, y: -30))?.id == "a")
        #expect(c.markerCluster(at: bubble) == nil)
    }

    @Test func aTapOnABubbleZoomsInUntilItSplits() throws {
        let c = clustering()
        let d = RecordingDelegate()
        c.delegate = d
        add(c, [("a", 600, 380), ("b", 615, 390), ("c", 625, 420), ("alone", 100, 100)])
        let cluster = try #require(c.markerClusters().clusters.first)
        #expect(cluster.memberIDs == ["a", "b", "c"])
        let zoom0 = c.camera.zoom
        c.handle(tap(1, at: c.projection.point(for: cluster.coordinate)!))
        runUntilIdle(c, limit: 5)
        let story = d.calls.reduce(into: [String]()) { out, n in if !(n == "didChange" && out.last == n) { out.append(n) } }
        #expect(story == ["willMove(false)", "didChange", "idleAt"])
        #expect(!d.calls.contains("didTapAt"))
        #expect(types(c.drainEvents()).filter { $0 != "didChange" } == ["willMove", "idleAt"])
        #expect(c.camera.zoom >= zoom0 + 1)
        #expect(c.camera.zoom <= c.configuration.limits.maxZoom)
        // Split: each member alone, all on screen.
        let after = c.markerClusters()
        #expect(after.clusters.isEmpty)
        for id in cluster.memberIDs {
            let p = screenPoint(c, c.marker(id: id)!.position)
            #expect(p.x > 0 && p.x < testScreen.width && p.y > 0 && p.y < testScreen.height)
            #expect(c.marker(at: p + Point(x: 0, y: -20))?.id == id)
        }
    }

    @Test func coincidentMarkersZoomToFitMaxZoomThenOneLevelPerTap() throws {
        let c = clustering()
        add(c, [("a", 600, 380), ("b", 600, 380)])
        let cluster = try #require(c.markerClusters().clusters.first)
        c.handle(tap(1, at: c.projection.point(for: cluster.coordinate)!))
        runUntilIdle(c, limit: 5)
        #expect(abs(c.camera.zoom - c.configuration.fitMaxZoom) < 1e-9)
        let again = try #require(c.markerClusters().clusters.first)
        c.handle(tap(6, at: c.projection.point(for: again.coordinate)!))
        runUntilIdle(c, limit: 10)
        #expect(abs(c.camera.zoom - (c.configuration.fitMaxZoom + 1)) < 1e-9)
        let p = c.projection.point(for: cluster.coordinate)!
        #expect(p.x > 0 && p.x < testScreen.width && p.y > 0 && p.y < testScreen.height)
    }
}
