import Testing
import Display
import TouchDevices
@testable import TouchBridge
@testable import Kiosk

/// One parser each for mode and device-match strings: the file ([display] mode, [[touch]]
/// match) and the command line (render --mode, calibrate/tune --device, replay --live --follow,
/// all through `ConfigStrings`) accept the same inputs and get the same domain values.
@Suite struct ConfigStringsTests {
    func fileMode(_ s: String) throws -> ModeRequest? {
        try KioskConfiguration.parse(text: "[display]\nmode = \"\(s)\"\n", file: "t.toml").display.mode
    }
    func fileMatch(_ s: String) throws -> TouchDeviceMatch? {
        try KioskConfiguration.parse(text: "[[touch]]\nmatch = \"\(s)\"\n", file: "t.toml").touch[0].match
    }

    @Test func modesReadTheSameInTheFileAndOnTheCommandLine() throws {
        let cases: [(String, ModeRequest?)] = [
            ("preferred", nil),
            ("1920x1080", ModeRequest(width: 1920, height: 1080)),
            ("1920x1080@60", ModeRequest(width: 1920, height: 1080, refreshHz: 60)),
            // Formerly only the command line took these two; the file refused them.
            ("1280X800@75", ModeRequest(width: 1280, height: 800, refreshHz: 75)),
            ("1920x1080@59.94", ModeRequest(width: 1920, height: 1080, refreshHz: 60)),
        ]
        for (text, want) in cases {
            #expect(try ConfigStrings.mode(text) == want, "\(text)")
            #expect(try fileMode(text) == want, "\(text)")
        }
        for bad in ["big", "1920", "x1080", "1920x1080@", "axb", "1920x1080@60@2", "0x10", "1920x1080@0", "1920x1080@nan", ""] {
            #expect(throws: ConfigStrings.Invalid.self, "\(bad)") { try ConfigStrings.mode(bad) }
            do { _ = try fileMode(bad); Issue.record("the file took \(bad)") } catch let e as ConfigError {
                #expect(e.key == "display.mode" && e.line == 2 && e.message.contains("\"1920x1080@60\""), "\(bad)")
            }
        }
        #expect(try ConfigStrings.size("800x480") == (800, 480))
        #expect(throws: ConfigStrings.Invalid.self) { try ConfigStrings.size("800x480@60") }
        #expect(throws: ConfigStrings.Invalid.self) { try ConfigStrings.size("preferred") }
        // Issue 31: sizes that trapped (an Int overflow near Int.max) or asked for 40 GB.
        for huge in ["9223372036854775807x2", "100000x100000", "16385x10", "10000x10000"] {
            #expect(throws: ConfigStrings.Invalid.self, "\(huge)") { try ConfigStrings.size(huge) }
            #expect(throws: ConfigStrings.Invalid.self, "\(huge)") { try ConfigStrings.mode(huge) }
        }
        #expect(try ConfigStrings.size("7680x4320") == (7680, 4320))
        #expect(try ConfigStrings.size("16384x16") == (16384, 16))
    }

    @Test func deviceMatchesReadTheSameInTheFileAndOnTheCommandLine() throws {
        let cases: [(String, TouchDeviceMatch?)] = [
            ("auto", nil),
            ("/dev/input/event3", .path("/dev/input/event3")),
            ("0eef:0001", .vendorProduct(vendor: 0x0eef, product: 0x0001)),
            ("04F3:0732", .vendorProduct(vendor: 0x04f3, product: 0x0732)),
            ("name:Goodix", .name("Goodix")),
            ("name:04f3:0732", .name("04f3:0732")),
            // Formerly the command line read these as name substrings and the file refused
            // them; the file used to be the only one that knew "name:" and "auto".
            (" maXTouch ", .name("maXTouch")),
            ("ELAN", .name("ELAN")),
            ("12:34", .name("12:34")),
            ("zzzz:0001", .name("zzzz:0001")),
        ]
        for (text, want) in cases {
            #expect(try ConfigStrings.deviceMatch(text) == want, "\(text)")
            #expect(try fileMatch(text) == want, "\(text)")
        }
        for bad in ["", "  ", "name:", "name:  "] {
            #expect(throws: ConfigStrings.Invalid.self, "\(bad.debugDescription)") { try ConfigStrings.deviceMatch(bad) }
            do { _ = try fileMatch(bad); Issue.record("the file took \(bad.debugDescription)") } catch let e as ConfigError {
                #expect(e.key == "touch.match" && e.message.contains("VVVV:PPPP"))
            }
        }
    }
}
