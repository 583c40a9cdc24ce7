import TouchCore

/// libFuzzer target: any bytes as an evemu file. Parsing either throws a ParseError or gives a
/// recording; a recording written back out parses again to the same events, and its events go
/// through a FrameAssembler built from whatever device it describes, ending with no contact down.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEvemu(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    guard let recording = try? Evemu.parse(text, source: "fuzz") else { return 0 }

    // What the writer makes of it is valid evemu with the same events.
    let again: Evemu.Recording
    do { again = try Evemu.parse(Evemu.write(recording), source: "rewritten") } catch {
        fatalError("written recording does not parse: \(error)")
    }
    require(again.events.count == recording.events.count, "event count changed on a round trip")
    for (a, b) in zip(again.events, recording.events) {
        require(a.type == b.type && a.code == b.code && a.value == b.value, "event changed on a round trip")
    }

    // Any described device, any events: frames with finite on-screen positions, and nothing
    // left down once the device is gone.
    let screen = Size(width: 800, height: 480)
    var assembler = FrameAssembler(capabilities: recording.capabilities, screen: screen)
    var time = 0.0
    for e in recording.events.prefix(10_000) {
        time = e.time
        guard let frame = assembler.process(e) else { continue }
        for c in frame.contacts {
            require(c.position.x.isFinite && c.position.y.isFinite, "non-finite position")
            require((0...screen.width).contains(c.position.x) && (0...screen.height).contains(c.position.y), "off-screen position")
        }
    }
    _ = assembler.cancelAll(time: time)
    require(assembler.contactsDown == 0, "contacts left down after cancelAll")
    return 0
}

/// `precondition` that says why in a release build too (-O drops precondition's message).
func require(_ condition: Bool, _ message: @autoclosure () -> String = "invariant") {
    if !condition { fatalError(message()) }
}
