"""The kiosk VM harness itself: a guest boots, runs the host's binary, brings back files and
screenshots, and a hung guest fails instead of hanging."""

import re
import struct
import zlib

import pytest

import kioskvm
from evemu import Touchscreen


def test_png_writer_round_trips_pixels(tmp_path):
    rgb = bytes([255, 0, 0, 0, 255, 0, 0, 0, 255, 10, 20, 30, 40, 50, 60, 70, 80, 90])
    kioskvm.write_png(tmp_path / "x.png", 3, 2, rgb)
    data = (tmp_path / "x.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (3, 2)
    idat_len = struct.unpack(">I", data[33:37])[0]
    assert data[37:41] == b"IDAT"
    raw = zlib.decompress(data[41:41 + idat_len])
    assert raw == b"\0" + rgb[:9] + b"\0" + rgb[9:]


def test_guest_runs_host_binary_and_returns_files(run_vm):
    r = run_vm("""
uname -r
test -c /dev/uinput && echo uinput-ok
test -c /dev/dri/card0 && echo drm-ok
"$TB_BIN" --help | head -n 1
echo written > "$TB_WORK/out.txt"
""")
    lines = r.stdout.splitlines()
    assert lines[0].endswith("-amd64")
    assert "uinput-ok" in lines and "drm-ok" in lines
    assert lines[3].startswith("OVERVIEW:")
    assert r.text("out.txt") == "written\n"


def test_screenshot_shows_what_the_guest_drew(run_vm):
    # Fill the fbdev emulation of the bochs card: top half red, bottom half blue (XRGB8888,
    # little endian: B G R X), by doubling a 4-byte pixel up to half the screen.
    r = run_vm("""
echo 0 > /sys/class/graphics/fbcon/cursor_blink
fill() { printf "$1" > /tmp/px; i=0; while [ $i -lt 19 ]; do cat /tmp/px /tmp/px > /tmp/px2; mv /tmp/px2 /tmp/px; i=$((i+1)); done; cat /tmp/px; }
{ fill '\\000\\000\\377\\000'; fill '\\377\\000\\000\\000'; } > /dev/fb0
tb_screenshot halves
""", screen=(1024, 1024))
    shot = r.screenshots["halves"]
    assert (shot.width, shot.height) == (1024, 1024)
    assert shot.png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert shot.pixel(512, 100) == (255, 0, 0)
    assert shot.pixel(512, 511) == (255, 0, 0)
    assert shot.pixel(512, 512) == (0, 0, 255)
    assert shot.pixel(1023, 1023) == (0, 0, 255)


def test_hung_guest_fails_with_its_log(run_vm):
    with pytest.raises(kioskvm.VMError) as e:
        run_vm("echo started; sleep 600", timeout=20)
    message = str(e.value)
    assert re.search(r"did not power off within \d+ s", message)
    assert "--- serial log ---" in message
    assert "(work folder:" in message


def test_failing_script_reports_exit_code_and_stderr(run_vm):
    with pytest.raises(kioskvm.VMError) as e:
        run_vm("echo to-stderr >&2; exit 3")
    assert "exited with 3" in str(e.value) and "to-stderr" in str(e.value)


def test_evemu_script_replays_through_the_kernel_with_its_timing(run_vm):
    dev = Touchscreen("b", "protocolB", slots=5)
    events = (dev.script()
              .frame(0.00, [(1, 100, 200)])
              .frame(0.05, [(1, 110, 200), (2, 3000, 3000)])
              .frame(0.10, [(2, 3010, 3000)])
              .frame(0.15, []))
    r = run_vm("""
evemu-record "$TB_DEV_B" > rec.txt 2> rec.err &
pid=$!
sleep 1
tb_play "$TB_DEV_B" events.txt
sleep 1
kill -INT $pid
""", devices=[dev], files={"events.txt": events.text()})
    recorded = [l.split("#")[0].split() for l in r.text("rec.txt").splitlines() if l.startswith("E:")]
    # (type, code, value) as the kernel delivered them; it drops values that did not change.
    got = [(int(t, 16), int(c, 16), int(v)) for _, _, t, c, v in recorded]
    assert got[:3] == [(3, 0x39, 1), (3, 0x35, 100), (3, 0x36, 200)]
    assert (3, 0x2F, 1) in got and (3, 0x39, 2) in got and (3, 0x35, 3000) in got
    assert got.count((3, 0x39, -1)) == 2 and got[-3:] == [(1, 0x14A, 0), (1, 0x145, 0), (0, 0, 0)]
    syn_times = [float(e[1]) for e in recorded if e[2:] == ["0000", "0000", "0000"]]
    gaps = [b - a for a, b in zip(syn_times, syn_times[1:])]
    assert len(gaps) == 3 and all(0.04 <= g <= 0.5 for g in gaps), gaps
