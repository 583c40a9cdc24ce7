import Testing
import Foundation
import MapEngine
@testable import Rendering

/// Place names on the built-in world map are ranked by the place's own importance (its
/// population and whether it is a national capital), not by its country's (issue #16): a
/// microstate's capital must not win a label collision over a city of millions next to it.
@Suite struct PlaceRankingTests {
    func scene(_ lat: Double, _ lon: Double, _ zoom: Double) -> MapScene {
        MapScene(camera: CameraPosition(target: Coordinate(latitude: lat, longitude: lon), zoom: zoom, bearing: 0, tilt: 0))
    }

    @Test func europeShowsRomeIstanbulMilanAndAmsterdam() throws {
        let renderer = MapRenderer()
        let f = RenderedFrame(scene(46.5, 17, 5), width: 1024, height: 768, renderer: renderer, name: "places-europe-z5")
        let names = renderer.drawnPlaces.filter { $0.kind == .city }.map(\.name)
        for city in ["Rome", "Istanbul", "Milan", "Amsterdam"] {
            let place = try #require(renderer.drawnPlaces.first { $0.name == city }, "\(city) is labelled; drawn: \(names)")
            // The label sits at the city's own point on screen (where its dot is drawn: the
            // overlay layer is copied at a whole-pixel offset, so within half a pixel each way).
            #expect(place.point.distance(to: f.screenPoint(place.coordinate.latitude, place.coordinate.longitude)) < 0.71)
            #expect(place.point.x > 0 && place.point.x < 1024 && place.point.y > 0 && place.point.y < 768)
        }
        let rome = try #require(renderer.drawnPlaces.first { $0.name == "Rome" })
        #expect(abs(rome.coordinate.latitude - 41.9) < 0.1 && abs(rome.coordinate.longitude - 12.5) < 0.1)
        #expect(!names.contains("Vatican City"), "Vatican City's label would cover Rome's")
    }

    /// Zoomed in to where both are eligible, Rome is placed first and Vatican City, whose label
    /// would overlap Rome's, is the one left out.
    @Test func romeWinsTheCollisionWithVaticanCity() throws {
        let renderer = MapRenderer()
        _ = RenderedFrame(scene(42, 12.5, 6.5), width: 800, height: 600, renderer: renderer, name: "places-rome-z6.5")
        let eligible = try BuiltInWorld.load().places.filter { $0.kind == .city && $0.minZoom <= 6.5 }.map(\.name)
        #expect(eligible.contains("Vatican City") && eligible.contains("Rome"), "both compete at this zoom")
        let cities = renderer.drawnPlaces.filter { $0.kind == .city }.map(\.name)
        #expect(cities.contains("Rome"))
        #expect(!cities.contains("Vatican City"))
    }

    @Test func kazakhstansCapitalIsAstana() throws {
        let renderer = MapRenderer()
        _ = RenderedFrame(scene(48, 68, 4.5), width: 800, height: 600, renderer: renderer, name: "places-kazakhstan-z4.5")
        let astana = try #require(renderer.drawnPlaces.first { $0.name == "Astana" },
                                  "drawn: \(renderer.drawnPlaces.map(\.name))")
        #expect(abs(astana.coordinate.latitude - 51.2) < 0.2 && abs(astana.coordinate.longitude - 71.4) < 0.3)
        #expect(!renderer.drawnPlaces.contains { $0.name == "Nur-Sultan" })
        #expect(!BuiltInWorld.cities.contains { $0.name == "Nur-Sultan" })
    }

    /// The data itself: min zoom follows the place's own size, capitals one step earlier.
    @Test func minZoomFollowsTheCitysOwnSize() throws {
        let cities = BuiltInWorld.cities
        func mz(_ name: String) throws -> Double { try #require(cities.first { $0.name == name }, "\(name)").minZoom }
        #expect(try mz("Rome") < mz("Vatican City"))
        #expect(try mz("Istanbul") <= mz("Ankara"), "Turkey's largest city shows no later than its capital")
        #expect(try mz("Milan") < mz("Vaduz"))
        #expect(try mz("Amsterdam") < mz("Luxembourg"))
        #expect(try mz("Vatican City") <= 6, "every national capital shows by zoom 6")
        // Within a zoom, places come in priority order: capitals, then by population.
        let world = try BuiltInWorld.load()
        let z3 = world.places.filter { $0.kind == .city && $0.minZoom == 3 }.map(\.name)
        let rome = try #require(z3.firstIndex(of: "Rome")), napl = z3.firstIndex(of: "Naples")
        #expect(napl == nil || rome < napl!)
        let order = world.places.filter { $0.kind == .city }.map(\.minZoom)
        #expect(order == order.sorted(), "cities are stored by min zoom, so file order is label priority")
    }
}
