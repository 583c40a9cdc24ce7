"""The whole kiosk in the VM: the real binary runs `touchbridge run` on the bochs DRM card with a
uinput touchscreen; the demo's scripted gesture tour is played into the kernel one gesture at a
time; screenshots between gestures are compared with the PNG renderer's frame for the camera the
event stream reports; the delegate sequence is checked; idle means no CPU; SIGTERM ends it
cleanly and a second run starts."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import kioskvm
from pngread import differing_fraction, read_png

STEPS = 11
EXPECTED = ["tap", "tap", "pan", "pan", "pinch", "rotate", "tilt", "doubleTap", "twoFingerTap", "longPress", "tap"]
MARKERS = "48.8566,2.3522;52.52,13.405;41.9028,12.4964"

SCRIPT = r"""
set +e
NODE=$(tb_evemu_device panel) || exit 90
cd "$TB_WORK"
"$TB_BIN" run --config demo/tour.toml --events "$TB_WORK/events.jsonl" > run.out 2> run.err &
PID=$!
tb_wait_started
tb_settle
wc -l < events.jsonl > lines-00.txt
tb_screenshot step00 > /dev/null
for n in 01 02 03 04 05 06 07 08 09 10 11; do
  tb_play "$NODE" "demo/tour-steps/$n.events"
  tb_settle
  wc -l < events.jsonl > "lines-$n.txt"
  tb_screenshot "step$n" > /dev/null
