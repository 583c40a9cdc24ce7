import ArgumentParser
import TouchBridge
import Rendering
import Foundation
import Platform

struct TouchBridgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "touchbridge",
        abstract: "Map gestures from evdev touchscreens, drawn straight to DRM/KMS.",
        version: TouchBridgeVersion.string,
        subcommands: [RunCommand.self, DemoCommand.self, BenchCommand.self, CalibrateCommand.self, TuneCommand.self, DevicesCommand.self, ReplayCommand.self, RecordCommand.self, RenderCommand.self, CheckCommand.self, CtlCommand.self, EventsCommand.self, SoakCommand.self])
}
ProcessMemory.limitMallocArenas()   // see there: parallel bands and glibc's per-thread arenas
ProcessMemory.keepFrameSizedBlocks()   // see there: a frame's arrays not faulted in again each frame
// Measurement switches (docs/benchmarks.md): the program's, never read by the library.
let environment = ProcessInfo.processInfo.environment
MapRenderer.defaults.bands = environment["TOUCHBRIDGE_RENDER_BANDS"].flatMap { Int($0) }
MapRenderer.defaults.scrollsOverlayLayer = environment["TOUCHBRIDGE_LAYER_STRIPS"] != "0"
MapRenderer.defaults.cacheMarginFloor = environment["TOUCHBRIDGE_CACHE_MARGIN_FLOOR"].flatMap { Int($0) } ?? 0
TouchBridgeCommand.main()
