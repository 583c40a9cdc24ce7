import TouchBridge
import Foundation
import MapEngine
import Platform

extension Kiosk {
    /// One request line answered as the control socket answers it (`ControlServer`), without a
    /// socket: the same parser, the same commands, the same reply text. For tests and the
    /// fuzz-control target (Fuzz/README.md).
    package func answerControlLine(_ line: String) -> String {
        switch ControlRequest.parse(line: line) {
        case .failure(let e):
            return ControlReply.error(id: e.id, e.message)
        case .success(let r):
            do {
                return ControlReply.ok(id: r.id, try perform(r, client: ControlServer.Client(socket: OwnedDescriptor(adopting: -1, path: "no socket"), number: 0)))
            } catch let e as ControlError {
                return ControlReply.error(id: r.id, e.message)
            } catch {
                return ControlReply.error(id: r.id, "\(error)")
            }
        }
    }
}
