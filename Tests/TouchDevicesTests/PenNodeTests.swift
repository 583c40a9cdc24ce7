import Testing
import TouchCore
@testable import TouchDevices

/// A pen panel's kernel nodes, as hid-multitouch creates them for one USB device: the finger
/// node and the "… Stylus" node share name prefix, vendor:product and INPUT_PROP_DIRECT.
struct PenNodeTests {
    static func axis(_ max: Int32) -> AbsInfo { AbsInfo(minimum: 0, maximum: max, resolution: 40) }

    /// The finger node (protocol B).
    static let touch: DeviceCapabilities = {
        let abs: [UInt16: AbsInfo] = [ABS.X: axis(9600), ABS.Y: axis(7200), ABS.MT_SLOT: axis(9),
                                      ABS.MT_TRACKING_ID: axis(65535), ABS.MT_POSITION_X: axis(9600), ABS.MT_POSITION_Y: axis(7200)]
        return DeviceCapabilities(name: "ELAN9038:00 04F3:2A1C", bustype: 0x18, vendor: 0x04f3, product: 0x2a1c,
                                  properties: [INPUT_PROP.DIRECT], codes: [EV.KEY: [BTN.TOUCH], EV.ABS: Set(abs.keys)], absinfo: abs)
    }()

    /// The pen node beside it: pen tool keys, pressure, no multitouch.
    static let stylus: DeviceCapabilities = {
        let abs: [UInt16: AbsInfo] = [ABS.X: axis(9600), ABS.Y: axis(7200), ABS.PRESSURE: axis(4095)]
        return DeviceCapabilities(name: "ELAN9038:00 04F3:2A1C Stylus", bustype: 0x18, vendor: 0x04f3, product: 0x2a1c,
                                  properties: [INPUT_PROP.DIRECT],
                                  codes: [EV.KEY: [BTN.TOUCH, BTN.TOOL_PEN, BTN.TOOL_RUBBER, BTN.STYLUS], EV.ABS: Set(abs.keys)],
                                  absinfo: abs)
    }()

    /// A pen node whose driver sets no pen keys: known by its name.
    static let namedPen: DeviceCapabilities = {
        let abs: [UInt16: AbsInfo] = [ABS.X: axis(4095), ABS.Y: axis(4095)]
        return DeviceCapabilities(name: "Wacom HID 5218 Pen", vendor: 0x056a, product: 0x5218,
                                  properties: [INPUT_PROP.DIRECT], codes: [EV.KEY: [BTN.TOUCH], EV.ABS: Set(abs.keys)], absinfo: abs)
    }()

    /// An old single-touch finger panel (resistive, no MT): not a pen.
    static let resistive: DeviceCapabilities = {
        let abs: [UInt16: AbsInfo] = [ABS.X: axis(4095), ABS.Y: axis(4095), ABS.PRESSURE: axis(255)]
        return DeviceCapabilities(name: "eGalax Inc. USB TouchController", vendor: 0x0eef, product: 0x0001,
                                  properties: [INPUT_PROP.DIRECT], codes: [EV.KEY: [BTN.TOUCH], EV.ABS: Set(abs.keys)], absinfo: abs)
    }()

    @Test func penNodesAreTold() {
        // Both pass the generic touchscreen test: that is why a pen node was opened as a second panel.
        #expect(Self.touch.isTouchscreen && Self.stylus.isTouchscreen && Self.resistive.isTouchscreen)
        #expect(!Self.touch.isPenNode)
        #expect(Self.stylus.isPenNode)
        #expect(Self.namedPen.isPenNode)
        #expect(!Self.resistive.isPenNode)
    }

    @Test func pensAreSkippedUnlessAskedFor() {
        let sameName = TouchDeviceMatch.name("ELAN9038")
        let sameID = TouchDeviceMatch.vendorProduct(vendor: 0x04f3, product: 0x2a1c)
        // The match selects both nodes...
        #expect(sameName.matches(path: "/dev/input/event7", capabilities: Self.stylus))
        #expect(sameID.matches(path: "/dev/input/event7", capabilities: Self.stylus))
        // ...but only the finger node is accepted, for "auto", a name and an id.
        for match in [nil, sameName, sameID] as [TouchDeviceMatch?] {
            #expect(TouchDiscovery.accepts(Self.touch, udevTablet: false, match: match, pens: false))
            #expect(!TouchDiscovery.accepts(Self.stylus, udevTablet: false, match: match, pens: false))
            #expect(!TouchDiscovery.accepts(Self.namedPen, udevTablet: false, match: match, pens: false))
            #expect(TouchDiscovery.accepts(Self.resistive, udevTablet: false, match: match, pens: false))
            // udev's word for a tablet counts too, for a node without multitouch.
            #expect(!TouchDiscovery.accepts(Self.resistive, udevTablet: true, match: match, pens: false))
            #expect(TouchDiscovery.accepts(Self.touch, udevTablet: true, match: match, pens: false))
            // `pens = true` opens them.
            #expect(TouchDiscovery.accepts(Self.stylus, udevTablet: true, match: match, pens: true))
        }
        // A path names the node: it is opened whatever it is.
        #expect(TouchDiscovery.accepts(Self.stylus, udevTablet: true, match: .path("/dev/input/event7"), pens: false))
    }

    @Test func hubEntriesDefaultToNoPens() {
        #expect(!TouchInputHub.Entry().pens)
    }
}
