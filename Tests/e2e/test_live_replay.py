"""Live equals replay (issue 29): real HID touchscreens through the kernel's hid-multitouch
(one /dev/uhid device per panel, the kiosk holding its node open before the first report),
played into the running kiosk while it is starved: two busy loops compete for both vCPUs and
the kiosk is SIGSTOPped for 50 to 600 ms at chosen moments (in a long-press window, just
before a lift, mid-pinch, across a whole pinch). `evemu-record` records the node meanwhile;
`touchbridge replay` of that recording must give the same gestures, case by case, and the
same camera (within a pixel and 0.01 zoom levels) as the live kiosk wrote to its event stream.

The report descriptors are those of real panels, from the Linux kernel's HID selftests
(tools/testing/selftests/hid/tests/test_multitouch.py, GPL-2.0, Copyright (c) 2017 Benjamin
Tissoires and Red Hat, Inc.): each is written below as its repeated finger collection and the
parts around it, byte for byte the same descriptor. How a frame of touches becomes reports
(hybrid mode: the contact count in the first report, 0 in the next ones) follows that file's
`Digitizer.event`; the reports themselves are built by hid-tools (PyPI `hid-tools`, GPL-2.0,
installed by scripts/install-deps.sh test). The injector is tools/uhid_play.c, built on the
host and run in the guest at real-time priority, so its reports keep their timing while the
kiosk starves.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

import kioskvm

try:
    import hidtools.hid as hid
except ImportError:  # scripts/install-deps.sh test installs it; as the harness does with its tools
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "hid-tools"], check=True)
    import hidtools.hid as hid

W, H = 1280, 800
RATE = 0.010  # one report every 10 ms while a finger is down (Win8 panels drop a silent contact)


def _hex(s: str) -> list[int]:
    return [int(b, 16) for b in s.split()]


# --- Real panels (descriptors from the kernel's HID selftests, see above) --------------------

_ATMEL_FINGER = ("09 22 a1 02 09 42 15 00 25 01 75 01 95 01 81 02 95 01 81 03 95 01 81 03 25 1f 75 05 09 51 81 02 "
                 "05 01 55 0e 65 11 35 00 75 10 95 02 46 c8 0a 26 6f 08 09 30 81 02 35 00 35 00 46 18 06 26 77 0f "
                 "09 31 81 02 35 00 35 00 05 0d 95 01 75 08 15 00 26 ff 00 46 ff 00 09 48 81 02 09 49 81 02 c0 ")
ATMEL_03EB_8409 = ("05 0d 09 04 a1 01 85 01 " + _ATMEL_FINGER * 5 +
                   "05 0d 27 ff ff 00 00 75 10 95 01 09 56 81 02 15 00 25 1f 75 05 09 54 95 01 81 02 75 03 25 01 "
                   "95 01 81 03 75 08 85 02 09 55 25 10 b1 02 06 00 ff 85 05 09 c5 15 00 26 ff 00 75 08 96 00 01 "
                   "b1 02 c0 05 0d 09 00 a1 01 85 03 09 20 a1 00 15 00 25 01 75 01 95 01 09 42 81 02 09 44 81 02 "
                   "09 45 81 02 81 03 09 32 81 02 95 03 81 03 05 01 55 0e 65 11 35 00 75 10 95 02 46 c8 0a 26 6f "
                   "08 09 30 81 02 46 18 06 26 77 0f 09 31 81 02 05 0d 09 30 15 01 26 ff 00 75 08 95 01 81 02 c0 c0")

_ADVSIL_FINGER = ("09 22 a1 02 09 42 15 00 25 01 75 01 95 01 81 02 95 02 81 03 09 51 25 1f 75 05 95 01 81 02 a1 00 "
                  "05 01 26 ff 7f 75 10 55 0e 65 11 09 30 35 00 46 f9 15 81 02 46 73 0c 09 31 81 02 45 00 c0 c0 ")
ADVANCED_SILICON_2619_5610 = ("05 0d 09 04 a1 01 85 01 " + _ADVSIL_FINGER + ("05 0d " + _ADVSIL_FINGER) * 9 +
                              "05 0d 15 00 27 ff ff 00 00 75 10 95 01 09 56 81 02 25 0a 75 08 09 54 81 02 85 44 09 55 "
                              "b1 02 85 44 06 00 ff 09 c5 26 ff 00 96 00 01 b1 02 85 f0 09 01 95 04 81 02 85 f2 09 03 "
                              "b1 02 09 04 b1 02 09 05 b1 02 95 01 09 06 b1 02 09 07 b1 02 85 f1 09 02 95 07 91 02 c0")

_EGALAX_FINGER = ("09 22 a1 02 09 42 15 00 25 01 75 01 95 01 81 02 95 07 81 03 75 08 09 51 95 01 15 00 25 20 81 02 "
                  "05 01 26 ff 0f 75 10 55 0e 65 11 09 30 35 00 46 13 0c 81 02 46 cb 06 09 31 81 02 75 08 95 02 81 03 "
                  "81 03 c0 ")
EGALAX_0EEF_790A = ("05 0d 09 04 a1 01 85 06 05 0d 09 54 75 08 15 00 25 0c 95 01 81 02 " + _EGALAX_FINGER +
                    ("05 0d " + _EGALAX_FINGER) * 4 +
                    "05 0d 17 00 00 00 00 27 ff ff ff 7f 75 20 95 01 55 00 65 00 09 56 81 02 09 55 09 53 75 08 95 02 "
                    "26 ff 00 b1 02 06 00 ff 09 c5 85 07 15 00 26 ff 00 75 08 96 00 01 b1 02 c0 05 01 09 01 a1 01 85 "
                    "01 09 01 a1 02 05 09 19 01 29 02 15 00 25 01 95 02 75 01 81 02 95 01 75 06 81 01 05 01 09 30 09 "
                    "31 16 00 00 26 ff 0f 36 00 00 46 ff 0f 66 00 00 75 10 95 02 81 02 c0 c0 06 00 ff 09 01 a1 01 09 "
                    "01 15 00 26 ff 00 85 03 75 08 95 3f 81 02 06 00 ff 09 01 15 00 26 ff 00 75 08 95 3f 91 02 c0 05 "
                    "0d 09 0e a1 01 85 05 09 23 a1 02 09 52 09 53 15 00 25 0a 75 08 95 02 b1 02 c0 c0")

_ELAN_FINGER = ("09 42 15 00 25 01 75 01 95 01 81 02 75 01 81 03 75 06 09 51 25 3f 81 02 26 ff 00 75 08 09 48 81 02 "
                "09 49 81 02 95 01 05 01 26 c0 0e 75 10 55 0f 65 11 09 30 35 00 46 26 01 95 02 81 02 26 00 08 46 a6 "
                "00 09 31 81 02 c0 ")
ELAN_04F3_000A = ("05 0d 09 04 a1 01 85 01 09 22 a1 02 " + _ELAN_FINGER + ("05 0d 09 22 a1 02 05 0d " + _ELAN_FINGER) * 9 +
                  "05 0d 09 56 55 00 65 00 27 ff ff ff 7f 95 01 75 20 81 02 09 54 25 7f 95 01 75 08 81 02 85 0a 09 55 "
                  "25 0a b1 02 85 44 06 00 ff 09 c5 15 00 26 ff 00 75 08 96 00 01 b1 02 c0 06 ff 01 09 01 a1 01 85 02 "
                  "15 00 26 ff 00 75 08 95 40 09 00 81 02 c0 06 00 ff 09 01 a1 01 85 03 75 08 95 1f 09 01 91 02 c0 06 "
                  "01 ff 09 01 a1 01 85 04 15 00 26 ff 00 75 08 95 13 09 00 81 02 c0")


class _Data:
    pass


class Panel:
    """A real panel's descriptor and the reports of a frame of touches on it."""

    def __init__(self, key: str, vendor: int, product: int, rdesc: str):
        self.key = key
        self.name = f"uhid test {key}"
        self.vendor, self.product = vendor, product
        self.rdesc_bytes = _hex(rdesc)
        self.rdesc = hid.ReportDescriptor.from_bytes(self.rdesc_bytes)
        touch = self.rdesc.get_report_from_application("Touch Screen")
        self.xmax = max(f.logical_max for f in touch if f.usage_name == "X")
        self.ymax = max(f.logical_max for f in touch if f.usage_name == "Y")
        self.per_report = [f.usage_name for f in touch].count("Contact Id")
        self.scantime = 0

    def reports(self, touches: list[tuple[int, float, float, bool]]) -> list[list[int]]:
        """One frame: (contact id, x px, y px, tip down) for each contact -> its input reports."""
        slots = []
        for cid, x, y, tip in touches:
            t = _Data()
            t.contactid = cid
            t.x = round(min(max(x / W, 0), 1) * self.xmax)
            t.y = round(min(max(y / H, 0), 1) * self.ymax)
            t.cx, t.cy = t.x, t.y
            t.tipswitch = tip
            t.confidence = True
            t.inrange = tip
            t.tippressure = 15
            t.width = t.height = 10
            t.azimuth = 0
            slots.append(t)
        self.scantime += 100  # 10 ms in the panels' 100 us units
        g = _Data()
        g.contactcount = len(slots)
        g.scantime = self.scantime & 0xFFFF
        out = []
        while slots:
            out.append(self.rdesc.create_report(data=slots, global_data=g, application="Touch Screen"))
            g.contactcount = 0
        return out


