import MapEngine
import Foundation
import Testing
@testable import TouchBridge
@testable import Kiosk

/// The control socket's line format (docs/control.md) without a socket: parsing requests,
/// writing replies, and `ctl`'s key=value arguments.
@Suite struct ControlProtocolTests {
    @Test func requestsKeepTheirIdAndArguments() throws {
        guard case .success(let r) = ControlRequest.parse(line: #"{"id": {"n": [1, "x"]}, "cmd": "move_camera", "zoom": 12.5, "title": "Caf\u00e9 \"A\"\n"}"#) else {
            Issue.record("did not parse"); return
        }
        #expect(r.id == .object([("n", .array([.number(1), .string("x")]))]))
        #expect(r.command == "move_camera")
        #expect(r.arguments.map(\.0) == ["zoom", "title"])
        #expect(r.arguments[1].1 == .string("Café \"A\"\n"))
        // The reply echoes the id exactly, keys in the documented order, the newline escaped.
        #expect(ControlReply.ok(id: r.id, [("title", r.arguments[1].1)]) == #"{"id":{"n":[1,"x"]},"ok":true,"title":"Café \"A\"\n"}"#)
        #expect(ControlReply.error(id: .null, "bad") == #"{"id":null,"ok":false,"error":"bad"}"#)
    }

    @Test func badLinesSayWhatIsWrong() {
        func message(_ line: String) -> (JSONValue, String)? {
            if case .failure(let e) = ControlRequest.parse(line: line) { return (e.id, e.message) }
            return nil
        }
        #expect(message("{\"id\": 1, \"cmd\": \"x\"")?.1.contains("not closed") == true)
        #expect(message("hello")?.1.contains("not valid JSON at byte 1") == true)
        #expect(message("{\"id\": 1} {}")?.1.contains("after the JSON value") == true)
        #expect(message("\"just a string\"")?.1.contains("a request is a JSON object") == true)
        #expect(message("{\"id\": \"k\"}")! == (.string("k"), "the request has no \"cmd\" (e.g. {\"id\": 1, \"cmd\": \"get_camera\"})"))
        #expect(message(String(repeating: "[", count: 100))?.1.contains("nested too deeply") == true)
        #expect(message("{\"id\": 1, \"cmd\": \"a\", \"x\": 1e999}")?.1.contains("out of range") == true)
    }

    @Test func numbersAndSurrogatesRoundTrip() throws {
        #expect(try JSONValue.parse("[-0.5, 3, 1e3, true, false, null]") == .array([.number(-0.5), .number(3), .number(1000), .bool(true), .bool(false), .null]))
        #expect(try JSONValue.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(JSONValue.array([.number(3), .number(0.25), .number(-2)]).text == "[3,0.25,-2]")
    }

    @Test func ctlArgumentsAreJSONWhenTheyParseElseStrings() throws {
        let args = try ControlClient.arguments(["zoom=12", "title=Cafe 1", "marker=null", "enabled=[\"pan\"]", "snippet=\"12\"", "note=a=b"])
        #expect(args.map(\.0) == ["zoom", "title", "marker", "enabled", "snippet", "note"])
        #expect(args.map(\.1) == [.number(12), .string("Cafe 1"), .null, .array([.string("pan")]), .string("12"), .string("a=b")])
        #expect(throws: ControlError.self) { try ControlClient.arguments(["zoom"]) }
    }

    /// One list of commands: every one has its row in docs/control.md's table and no row names a
    /// command the kiosk does not have; the read-only ones are those the docs say draw nothing.
    @Test func theCommandListIsTheDocumentedOne() throws {
        let docs = try String(contentsOfFile: #filePath.replacingOccurrences(of: "Tests/TouchBridgeTests/ControlProtocolTests.swift",
                                                                            with: "docs/control.md"), encoding: .utf8)
        var documented: [String] = []
        for line in docs.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            documented += cell.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
        }
        #expect(documented.sorted() == ControlCommand.names.sorted())
        #expect(Set(ControlCommand.names).count == ControlCommand.allCases.count)
        #expect(ControlCommand.allCases.filter(\.readsOnly).map(\.rawValue).sorted()
                == ["get_camera", "get_gestures", "help", "list_markers", "list_overlays", "screenshot", "stats", "subscribe", "unsubscribe"])
    }
}
