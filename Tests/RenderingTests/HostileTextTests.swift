import Foundation
import MapEngine
import Testing
@testable import Rendering

/// Text from anywhere reaches pango bounded (issue 31: "a title of one letter and 80,000
/// combining accents makes one frame take 45 s"): the work is counted in characters handed to
/// pango, not timed.
@Suite struct HostileTextTests {
    static let accent = "\u{0301}"

    @Test func ordinaryTextPassesUnchanged() {
        for s in ["Cafe", "Zürich Hauptbahnhof", "Cafe\u{0301}", "नमस्ते", "ཧཱུྃ", "👩🏽‍❤️‍💋‍👨🏿 family 👨‍👩‍👧‍👦", "🇱🇮 Vaduz",
                  "東京都", "مرحبا", String(repeating: "x", count: TextBounds.maxScalars),
                  "a" + String(repeating: Self.accent, count: TextBounds.maxExtendingInARow)] {
            #expect(TextBounds.bounded(s) == s, "\(s)")
        }
    }

    @Test func longRunsOfMarksAndLongTextsAreCut() {
        let zalgo = "a" + String(repeating: Self.accent, count: 80_000) + "b"
        let cut = TextBounds.bounded(zalgo)
        #expect(cut.unicodeScalars.count == 1 + TextBounds.maxExtendingInARow + 1)
        #expect(cut.unicodeScalars.first == "a" && cut.unicodeScalars.last == "b")
        // Zero-width joiners are held the same way.
        #expect(TextBounds.bounded("a" + String(repeating: "\u{200D}", count: 1000)).unicodeScalars.count == 1 + TextBounds.maxExtendingInARow)
        #expect(TextBounds.bounded(String(repeating: "é", count: 10_000)).unicodeScalars.count == TextBounds.maxScalars)
        #expect(TextBounds.bounded(String(repeating: "y", count: 100_000)).utf8.count == TextBounds.maxScalars)
    }

    /// An info window whose title is one letter and 80,000 accents: the frame hands pango the
    /// letter and 32 accents, the same work and the same picture as a title of exactly those.
    @Test func aTitleOfEightyThousandAccentsIsDrawnWithBoundedWork() {
        let coord = Coordinate(latitude: 30, longitude: -30)
        func frame(_ title: String, name: String) -> (RenderedFrame, Int) {
            let renderer = MapRenderer()
            let scene = MapScene(camera: CameraPosition(target: coord, zoom: 5), markers: [MarkerSprite(id: "m", coordinate: coord)],
                                 infoWindow: InfoWindowScene(title: title, snippet: "Open", coordinate: coord))
            let f = RenderedFrame(scene, renderer: renderer, name: name)
            return (f, renderer.textRenderer.charactersLaidOut)
        }
        let (hostile, hostileWork) = frame("a" + String(repeating: Self.accent, count: 80_000), name: "zalgo-title")
        let (bounded, boundedWork) = frame("a" + String(repeating: Self.accent, count: TextBounds.maxExtendingInARow), name: "zalgo-title-bounded")
        #expect(hostileWork == boundedWork, "\(hostileWork) characters laid out, \(boundedWork) for the bounded title")
        // Before the bound, the 80,001 code points alone (the rest is the world's place names).
        #expect(hostileWork < 80_000, "\(hostileWork)")
        var same = true
        for y in 0..<600 { for x in 0..<800 where hostile.pixel(x, y) != bounded.pixel(x, y) { same = false } }
        #expect(same)
    }
}

/// The images decoded from client files are held within a budget of pixels, and only while used.
@Suite struct DecodedImagesTests {
    @Test func imagesAreKeptWithinTheBudgetAndOnlyWhileNamed() throws {
        let oneMiB = 512 * 512 * 4
        let store = DecodedImages(budget: 3 * oneMiB)
        func image() -> CairoImage { CairoImage.argb([UInt32](repeating: 0xFF00C800, count: 512 * 512), width: 512, height: 512)! }
        #expect(store.set(image(), named: "/f/a.png") == nil)
        #expect(store.set(image(), named: "/f/b.png") == nil)
        #expect(store.set(image(), named: "/f/a.png") == nil)          // replacing counts once
        #expect(store.set(image(), named: "/f/c.png") == nil)
        let over = try #require(store.set(image(), named: "/f/d.png"))
        #expect(over.contains("at most 3 MiB") && over.contains("DecodedImages.maxBytes"), "\(over)")
        #expect(store.count == 3 && store.bytes == 3 * oneMiB && !store.contains("/f/d.png"))
        store.keepOnly(["/f/b.png"])
        #expect(store.count == 1 && store.contains("/f/b.png"))
        #expect(store.set(image(), named: "/f/d.png") == nil)
    }
}
