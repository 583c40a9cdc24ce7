import Foundation
import Testing
@testable import MapEngine

/// What a marker's title and snippet may hold (issue 31: 700 markers with 1 MB titles took
/// 712 MB; a title of one letter and 80,000 combining accents made a frame take 45 s).
@Suite struct MarkerLimitsTests {
    @Test func realTextsAreWithinTheLimits() {
        for s in ["Cafe", "Musée du Louvre — Entrée Pyramide", "नमस्ते", "ཧཱུྃ", "👩🏽‍❤️‍💋‍👨🏿 👨‍👩‍👧‍👦 🇱🇮", "東京都庁",
                  String(repeating: "x", count: MarkerLimits.maxTitleBytes),
                  "a" + String(repeating: "\u{0301}", count: MarkerLimits.maxScalarsPerCharacter - 1)] {
            #expect(MarkerLimits.problem(s, key: "title", maxBytes: MarkerLimits.maxTitleBytes) == nil, "\(s)")
        }
    }

    @Test func tooManyBytesOrMarksAreNamed() throws {
        let long = try #require(MarkerLimits.problem(String(repeating: "x", count: 1_000_000), key: "title", maxBytes: MarkerLimits.maxTitleBytes))
        #expect(long.contains("\"title\" is 1000000 bytes") && long.contains("at most 1024 bytes"), "\(long)")
        let zalgo = "Caf" + "e" + String(repeating: "\u{0301}", count: 100)
        let marks = try #require(MarkerLimits.problem(zalgo, key: "snippet", maxBytes: MarkerLimits.maxSnippetBytes))
        #expect(marks.contains("character 3") && marks.contains("100 combining marks") && marks.contains("at most 32 code points"), "\(marks)")
        // Joiners make one character too.
        #expect(MarkerLimits.problem("a" + String(repeating: "\u{200D}", count: 40), key: "title", maxBytes: 1024) != nil)
    }

    @Test func aGeoJSONPointsTitleIsHeldToTheSameLimits() throws {
        let big = String(repeating: "x", count: MarkerLimits.maxTitleBytes + 1)
        let json: JSONValue = .object([("type", .string("Feature")),
                                       ("geometry", .object([("type", .string("Point")), ("coordinates", .array([.number(9.5), .number(47.1)]))])),
                                       ("properties", .object([("title", .string(big))]))])
        do { _ = try GeoJSON.overlay(id: "o", json: json); Issue.record("accepted") } catch {
            #expect("\(error)".contains("properties.title") && "\(error)".contains("at most 1024 bytes"), "\(error)")
        }
    }
}
