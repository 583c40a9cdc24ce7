import TouchCore
import Foundation
import Testing
@testable import KioskTools
@testable import TouchBridge
@testable import Kiosk

/// The calibration's configuration write (issue 19): mode, owner and symlink kept, the folder
/// flushed, and failures named for what they are. Real files and links in a temporary folder;
/// failures of the disk are put into the write's system calls.
@Suite struct ConfigWriteTests {
    let dir: String

    init() throws {
        dir = NSTemporaryDirectory() + "tb-write-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: dir + "/real", withIntermediateDirectories: true)
    }

    func cleanUp() { try? FileManager.default.removeItem(atPath: dir) }
    func read(_ p: String) -> String? { try? String(contentsOfFile: p, encoding: .utf8) }
    func info(_ p: String) -> stat { var st = stat(); lstat(p, &st); return st }
    func names(_ folder: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }

    @Test func throughASymlinkTheLinkModeAndOwnerStay() throws {
        defer { cleanUp() }
        let target = dir + "/real/kiosk.toml", link = dir + "/kiosk.toml"
        try "old\n".write(toFile: target, atomically: false, encoding: .utf8)
        #expect(chmod(target, 0o640) == 0)
        // As root the file can belong to someone else, as a deployment's would (kiosk:kiosk).
        let owner: (uid_t, gid_t) = geteuid() == 0 ? (1234, 5678) : (geteuid(), getegid())
        #expect(chown(target, owner.0, owner.1) == 0)
        #expect(symlink("real/kiosk.toml", link) == 0)

        let backup = try ConfigWriter.writeAtomically("new\n", to: link)

        #expect(backup == target + ".bak")
        let l = info(link)
        #expect(l.st_mode & S_IFMT == S_IFLNK, "the link is still a link")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == "real/kiosk.toml")
        #expect(read(link) == "new\n" && read(target) == "new\n")
        let t = info(target)
        #expect(t.st_mode & 0o7777 == 0o640, "mode \(String(t.st_mode & 0o7777, radix: 8))")
        #expect(t.st_uid == owner.0 && t.st_gid == owner.1, "owner \(t.st_uid):\(t.st_gid)")
        #expect(read(target + ".bak") == "old\n")
        #expect(info(target + ".bak").st_mode & 0o7777 == 0o640, "the backup keeps the old file's mode too")
        #expect(names(dir + "/real") == ["kiosk.toml", "kiosk.toml.bak"], "no temporary file left")
        #expect(names(dir) == ["kiosk.toml", "real"], "nothing written beside the link")
    }

    @Test func aChainOfLinksToAFileNotYetWrittenIsWrittenThrough() throws {
        defer { cleanUp() }
        #expect(symlink(dir + "/b.toml", dir + "/a.toml") == 0)       // absolute
        #expect(symlink("real/new.toml", dir + "/b.toml") == 0)       // relative, dangling
        let backup = try ConfigWriter.writeAtomically("[map]\n", to: dir + "/a.toml")
        #expect(backup == nil)
        #expect(read(dir + "/real/new.toml") == "[map]\n")
        #expect(info(dir + "/a.toml").st_mode & S_IFMT == S_IFLNK && info(dir + "/b.toml").st_mode & S_IFMT == S_IFLNK)
        let u = umask(0); umask(u)
        #expect(info(dir + "/real/new.toml").st_mode & 0o7777 == 0o644 & ~u)
    }

    /// The backup is renamed into place (issue 31: it used to be removed, then made again, so a
    /// kill in between lost it): when making the new one fails, the old backup is still there.
    @Test func theOldBackupStaysUntilTheNewOneIsInPlace() throws {
        defer { cleanUp() }
        let path = dir + "/real/kiosk.toml"
        try "second\n".write(toFile: path, atomically: false, encoding: .utf8)
        try "first\n".write(toFile: path + ".bak", atomically: false, encoding: .utf8)
        var io = ConfigWriter.IO.system
        io.rename = { from, to in
            if to.hasSuffix(".bak") { errno = EIO; return -1 }
            return Glibc.rename(from, to)
        }
        do { _ = try ConfigWriter.writeAtomically("third\n", to: path, io: io); Issue.record("written") } catch {
            #expect("\(error)".contains("backup"), "\(error)")
        }
        #expect(read(path + ".bak") == "first\n")
        #expect(read(path) == "second\n")
        #expect(names(dir + "/real") == ["kiosk.toml", "kiosk.toml.bak"], "no temporary file left")
        // And when it works, the backup is the file as it was.
        _ = try ConfigWriter.writeAtomically("third\n", to: path)
        #expect(read(path + ".bak") == "second\n" && read(path) == "third\n")
        #expect(names(dir + "/real") == ["kiosk.toml", "kiosk.toml.bak"])
    }

