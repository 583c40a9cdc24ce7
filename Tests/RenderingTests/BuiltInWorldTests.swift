import Testing
import Foundation
import MapEngine
@testable import Rendering

@Suite struct BuiltInWorldTests {
    /// Damaged data is an error naming what is wrong, not a trap; the load error names the
    /// file and what to do.
    @Test func damagedDataThrowsAClearError() {
        #expect(throws: BuiltInWorld.FormatError.self) { _ = try BuiltInWorld(data: Data("TBWM".utf8)) }
        #expect(throws: BuiltInWorld.FormatError.self) { _ = try BuiltInWorld(data: Data([1, 2, 3])) }
        let e = BuiltInWorld.LoadError.damaged(path: "/usr/share/touchbridge/world.bin", reason: "world.bin: truncated")
        #expect(e.description.contains("/usr/share/touchbridge/world.bin"))
        #expect(e.description.contains("reinstall"))
        #expect(BuiltInWorld.LoadError.missing.description.contains("TOUCHBRIDGE_WORLD"))
        #expect(MapRenderer(world: .empty).world.levels.isEmpty)
    }

    @Test func resourceHasThreeLevelsPerLayerWithMoreDetailAtHigherZoom() throws {
        let world = try BuiltInWorld.load()
        for name in ["land", "borders", "rivers"] {
            let coarse = try #require(world.level(name, zoom: 1))
            let middle = try #require(world.level(name, zoom: 4))
            let fine = try #require(world.level(name, zoom: 9))
            #expect(coarse.minZoom == 0 && middle.minZoom == 3 && fine.minZoom == 5)
            let points = [coarse, middle, fine].map { $0.parts.reduce(0) { $0 + $1.points.count } }
            #expect(points[0] < points[1] && points[1] < points[2], "\(name): \(points)")
        }
    }

    @Test func citiesCarryNamesCoordinatesAndMinZoom() throws {
        let cities = BuiltInWorld.cities
        // Natural Earth's 243 populated places plus GeoNames' cities of 750,000 people or more.
        #expect(cities.count > 600 && cities.count < 1000)
        let madrid = try #require(cities.first { $0.name == "Madrid" })
        #expect(abs(madrid.coordinate.latitude - 40.4) < 0.1 && abs(madrid.coordinate.longitude + 3.7) < 0.1)
        #expect(madrid.minZoom == 3)   // a capital of 2..5 M people
        let brasilia = try #require(cities.first { $0.name == "Brasília" }, "ISO-8859-1 names are decoded")
        #expect(brasilia.minZoom == 3)  // a capital of 2..5 M people (was 2: Brazil's population)
        let saoPaulo = try #require(cities.first { $0.name == "São Paulo" })
        #expect(saoPaulo.minZoom == 2)  // over 10 M people
        #expect(cities.contains { $0.name == "Chișinău" }, "names GeoNames lacks letters for stay Natural Earth's")
    }

    @Test func damagedResourceIsAnError() {
        #expect(throws: BuiltInWorld.FormatError.self) { try BuiltInWorld(data: Data("TBWM".utf8)) }
        #expect(throws: BuiltInWorld.FormatError.self) { try BuiltInWorld(data: Data("XXXX\u{1}\0\0\0".utf8)) }
    }
}

import Foundation
