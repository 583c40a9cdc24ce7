import Foundation
import Platform

/// Notices that the reader of an output went away while nothing is being written to it:
/// `touchbridge events | head -1` on an idle kiosk must end when `head` does, not at the next
/// event (issue 31). poll(2) with no events asked for still reports POLLERR on a pipe whose
/// read end is closed (and POLLHUP on a terminal that hung up); a regular file or /dev/null
/// reports neither, so the watch then simply never fires.
public enum OutputWatch {
    /// Waits until `fd`'s reader is gone (true) or `timeout` seconds pass (false; nil: for ever).
    public static func waitForClose(fd: Int32, timeout: Double?) -> Bool {
        FileIO.waitHangUp(fd, timeout: timeout)
    }

    /// Starts a thread that calls `onClose` (by default: exit 0, as a closed pipe ends `events`)
    /// once `fd`'s reader is gone.
    public static func exitWhenClosed(fd: Int32, onClose: @escaping @Sendable () -> Void = { Foundation.exit(0) }) {
        let t = Thread { if waitForClose(fd: fd, timeout: nil) { onClose() } }
        t.name = "output-watch"
        t.start()
    }
}
