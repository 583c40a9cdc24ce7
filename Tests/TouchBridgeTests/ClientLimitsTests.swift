import Foundation
import Testing
import MapEngine
import Platform
import Rendering
import Logging
@testable import TouchBridge
@testable import Kiosk

/// Issue 31's client limits and the image a client names: markers per kiosk, a title's and a
/// snippet's bytes and marks, refused with the limit named; an icon or a ground image is
/// decoded from the bytes read through the descriptor that was checked, and never opened
/// again by path (a file swapped for a symlink after the check draws nothing of the link's).
@Suite(.serialized) struct ClientLimitsTests {
    func kiosk(_ tree: HostileInputTests.Tree, width: Int = 64, height: Int = 48) throws -> Kiosk {
        var cfg = KioskConfiguration()
        cfg.touch = [.init(match: .path("/nonexistent/event99"))]
        cfg.control.filesDir = tree.allowed
        cfg.control.screenshotDir = tree.allowed
        return try Kiosk(configuration: cfg, display: MemoryDisplay(width: width, height: height), log: KioskLog(level: .error))
    }

    func reply(_ view: Kiosk, _ line: String) throws -> JSONValue { try JSONValue.parse(view.answerControlLine(line)) }

    func request(_ pairs: [(String, JSONValue)]) -> String { JSONValue.object([("id", .number(1))] + pairs).text }

    @Test func titlesAndSnippetsAreBoundedInBytesAndMarks() throws {
        let tree = try HostileInputTests.Tree()
        let view = try kiosk(tree)
        func add(_ extra: [(String, JSONValue)]) throws -> JSONValue {
            try reply(view, request([("cmd", .string("add_marker")), ("marker", .string("m")), ("latitude", .number(1)), ("longitude", .number(2))] + extra))
        }
        let big = try add([("title", .string(String(repeating: "x", count: 1_000_000)))])
        #expect(big["ok"] == .bool(false))
        #expect(big["error"]?.string?.contains("at most \(MarkerLimits.maxTitleBytes) bytes") == true, "\(big.text)")
        let zalgo = try add([("title", .string("a" + String(repeating: "\u{0301}", count: 80_000 / 2 / 2)))])
        #expect(zalgo["ok"] == .bool(false), "\(zalgo.text)")
        let marks = try add([("title", .string("a" + String(repeating: "\u{0301}", count: 100)))])
        #expect(marks["error"]?.string?.contains("at most \(MarkerLimits.maxScalarsPerCharacter) code points") == true, "\(marks.text)")
        let snippet = try add([("snippet", .string(String(repeating: "y", count: MarkerLimits.maxSnippetBytes + 1)))])
        #expect(snippet["error"]?.string?.contains("\"snippet\" is \(MarkerLimits.maxSnippetBytes + 1) bytes") == true, "\(snippet.text)")
        let longID = try reply(view, request([("cmd", .string("add_marker")), ("marker", .string(String(repeating: "i", count: 300))),
                                              ("latitude", .number(1)), ("longitude", .number(2))]))
        #expect(longID["error"]?.string?.contains("an id is at most 256 bytes") == true)
        #expect(view.controller.markers.isEmpty)
        // At the limits: accepted, and an update over them refused with the marker unchanged.
        let ok = try add([("title", .string(String(repeating: "t", count: MarkerLimits.maxTitleBytes))), ("snippet", .string("Open 9 to 18"))])
        #expect(ok["ok"] == .bool(true), "\(ok.text)")
        let update = try reply(view, request([("cmd", .string("update_marker")), ("marker", .string("m")), ("title", .string(String(repeating: "t", count: 5000)))]))
        #expect(update["ok"] == .bool(false))
        #expect(view.controller.marker(id: "m")?.title?.utf8.count == MarkerLimits.maxTitleBytes)
    }

    @Test func markersPerKioskAreBounded() throws {
        let tree = try HostileInputTests.Tree()
        let view = try kiosk(tree)
        for i in 0..<MarkerLimits.maxMarkers {
            view.controller.add(Marker(id: "m\(i)", position: Coordinate(latitude: 1, longitude: 2)), at: 0)
        }
        let r = try reply(view, request([("cmd", .string("add_marker")), ("marker", .string("one-more")), ("latitude", .number(1)), ("longitude", .number(2))]))
        #expect(r["ok"] == .bool(false))
        #expect(r["error"]?.string?.contains("MarkerLimits.maxMarkers") == true, "\(r.text)")
        #expect(view.controller.markers.count == MarkerLimits.maxMarkers)
        // An existing marker may still be changed, and one removed makes room.
        #expect(try reply(view, request([("cmd", .string("update_marker")), ("marker", .string("m7")), ("title", .string("Seven"))]))["ok"] == .bool(true))
        #expect(try reply(view, request([("cmd", .string("remove_marker")), ("marker", .string("m0"))]))["ok"] == .bool(true))
        #expect(try reply(view, request([("cmd", .string("add_marker")), ("marker", .string("one-more")), ("latitude", .number(1)), ("longitude", .number(2))]))["ok"] == .bool(true))
    }

