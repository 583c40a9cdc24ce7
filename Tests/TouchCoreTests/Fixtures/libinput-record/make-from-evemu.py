#!/usr/bin/env python3
"""Writes an evemu recording (a .desc and its .events) in the `libinput record` YAML format
(libinput-record(1), FILE FORMAT), as libinput's bug reports carry it: times from the first
event, one `- evdev:` entry per SYN_REPORT frame, comments as libinput writes them.

Independent of TouchBridge's own reader and writer, so the test that replays both files
(Tests/TouchCoreTests/LibinputRecordTests.swift) compares two implementations.

    python3 make-from-evemu.py ../evemu/"Atmel maXTouch Touchscreen.desc" \
        ../evemu/"Atmel maXTouch Touchscreen.2-fingers-touch-release.events" > atmel-2-fingers.yml
"""
import sys

EV = {0: "EV_SYN", 1: "EV_KEY", 3: "EV_ABS", 4: "EV_MSC"}


def read_desc(path):
    name, ident, props, bits, absinfo = "", [0, 0, 0, 0], [], {}, {}
    for line in open(path):
        if line.startswith("N:"):
            name = line[2:].strip()
        elif line.startswith("I:"):
            ident = [int(x, 16) for x in line[2:].split()]
        elif line.startswith("P:"):
            props += [int(x, 16) for x in line[2:].split()]
        elif line.startswith("B:"):
            f = line[2:].split()
            bits.setdefault(int(f[0], 16), []).extend(int(x, 16) for x in f[1:])
        elif line.startswith("A:"):
            f = line[2:].split()
            v = [int(x) for x in f[1:]] + [0] * (5 - len(f[1:]))
            absinfo[int(f[0], 16)] = v[:5]

    def setbits(b):
        return [i * 8 + k for i, byte in enumerate(b) for k in range(8) if byte >> k & 1]

    codes = {t: setbits(b) for t, b in bits.items() if t != 0 and setbits(b)}
    codes[0] = list(range(16))
    return name, ident, setbits(props), codes, absinfo


def main(desc, events):
    name, ident, props, codes, absinfo = read_desc(desc)
    out = ["version: 1", "ndevices: 1", "libinput:", "  version: \"1.22.1\"", "  git: \"unknown\"", "system:",
           "  os: \"debian:12\"", "  kernel: \"6.1.0-13-amd64\"", "  dmi: \"dmi:bvnSeaBIOS:svnQEMU:pnStandardPC\"",
           "devices:", "- node: /dev/input/event5", "  evdev:",
           f"    # Name: {name}", f"    # ID: bus {ident[0]:#x} vendor {ident[1]:#x} product {ident[2]:#x} version {ident[3]:#x}",
           "    # Supported Events:", "    # (abbreviated)", f"    name: \"{name}\"", f"    id: {ident}", "    codes:"]
    for t in sorted(codes):
        out.append(f"      {t}: {codes[t]} # {EV.get(t, '')}")
    out.append("    absinfo:")
    for c in sorted(absinfo):
        out.append(f"      {c}: {absinfo[c]}")
    out.append(f"    properties: {props}")
    out += ["  hid: []", "  udev:", "    properties:", "    - ID_INPUT=1", "    - ID_INPUT_TOUCHSCREEN=1",
            "    - ID_PATH=pci-0000:00:14.0-usb-0:1:1.0", "  quirks:", "  events:", "  # Current time is 10:42:07"]
    first, frame, last_ms = None, [], 0
    for line in open(events):
        if not line.startswith("E:"):
            continue
        f = line[2:].split()
        sec, usec = f[0].split(".")
        t = int(sec) * 1_000_000 + int(usec)
        first = t if first is None else first
        rel = t - first
        typ, code, value = int(f[1], 16), int(f[2], 16), int(f[3])
        if not frame:
            out.append("  - evdev:")
        frame.append(1)
        comment = f"# {EV.get(typ, typ)} / {code:<24} {value:6d}"
        if typ == 0 and code == 0:
            ms = rel // 1000
            comment = f"# ------------ SYN_REPORT (0) ---------- +{ms - last_ms}ms"
            last_ms, frame = ms, []
        out.append(f"    - [{rel // 1_000_000:3d}, {rel % 1_000_000:6d}, {typ:3d}, {code:3d}, {value:6d}] {comment}")
    print("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