PANELS = [
    Panel("atmel_03eb_8409", 0x03EB, 0x8409, ATMEL_03EB_8409),
    Panel("egalax_0eef_790a", 0x0EEF, 0x790A, EGALAX_0EEF_790A),
    Panel("elan_04f3_000a", 0x04F3, 0x000A, ELAN_04F3_000A),
    Panel("advanced_silicon_2619_5610", 0x2619, 0x5610, ADVANCED_SILICON_2619_5610),
]


# --- Gestures and the moments the kiosk is stopped ------------------------------------------

@dataclass
class Case:
    name: str
    expect: str  # the gesture the replay must give (a check that the case is what it says)
    # (t, {id: (x, y)}) frames relative to the case start; a contact missing from a frame is lifted
    frames: list[tuple[float, dict[int, tuple[float, float]]]]
    stops: list[tuple[float, float]] = field(default_factory=list)  # (at, seconds), relative
    start: float = 0.0
    end: float = 0.0
    gap: float = 1.6  # quiet time after it: past the double-tap timeout, the lift grace and any glide
    overflows: bool = False  # a stop long enough to overflow the kiosk's evdev buffer (SYN_DROPPED)


def _hold(t0: float, t1: float, contacts: dict) -> list:
    n = max(1, round((t1 - t0) / RATE))
    return [(t0 + i * RATE, dict(contacts)) for i in range(n + 1)]