    @Test func aLinkLoopIsNamed() {
        defer { cleanUp() }
        symlink(dir + "/y", dir + "/x"); symlink(dir + "/x", dir + "/y")
        do { try ConfigWriter.writeAtomically("a", to: dir + "/x"); Issue.record("written") } catch {
            #expect("\(error)".contains("too many symbolic links") && "\(error)".contains(dir + "/x"), "\(error)")
        }
    }

    /// Each failing step leaves the old file as it was, no temporary file, and says what failed.
    @Test func aFullDiskIsADiskFullNotAPermissionProblem() throws {
        defer { cleanUp() }
        let path = dir + "/real/kiosk.toml"
        try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
        var failing = ConfigWriter.IO.system
        failing.write = { _, _, _ in errno = ENOSPC; return -1 }
        var rofs = ConfigWriter.IO.system
        rofs.rename = { _, _ in errno = EROFS; return -1 }
        var eio = ConfigWriter.IO.system
        eio.fsync = { _ in errno = EIO; return -1 }
        var short = ConfigWriter.IO.system   // a write that stops half way, then finds the disk full
        final class Calls: @unchecked Sendable { var n = 0 }
        let calls = Calls()
        short.write = { fd, p, n in calls.n += 1; if calls.n == 1 { return Glibc.write(fd, p, n / 2) }; errno = ENOSPC; return -1 }
        for (io, says) in [(failing, "the disk is full"), (rofs, "the file system is read-only"), (eio, "an input/output error"),
                           (short, "the disk is full")] {
            do { try ConfigWriter.writeAtomically("new configuration\n", to: path, io: io); Issue.record("written") } catch {
                let text = "\(error)"
                #expect(text.contains(path) && text.contains(says) && text.contains("The file was not changed"), "\(text)")
                #expect(!text.contains("permission"), "\(text)")
            }
            #expect(read(path) == "old\n")
            #expect(names(dir + "/real").allSatisfy { !$0.contains(".tmp-") }, "\(names(dir + "/real"))")
        }
        #expect(ConfigWriter.explain(EACCES).contains("permission denied") && ConfigWriter.explain(EDQUOT).contains("quota"))
    }

    @Test func theUdevRuleCannotBeBrokenOrWidenedByTheDeviceName() {
        let m = [1.0, 0, 0, 0, 1, 0]
        for name in ["ELAN \"Touch\"", "a\\b", "evil\", RUN+=\"/bin/sh", "line\nbreak\r", "*", "Panel|Keyboard", "100% $HOME", "[x]?", "Nörd tätsch"] {
            let rule = CalibrationFit.udevRule(matrix: m, deviceName: name)
            #expect(!rule.contains("\n") && !rule.contains("\r"), "\(rule.debugDescription)")
            #expect(rule.filter { $0 == "\"" }.count == 6, "only the rule's own quotes: \(rule)")
            #expect(!rule.contains("RUN+=\""), "\(rule)")
            let pattern = CalibrationFit.udevPattern(name)
            #expect(fnmatch(pattern, name, 0) == 0, "\(pattern) matches \(name.debugDescription)")
            #expect(fnmatch(pattern, "Some Keyboard", 0) != 0, "\(pattern) matches no other device")
            #expect(pattern.unicodeScalars.count == name.unicodeScalars.count)
        }
        #expect(CalibrationFit.udevPattern("Nörd tätsch") == "Nörd tätsch", "plain names are kept")
        #expect(CalibrationFit.udevRule(matrix: m, deviceName: "TouchBridge skewed panel").contains("ATTRS{name}==\"TouchBridge skewed panel\""))
    }
}
