import Foundation
import Platform

/// Any descriptor epoll accepts, for a scripted touchscreen (its reads come from its script,
/// not from the descriptor): the read end of a pipe whose write end is closed.
func pollable() -> OwnedDescriptor {
    var fds: [Int32] = [-1, -1]
    _ = pipe(&fds)
    close(fds[1])
    return OwnedDescriptor(adopting: fds[0], path: "pipe")
}
