import Testing
@testable import TouchBridge
@testable import Kiosk

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

    /// `[map] language`: a language code for the street map's labels; the default keeps the local names.
    @Test func labelLanguage() throws {
        #expect(try KioskConfiguration.parse(text: "[map]\nlanguage = \"ja\"\n", file: "t.toml").map.language == "ja")
        #expect(try KioskConfiguration.parse(text: "[map]\nlanguage = \"zh-Hant\"\n", file: "t.toml").map.language == "zh-Hant")
        #expect(try KioskConfiguration.parse(text: "[map]\nzoom = 3\n", file: "t.toml").map.language == nil)
        #expect(try KioskConfiguration.parse(text: "[map]\nlanguage = \"\"\n", file: "t.toml").map.language == nil)
        for bad in ["japanese", "j", "ja;rm"] {
            #expect(throws: ConfigError.self) { try KioskConfiguration.parse(text: "[map]\nlanguage = \"\(bad)\"\n", file: "t.toml") }
        }
    }

    /// text_scale is 0.5...3; outside it the error names the file, the line and the range.
    @Test func textScaleIsRangeChecked() throws {
        #expect(try KioskConfiguration.parse(text: "[map]\ntext_scale = 3\n", file: "t.toml").map.textScale == 3)
        #expect(try KioskConfiguration.parse(text: "[map]\nzoom = 3\n", file: "t.toml").map.textScale == 1)
        for bad in ["3.5", "0.4", "-1"] {
            do {
                _ = try KioskConfiguration.parse(text: "[map]\nzoom = 3\ntext_scale = \(bad)\n", file: "/etc/touchbridge.toml")
                Issue.record("text_scale = \(bad) was accepted")
            } catch {
                let message = "\(error)"
                #expect(message.contains("/etc/touchbridge.toml:3") && message.contains("text_scale") && message.contains("0.5...3"), "\(message)")
            }
        }
    }
}
