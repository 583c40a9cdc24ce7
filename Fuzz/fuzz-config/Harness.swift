import TouchBridge
import Kiosk

/// libFuzzer target: any bytes as the kiosk's TOML configuration, through the public loader only
/// (so it survives changes to the configuration model). It either loads or throws a ConfigError
/// whose line, when given, is a line of the file.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        _ = try KioskConfiguration.parse(text: text, file: "fuzz.toml")
    } catch let e as ConfigError {
        let lines = text.utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        if let line = e.line { require((1...lines).contains(line), "error line \(line) outside the file's \(lines) lines") }
        require(!e.description.isEmpty)
    } catch {
        fatalError("the loader threw something other than a ConfigError: \(error)")
    }
    return 0
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
