import TouchBridge
import Foundation
import MapEngine

// JSONValue, JSONParseError and the parser are MapEngine's (Sources/MapEngine/JSON.swift),
// shared with the GeoJSON reader; TouchBridge re-exports MapEngine.

/// A request that cannot be done: its message goes back as `"error"`.
package struct ControlError: Error, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// One request line taken apart: `{"id": ANY, "cmd": "NAME", ...arguments}`.
package struct ControlRequest {
    public let id: JSONValue
    public let command: String
    public let arguments: [(String, JSONValue)]

    /// Parses a line; on failure returns the reply to send (with the id when it could be read).
    public static func parse(line: String) -> Result<ControlRequest, ControlReplyError> {
        let value: JSONValue
        // The id's own text is kept: it is echoed exactly, whatever its digits (docs/control.md).
        do { value = try JSONValue.parse(line, keepingNumberText: "id") } catch {
            return .failure(ControlReplyError(id: .null, message: "\(error); send one JSON object per line"))
        }
        guard case .object(let pairs) = value else {
            return .failure(ControlReplyError(id: .null, message: "a request is a JSON object {\"id\": ..., \"cmd\": \"NAME\", ...}"))
        }
        let id = value["id"] ?? .null
        guard let cmdValue = value["cmd"] else {
            return .failure(ControlReplyError(id: id, message: "the request has no \"cmd\" (e.g. {\"id\": 1, \"cmd\": \"get_camera\"})"))
        }
        guard let cmd = cmdValue.string else { return .failure(ControlReplyError(id: id, message: "\"cmd\" must be a string")) }
        return .success(ControlRequest(id: id, command: cmd, arguments: pairs.filter { $0.0 != "id" && $0.0 != "cmd" }))
    }
}

package struct ControlReplyError: Error {
    public let id: JSONValue
    public let message: String
}

package enum ControlReply {
    /// `{"id":ID,"ok":true,...results}`
    public static func ok(id: JSONValue, _ results: [(String, JSONValue)] = []) -> String {
        JSONValue.object([("id", id), ("ok", .bool(true))] + results).text
    }
    /// `{"id":ID,"ok":false,"error":"..."}`
    public static func error(id: JSONValue, _ message: String) -> String {
        JSONValue.object([("id", id), ("ok", .bool(false)), ("error", .string(message))]).text
    }
}
