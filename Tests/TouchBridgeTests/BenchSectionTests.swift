import Testing
@testable import KioskTools

/// `bench` prints a section's title only with the section's first line (issue 30: `bench
/// --quick` printed titles of stages that had nothing to measure).
@Suite struct BenchSectionTests {
    @Test func aSectionWithoutLinesLeavesNoTitle() {
        var printed: [String] = []
        let s = SectionPrinter { printed.append($0) }
        s.header("Street map (no tiles given)")
        s.header("Renderer 1280x800")
        s.line("frame 4.1 ms")
        s.line("pan 0.6 ms")
        s.header("End to end (no recording)")
        s.header("Markers")
        s.line("300 markers 2.0 ms")
        s.header("Last, empty")
        #expect(printed == ["Renderer 1280x800", "frame 4.1 ms", "pan 0.6 ms", "Markers", "300 markers 2.0 ms"])
    }
}

/// The one-core figures' keys (issue 28): `_1core` after the screen size, the unit last.
@Suite struct OneCoreKeyTests {
    @Test func oneCoreGoesAfterTheScreenSize() {
        #expect(Benchmarks.oneCoreKey("street_full_1080p_ms") == "street_full_1080p_1core_ms")
        #expect(Benchmarks.oneCoreKey("render_full_2160p_ms") == "render_full_2160p_1core_ms")
        #expect(Benchmarks.oneCoreKey("street_interactive_tilted_1080p_ms") == "street_interactive_tilted_1080p_1core_ms")
        #expect(Benchmarks.oneCoreKey("street_pan_1080p_cold_copy_ratio") == "street_pan_1080p_1core_cold_copy_ratio")
        #expect(Benchmarks.oneCoreKey("geojson_load_10k_ms") == "geojson_load_10k_1core_ms")
    }
}
