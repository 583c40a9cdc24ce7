import Testing
import MapEngine
@testable import Rendering

@Suite struct BuiltInWorldTests {
    @Test func resourceHasThreeLevelsPerLayerWithMoreDetailAtHigherZoom() throws {
        let world = BuiltInWorld.shared
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
        #expect(cities.count == 243)
        let madrid = try #require(cities.first { $0.name == "Madrid" })
        #expect(abs(madrid.coordinate.latitude - 40.4) < 0.1 && abs(madrid.coordinate.longitude + 3.7) < 0.1)
        #expect(madrid.minZoom == 3)   // Spain: 30..100 M people
        let brasilia = try #require(cities.first { $0.name == "Brasília" }, "ISO-8859-1 names are decoded")
        #expect(brasilia.minZoom == 2)  // Brazil: over 100 M people
    }

    @Test func damagedResourceIsAnError() {
        #expect(throws: BuiltInWorld.FormatError.self) { try BuiltInWorld(data: Data("TBWM".utf8)) }
        #expect(throws: BuiltInWorld.FormatError.self) { try BuiltInWorld(data: Data("XXXX\u{1}\0\0\0".utf8)) }
    }
}

import Foundation
