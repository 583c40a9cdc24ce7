import Foundation
import TouchBridge
import Kiosk

/// libFuzzer target: any bytes as lines a control-socket client sends (docs/control.md), each
/// answered by one kiosk (a 64x48 memory display, no touchscreen) through the socket's own
/// parser and commands (`Kiosk.answerControlLine`). Every reply is one line of JSON: an
/// object whose first key is the request's id and second `ok`, with `error` a non-empty string
/// when ok is false. Paths a client names lie in a temporary folder the configuration allows
/// (`[control] files_dir`, `screenshot_dir`). Between inputs the kiosk is cleared (markers,
/// overlays, route, camera), so one input cannot leave memory to the next.
let folder: String = {
    let d = NSTemporaryDirectory() + "touchbridge-fuzz-control-\(getpid())"
    try? FileManager.default.createDirectory(atPath: d, withIntermediateDirectories: true)
    return d
}()

nonisolated(unsafe) let view: Kiosk = {
    var cfg = KioskConfiguration()
    cfg.touch = [.init(match: .path("/nonexistent/event99"))]
    cfg.control.filesDir = folder
    cfg.control.screenshotDir = folder
    do {
        return try Kiosk(configuration: cfg, display: MemoryDisplay(width: 64, height: 48), log: KioskLog(level: .error))
    } catch {
        fatalError("the kiosk did not start: \(error)")
    }
}()

let reset = [#"{"cmd":"clear_markers"}"#, #"{"cmd":"clear_overlays"}"#, #"{"cmd":"set_route","geojson":null}"#,
             #"{"cmd":"set_gestures","enabled":"all"}"#, #"{"cmd":"set_cluster_markers","enabled":false}"#,
             #"{"cmd":"move_camera","latitude":47.1,"longitude":9.5,"zoom":9,"bearing":0,"tilt":0}"#]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzControl(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    for line in bytes.split(separator: 0x0A, omittingEmptySubsequences: true).prefix(64) {
        let text = String(decoding: line, as: UTF8.self)
        if text.trimmingCharacters(in: .whitespaces).isEmpty { continue }
        check(view.answerControlLine(text), for: text)
    }
    for line in reset { _ = view.answerControlLine(line) }
    return 0
}

func check(_ reply: String, for line: String) {
    require(!reply.contains("\n"), "a reply of more than one line")
    let value: JSONValue
    // The id is echoed as its own text: a valid number beyond a double (1E889) is kept as written.
    do { value = try JSONValue.parse(reply, keepingNumberText: "id") } catch { fatalError("the reply is not JSON (\(error)): \(reply.prefix(300))") }
    guard case .object(let pairs) = value, pairs.count >= 2, pairs[0].0 == "id", pairs[1].0 == "ok", let ok = pairs[1].1.bool else {
        fatalError("the reply is not {\"id\":..,\"ok\":..}: \(reply.prefix(300))")
    }
    if !ok {
        require(value["error"]?.string.map { !$0.isEmpty } == true, "ok false without an error: \(reply.prefix(300))")
    }
    // The id is echoed exactly: the request's own id token, when it was read.
    if case .success(let r) = ControlRequest.parse(line: line) { require(pairs[0].1 == r.id, "id \(r.id.text) came back as \(pairs[0].1.text)") }
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
