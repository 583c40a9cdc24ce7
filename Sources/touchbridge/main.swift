import ArgumentParser
import TouchBridge
import Platform

struct TouchBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touchbridge",
        abstract: "Map gestures from evdev touchscreens, drawn straight to DRM/KMS.",
        version: TouchBridgeVersion.string,
        subcommands: [RunCommand.self, DemoCommand.self, BenchCommand.self, CalibrateCommand.self, TuneCommand.self, DevicesCommand.self, ReplayCommand.self, RecordCommand.self, RenderCommand.self, CheckCommand.self, CtlCommand.self, EventsCommand.self, SoakCommand.self])
}
ProcessMemory.limitMallocArenas()   // see there: parallel bands and glibc's per-thread arenas
TouchBridgeCommand.main()
