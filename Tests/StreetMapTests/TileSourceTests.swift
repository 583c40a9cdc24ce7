import Foundation
import Testing
@testable import TileSources
@testable import VectorTiles

func fixture(_ name: String) -> String {
    Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")!.path
}
let mbtilesPath = fixture("liechtenstein-openmaptiles.mbtiles")
let pmtilesPath = fixture("liechtenstein-openmaptiles.pmtiles")

@Suite struct TileSourceTests {
    @Test func archivesAreToldApartByContentNotName() throws {
        // Copies under misleading names open as what they are.
        let dir = FileManager.default.temporaryDirectory
        let fakePM = dir.appendingPathComponent("tb-\(getpid())-really-mbtiles.pmtiles").path
        let fakeMB = dir.appendingPathComponent("tb-\(getpid())-really-pmtiles.mbtiles").path
        try? FileManager.default.removeItem(atPath: fakePM); try? FileManager.default.removeItem(atPath: fakeMB)
        try FileManager.default.copyItem(atPath: mbtilesPath, toPath: fakePM)
        try FileManager.default.copyItem(atPath: pmtilesPath, toPath: fakeMB)
        defer { try? FileManager.default.removeItem(atPath: fakePM); try? FileManager.default.removeItem(atPath: fakeMB) }
        #expect(try TileArchive.open(path: fakePM) is MBTiles)
        #expect(try TileArchive.open(path: fakeMB) is PMTiles)
        let notATileSet = dir.appendingPathComponent("tb-\(getpid())-text.mbtiles").path
        try Data("hello".utf8).write(to: URL(fileURLWithPath: notATileSet))
        defer { try? FileManager.default.removeItem(atPath: notATileSet) }
        #expect(throws: TileSourceError.unknownContainer(path: notATileSet)) { try TileArchive.open(path: notATileSet) }
    }

    @Test func vectorMetadataFromBothContainers() throws {
        let mb = try TileArchive.open(path: mbtilesPath), pm = try TileArchive.open(path: pmtilesPath)
        for m in [mb.metadata, pm.metadata] {
            #expect(m.kind == .vector)
            #expect(m.minZoom == 0 && m.maxZoom == 14)
            #expect(m.vectorLayers.contains("transportation") && m.vectorLayers.contains("building"))
            let b = try #require(m.bounds)
            #expect(abs(b.west - 9.471) < 0.01 && abs(b.north - 47.271) < 0.01)
        }
    }

    @Test func pmtilesAndMBTilesHoldTheSameTiles() throws {
        let mb = try TileArchive.open(path: mbtilesPath), pm = try TileArchive.open(path: pmtilesPath)
        var compared = 0
        // Every zoom-14 tile around Vaduz (47.141 N, 9.521 E is tile 8625/5757 at z14).
        for x in 8620...8630 { for y in 5750...5765 {
            let a = try mb.tileData(z: 14, x: x, y: y), b = try pm.tileData(z: 14, x: x, y: y)
            #expect(a == b, "tile 14/\(x)/\(y)")
            if a != nil { compared += 1 }
        } }
        #expect(compared > 40)
        #expect(try pm.tileData(z: 0, x: 0, y: 0) == mb.tileData(z: 0, x: 0, y: 0))
        #expect(try pm.tileData(z: 14, x: 0, y: 0) == nil)
    }

    @Test func hilbertTileIDsMatchTheSpec() {
        // Values from the PMTiles v3 spec's reference implementation.
        #expect(PMTiles.tileID(z: 0, x: 0, y: 0) == 0)
        #expect(PMTiles.tileID(z: 1, x: 0, y: 0) == 1)
        #expect(PMTiles.tileID(z: 1, x: 0, y: 1) == 2)
        #expect(PMTiles.tileID(z: 1, x: 1, y: 1) == 3)
        #expect(PMTiles.tileID(z: 1, x: 1, y: 0) == 4)
        #expect(PMTiles.tileID(z: 2, x: 0, y: 0) == 5)
        #expect(PMTiles.tileID(z: 12, x: 3423, y: 1763) == 19078479)
    }

    @Test func vectorTileDecodesToFeatures() throws {
        let mb = try TileArchive.open(path: mbtilesPath)
        let data = try #require(try mb.tileData(z: 14, x: 8625, y: 5757))
        let tile = try VectorTile(data: data)
        #expect(tile.layers["transportation"]?.features.isEmpty == false)
        #expect(tile.layers["building"]?.features.contains { $0.type == .polygon } == true)
        let extent = try #require(tile.layers["building"]?.extent)
        #expect(extent == 4096)
    }
}
