import TouchCore

extension DeviceCapabilities {
    /// A pen or stylus node: the kernel's hid-multitouch (and Wacom, and most pen displays) give
    /// the pen of a touch panel its own node ("… Stylus", "… Pen") beside the touch node, with
    /// the same vendor:product and INPUT_PROP_DIRECT, so it passes every touchscreen test. It
    /// reports a pen tool (BTN_TOOL_PEN or BTN_STYLUS) and no multitouch; a finger panel reports
    /// neither pen key. The name is the fallback for drivers that omit the tool keys.
    public var isPenNode: Bool {
        if hasAbs(ABS.MT_POSITION_X) { return false }
        if has(EV.KEY, BTN.TOOL_PEN) || has(EV.KEY, BTN.STYLUS) { return true }
        let lower = name.lowercased()
        return lower.hasSuffix(" stylus") || lower.hasSuffix(" pen")
    }
}