def _move(t0: float, dur: float, a: dict, b: dict) -> list:
    n = max(1, round(dur / RATE))
    out = []
    for i in range(n + 1):
        k = i / n
        out.append((t0 + i * RATE, {c: (a[c][0] + (b[c][0] - a[c][0]) * k, a[c][1] + (b[c][1] - a[c][1]) * k) for c in a}))
    return out


def cases() -> list[Case]:
    c = (640.0, 400.0)
    tap = _hold(0, 0.07, {1: c})
    pinch_a, pinch_b = {1: (540.0, 400.0), 2: (740.0, 400.0)}, {1: (340.0, 420.0), 2: (940.0, 380.0)}
    out = [
        # A plain drag that ends resting (no glide into the next case), never stopped: it also
        # lines the two streams' clocks up.
        Case("sync-drag", "pan", _move(0, 0.3, {1: (500.0, 300.0)}, {1: (700.0, 300.0)}) + _hold(0.31, 0.45, {1: (700.0, 300.0)})),
        Case("tap, stopped 600 ms from 30 ms after the touch (across the lift and the long-press time)",
             "tap", tap, [(0.03, 0.6)]),
        Case("tap, stopped 300 ms just before the lift", "tap", tap, [(0.065, 0.3)]),
        Case("double tap, stopped 400 ms in the second touch", "doubleTap",
             tap + _hold(0.2, 0.27, {2: c}), [(0.22, 0.4)]),
        Case("drag ending at rest, stopped 600 ms as it starts", "pan",
             _hold(0, 0.05, {1: (400.0, 420.0)}) + _move(0.06, 0.25, {1: (400.0, 420.0)}, {1: (700.0, 460.0)})
             + _hold(0.32, 0.62, {1: (700.0, 460.0)}), [(0.03, 0.6)]),
        Case("drag ending at rest, stopped 250 ms just before the lift", "pan",
             _move(0, 0.25, {1: (700.0, 500.0)}, {1: (450.0, 350.0)}) + _hold(0.26, 0.56, {1: (450.0, 350.0)}),
             [(0.54, 0.25)]),
        Case("long press, stopped 400 ms across its deadline", "longPress",
             _hold(0, 0.9, {1: (800.0, 300.0)}), [(0.3, 0.4)]),
        Case("long press, stopped 50 ms at its deadline", "longPress",
             _hold(0, 0.8, {1: (800.0, 300.0)}), [(0.48, 0.05)]),
        Case("pinch out, stopped 300 ms mid-pinch", "pinch",
             _hold(0, 0.05, pinch_a) + _move(0.06, 0.45, pinch_a, pinch_b) + _hold(0.52, 0.6, pinch_b), [(0.2, 0.3)]),
        Case("pinch in, stopped 600 ms across its end and lift", "pinch",
             _hold(0, 0.05, pinch_b) + _move(0.06, 0.4, pinch_b, pinch_a) + _hold(0.47, 0.55, pinch_a), [(0.15, 0.6)]),
        Case("pinch out, stopped 150 ms just before the lift", "pinch",
             _move(0, 0.35, pinch_a, pinch_b) + _hold(0.36, 0.45, pinch_b), [(0.43, 0.15)]),
        # Millimetres on the glass: a drag of 14 px is a pan at one pixel density and not at
        # another; a fling's glide (speeds in mm/s) is longer or shorter. Judged at the
        # panel's density (replay's), not the one the kiosk started with (no panel yet).
        Case("short drag, 14 px, then resting (pan or not by the panel's millimetres)", "pan/longPress",
             _move(0, 0.1, {1: (600.0, 600.0)}, {1: (614.0, 600.0)}) + _hold(0.11, 0.8, {1: (614.0, 600.0)})),
        Case("fling, stopped 200 ms during its glide", "pan",
             _move(0, 0.15, {1: (900.0, 500.0)}, {1: (600.0, 500.0)}), [(0.3, 0.2)], gap=5.0),
        # 60 reports of two moving fingers while stopped: more than the evdev buffer of a
        # 10-finger panel without contact sizes holds (512 events): SYN_DROPPED, then the
        # kiosk resyncs from the device's state and the pinch goes on from there. The fingers
        # rest 1.2 s after the stop before they lift: the kiosk reads the device again only
        # when it is scheduled after SIGCONT, beside the two busy loops (in a CI run of
        # 2026-12-07, with a 0.13 s rest, it read the device only after the lift, more than
        # 0.37 s after an on-time SIGCONT: the resync then rightly found no finger down, and
        # nine tenths of the pinch were among the events the kernel dropped for it).
        Case("slow pinch out, stopped 600 ms mid-pinch (the kernel's buffer overflows)", "pinch",
             _hold(0, 0.05, pinch_a) + _move(0.06, 0.9, pinch_a, pinch_b) + _hold(0.97, 2.0, pinch_b), [(0.15, 0.6)],
             overflows=True),
    ]
    t = 0.3
    for case in out:
        case.start = t
        case.end = t + case.frames[-1][0] + RATE
        t = case.end + case.gap
    return out


