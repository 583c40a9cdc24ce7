import Foundation
import TouchCore
import Testing
@testable import Rendering

/// `FrameBuffer.writePNGReplacing` (the control socket's `screenshot`, issue 31): a FIFO is
/// refused at once instead of blocking the kiosk, a symlink is replaced and never followed,
/// and a failed write leaves no torn file and no temporary one.
@Suite struct PNGReplaceTests {
    let dir = NSTemporaryDirectory() + "tb-png-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    func names() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).sorted() }

    @Test func fifosAndFoldersAreRefusedSymlinksReplacedAndNothingIsLeftBehind() throws {
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let frame = OwnedFrameBuffer(width: 8, height: 4)
        // A plain file: written, a PNG.
        try frame.buffer.writePNGReplacing(path: dir + "/shot.png")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: dir + "/shot.png"))
        #expect(bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        // A FIFO: refused without opening it (opening would block until a reader came).
        #expect(mkfifo(dir + "/fifo", 0o600) == 0)
        #expect(throws: PNGWriteError.self) { try frame.buffer.writePNGReplacing(path: dir + "/fifo") }
        // A folder: refused.
        try FileManager.default.createDirectory(atPath: dir + "/folder", withIntermediateDirectories: false)
        #expect(throws: PNGWriteError.self) { try frame.buffer.writePNGReplacing(path: dir + "/folder") }
        // A symlink to someone else's file: the link is replaced by the screenshot; the file stays.
        try "precious\n".write(toFile: dir + "/precious.toml", atomically: false, encoding: .utf8)
        #expect(symlink(dir + "/precious.toml", dir + "/link.png") == 0)
        try frame.buffer.writePNGReplacing(path: dir + "/link.png")
        #expect(try String(contentsOfFile: dir + "/precious.toml", encoding: .utf8) == "precious\n")
        var st = stat()
        #expect(lstat(dir + "/link.png", &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG)
        // A folder that does not exist: an error naming it, nothing written.
        do { try frame.buffer.writePNGReplacing(path: dir + "/nope/shot.png"); Issue.record("written") } catch {
            #expect("\(error)".contains(dir + "/nope"), "\(error)")
        }
        #expect(names() == ["fifo", "folder", "link.png", "precious.toml", "shot.png"], "\(names())")
    }
}
