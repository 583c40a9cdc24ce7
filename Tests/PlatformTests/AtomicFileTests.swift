import Foundation
import SystemPackage
import Testing
@testable import Platform
#if canImport(Glibc)
import Glibc
#endif

/// The one atomic file replacement (the configuration writer and the metrics textfile use it;
/// ConfigWriteTests drive its failure paths through the configuration writer).
@Suite struct AtomicFileTests {
    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("atomic-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func replacesThroughALinkKeepsTheModeAndLeavesNoTemporaryFile() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "old".write(toFile: dir + "/real", atomically: false, encoding: .utf8)
        chmod(dir + "/real", 0o640)
        symlink("real", dir + "/link")
        let backup = try AtomicFile.replace(dir + "/link", with: Array("new".utf8), keepBackup: true)
        #expect(backup == dir + "/real.bak")
        #expect(try String(contentsOfFile: dir + "/real", encoding: .utf8) == "new")
        #expect(try String(contentsOfFile: dir + "/real.bak", encoding: .utf8) == "old")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir + "/link") == "real")
        var st = stat()
        stat(dir + "/real", &st)
        #expect(st.st_mode & 0o7777 == 0o640)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["link", "real", "real.bak"])
    }

    @Test func aNewFileWithoutBackupOrFlush() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        #expect(try AtomicFile.replace(dir + "/m.prom", with: Array("a 1\n".utf8), keepBackup: true, durable: false) == nil)
        try AtomicFile.replace(dir + "/m.prom", with: Array("a 2\n".utf8), durable: false)
        #expect(try String(contentsOfFile: dir + "/m.prom", encoding: .utf8) == "a 2\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["m.prom"])
    }

    @Test func whatIsNotARegularFileIsNotReplaced() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        mkfifo(dir + "/fifo", 0o600)
        do {
            try AtomicFile.replace(dir + "/fifo", with: [1, 2, 3])
            Issue.record("a FIFO was replaced")
        } catch {
            #expect(error.step == .notRegularFile && error.path == dir + "/fifo")
            #expect("\(error)".contains("is not a regular file"))
        }
        do {
            try AtomicFile.replace(dir + "/missing/x", with: [1])
            Issue.record("written into a missing folder")
        } catch {
            #expect(error.step == .createTemporary && error.errno == .noSuchFileOrDirectory, "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["fifo"])
    }
}
