import Testing
@testable import Display

/// What an fbdev driver reports is checked before a byte is written: the rows of every page
/// written must lie inside the mapping (`smem_len`), each `line_length` long.
@Suite struct FBLayoutTests {
    let path = "/dev/fb0"

    @Test func aSaneDriverIsDoubleBufferedWhenTwoScreensFit() throws {
        let two = try FBLayout(path: path, xres: 800, yres: 480, yresVirtual: 960, yoffset: 480, lineLength: 3200, smemLength: 3200 * 960)
        #expect(two.doubleBuffered && two.visiblePage == 1)
        // Padded lines (a 4096-byte pitch) are fine; the virtual height says two screens but the
        // memory holds one: single buffered, page 0.
        let one = try FBLayout(path: path, xres: 800, yres: 480, yresVirtual: 960, yoffset: 480, lineLength: 4096, smemLength: 4096 * 480)
        #expect(!one.doubleBuffered && one.visiblePage == 0 && one.panToTop)
        #expect(!two.panToTop)
        // The last byte written stays inside the mapping in both cases.
        for l in [two, one] {
            let lastPage = l.doubleBuffered ? 1 : 0
            #expect(lastPage * l.lineLength * l.height + (l.height - 1) * l.lineLength + l.width * 4 <= l.mapLength)
        }
    }

    @Test func aShortLineIsRefusedWithTheFigures() {
        #expect(throws: DisplayError.framebufferLayout(path: path, detail: "line_length 3000 bytes is shorter than 800 pixels at 32 bpp")) {
            try FBLayout(path: path, xres: 800, yres: 480, yresVirtual: 480, yoffset: 0, lineLength: 3000, smemLength: 1 << 24)
        }
    }

    @Test func tooLittleMemoryIsRefusedWithTheFigures() {
        do {
            _ = try FBLayout(path: path, xres: 1920, yres: 1080, yresVirtual: 1080, yoffset: 0, lineLength: 7680, smemLength: 7680 * 1000)
            Issue.record("accepted 1000 lines of memory for 1080")
        } catch let e as DisplayError {
            #expect(e.description.contains("/dev/fb0"))
            #expect(e.description.contains("smem_len 7680000 bytes is smaller than 1080 lines of 7680 bytes"))
            #expect(e.description.contains("fbset"))
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func emptyOrAbsurdSizesAreRefused() {
        for (w, h) in [(0, 480), (800, 0), (100_000, 10)] {
            #expect(throws: DisplayError.self) {
                try FBLayout(path: path, xres: w, yres: h, yresVirtual: h, yoffset: 0, lineLength: 400_000, smemLength: Int(Int32.max))
            }
        }
    }
}
