import Testing
@testable import TouchBridge

@Suite struct StreetMapConfigTests {
    @Test func tilesSourceAndTheOldSpellingsMeanTheSame() throws {
        let new = try KioskConfiguration.parse(text: "[map]\nsource = \"tiles\"\ntiles = \"/x/li.pmtiles\"\nstyle = \"/x/s.json\"\ntext_scale = 1.5\n", file: "t.toml")
        #expect(new.map.source == .mbtiles("/x/li.pmtiles") && new.map.style == "/x/s.json" && new.map.textScale == 1.5)
        let implied = try KioskConfiguration.parse(text: "[map]\ntiles = \"/x/li.mbtiles\"\n", file: "t.toml")
        #expect(implied.map.source == .mbtiles("/x/li.mbtiles"))
        let old = try KioskConfiguration.parse(text: "[map]\nsource = \"mbtiles\"\nmbtiles = \"/x/li.mbtiles\"\n", file: "t.toml")
        #expect(old.map.source == .mbtiles("/x/li.mbtiles"))
        #expect(throws: ConfigError.self) { try KioskConfiguration.parse(text: "[map]\nsource = \"tiles\"\n", file: "t.toml") }
        #expect(throws: ConfigError.self) { try KioskConfiguration.parse(text: "[map]\ntext_scale = 9.0\n", file: "t.toml") }
    }
}
