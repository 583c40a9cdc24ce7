import Foundation
import Testing
@testable import TouchBridge
@testable import Kiosk

/// Texts on which TOMLKit's toml++ asserts (SIGABRT) are refused before it sees them, with the
/// file, line and column; the three inputs are the fuzzer's finds (Fuzz/crashes/fuzz-config).
@Suite struct TOMLGuardTests {
    func error(_ bytes: [UInt8]) -> ConfigError? {
        do {
            _ = try KioskConfiguration.parse(text: String(decoding: bytes, as: UTF8.self), file: "bad.toml")
            return nil
        } catch let e as ConfigError { return e } catch { return nil }
    }
    func error(_ text: String) -> ConfigError? { error(Array(text.utf8)) }

    @Test func fuzzerFindControlCharacterInTableHeader() throws {
        // control-character-in-table-header.toml, through load(path:) as the kiosk reads it
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tb-guard-\(getpid()).toml")
        try Data([0x5b, 0x01, 0x5d, 0x0a]).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            _ = try KioskConfiguration.load(path: url.path)
            Issue.record("expected a ConfigError")
        } catch let e as ConfigError {
            #expect(e.file == url.path && e.line == 1 && e.column == 2)
            #expect(e.message.contains("control character U+0001"))
            #expect(e.message.contains("delete it"))
            #expect(e.description.hasPrefix("\(url.path):1:2: control character U+0001"))
        }
    }

    @Test func fuzzerFindNonASCIITableName() {
        // non-ascii-table-name.toml: "[ é ]"
        let e = error([0x5b, 0x20, 0xc3, 0xa9, 0x20, 0x5d, 0x0a])
        #expect(e?.line == 1 && e?.column == 3)
        #expect(e?.message.contains("cannot start with 'é'") == true && e?.message.contains("quotes") == true)
        // and the invalid UTF-8 byte the fuzzer found after "[[" (decoded to U+FFFD)
        #expect(error([0x5b, 0x5b, 0xff, 0x5d, 0x5d, 0x0a])?.line == 1)
        #expect(error("[é]\n")?.column == 2)
        #expect(error("[[é]]\n")?.column == 3)
    }

    @Test func fuzzerFindTruncatedTableHeader() {
        // truncated-table-header.toml: "[display.\n[" (the file ends after the "[")
        let e = error([0x5b, 0x64, 0x69, 0x73, 0x70, 0x6c, 0x61, 0x79, 0x0a, 0x5b])
        #expect(e?.line == 2 && e?.column == 2)
        #expect(e?.message.contains("a table header needs a name") == true)
    }

    @Test func aValueThatStartsWithATerminatorIsRefused() {
        // fuzz-config (after the header guard): "a=[}}" made toml++ assert in parse_value.
        let e = error("a=[}}")
        #expect(e?.line == 1 && e?.column == 4)
        #expect(e?.message.contains("a value is missing") == true)
        for text in ["a = ]\n", "a = }\n", "a = ,\n", "a = [1, }\n", "a = [,]\n", "a = [1,\n ,]\n"] {
            #expect(error(text)?.message.contains("a value is missing") == true, "\(text.debugDescription)")
        }
        // A byte order mark before a header (fuzz-config: EF BB BF "[@") is no hiding place.
        #expect(error([0xef, 0xbb, 0xbf, 0x5b, 0x40])?.message.contains("a table header") == true)
        // Valid TOML with the same characters is untouched.
        for text in ["a = []\n", "a = [ ]\n", "a = [1, 2, ]\n", "a = {}\n", "a = { b = 1, c = [2, 3] }\n",
                     "a = [\n  1,\n  2,\n]\n", "s = \"=]}, \"\n", "[display]\nbackend = \"png\" # = ]\n"] {
            #expect(error(text)?.message.contains("a value is missing") != true, "\(text.debugDescription)")
        }
    }

    @Test func everyHeaderShapeTheREADMENames() {
        for (text, line) in [("[\n", 1), ("[[\n", 1), ("[", 1), ("[[", 1), ("[#\n", 1), ("[ # x\n", 1),
                             ("[display]\nbackend = \"png\"\n\n  [[[c]]]\n", 4), ("[[[c", 1), ("[\r\n", 1)] {
            let e = error(text)
            #expect(e?.line == line, "\(text.debugDescription)")
            #expect(e?.column != nil, "\(text.debugDescription)")
        }
        // What toml++ already refuses properly still reaches it (and says "syntax").
        #expect(error("[]\n")?.message.contains("syntax") == true)
        #expect(error("[a.é]\n")?.message.contains("syntax") == true)
    }

    @Test func everyControlCharacterButTabAndLineEndsIsRefused() {
        for v in Array(0x00...0x1f) + [0x7f] where v != 0x09 && v != 0x0a && v != 0x0d {
            let bytes: [UInt8] = Array("[log]\nlevel = \"info\" # ".utf8) + [UInt8(v)] + Array("\n".utf8)
            let e = error(bytes)
            #expect(e?.line == 2 && e?.column == 18, "U+\(String(v, radix: 16))")
        }
        #expect(error("[log]\r\nlevel = \"info\"\r\n\tevents = \"-\"\r\n") == nil)
        #expect(error("[log]\rlevel = \"info\"\n")?.message.contains("carriage return") == true)
    }

    /// A "[" that starts a line inside a multi-line array or string is a value, not a header.
    @Test func bracketsInValuesAreNotHeaders() throws {
        let cfg = try KioskConfiguration.parse(text: """
            [gestures]
            enabled = [
            "tap", "pan",
            ]
            [[touch]]
            calibration = [
              1.0, 0.0, 0.0,
              0.0, 1.0, 0.0 ]
            [[markers]]
            latitude = 1.0
            longitude = 2.0
            snippet = \"\"\"
            [# a line of text \\
            [é]\"\"\"
            title = '''
            [[[ ]]]'''
            ["camera"]
            mode = "free"
            """, file: "ok.toml")
        #expect(cfg.gestures.enabled == [.tap, .pan])
        #expect(cfg.touch.first?.calibration == [1, 0, 0, 0, 1, 0])
        #expect(cfg.markers.first?.snippet == "[# a line of text [é]")
        #expect(cfg.markers.first?.title == "[[[ ]]]")
    }
}