    /// A PNG of one colour (RGB, stored zlib blocks).
    static func png(_ w: Int, _ h: Int, rgb: (UInt8, UInt8, UInt8)) -> Data {
        var d = [UInt8](HostileInputTests.Tree.png(w, h))
        // Tree.png writes (20, 40, 230) pixels; recolour them and fix the two checksums.
        let idat = d.indices.first { d[$0] == 0x49 && d[$0 + 1] == 0x44 && d[$0 + 2] == 0x41 && d[$0 + 3] == 0x54 }!
        let length = Int(d[idat - 4]) << 24 | Int(d[idat - 3]) << 16 | Int(d[idat - 2]) << 8 | Int(d[idat - 1])
        let body = idat + 4, rawStart = body + 7, rawCount = h * (1 + 3 * w)
        for row in 0..<h { for x in 0..<w { let p = rawStart + row * (1 + 3 * w) + 1 + 3 * x; d[p] = rgb.0; d[p + 1] = rgb.1; d[p + 2] = rgb.2 } }
        var a: UInt32 = 1, b: UInt32 = 0
        for x in d[rawStart..<(rawStart + rawCount)] { a = (a + UInt32(x)) % 65521; b = (b + a) % 65521 }
        let adler = b << 16 | a
        for k in 0..<4 { d[rawStart + rawCount + k] = UInt8(truncatingIfNeeded: adler >> (24 - 8 * UInt32(k))) }
        var c: UInt32 = 0xFFFF_FFFF
        for x in d[idat..<(body + length)] { c ^= UInt32(x); for _ in 0..<8 { c = c & 1 != 0 ? (c >> 1) ^ 0xEDB8_8320 : c >> 1 } }
        c = ~c
        for k in 0..<4 { d[body + length + k] = UInt8(truncatingIfNeeded: c >> (24 - 8 * UInt32(k))) }
        return Data(d)
    }

    /// The check and the decode are one read: the icon that was checked is drawn, even after the
    /// file is swapped for a symlink to another picture or removed; the path is not opened again.
    @Test func theCheckedBytesAreWhatIsDrawnNotTheFileAtThePathLater() throws {
        let tree = try HostileInputTests.Tree()
        let icon = tree.allowed + "/swap.png", ground = tree.allowed + "/ground.png"
        try Self.png(16, 16, rgb: (0, 200, 0)).write(to: URL(fileURLWithPath: icon))
        try Self.png(16, 16, rgb: (0, 200, 0)).write(to: URL(fileURLWithPath: ground))
        try Self.png(16, 16, rgb: (250, 0, 250)).write(to: URL(fileURLWithPath: tree.outside + "/secret.png"))
        let view = try kiosk(tree, width: 320, height: 240)
        let c = view.controller.camera.target
        let added = try reply(view, request([("cmd", .string("add_marker")), ("marker", .string("m")), ("latitude", .number(c.latitude)),
                                             ("longitude", .number(c.longitude)), ("icon", .string(icon))]))
        #expect(added["ok"] == .bool(true), "\(added.text)")
        // The ground image over screen (20, 20)...(100, 100), away from the marker at the centre.
        let nw = try #require(view.controller.projection.coordinate(at: Point(x: 20, y: 20)))
        let se = try #require(view.controller.projection.coordinate(at: Point(x: 100, y: 100)))
        let overlay = try reply(view, request([("cmd", .string("add_overlay")), ("overlay", .string("g")), ("image", .string(ground)),
                                               ("bounds", .array([.number(nw.longitude), .number(se.latitude), .number(se.longitude), .number(nw.latitude)]))]))
        #expect(overlay["ok"] == .bool(true), "\(overlay.text)")
        // Swapped after the check: the icon for a link out of the folder, the ground image removed.
        unlink(icon)
        try FileManager.default.createSymbolicLink(atPath: icon, withDestinationPath: tree.outside + "/secret.png")
        unlink(ground)
        view.drawAndPresent(now: 1)
        let f = view.drawnFrame
        var green = 0, magenta = 0
        for y in 0..<f.height { for x in 0..<f.width {
            switch f.pixel(x: x, y: y) & 0xffffff { case 0x00C800: green += 1; case 0xFA00FA: magenta += 1; default: break }
        } }
        #expect(magenta == 0, "the link's picture was drawn")
        // The icon's inside (its edges may blend at a fractional position) and the ground image.
        #expect(green >= 14 * 14 + 70 * 70, "\(green) green pixels: the checked icon and ground image are drawn")
        #expect(view.renderer.decodedImages.count == 2)
        // Gone with what used them.
        #expect(try reply(view, request([("cmd", .string("remove_marker")), ("marker", .string("m"))]))["ok"] == .bool(true))
        #expect(view.renderer.decodedImages.count == 1)
        #expect(try reply(view, request([("cmd", .string("clear_overlays"))]))["ok"] == .bool(true))
        #expect(view.renderer.decodedImages.count == 0)
    }
}
