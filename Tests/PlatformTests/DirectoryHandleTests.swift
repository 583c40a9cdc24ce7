import Foundation
import SystemPackage
import Testing
@testable import Platform
#if canImport(Glibc)
import Glibc
#endif

/// The `*at` calls relative to an open folder (the control socket's confined paths and the
/// screenshot writer walk and write with them): a symlink is never followed below the folder,
/// a new file never replaces one, and every failure is a `SystemError` with its `Errno`.
@Suite struct DirectoryHandleTests {
    func folder() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("dirhandle-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir + "/sub", withIntermediateDirectories: true)
        return dir
    }

    @Test func walksFoldersButNotThroughALink() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        symlink("sub", dir + "/link")
        let top = try DirectoryHandle.open(dir)
        let sub = try top.openDirectory("sub")
        #expect(sub.path == dir + "/sub")
        #expect(sub.descriptor.isOpen)
        do {
            _ = try top.openDirectory("link")
            Issue.record("a symbolic link was followed")
        } catch let e as SystemError {
            // O_NOFOLLOW | O_DIRECTORY on a link: ELOOP or ENOTDIR, by kernel version.
            #expect([Errno.tooManySymbolicLinkLevels, .notDirectory].contains(e.errno))
            #expect(e.path == dir + "/link")
        }
        do {
            _ = try top.openDirectory("missing")
            Issue.record("opened a folder that is not there")
        } catch let e as SystemError {
            #expect(e.errno == .noSuchFileOrDirectory)
            #expect("\(e)".contains(dir + "/missing"))
        }
        sub.close()
        #expect(!sub.descriptor.isOpen)
    }

    @Test func createsOnlyNewFilesRenamesAndRemoves() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let top = try DirectoryHandle.open(dir)
        let file = try top.createNew("a.tmp")
        try FileIO.writeAll(file.rawValue, Array("hello".utf8), path: file.path)
        try file.closeReportingErrors()
        try file.closeReportingErrors()   // a second close does nothing
        #expect(throws: SystemError.self) { _ = try top.createNew("a.tmp") }   // O_EXCL
        let entry = try #require(try top.entry("a.tmp"))
        #expect(entry.kind == .regular)
        #expect(entry.owner == DirectoryHandle.processOwner)
        #expect(entry.links == 1)
        try top.rename("a.tmp", to: "a.png")
        #expect(try top.entry("a.tmp") == nil)
        #expect(try String(contentsOfFile: dir + "/a.png", encoding: .utf8) == "hello")
        link(dir + "/a.png", dir + "/hard")
        #expect(try top.entry("a.png")?.links == 2)
        symlink("a.png", dir + "/soft")
        #expect(try top.entry("soft")?.kind == .symlink)     // not followed
        #expect(try top.entry("sub")?.kind == .directory)
        try top.remove("a.png")
        try top.remove("a.png")                                 // already gone: not an error
        #expect(try top.entry("a.png") == nil)
        do {
            try top.rename("nothing", to: "b")
            Issue.record("renamed a file that is not there")
        } catch let e as SystemError {
            #expect(e.errno == .noSuchFileOrDirectory)
            #expect(e.operation == "rename")
        }
    }

    @Test func aFIFOIsOpenedWithoutBlocking() throws {
        let dir = try folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        mkfifo(dir + "/fifo", 0o600)
        let top = try DirectoryHandle.open(dir)
        // O_NONBLOCK: open returns at once although no writer is there.
        let f = try top.openForReading("fifo")
        #expect(try FileStatus.of(descriptor: f.rawValue).kind == .fifo)
        #expect(throws: SystemError.self) { _ = try DirectoryHandle.open(dir + "/fifo") }
    }
}