def timeline(panel: Panel, cs: list[Case]) -> str:
    lines = [f"name {panel.name}", f"ids 3 {panel.vendor:04x} {panel.product:04x}",
             "rdesc " + " ".join(f"{b:02x}" for b in panel.rdesc_bytes)]
    items: list[tuple[float, int, str]] = []
    for case in cs:
        down: dict[int, tuple[float, float]] = {}
        for ft, contacts in case.frames:
            touches = [(cid, x, y, True) for cid, (x, y) in sorted(contacts.items())]
            touches += [(cid, x, y, False) for cid, (x, y) in sorted(down.items()) if cid not in contacts]
            for r in panel.reports(touches):
                items.append((case.start + ft, 1, "r " + " ".join(f"{b:02x}" for b in r)))
            down = dict(contacts)
        if down:  # the lift: the contacts with the tip switch up, one report period later
            for r in panel.reports([(cid, x, y, False) for cid, (x, y) in sorted(down.items())]):
                items.append((case.end, 1, "r " + " ".join(f"{b:02x}" for b in r)))
        for at, secs in case.stops:
            items.append((case.start + at, 0, "stop"))
            items.append((case.start + at + secs, 0, "cont"))
    items.sort(key=lambda i: (i[0], i[1]))
    lines += [f"{t:.4f} {what}" for t, _, what in items]
    return "\n".join(lines) + "\n"


