import ArgumentParser
import Display
import Foundation
import TouchCore
import TouchDevices

/// `touchbridge devices [--json]`: what a technician needs to see first on a new box: every
/// evdev device (touchscreen or not, of which kind, axis ranges) and every DRM card with its
/// connectors and modes.
struct DevicesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "devices",
        abstract: "List evdev input devices (touchscreen kind, axis ranges) and DRM cards (connectors, modes).")

    @Flag(name: .long, help: "Print JSON instead of text.")
    var json = false

    @Option(name: .long, help: ArgumentHelp("Directory with the evdev nodes.", visibility: .hidden))
    var inputDirectory = EvdevInventory.defaultDirectory

    @Option(name: .long, help: ArgumentHelp("Directory with the DRM card nodes.", visibility: .hidden))
    var driDirectory = DRMInventory.defaultDirectory

    func run() throws {
        let report = DevicesReport(input: EvdevInventory.scan(directory: inputDirectory).map(InputEntry.init),
                                   drm: DRMInventory.scan(directory: driDirectory).map(CardEntry.init))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.text(inputDirectory: inputDirectory, driDirectory: driDirectory), terminator: "")
        }
    }
}

// MARK: - The report, shaped as the JSON output

struct DevicesReport: Encodable {
    var input: [InputEntry]
    var drm: [CardEntry]
}

struct AxisEntry: Encodable {
    var min: Int32, max: Int32, fuzz: Int32, resolution: Int32
}

struct InputEntry: Encodable {
    var path: String
    var name: String?
    var vendor: String?
    var product: String?
    var touchscreen: Bool?
    /// "protocolB", "protocolA", "singleTouch"; absent when the device has no absolute touch axes.
    var kind: String?
    var slots: Int?
    var axes: [String: AxisEntry]?
    var error: String?
    var advice: String?
    /// Axis names in kernel code order, for the text listing (JSON objects have no order).
    var axisOrder: [String] = []

    enum CodingKeys: String, CodingKey {
        case path, name, vendor, product, touchscreen, kind, slots, axes, error, advice
    }

    init(_ node: EvdevNodeInfo) {
        path = node.path
        switch node.capabilities {
        case .success(let caps):
            name = caps.name
            vendor = hex4(caps.vendor)
            product = hex4(caps.product)
            touchscreen = caps.isTouchscreen
            kind = caps.touchKind?.name
            if case .protocolB(let n)? = caps.touchKind { slots = n }
            axes = Dictionary(uniqueKeysWithValues: caps.absinfo.map { code, a in
                (EvdevInventory.axisName(code), AxisEntry(min: a.minimum, max: a.maximum, fuzz: a.fuzz, resolution: a.resolution))
            })
            axisOrder = caps.absinfo.keys.sorted().map(EvdevInventory.axisName)
        case .failure(let e):
            error = e.reason
            advice = e.advice.isEmpty ? nil : e.advice
        }
    }
}

struct ModeEntry: Encodable {
    var name: String, width: Int, height: Int, refresh: Int, preferred: Bool
}

struct ConnectorEntry: Encodable {
    var name: String
    var connected: Bool
    var mm: [Int]
    var modes: [ModeEntry]
}

struct CardEntry: Encodable {
    var path: String
    var driver: String?
    var connectors: [ConnectorEntry]?
    var error: String?
    var advice: String?

    init(_ node: DRMNodeInfo) {
        path = node.path
        switch node.card {
        case .success(let card):
            driver = card.driver
            connectors = card.connectors.map { c in
                ConnectorEntry(name: c.name, connected: c.connected, mm: [c.widthMM, c.heightMM],
                               modes: c.modes.map { ModeEntry(name: $0.name, width: $0.width, height: $0.height,
                                                              refresh: $0.refresh, preferred: $0.preferred) })
            }
        case .failure(let e):
            error = e.reason
            advice = e.advice.isEmpty ? nil : e.advice
        }
    }
}

private func hex4(_ v: UInt16) -> String {
    let s = String(v, radix: 16)
    return String(repeating: "0", count: max(0, 4 - s.count)) + s
}

// MARK: - Text

extension DevicesReport {
    func text(inputDirectory: String, driDirectory: String) -> String {
        var out = ""
        if input.isEmpty {
            out += "No input devices: \(inputDirectory) has no event nodes (no touchscreen attached, or a container without /dev/input).\n"
        } else {
            out += "Input devices (\(input.count)):\n"
            for d in input { out += d.text() }
        }
        if drm.isEmpty {
            out += "No DRM cards: \(driDirectory) has no card nodes (no display driver loaded, or a container without /dev/dri).\n"
        } else {
            out += "DRM cards (\(drm.count)):\n"
            for c in drm { out += c.text() }
        }
        return out
    }
}

extension InputEntry {
    func text() -> String {
        if let error {
            return "  \(path)  UNREADABLE: \(error)\n" + (advice.map { "    -> \($0)\n" } ?? "")
        }
        var out = "  \(path)  \"\(name ?? "")\"  \(vendor ?? "????"):\(product ?? "????")\n"
        switch (touchscreen, kind) {
        case (true?, let k?): out += "    touchscreen: \(describe(k))\n"
        case (_, let k?): out += "    touch device, not a touchscreen (touchpad or tablet): \(describe(k))\n"
        default: out += "    not a touch device\n"
        }
        for axis in axisOrder {
            guard let a = axes?[axis] else { continue }
            let res = a.resolution > 0 ? "\(a.resolution) units/mm" : "no resolution"
            out += "    \(axis.padding(toLength: 20, withPad: " ", startingAt: 0)) \(a.min)..\(a.max)  fuzz \(a.fuzz)  \(res)\n"
        }
        return out
    }

    private func describe(_ kind: String) -> String {
        switch kind {
        case "protocolB": return "multitouch protocol B, \(slots ?? 0) slots"
        case "protocolA": return "multitouch protocol A"
        default: return "single-touch"
        }
    }
}

extension CardEntry {
    func text() -> String {
        if let error {
            return "  \(path)  UNREADABLE: \(error)\n" + (advice.map { "    -> \($0)\n" } ?? "")
        }
        var out = "  \(path)  driver \(driver ?? "?")\n"
        for c in connectors ?? [] {
            out += "    \(c.name)  \(c.connected ? "connected" : "disconnected")  \(c.mm[0])x\(c.mm[1]) mm\n"
            for m in c.modes {
                out += "      \(m.name) @ \(m.refresh) Hz\(m.preferred ? "  (preferred)" : "")\n"
            }
        }
        return out
    }
}
