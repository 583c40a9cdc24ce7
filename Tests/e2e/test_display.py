"""`touchbridge render --display drm` in the kiosk VM: a mode set on the bochs card, the
scanout (QEMU's screendump) shows exactly the frame the PNG backend draws for the same camera,
SIGTERM ends the program with the display restored and its framebuffers freed, and a second
run starts cleanly and flips frames paced to the mode's refresh."""

import struct
import subprocess
import zlib

import pytest

import kioskvm

SCREEN = (1024, 768)
CAMERA = "40.0,-4.0,4.5"
MARKER = "40.4168,-3.7038"
INFO = "Madrid|Capital of Spain"
SEA = (0xAA, 0xD3, 0xDF)  # MapStyle.standard.sea

SCRIPT = f"""
mount -t debugfs none /sys/kernel/debug 2>/dev/null
fbs() {{ cat /sys/kernel/debug/dri/0/framebuffer 2>/dev/null | grep -c 'allocated by' ; }}
echo "$(fbs)" > fbs-before.txt
"$TB_BIN" render --display drm --camera {CAMERA} --markers "{MARKER}" --info "{INFO}" \\
    --out drm-frame.png --hold=-1 > run1.out 2> run1.err &
PID=$!
i=0
while ! grep -q "frame on screen" run1.err; do
  sleep 0.1; i=$((i + 1))
  if [ $i -gt 600 ] || ! kill -0 $PID 2>/dev/null; then echo "no frame" >&2; cat run1.err >&2; exit 91; fi
done
cat /sys/kernel/debug/dri/0/framebuffer > fbs-during.txt 2>/dev/null
tb_screenshot map
kill -TERM $PID
wait $PID
echo "exit $?" > run1-exit.txt
kill -0 $PID 2>/dev/null && echo alive > run1-alive.txt
cat /sys/kernel/debug/dri/0/framebuffer > fbs-after.txt 2>/dev/null
echo "$(fbs)" > fbs-after-count.txt
tb_screenshot restored
"$TB_BIN" render --display drm --camera {CAMERA} --out second.png --pan-frames 30 > run2.out 2> run2.err
echo "exit $?" > run2-exit.txt
echo 0 > /sys/class/graphics/fbcon/cursor_blink
"$TB_BIN" render --display fbdev --camera {CAMERA} --markers "{MARKER}" --info "{INFO}" \\
    --out fb-frame.png --hold=-1 > fb.out 2> fb.err &
PID=$!
i=0
while ! grep -q "frame on screen" fb.err; do
  sleep 0.1; i=$((i + 1))
  if [ $i -gt 600 ] || ! kill -0 $PID 2>/dev/null; then echo "no fbdev frame" >&2; cat fb.err >&2; exit 92; fi
done
sleep 0.5
tb_screenshot fbdev
kill -TERM $PID
wait $PID
echo "exit $?" > fb-exit.txt
"$TB_BIN" render --display drm --mode 1000x700@60 --out x.png > run3.out 2> run3.err
echo "exit $?" > run3-exit.txt
"""


def read_png_rgb(path):
    """Decodes an 8-bit RGB or RGBA, non-interlaced PNG (what cairo writes) into rows of RGB."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, w = 8, b"", 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and ctype in (2, 6) and interlace == 0
            bpp = 3 if ctype == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 0xFF
            elif f == 2:
                line[i] = (line[i] + b) & 0xFF
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        rows.append(bytes(line) if bpp == 3 else bytes(v for i, v in enumerate(line) if i % 4 != 3))
        prev = line
    return w, h, b"".join(rows)


@pytest.fixture(scope="module")
def display_run(kiosk_ready, tmp_path_factory):
    return kioskvm.run_vm(SCRIPT, screen=SCREEN, timeout=300, work_dir=tmp_path_factory.mktemp("display"))


@pytest.fixture(scope="module")
def png_backend_frame(kiosk_binary, tmp_path_factory):
    out = tmp_path_factory.mktemp("png") / "png-backend.png"
    subprocess.run([str(kiosk_binary), "render", "--display", "png", "--size", f"{SCREEN[0]}x{SCREEN[1]}",
                    "--camera", CAMERA, "--markers", MARKER, "--info", INFO, "--out", str(out)], check=True)
    return read_png_rgb(out)


def test_scanout_shows_the_png_backends_frame(display_run, png_backend_frame):
    shot = display_run.screenshots["map"]
    assert (shot.width, shot.height) == SCREEN
    w, h, rgb = png_backend_frame
    assert (w, h) == SCREEN
    same = sum(1 for i in range(0, len(rgb), 3) if rgb[i:i + 3] == shot.rgb[i:i + 3])
    assert same / (w * h) > 0.999, f"{same} of {w * h} pixels equal"
    assert shot.pixel(20, 300) == SEA   # Atlantic west of Portugal
    # The frame the DRM run wrote with --out is the same picture.
    assert read_png_rgb(display_run.files["drm-frame.png"])[2] == rgb


def test_mode_set_on_the_connected_connector_with_its_preferred_mode(display_run):
    err = display_run.text("run1.err")
    assert "showing on DRM /dev/dri/card0 Virtual-1 1024x768@75" in err


def test_sigterm_ends_the_program_and_restores_the_display(display_run):
    assert display_run.text("run1-exit.txt").strip() == "exit 0"
    assert "run1-alive.txt" not in display_run.files
    err = display_run.text("run1.err")
    assert "signal received, restoring the display" in err and "closed DRM /dev/dri/card0" in err
    # The console's framebuffer is scanned out again: no longer the map.
    restored = display_run.screenshots["restored"]
    assert restored.pixel(20, 300) != SEA


def test_framebuffers_are_freed_after_exit(display_run):
    during = display_run.files.get("fbs-during.txt")
    if during is None or "allocated by" not in during.read_text():
        pytest.skip("debugfs framebuffer list not available in this kernel")
    assert "touchbridge" in during.read_text()
    assert "touchbridge" not in display_run.text("fbs-after.txt")
    assert display_run.text("fbs-after-count.txt").strip() == display_run.text("fbs-before.txt").strip()


def test_second_run_starts_cleanly_and_paces_flips_to_the_refresh(display_run):
    assert display_run.text("run2-exit.txt").strip() == "exit 0"
    err = display_run.text("run2.err")
    assert "presented 31 frames" in err
    rate = float(err.split("(")[1].split(" frames/s")[0])
    assert rate <= 76, f"{rate} frames/s: faster than the 75 Hz mode"


def test_fbdev_backend_shows_the_same_frame(display_run, png_backend_frame):
    assert display_run.text("fb-exit.txt").strip() == "exit 0"
    assert "showing on fbdev /dev/fb0 1024x768" in display_run.text("fb.err")
    shot = display_run.screenshots["fbdev"]
    w, h, rgb = png_backend_frame
    same = sum(1 for i in range(0, len(rgb), 3) if rgb[i:i + 3] == shot.rgb[i:i + 3])
    assert same / (w * h) > 0.99, f"{same} of {w * h} pixels equal"


def test_a_mode_that_does_not_exist_lists_the_available_ones(display_run):
    assert display_run.text("run3-exit.txt").strip() != "exit 0"
    err = display_run.text("run3.err")
    assert "the mode 1000x700@60 does not exist on Virtual-1 of /dev/dri/card0" in err
    assert "1024x768@75 (preferred)" in err
