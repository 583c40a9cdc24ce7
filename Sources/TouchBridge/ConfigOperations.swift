import Foundation

/// The operator's keys (docs/operations.md): screen blanking and the backlight (`[display]`),
/// the attract loop (`[kiosk]`) and the metrics textfile (`[metrics]`).
extension KioskConfiguration {
    public struct OperationsSettings: Sendable, Equatable {
        /// Seconds without a touch before the display is turned off; 0: never.
        public var blankAfter: Double = 0
        /// A /sys/class/backlight device name; nil: the backlight is left alone.
        public var backlight: String? = nil
        /// Brightness while in use (nil: the device's max_brightness) and while blanked.
        public var backlightActive: Int? = nil
        public var backlightDim: Int = 0
        /// Seconds without a touch before the attract tour plays; 0: never.
        public var attractAfter: Double = 0
        /// "demo" (the built-in tour) or the absolute path of an evemu recording.
        public var attract: String = "demo"
        /// Where to write the Prometheus textfile (node_exporter's textfile collector); nil: nowhere.
        public var metricsTextfile: String? = nil
        public var metricsInterval: Double = 15
        public init() {}
    }
}
