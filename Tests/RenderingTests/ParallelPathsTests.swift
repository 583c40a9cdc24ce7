import Foundation
import Testing
import MapEngine
import TouchCore
@testable import Rendering

/// The world's paths built on several threads are the paths built on one, every time: each
/// build writes its own result slot, and none is lost to another's write (a shared array
/// written from three threads lost the land in about one process of a hundred).
@Suite struct ParallelPathsTests {
    static func summary(_ p: VectorMapPainter.Paths) -> [Int] {
        [p.land.map { Int($0.pointee.num_data) } ?? -1, p.rivers.map { Int($0.pointee.num_data) } ?? -1,
         p.borders.map { Int($0.pointee.num_data) } ?? -1, p.riverSegments.count, p.borderSegments.count]
    }

    @Test func parallelBuildsKeepEveryLayer() throws {
        let world = try BuiltInWorld.load()
        let painter = VectorMapPainter(world: world, style: .standard)
        let camera = CameraPosition(target: Coordinate(latitude: 40, longitude: -4), zoom: 4.5)
        let view = GroundView(projection: Projection(camera: camera, screen: Size(width: 1024, height: 768)))
        let serial = painter.paths(view: view, zoom: camera.zoom)
        let expected = Self.summary(serial)
        serial.free()
        #expect(expected.allSatisfy { $0 > 0 }, "the view has land, rivers and borders: \(expected)")
        // The task beside the paths (the overlays' preparation) runs once a build, on any thread.
        final class Count: @unchecked Sendable {
            let lock = NSLock()
            var n = 0
            func add() { lock.lock(); n += 1; lock.unlock() }
        }
        let count = Count()
        var lost = 0
        for i in 0..<400 {
            let beside: (@Sendable () -> Void)? = i % 2 == 0 ? { @Sendable in count.add() } : nil
            let p = painter.paths(view: view, zoom: camera.zoom, parallel: true, alongside: beside)
            if Self.summary(p) != expected { lost += 1 }
            p.free()
        }
        #expect(lost == 0, "\(lost) of 400 parallel builds differ from the serial one")
        #expect(count.n == 200)
    }
}
