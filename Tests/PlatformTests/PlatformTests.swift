#if canImport(Glibc)
import Glibc
#endif
import Testing
import SystemPackage
@testable import Platform

@Suite struct OwnedDescriptorTests {
    @Test func closesExactlyOnce() throws {
        let d = try OwnedDescriptor(path: "/dev/null", .readOnly)
        let raw = d.rawValue
        #expect(fcntl(raw, F_GETFD) >= 0)
        d.close()
        #expect(d.rawValue == -1)
        #expect(!d.isOpen)
        d.close() // a second close does nothing (and closes no one else's fd)
    }

    @Test func openErrorNamesTheFileAndErrno() {
        do {
            _ = try OwnedDescriptor(path: "/nonexistent/event3", .readOnly)
            Issue.record("opened a missing file")
        } catch let e as SystemError {
            #expect(e.errno == .noSuchFileOrDirectory)
            #expect(e.path == "/nonexistent/event3")
            #expect(e.description == "open /nonexistent/event3: No such file or directory")
        } catch { Issue.record("unexpected \(error)") }
    }

    @Test func clockIsMonotonic() {
        let a = MonotonicClock.now(), b = MonotonicClock.now()
        #expect(b >= a)
        #expect(a > 0)
    }
}

@Suite struct CCharsTests {
    @Test func endsAtTheFirstNul() {
        let buffer: [CChar] = Array("bad JPEG\u{0}stale text".utf8CString)
        #expect(String(cChars: buffer) == "bad JPEG")
    }

    @Test func takesAllWithoutANulAndKeepsUTF8() {
        let bytes = Array("Zürich".utf8).map { CChar(bitPattern: $0) }
        #expect(String(cChars: bytes) == "Zürich")
        #expect(String(cChars: []) == "")
        #expect(String(cChars: [0, 65]) == "")
    }
}
