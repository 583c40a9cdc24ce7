import CEvdev
import CUdev
import TouchCore
import Platform
import SystemPackage

/// A touchscreen found on this machine.
public struct TouchscreenInfo: Sendable, Hashable {
    public var path: String
    public var capabilities: DeviceCapabilities
    /// From the udev property LIBINPUT_CALIBRATION_MATRIX, when set.
    public var calibration: Calibration?
    /// How it was recognised: "udev" (ID_INPUT_TOUCHSCREEN=1), "capabilities" (INPUT_PROP_DIRECT
    /// and absolute axes, when udev has no database) or "config" (matched explicitly).
    public var foundBy: String
}

/// Finds touchscreens with libudev, or by their capabilities when udev has no database
/// (a busybox system without udevd), or by a config match that overrides both.
public enum TouchDiscovery {
    /// Every touchscreen, or, with `match`, every touch device the match selects (whatever udev
    /// thinks of it), sorted by path.
    /// - Parameter pens: also pen/stylus nodes (`isPenNode`, or udev's ID_INPUT_TABLET). A pen
    ///   panel's "… Stylus" node has the touch node's name and vendor:product, so a name or id
    ///   match would otherwise open it as a second touchscreen. A path match opens what it names.
    public static func touchscreens(matching match: TouchDeviceMatch? = nil, pens: Bool = false) -> [TouchscreenInfo] {
        if case .path(let p)? = match {
            guard let caps = try? capabilities(path: p) else { return [] }
            return [TouchscreenInfo(path: p, capabilities: caps, calibration: udevCalibration(devnode: p), foundBy: "config")]
        }
        return eventNodes().compactMap { classify($0, match: match, pens: pens) }
            .sorted { $0.path.localizedStandardLess($1.path) }
    }

    /// The node at `path` when it is a touchscreen (or, with `match`, a touch device it selects).
    public static func touchscreen(path: String, matching match: TouchDeviceMatch? = nil, pens: Bool = false) -> TouchscreenInfo? {
        let node = eventNodes().first { $0.devnode == path }
            ?? EventNode(devnode: path, initialized: false, touchscreen: false)
        return classify(node, match: match, pens: pens)
    }

    static func classify(_ node: EventNode, match: TouchDeviceMatch?, pens: Bool = false) -> TouchscreenInfo? {
        let udevSaysTouch = node.initialized ? node.touchscreen : nil
        if match == nil && udevSaysTouch == false && !(pens && node.tablet) { return nil }
        guard let caps = try? capabilities(path: node.devnode) else { return nil }
        guard accepts(caps, udevTablet: node.tablet, match: match, pens: pens) else { return nil }
        if let match {
            guard caps.touchKind != nil, match.matches(path: node.devnode, capabilities: caps) else { return nil }
            return TouchscreenInfo(path: node.devnode, capabilities: caps, calibration: node.calibration, foundBy: "config")
        }
        if udevSaysTouch == true {
            return TouchscreenInfo(path: node.devnode, capabilities: caps, calibration: node.calibration, foundBy: "udev")
        }
        guard caps.isTouchscreen else { return nil }
        return TouchscreenInfo(path: node.devnode, capabilities: caps, calibration: node.calibration, foundBy: "capabilities")
    }

    /// Whether a node with these capabilities may be opened as a touchscreen for this match:
    /// not a pen node unless `pens` asks for them or the match names the node's path.
    static func accepts(_ caps: DeviceCapabilities, udevTablet: Bool, match: TouchDeviceMatch?, pens: Bool) -> Bool {
        if pens { return true }
        if case .path? = match { return true }
        return !(caps.isPenNode || (udevTablet && !caps.hasAbs(ABS.MT_POSITION_X)))
    }

    /// Reads a node's capabilities (opens and closes it).
    public static func capabilities(path: String) throws -> DeviceCapabilities {
        let descriptor = try TouchDevice.openNode(path)
        defer { descriptor.close() }
        var handle: OpaquePointer?
        let rc = libevdev_new_from_fd(descriptor.rawValue, &handle)
        guard rc == 0, let handle else { throw TouchDeviceError.notEvdev(path: path, errno: Errno(rawValue: -rc)) }
        defer { libevdev_free(handle) }
        return EvdevInventory.capabilities(of: handle)
    }

    /// LIBINPUT_CALIBRATION_MATRIX of the udev device behind a /dev node, when set.
    public static func udevCalibration(devnode: String) -> Calibration? {
        eventNodes().first { $0.devnode == devnode }?.calibration
    }

    struct EventNode {
        var devnode: String
        /// udev has processed the device (its database exists): properties are meaningful.
        var initialized: Bool
        var touchscreen: Bool
        var calibration: Calibration?
        /// udev's ID_INPUT_TABLET (pens, graphics tablets).
        var tablet = false
    }

    /// input/event* nodes from udev; when udev cannot enumerate, /dev/input/event* directly.
    static func eventNodes() -> [EventNode] {
        var nodes: [EventNode] = []
        if let udev = udev_new() {
            defer { udev_unref(udev) }
            if let e = udev_enumerate_new(udev) {
                defer { udev_enumerate_unref(e) }
                udev_enumerate_add_match_subsystem(e, "input")
                udev_enumerate_add_match_sysname(e, "event*")
                udev_enumerate_scan_devices(e)
                var entry = udev_enumerate_get_list_entry(e)
                while let current = entry {
                    if let syspath = udev_list_entry_get_name(current),
                       let d = udev_device_new_from_syspath(udev, syspath) {
                        if let node = eventNode(d) { nodes.append(node) }
                        udev_device_unref(d)
                    }
                    entry = udev_list_entry_get_next(current)
                }
            }
        }
        if nodes.isEmpty {
            nodes = DeviceNodes.numbered("event", in: "/dev/input").map { EventNode(devnode: $0, initialized: false, touchscreen: false) }
        }
        return nodes
    }

    static func eventNode(_ d: OpaquePointer) -> EventNode? {
        guard let devnode = udev_device_get_devnode(d).map({ String(cString: $0) }) else { return nil }
        func property(_ key: String) -> String? { udev_device_get_property_value(d, key).map { String(cString: $0) } }
        let initialized = udev_device_get_is_initialized(d) != 0 && property("ID_INPUT") != nil
        return EventNode(devnode: devnode, initialized: initialized,
                         touchscreen: property("ID_INPUT_TOUCHSCREEN") == "1",
                         calibration: property("LIBINPUT_CALIBRATION_MATRIX").flatMap { Calibration(libinputString: $0) },
                         tablet: property("ID_INPUT_TABLET") == "1")
    }
}

extension String {
    /// "event2" < "event10".
    func localizedStandardLess(_ other: String) -> Bool {
        let a = self.split(whereSeparator: { $0.isNumber == false }).last.flatMap { Int($0) }
        let b = other.split(whereSeparator: { $0.isNumber == false }).last.flatMap { Int($0) }
        if let a, let b, self.filter({ !$0.isNumber }) == other.filter({ !$0.isNumber }) { return a < b }
        return self < other
    }
}
