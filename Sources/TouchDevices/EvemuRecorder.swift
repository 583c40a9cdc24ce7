import TouchCore

/// Writes a device in evemu format as it is read: the description first, then one `E:` line per
/// event, handed to `write` (a file, stdout). The output replays with `touchbridge replay` and
/// with evemu-play.
public struct EvemuRecorder {
    let write: (String) -> Void
    public private(set) var eventsWritten = 0

    public init(capabilities: DeviceCapabilities, write: @escaping (String) -> Void) {
        self.write = write
        write(Evemu.describe(capabilities))
    }

    public mutating func record(_ event: InputEvent) {
        write(Evemu.eventLine(event))
        eventsWritten += 1
    }
}
