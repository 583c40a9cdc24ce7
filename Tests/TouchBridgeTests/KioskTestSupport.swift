import TouchCore
import TouchDevices
@testable import TouchBridge
@testable import Kiosk

/// The tests of the kiosk drive its view as the loop would: these reach the view's loop steps
/// through the kiosk, so a test reads as it did when the view and the kiosk were one type.
extension Kiosk {
    func drawAndPresent(now: Double) { view.drawAndPresent(now: now) }
    func handle(_ events: [TouchInputHub.Event]) { view.handle(events) }
    func feed(_ f: ContactFrame, from path: String) { view.feed(f, from: path) }
    func beforeWait() { view.beforeWait() }
    var tileWorker: TileWorkerWake? { view.tileWorker }
    var framesPresented: Int { view.framesPresented }
    var firstFrameTime: Double? { view.firstFrameTime }
    var onFramePresented: ((_ now: Double, _ inputTime: Double?) -> Void)? {
        get { view.onFramePresented }
        set { view.onFramePresented = newValue }
    }
    var delegate: MapViewDelegate? {
        get { view.delegate }
        set { view.delegate = newValue }
    }
}
