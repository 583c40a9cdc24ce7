import Testing
@testable import MapEngine

/// The strict JSON reader the control socket and the GeoJSON reader share.
@Suite struct JSONTests {
    func error(_ text: String) -> String? {
        do { _ = try JSONValue.parse(text); return nil } catch { return "\(error)" }
    }

    @Test func surrogatePairsDecode() throws {
        #expect(try JSONValue.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try JSONValue.parse(#""\uD83D\uDE00x""#) == .string("😀x"))
        #expect(try JSONValue.parse(#""\u00e9\u0041\uffff""#) == .string("éA\u{FFFF}"))
    }

    /// Regression: a high surrogate followed by a `\u` escape that is not a low surrogate
    /// trapped (an unsigned underflow in `low - 0xDC00`). Now each case is an error that says so.
    @Test func highSurrogateFollowedByANonLowEscapeIsAnError() {
        let m = error(#""\ud800\u0041""#)
        #expect(m?.contains("high surrogate \\uD800 is followed by \\u0041") == true, "\(m ?? "parsed")")
        #expect(m?.contains("at byte 2") == true)
        #expect(error(#""\ud800\ud800""#)?.contains("not by a low surrogate") == true)
        #expect(error(#""\udbff\uffff""#)?.contains("not by a low surrogate") == true)
        #expect(error(#"{"cmd": "\ud83d\u0000"}"#) != nil)
    }

    @Test func loneSurrogatesAreErrors() {
        #expect(error(#""\udc00""#)?.contains("lone low surrogate \\uDC00") == true)
        #expect(error(#""a\udfffb""#)?.contains("lone low surrogate") == true)
        // A high surrogate at the end of the string, before other text, or at the end of the input.
        #expect(error(#""\ud800""#)?.contains("not followed by a low surrogate") == true)
        #expect(error(#""\ud800x""#)?.contains("not followed by a low surrogate") == true)
        #expect(error(#""\ud800\n""#)?.contains("not followed by a low surrogate") == true)
        #expect(error(#""\ud800"#) != nil)
        #expect(error(#""\ud800\u"#) != nil)
        #expect(error(#""\ud800\udc0"#) != nil)
    }

    @Test func hexEscapesTakeFourDigitsOnly() {
        #expect(error(#""\u+041""#)?.contains("four hex digits") == true)
        #expect(error(#""\u-041""#)?.contains("four hex digits") == true)
        #expect(error(#""\u04g1""#)?.contains("four hex digits") == true)
        #expect(error(#""\u041""#)?.contains("four hex digits") == true)
    }

    @Test func textEscapesAsTheEventStream() throws {
        let v = try JSONValue.parse(#"{"a\"b": ["x\ny\t\u0001", 1.5, -2, 1e20, null, true]}"#)
        #expect(v.text == #"{"a\"b":["x\ny\t\u0001",1.5,-2,1e+20,null,true]}"#)
        #expect(JSONValue.string("é\\").text == MapEvent.string("é\\"))
    }

    @Test func depthAndNumbersAreBounded() {
        #expect(error(String(repeating: "[", count: 10_000))?.contains("nested too deeply") == true)
        #expect(error(String(repeating: "{\"a\":", count: 10_000))?.contains("nested too deeply") == true)
        #expect(error("1e999")?.contains("out of range") == true)
        #expect(error("NaN") != nil)
        #expect(error("-Infinity") != nil)
        #expect(error("[1,]") != nil)
        #expect(error("tru") != nil)
        #expect((try? JSONValue.parse(String(repeating: "[", count: 63) + String(repeating: "]", count: 63))) != nil)
    }

    /// The parser's fast path for short numbers gives the same doubles, bit for bit, as
    /// Double(String) (strtod) does, and falls back to it for the rest.
    @Test func numbersReadAsStrtodReadsThem() throws {
        var texts = ["0", "-0", "0.0", "-0.0", "1", "-1", "1e22", "1e23", "1E-22", "1e-23", "123456789012345", "1234567890123456",
                     "9007199254740993", "123456789012345e-22", "0.1", "0.3", "9.5209", "-179.99999999999997", "47.14100000000001",
                     "1.7976931348623157e308", "5e-324", "2.2250738585072014e-308", "0.000000000000000000001", "1e000007", "12e-0"]
        var state: UInt64 = 0x9E3779B97F4A7C15
        func next() -> UInt64 { state = state &* 6364136223846793005 &+ 1442695040888963407; return state >> 11 }
        for _ in 0..<20_000 {
            let intDigits = Int(next() % 12), fracDigits = Int(next() % 14)
            var t = next() % 2 == 0 ? "-" : ""
            t += intDigits == 0 ? "0" : String(next() % 9 + 1) + (0..<intDigits).map { _ in String(next() % 10) }.joined()
            if fracDigits > 0 { t += "." + (0..<fracDigits).map { _ in String(next() % 10) }.joined() }
            if next() % 3 == 0 { t += "e" + (next() % 2 == 0 ? "-" : "") + String(next() % 30) }
            texts.append(t)
        }
        for t in texts {
            let v = try JSONValue.parse(t)
            guard case .number(let d) = v, let expected = Double(t) else { Issue.record("\(t) did not read"); continue }
            #expect(d.bitPattern == expected.bitPattern, "\(t): \(d) where strtod gives \(expected)")
        }
    }

    @Test func duplicateKeysKeepBothPairsAndTheLastWins() throws {
        let v = try JSONValue.parse(#"{"k": 1, "k": 2}"#)
        #expect(v["k"] == .number(2))
        #expect(v.text == #"{"k":1,"k":2}"#)
    }
}
