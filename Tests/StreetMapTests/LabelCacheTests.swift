import Foundation
import MapEngine
import Testing
import TouchCore
@testable import Rendering

/// What a day of pinching leaves behind (issue 31's 2-hour soak: the heap grew 30 MiB inside
/// pango's and cairo's per-font-size caches and the renderer's measured sizes).
@Suite struct LabelCacheTests {
    static let vaduz = Coordinate(latitude: 47.141, longitude: 9.521)

    /// A pinch's frames come at every zoom between two levels; the street names' text sizes (a
    /// style's `text-size` follows the zoom) stay on half pixels, so the frames of a pinch ask
    /// pango for a few font sizes, not one per frame.
    @Test func aPinchAsksForAFewTextSizesNotOnePerFrame() {
        let opened = MapRenderer.openTiles(path: mbtilesPath)
        let renderer = MapRenderer(vector: opened.vector)
        let frame = OwnedFrameBuffer(width: 800, height: 600)
        var sizes = Set<Double>()
        var frames = 0
        for step in 0..<40 {
            let zoom = 15.5 + Double(step) * 0.0375   // 15.5 ..< 17, as a pinch goes
            renderer.render(MapScene(camera: CameraPosition(target: Self.vaduz, zoom: zoom)), into: frame.buffer, quality: .interactive)
            for l in renderer.streetLabels { sizes.insert(l.sizePx) }
            frames += 1
        }
        #expect(!sizes.isEmpty, "no street label was placed")
        for s in sizes { #expect((s * 2).rounded() == s * 2, "text size \(s) px is not on a half pixel") }
        // The built-in style's text sizes span a few pixels over 1.5 zoom levels.
        #expect(sizes.count <= 24, "\(sizes.count) text sizes over \(frames) frames: \(sizes.sorted())")
    }

    @Test func labelSizesRoundToTheNearestHalfPixel() {
        #expect(TextRenderer.labelSize(12.0) == 12)
        #expect(TextRenderer.labelSize(12.24) == 12)
        #expect(TextRenderer.labelSize(12.26) == 12.5)
        #expect(TextRenderer.labelSize(12.74) == 12.5)
        #expect(TextRenderer.labelSize(12.76) == 13)
    }

    /// Measuring every name at every size kept each measurement for ever; the kept ones are
    /// bounded, and what is measured again after the drop is the same.
    @Test func measuredSizesAreBounded() {
        let text = TextRenderer(family: "Noto Sans")
        let style = TextRenderer.Style(sizePx: 13, bold: false, width: nil, maxLines: 1)
        let first = text.measure("Städtle 1", style)
        for i in 0..<(TextRenderer.maxMeasured + 500) {
            _ = text.measure("name \(i)", style)
            #expect(text.measuredKept <= TextRenderer.maxMeasured)
            if text.measuredKept > TextRenderer.maxMeasured { break }
        }
        let again = text.measure("Städtle 1", style)
        #expect(again.width == first.width && again.height == first.height)
        #expect(text.measuredKept < TextRenderer.maxMeasured)
    }
}
