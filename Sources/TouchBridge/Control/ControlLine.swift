import Foundation
import MapEngine

extension MapView {
    /// One request line answered as the control socket answers it (`ControlServer`), without a
    /// socket: the same parser, the same commands, the same reply text. For tests and the
    /// fuzz-control target (Fuzz/README.md).
    public func answerControlLine(_ line: String) -> String {
        switch ControlRequest.parse(line: line) {
        case .failure(let e):
            return ControlReply.error(id: e.id, e.message)
        case .success(let r):
            do {
                return ControlReply.ok(id: r.id, try perform(r, client: ControlServer.Client(fd: -1, number: 0)))
            } catch let e as ControlError {
                return ControlReply.error(id: r.id, e.message)
            } catch {
                return ControlReply.error(id: r.id, "\(error)")
            }
        }
    }
}
