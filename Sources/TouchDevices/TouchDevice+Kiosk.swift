import TouchCore
import CEvdev

extension TouchDevice {
    /// Takes the device exclusively (EVIOCGRAB): no other reader sees its events. Returns false
    /// when another program already holds it.
    @discardableResult
    public func grab() -> Bool { tb_evdev_grab(fd, 1) == 0 }

    /// Cancels every contact down (the device was reported removed before a read saw ENODEV).
    public func cancelAll(time: Double) -> ContactFrame {
        assembler.cancelAll(time: time)
    }
}

extension TouchscreenInfo {
    public init(devnode path: String, capabilities: DeviceCapabilities, calibration: Calibration?, foundBy: String) {
        self.path = path
        self.capabilities = capabilities
        self.calibration = calibration
        self.foundBy = foundBy
    }
}
