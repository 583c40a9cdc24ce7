import ArgumentParser
import TouchBridge

struct TouchBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touchbridge",
        abstract: "Map gestures from evdev touchscreens, drawn straight to DRM/KMS.",
        subcommands: [DevicesCommand.self, RenderCommand.self])
}
TouchBridgeCommand.main()