# --- The guest ------------------------------------------------------------------------------

SCRIPT = r"""
set +e
cd "$TB_WORK"
direct_node() {  # NAME: the direct-touch event node of the input device whose name starts with NAME
  _i=0
  while :; do
    for _e in /sys/class/input/event*; do
      _n=$(cat "$_e/device/name" 2>/dev/null)
      case "$_n" in
        "$1"*) [ "$(cat "$_e/device/properties" 2>/dev/null)" = 2 ] && { echo "/dev/input/${_e##*/}"; return 0; } ;;
      esac
    done
    sleep 0.05; _i=$((_i+1)); [ $_i -gt 400 ] && return 1
  done
}
RT=""; command -v chrt > /dev/null && RT="chrt -f 20"
printf '[display]\nbackend = "drm"\n' > kiosk.toml
# The stream and the recordings go to the guest's tmpfs (a write over 9p is slow enough under
# TCG to make evemu-record itself lose events), copied out at the end.
"$TB_BIN" run --config kiosk.toml --events /tmp/live.jsonl > run.out 2> run.err &
PID=$!
_i=0
until grep -q 'first frame on the display' run.err 2>/dev/null; do
  sleep 0.2; _i=$((_i+1)); [ $_i -gt 300 ] && { echo "kiosk did not start" >&2; cat run.err >&2; exit 92; }
done
run_panel() {  # KEY NAME: plug the panel in, let the kiosk open it, play its timeline, unplug it
  k=$1
  $RT "$INJ" "$k.play" "go-$k" "quit-$k" > "inj-$k.out" 2> "inj-$k.err" &
  IPID=$!
  NODE=$(direct_node "$2") || { echo "no touch node for $2" >&2; cat "inj-$k.err" >&2; return 1; }
  echo "$NODE" > "node-$k.txt"
  _i=0  # the kiosk holds the node open (hotplug) before the first report
  until grep -q "touchscreen $NODE " run.err; do sleep 0.1; _i=$((_i+1)); [ $_i -gt 300 ] && { echo "kiosk did not open $NODE" >&2; break; }; done
  $RT stdbuf -oL evemu-record "$NODE" > "/tmp/rec-$k.evemu" 2> "rec-$k.err" &  # never starved: it is the truth
  RPID=$!
  sleep 1
  wc -l < /tmp/live.jsonl > "from-$k.txt"
  ( while :; do :; done ) & L1=$!
  ( while :; do :; done ) & L2=$!
  echo $PID > "go-$k.tmp"; mv "go-$k.tmp" "go-$k"
  _i=0
  until grep -q '^done' "inj-$k.out" 2>/dev/null; do sleep 0.2; _i=$((_i+1)); [ $_i -gt 900 ] && break; done
  kill -CONT $PID
  sleep 2
  kill $L1 $L2; wait $L1 $L2 2> /dev/null
  sleep 1
  wc -l < /tmp/live.jsonl > "to-$k.txt"
  kill -TERM $RPID; sleep 0.3; kill -KILL $RPID 2> /dev/null; wait $RPID; cp "/tmp/rec-$k.evemu" .
  touch "quit-$k"; wait $IPID; echo $? > "inj-exit-$k.txt"
  _i=0; while [ -e "$NODE" ]; do sleep 0.1; _i=$((_i+1)); [ $_i -gt 100 ] && break; done
  sleep 0.5
}
"""


