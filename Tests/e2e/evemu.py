"""evemu device descriptions and event recordings for virtual touchscreens, written host side.

In the guest `evemu-device FILE.desc` creates the uinput device and `evemu-play NODE <
FILE.events` replays the events with their recorded timing (the harness wraps both:
`tb_evemu_device KEY` and `tb_play NODE FILE`). Format: evemu 1.3 as Debian's evemu-tools
2.7 reads it; hex without 0x.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

EV_SYN, EV_KEY, EV_ABS = 0x00, 0x01, 0x03
SYN_REPORT, SYN_MT_REPORT = 0, 2
BTN_TOUCH, BTN_TOOL_FINGER = 0x14A, 0x145
ABS_X, ABS_Y, ABS_PRESSURE = 0x00, 0x01, 0x18
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39
INPUT_PROP_DIRECT = 0x01
BUS_USB = 0x03

KINDS = ("protocolB", "protocolA", "singleTouch")


@dataclasses.dataclass
class Touchscreen:
    """A virtual touchscreen. `key` names it in the guest ($TB_DEV_<KEY>, devices/KEY.desc);
    `name` is what the kernel reports (must be unique within one run).
    Axis ranges are 0..x_max / 0..y_max in device units; resolution is units per mm."""
    key: str
    kind: str = "protocolB"
    slots: int = 10
    name: str = ""
    x_max: int = 4095
    y_max: int = 4095
    resolution: int = 12
    fuzz: int = 0
    vendor: int = 0x0EEF
    product: int = 0x0001
    version: int = 0x0100
    bus: int = BUS_USB
    direct: bool = True  # INPUT_PROP_DIRECT

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind {self.kind!r}: one of {KINDS}")
        if not self.name:
            self.name = f"TouchBridge test {self.kind} {self.key}"

    def axes(self) -> dict[int, tuple[int, int, int, int, int]]:
        """code -> (min, max, fuzz, flat, resolution)."""
        a = {ABS_X: (0, self.x_max, self.fuzz, 0, self.resolution),
             ABS_Y: (0, self.y_max, self.fuzz, 0, self.resolution)}
        if self.kind in ("protocolA", "protocolB"):
            a[ABS_MT_POSITION_X] = (0, self.x_max, self.fuzz, 0, self.resolution)
            a[ABS_MT_POSITION_Y] = (0, self.y_max, self.fuzz, 0, self.resolution)
        if self.kind == "protocolB":
            a[ABS_MT_SLOT] = (0, self.slots - 1, 0, 0, 0)
            a[ABS_MT_TRACKING_ID] = (0, 65535, 0, 0, 0)
        return a

    def desc(self) -> str:
        keys = {BTN_TOUCH, BTN_TOOL_FINGER}
        axes = self.axes()
        lines = ["# EVEMU 1.3", f'# Input device name: "{self.name}"', f"N: {self.name}",
                 f"I: {self.bus:04x} {self.vendor:04x} {self.product:04x} {self.version:04x}"]
        lines += _bitmask_lines("P:", None, {INPUT_PROP_DIRECT} if self.direct else set(), 8)
        lines += _bitmask_lines("B:", EV_SYN, {EV_SYN, EV_KEY, EV_ABS}, 8)
        lines += _bitmask_lines("B:", EV_KEY, keys, 0x300 // 8)
        lines += _bitmask_lines("B:", EV_ABS, set(axes), 0x40 // 8)
        for code in sorted(axes):
            mn, mx, fuzz, flat, res = axes[code]
            lines.append(f"A: {code:02x} {mn} {mx} {fuzz} {flat} {res}")
        return "\n".join(lines) + "\n"

    def script(self) -> "TouchScript":
        return TouchScript(self)


def _bitmask_lines(prefix: str, index: int | None, bits: set[int], nbytes: int) -> list[str]:
    mask = bytearray(max(8, (nbytes + 7) // 8 * 8))
    for b in bits:
        mask[b // 8] |= 1 << (b % 8)
    lines = []
    for off in range(0, len(mask), 8):
        row = " ".join(f"{x:02x}" for x in mask[off:off + 8])
        lines.append(f"{prefix} {index:02x} {row}" if index is not None else f"{prefix} {row}")
    return lines


Contact = tuple[int, int, int]  # (id, x, y) in device units


class TouchScript:
    """Builds an evemu events recording: one `frame(t, contacts)` per SYN_REPORT, in the
    device's protocol. t is seconds from the start; contacts absent from a frame are lifted."""

    def __init__(self, device: Touchscreen):
        self.device = device
        self.events: list[tuple[float, int, int, int]] = []
        self._slots: dict[int, int] = {}  # contact id -> slot
        self._last: dict[int, tuple[int, int]] = {}
        self._slot = 0
        self._touching = False
        self._next_tracking = 1

    def _ev(self, t: float, type_: int, code: int, value: int) -> None:
        self.events.append((t, type_, code, value))

    def frame(self, t: float, contacts: Sequence[Contact]) -> "TouchScript":
        if self.events and t < self.events[-1][0]:
            raise ValueError(f"frame at {t} s is earlier than the previous one")
        kind = self.device.kind
        now = {cid: (x, y) for cid, x, y in contacts}
        if kind == "protocolB":
            for cid in [c for c in self._slots if c not in now]:
                self._select(t, self._slots.pop(cid))
                self._ev(t, EV_ABS, ABS_MT_TRACKING_ID, -1)
            for cid, (x, y) in now.items():
                if cid not in self._slots:
                    free = sorted(set(range(self.device.slots)) - set(self._slots.values()))
                    if not free:
                        raise ValueError(f"more than {self.device.slots} contacts")
                    self._slots[cid] = free[0]
                    self._select(t, free[0])
                    self._ev(t, EV_ABS, ABS_MT_TRACKING_ID, self._next_tracking)
                    self._next_tracking += 1
                    self._last.pop(cid, None)
                prev = self._last.get(cid)
                if prev is None or prev[0] != x:
                    self._select(t, self._slots[cid])
                    self._ev(t, EV_ABS, ABS_MT_POSITION_X, x)
                if prev is None or prev[1] != y:
                    self._select(t, self._slots[cid])
                    self._ev(t, EV_ABS, ABS_MT_POSITION_Y, y)
        elif kind == "protocolA":
            for cid, (x, y) in now.items():
                self._ev(t, EV_ABS, ABS_MT_POSITION_X, x)
                self._ev(t, EV_ABS, ABS_MT_POSITION_Y, y)
                self._ev(t, EV_SYN, SYN_MT_REPORT, 0)
            if not now:
                self._ev(t, EV_SYN, SYN_MT_REPORT, 0)
        touching = bool(now)
        if touching != self._touching:
            self._ev(t, EV_KEY, BTN_TOUCH, int(touching))
            self._ev(t, EV_KEY, BTN_TOOL_FINGER, int(touching))
            self._touching = touching
        if now:
            x, y = next(iter(now.values()))
            self._ev(t, EV_ABS, ABS_X, x)
            self._ev(t, EV_ABS, ABS_Y, y)
        self._last = dict(now)
        self._ev(t, EV_SYN, SYN_REPORT, 0)
        return self

    def _select(self, t: float, slot: int) -> None:
        if slot != self._slot:
            self._ev(t, EV_ABS, ABS_MT_SLOT, slot)
            self._slot = slot

    def stroke(self, t0: float, duration: float, cid: int, start: tuple[int, int], end: tuple[int, int],
               hz: float = 100.0) -> "TouchScript":
        """One finger moving in a straight line, lifted at the end."""
        n = max(1, round(duration * hz))
        for i in range(n + 1):
            f = i / n
            self.frame(t0 + f * duration, [(cid, round(start[0] + (end[0] - start[0]) * f),
                                            round(start[1] + (end[1] - start[1]) * f))])
        return self.frame(t0 + duration + 1.0 / hz, [])

    def text(self) -> str:
        """The recording, evemu's "E: sec.usec type code value" lines. Times are written 1 s
        later than given: evemu-play takes a timestamp of exactly 0 for "not set yet" and then
        loses the gap after the first frame."""
        out = ["# EVEMU 1.3", f"# device: {self.device.name}"]
        for t, type_, code, value in self.events:
            us = round((t + 1.0) * 1_000_000)
            out.append(f"E: {us // 1_000_000}.{us % 1_000_000:06d} {type_:04x} {code:04x} {value}")
        return "\n".join(out) + "\n"