done
# Idle: no wake-ups, no CPU (utime + stime in clock ticks, fields 14 and 15 of stat).
set -- $(cut -d' ' -f14,15 /proc/$PID/stat); CPU0=$(( $1 + $2 ))
sleep 5
set -- $(cut -d' ' -f14,15 /proc/$PID/stat); CPU1=$(( $1 + $2 ))
echo "$CPU0 $CPU1" > idle-cpu.txt
kill -TERM $PID
wait $PID
echo $? > run-exit.txt
# A second run takes the card again cleanly (the first freed its buffers and restored the CRTC).
"$TB_BIN" run --config demo/tour.toml --duration 4 --events "$TB_WORK/second.jsonl" > second.out 2> second.err
echo $? > second-exit.txt
"""


def events_between(lines: list[dict], start: int, end: int) -> list[dict]:
    return lines[start:end]


@pytest.fixture(scope="module")
def kiosk(kiosk_ready, kiosk_binary, tmp_path_factory):
    work = tmp_path_factory.mktemp("kiosk")
    demo = work / "demo"
    subprocess.run([str(kiosk_binary), "demo", "--out", str(demo)], check=True, capture_output=True)
    # The panel description the demo's events are written for.
    files = {"devices/panel.desc": (demo / "tour.desc").read_text()}
    r = kioskvm.run_vm(SCRIPT, screen=(1280, 800), work_dir=work, files=files, timeout=600)
    r.devices_desc = files
    return r


def stream(result) -> list[dict]:
    return [json.loads(l) for l in result.text("events.jsonl").splitlines() if l.strip()]


def segments(result) -> list[list[dict]]:
    lines = stream(result)
    cuts = [int(result.text(f"lines-{n:02d}.txt").strip()) for n in range(0, STEPS + 1)]
    return [lines[cuts[i]:cuts[i + 1]] for i in range(STEPS)]


def last_camera(lines: list[dict]) -> dict | None:
    cam = None
    for l in lines:
        if "camera" in l:
            cam = l["camera"]
    return cam


def test_each_gesture_is_recognised_from_the_kernel(kiosk):
    for i, (seg, want) in enumerate(zip(segments(kiosk), EXPECTED), start=1):
        kinds = [l["gesture"] for l in seg if l["type"] == "gesture" and l["phase"] in ("recognized", "began")]
        assert want in kinds, f"step {i}: expected {want}, got {kinds}"


def test_delegate_sequence_follows_the_sdk_rules(kiosk):
    lines = stream(kiosk)
    assert lines[0]["type"] == "start"
    moving = False
    for l in lines:
        if l["type"] == "willMove":
            moving = True
        elif l["type"] == "didChange":
            assert moving, f"didChange before willMove at t={l['t']}"
        elif l["type"] == "idleAt":
            assert moving, f"idleAt without a move at t={l['t']}"
            moving = False
    assert not moving, "the camera never went idle"
    seg = segments(kiosk)
    types = lambda s: [l["type"] for l in s]
    assert {"type": "didTapMarker", "marker": "paris"}.items() <= next(
        l for l in seg[0] if l["type"] == "didTapMarker").items()
    assert "didCloseInfoWindow" in types(seg[1]) and "didTapAt" in types(seg[1])
    assert "didLongPressAt" in types(seg[9])
    # Each moving step ends with exactly one idleAt after its last change.
    for i in (2, 3, 4, 5, 6, 7, 8, 10):
        t = types(seg[i])
        assert t.count("idleAt") >= 1, f"step {i + 1}: no idleAt"
        last_change = max(k for k, x in enumerate(t) if x == "didChange")
        assert t[last_change + 1:].count("idleAt") == 1, f"step {i + 1}: {t[last_change:]}"


def test_camera_moves_as_each_gesture_should(kiosk):
    seg = segments(kiosk)
    start = stream(kiosk)[0]["camera"]
    cams = [last_camera(s) for s in seg]
    pan, fling, pinch, rot, tilt, dtap, ttap = cams[2], cams[3], cams[4], cams[5], cams[6], cams[7], cams[8]
    assert pan["lon"] > start["lon"] + 5            # dragged right-to-left: the view moves east
    assert fling["lon"] > pan["lon"]                 # momentum carries on
    assert pinch["zoom"] > fling["zoom"] + 1          # spread: zoom in
    assert 10 < (360 - rot["bearing"]) % 360 < 60 or 10 < rot["bearing"] < 60
    assert tilt["tilt"] > 30
    assert abs(dtap["zoom"] - tilt["zoom"] - 1) < 1e-3   # double tap: exactly one level in
    assert abs(ttap["zoom"] - dtap["zoom"] + 1) < 1e-3   # two-finger tap: one level out
    assert cams[10]["bearing"] in (0, 0.0) and cams[10]["tilt"] == 0  # compass: north and flat


def render(binary: Path, cam: dict, out: Path, info: str | None = None) -> tuple[int, int, bytes]:
    args = [str(binary), "render", "--size", "1280x800", "--out", str(out), "--markers", MARKERS,
            "--camera", f"{cam['lat']},{cam['lon']},{cam['zoom']},{cam['bearing']},{cam['tilt']}"]
    if info:
        args += ["--info", info]
    subprocess.run(args, check=True, capture_output=True)
    return read_png(out)


# The compass (top right) is drawn only while the map is turned or tilted, by the kiosk and by
# `render` alike (render drew it always before issue 30); the corner stays out of the comparison.
MASKS = ((1280 - 90, 0, 90, 90),)


# The stream gives the zoom to 4 decimals: the kiosk's zoom is anywhere within 5e-5 of it. The
# picture depends on the zoom through more than its scale (0.02 px across the screen): the base
# map is copied at the whole world pixel nearest the view and names are drawn at their world
# positions, so at zoom 6 a zoom 5e-5 off moves the view's world position by up to 0.4 px, which
# can move the whole copy by a pixel and every name's glyphs by a fraction of one (after the
# tour's pinch: 0.05 % of pixels differ at the reported zoom, 2.5 % at 5e-5 below it, for one
# run's screenshot). When the reported camera does not match, renders across that interval are
# tried and the closest one counts.
ZOOM_HALF_STEP = 5e-5


def closest_render(binary: Path, cam: dict, shot, out: Path) -> tuple[int, int, float]:
    w, h, ref = render(binary, cam, out)
    best = differing_fraction(shot.rgb, ref, w, h, masks=MASKS)
    if best >= 0.01 and cam["zoom"] != round(cam["zoom"]):
        for k in range(-5, 6):
            if k == 0:
                continue
            near = dict(cam, zoom=cam["zoom"] + ZOOM_HALF_STEP * k / 5)
            w, h, ref = render(binary, near, out)
            best = min(best, differing_fraction(shot.rgb, ref, w, h, masks=MASKS))
            if best < 0.002:
                break
    return w, h, best


def test_screenshots_show_the_map_the_event_stream_reports(kiosk, kiosk_binary, tmp_path):
    seg = segments(kiosk)
    start = stream(kiosk)[0]["camera"]
    checked = 0
    prev = None
    for n in (0, 3, 5, 6, 7, 9):
        cam = start if n == 0 else last_camera(seg[n - 1]) or start
        shot = kiosk.screenshots[f"step{n:02d}"]
        w, h, diff = closest_render(kiosk_binary, cam, shot, tmp_path / f"ref{n:02d}.png")
        assert (w, h) == (shot.width, shot.height) == (1280, 800)
        assert diff < 0.01, f"step {n}: screenshot differs from the PNG renderer's frame in {diff:.1%} of pixels"
        if prev is not None:
            moved = differing_fraction(shot.rgb, prev, w, h, masks=MASKS)
            assert moved > 0.05, f"step {n}: the screen hardly changed ({moved:.1%})"
        prev = shot.rgb
        checked += 1
    assert checked == 6


def test_info_window_opens_and_closes_on_screen(kiosk, kiosk_binary, tmp_path):
    start = stream(kiosk)[0]["camera"]
    opened, closed = kiosk.screenshots["step01"], kiosk.screenshots["step02"]
    info = "Paris|Capital of France, on the Seine. A tap on the pin opens this window; a tap on the map closes it."
    w, h, with_window = render(kiosk_binary, start, tmp_path / "info.png", info=info)
    _, _, without = render(kiosk_binary, start, tmp_path / "noinfo.png")
    assert differing_fraction(opened.rgb, with_window, w, h, masks=MASKS) < 0.01
    assert differing_fraction(closed.rgb, without, w, h, masks=MASKS) < 0.01
    assert differing_fraction(opened.rgb, closed.rgb, w, h) > 0.002


def test_idle_kiosk_uses_no_cpu(kiosk):
    cpu0, cpu1 = map(int, kiosk.text("idle-cpu.txt").split())
    assert cpu1 - cpu0 <= 2, f"{cpu1 - cpu0} clock ticks of CPU in 5 s with no input"


def test_touch_to_flip_latency_is_reported(kiosk):
    import re
    import sys
    m = re.search(r"touch-to-flip latency over (\d+) frames: p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms",
                  kiosk.text("run.err"))
    assert m, kiosk.text("run.err")
    frames, p50, p99, worst = int(m[1]), float(m[2]), float(m[3]), float(m[4])
    assert frames > 20 and 0 < p50 <= p99 <= worst
    # For trend, not absolute: the VM emulates its CPU (TCG).
    sys.__stderr__.write(f"\n[kiosk VM] touch-to-flip latency (kernel event -> page flip, TCG): "
                         f"p50 {p50} ms, p99 {p99} ms, max {worst} ms over {frames} frames\n")


def test_sigterm_ends_cleanly_and_a_second_run_starts(kiosk):
    assert kiosk.text("run-exit.txt").strip() == "0", kiosk.text("run.err")
    assert kiosk.text("second-exit.txt").strip() == "0", kiosk.text("second.err")
    assert "display DRM" in kiosk.text("second.err")
    assert json.loads(kiosk.text("second.jsonl").splitlines()[0])["type"] == "start"