def build_injector() -> Path:
    out = kioskvm.REPO / ".build" / "e2e-tools" / "uhid_play"
    src = Path(__file__).resolve().parent / "tools" / "uhid_play.c"
    cc = shutil.which("cc") or shutil.which("clang") or "/opt/swift/usr/bin/clang"
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([cc, "-O1", "-Wall", "-o", str(out), str(src)], check=True)
    return out


# --- Comparing the two streams --------------------------------------------------------------

def parse(text: str) -> list[dict]:
    return [json.loads(l) for l in text.splitlines() if l.strip().startswith("{")]


def summary(lines: list[dict], t0: float, t1: float) -> tuple[list[tuple[str, str]], dict, dict]:
    """The gestures (kind, phase; `changed` left out) in [t0, t1), the camera before t0 and the
    last camera in [t0, t1) (the one before when it did not move)."""
    kinds, before = [], None
    for l in lines:
        if l["t"] < t0 and "camera" in l:
            before = l["camera"]
    after = before
    for l in lines:
        if not (t0 <= l["t"] < t1):
            continue
        if l["type"] == "gesture" and l["phase"] != "changed":
            kinds.append((l["gesture"], l["phase"]))
        if "camera" in l and l["type"] in ("didChange", "idleAt"):
            after = l["camera"]
    return kinds, before, after


def moved(before: dict, after: dict) -> tuple[float, float, float]:
    """A case's camera change: the centre's move in pixels (x, y, at the start's zoom) and zoom levels."""
    world = 256 * 2 ** before["zoom"]

    def merc(lat):
        return math.log(math.tan(math.pi / 4 + math.radians(lat) / 2))
    dx = (after["lon"] - before["lon"]) / 360 * world
    dy = (merc(after["lat"]) - merc(before["lat"])) / (2 * math.pi) * world
    return dx, dy, after["zoom"] - before["zoom"]


def compare(live: list[dict], replay: list[dict], cs: list[Case], camera: dict) -> list[str]:
    """One line per case; lines starting with FAIL name what differs. `camera`: where both
    streams start."""
    def first_pan(lines):
        return next(l["t"] for l in lines if l["type"] == "gesture" and l["gesture"] == "pan" and l["phase"] == "began")
    offset = first_pan(live) - first_pan(replay)  # the same kernel timestamps, different origins
    first = {"t": -math.inf, "type": "start", "camera": camera}
    live = [first] + [dict(l, t=l["t"] - offset) for l in live]
    replay = [first] + replay
    origin = cs[0].start  # the replay's t = 0 is the first report's timestamp
    out = []
    for i, case in enumerate(cs):
        t0 = case.start - origin - 0.3
        t1 = (cs[i + 1].start - origin - 0.3) if i + 1 < len(cs) else math.inf
        lk, lb, la = summary(live, t0, t1)
        rk, rb, ra = summary(replay, t0, t1)
        problems = []
        note = "" if any(k in case.expect.split("/") for k, _ in rk) else f" (the kernel's stream is no {case.expect} here: {rk})"
        if lk != rk:
            problems.append(f"gestures live {lk} != replay {rk}")
        # Each stream's own camera change in this case (a case before that differed does not
        # count twice): the same move within a pixel, the same zoom within 0.01 levels.
        lm, rm = moved(lb, la), moved(rb, ra)
        d, dz = math.hypot(lm[0] - rm[0], lm[1] - rm[1]), abs(lm[2] - rm[2])
        # The kernel itself lifted and re-touched the fingers in a case whose stop overflows the
        # kiosk's buffer (hid-multitouch splits a touch when the injector is late under the busy
        # loops; seen once in session 30: IDs 17, 18 lifted and 19, 20 down 20 ms later, inside
        # the 600 ms stop): the split and the moves around it are among the events the kernel
        # dropped for the kiosk, which resyncs to the new contacts where they are by then. The
        # gestures must still match; the camera cannot, and the case is not the gesture it plays.
        split = case.overflows and sum(1 for k, p in rk if k == case.expect and p == "began") > 1
        if split and lk == rk and (d > 1.0 or dz > 0.01):
            note += (f" (the kernel's stream splits the {case.expect} inside the overflowing stop, and the kernel's stream "
                     f"is no single {case.expect}: camera {lm[2]:+.4f} zoom live, {rm[2]:+.4f} in the replay, not compared)")
        elif d > 1.0 or dz > 0.01:
            problems.append(f"the camera moved ({lm[0]:.1f}, {lm[1]:.1f}) px and {lm[2]:+.4f} zoom live, "
                            f"({rm[0]:.1f}, {rm[1]:.1f}) px and {rm[2]:+.4f} in the replay")
        out.append(("FAIL " if problems else "ok   ") + case.name + (": " + "; ".join(problems) if problems else "") + note)
    return out


@pytest.fixture(scope="module")
def played(kiosk_ready, tmp_path_factory):
    inj = build_injector()
    cs = cases()
    files = {f"{p.key}.play": timeline(p, cs) for p in PANELS}
    script = (f"INJ={inj}\n" + SCRIPT + "".join(f'run_panel {p.key} "{p.name}"\n' for p in PANELS)
              + "kill -TERM $PID; wait $PID; echo $? > run-exit.txt; cp /tmp/live.jsonl .\n")
    started = time.monotonic()
    factor = float(os.environ.get("TB_VM_TIMEOUT_FACTOR", "1"))
    r = kioskvm.run_vm(script, screen=(W, H), files=files, timeout=900 * factor,
                       work_dir=tmp_path_factory.mktemp("live-replay"))
    return r, cs, time.monotonic() - started


@pytest.mark.parametrize("panel", PANELS, ids=[p.key for p in PANELS])
def test_live_kiosk_equals_replay_of_its_recording(played, panel):
    r, cs, seconds = played
    k = panel.key
    assert f"rec-{k}.evemu" in r.files, f"no recording for {k}: {r.stderr}"
    rec = r.files[f"rec-{k}.evemu"]
    assert " 0000 0003 " not in rec.read_text(), "evemu-record itself lost events (SYN_DROPPED): the recording is not the truth"
    cfg = r.files["kiosk.toml"]
    lines = parse(r.text("live.jsonl"))
    first, last = int(r.text(f"from-{k}.txt")), int(r.text(f"to-{k}.txt"))
    live = lines[first:last]
    # The replay starts where the live kiosk's camera was when this panel was plugged in.
    cam = [l["camera"] for l in lines[:first] if "camera" in l][-1]
    start = f"{cam['lat']},{cam['lon']},{cam['zoom']},{cam['bearing']},{cam['tilt']}"
    replay = subprocess.run([str(kioskvm.release_binary()), "replay", str(rec), "--screen", f"{W}x{H}", "--config", str(cfg),
                             "--camera", start], capture_output=True, text=True, check=True).stdout
    report = compare(live, parse(replay), cs, cam)
    (r.work_dir / f"compare-{k}.txt").write_text("\n".join(report) + "\n")
    print(f"\n{k} (VM run {seconds:.0f} s; injector: {r.text(f'inj-{k}.out').strip().splitlines()[-1]})")
    print("\n".join(report))
    failed = [l for l in report if l.startswith("FAIL")]
    # The cases must be what they say, or the comparison proves little: a case whose kernel
    # stream is another gesture (the injector late under load, hid-multitouch splitting a touch)
    # still has to match live and replay, but most must be the gesture they were written as.
    unlike = [l for l in report if "the kernel's stream is no" in l]
    assert len(unlike) <= 2, f"{len(unlike)} of {len(report)} cases on {k} are not the gesture they play:\n" + "\n".join(report)
    assert not failed, f"{len(failed)} of {len(report)} cases differ live from replay on {k}:\n" + "\n".join(report)
