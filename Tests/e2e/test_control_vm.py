"""The control socket in the kiosk VM: `touchbridge run` on the bochs DRM card with a uinput
touchscreen; a client adds a coloured marker with `touchbridge ctl` and subscribes with
`touchbridge events`; a tap on the marker through the kernel reaches the subscriber as
didTapMarker, the info window shows on the scanout, and the `screenshot` command's PNG is the
frame the display scans out. Then the configuration file names a tiles file and `ctl reload`
switches the running kiosk to it (issue 30): the scanout shows the new tiles as `render` draws
them, nothing needs a restart, and `events` says the kiosk went away (exit 1) when it stops."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import kioskvm
from evemu import Touchscreen
from pngread import differing_fraction, read_png

W, H = 1280, 800
PANEL = Touchscreen("panel", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12,
                    name="TouchBridge control panel")
PIN = (21, 101, 192)   # #1565C0, sent over the socket

CONFIG = """
[display]
backend = "drm"
[[touch]]
match = "name:TouchBridge control panel"
[map]
latitude = 47.14
longitude = 9.52
zoom = 9
[control]
socket = "/tmp/tb/control.sock"
# the screenshot goes to $TB_WORK, not the socket's folder (docs/control.md, Paths)
screenshot_dir = "/tmp/tbvm"
"""


def tap_file(sx: float, sy: float) -> str:
    x, y = round(sx / W * 4095), round(sy / H * 4095)
    return PANEL.script().frame(0.00, [(1, x, y)]).frame(0.03, [(1, x, y)]).frame(0.08, []).text()


SCRIPT = r"""
set +e
cd "$TB_WORK"
mkdir -p /tmp/tb
"$TB_BIN" run --config "$TB_WORK/kiosk.toml" > run.out 2> run.err &
PID=$!
i=0
until [ -S /tmp/tb/control.sock ] && grep -q 'first frame on the display' run.err; do
  sleep 0.2; i=$((i + 1)); [ $i -gt 300 ] && { echo "kiosk did not start" >&2; cat run.err >&2; exit 91; }
done
stat -c '%a' /tmp/tb/control.sock > sock-mode.txt
CTL="$TB_BIN ctl --socket /tmp/tb/control.sock"
$CTL add_marker marker=shop latitude=47.14 longitude=9.52 title=Shop "snippet=Open 9 to 18" 'color="#1565C0"' > add.json 2> add.err
echo $? > add-exit.txt
"$TB_BIN" events --socket /tmp/tb/control.sock > sub.jsonl 2> sub.err &
SUB=$!
i=0
until grep -q '"type":"start"' sub.jsonl 2>/dev/null; do
  sleep 0.2; i=$((i + 1)); [ $i -gt 150 ] && { echo "no subscription" >&2; cat sub.err >&2; break; }
done
sleep 2
tb_screenshot before > /dev/null
tb_play "$TB_DEV_PANEL" tap.events
i=0
until grep -q '"type":"didTapMarker"' sub.jsonl; do
  sleep 0.2; i=$((i + 1)); [ $i -gt 150 ] && { echo "no didTapMarker" >&2; break; }
done
sleep 2
tb_screenshot after > /dev/null
$CTL screenshot path="$TB_WORK/ctl-shot.png" > shot.json 2> shot.err
$CTL list_markers > list.json
$CTL bogus > bogus.json 2> bogus.err
echo $? > bogus-exit.txt
sed -i "s|^\[map\]|[map]\ntiles = \"$TB_REPO/Tests/RenderingTests/Fixtures/node-mbtiles_plain_1.mbtiles\"|" "$TB_WORK/kiosk.toml"
cp "$TB_WORK/kiosk.toml" reloaded.toml
$CTL reload > reload.json 2> reload.err
echo $? > reload-exit.txt
sleep 3
tb_screenshot reloaded > /dev/null
kill -TERM $PID
wait $PID
echo $? > run-exit.txt
wait $SUB
echo $? > sub-exit.txt
[ -e /tmp/tb/control.sock ] && echo left > sock-after.txt || echo gone > sock-after.txt
"""


@pytest.fixture(scope="module")
def vm(kiosk_ready, tmp_path_factory):
    # The marker is at the camera target, the screen centre; its pin head is 30 px above the tip.
    files = {"kiosk.toml": CONFIG, "tap.events": tap_file(W / 2, H / 2 - 30)}
    return kioskvm.run_vm(SCRIPT, devices=[PANEL], screen=(W, H), files=files, timeout=600,
                          work_dir=tmp_path_factory.mktemp("control"))


def stream(vm) -> list[dict]:
    return [json.loads(l) for l in vm.text("sub.jsonl").splitlines() if l.strip()]


def fraction(shot, box, pred) -> float:
    x0, y0, x1, y1 = box
    hits = sum(1 for y in range(y0, y1) for x in range(x0, x1) if pred(shot.pixel(x, y)))
    return hits / ((x1 - x0) * (y1 - y0))


def test_the_socket_is_made_mode_0660_and_removed_at_exit(vm):
    assert vm.text("sock-mode.txt").strip() == "660"
    assert vm.text("run-exit.txt").strip() == "0", vm.text("run.err")
    assert vm.text("sock-after.txt").strip() == "gone"
    # The subscriber saw the kiosk go and said so (issue 30: not a silent exit 0).
    assert vm.text("sub-exit.txt").strip() == "1", vm.text("sub.err")
    assert "closed the control socket" in vm.text("sub.err")


def test_a_touch_on_the_marker_reaches_the_client_as_didTapMarker(vm):
    assert vm.text("add-exit.txt").strip() == "0", vm.text("add.err")
    assert json.loads(vm.text("add.json"))["marker"]["color"] == "#1565C0"
    lines = stream(vm)
    assert lines[0]["type"] == "start" and lines[0]["screen"] == [W, H]
    taps = [l for l in lines if l["type"] == "gesture" and l["gesture"] == "tap"]
    assert len(taps) == 1 and abs(taps[0]["x"] - W / 2) < 2 and abs(taps[0]["y"] - (H / 2 - 30)) < 2
    hits = [l for l in lines if l["type"] == "didTapMarker"]
    assert [h["marker"] for h in hits] == ["shop"], lines
    assert json.loads(vm.text("list.json"))["selected"] == "shop"


def test_the_info_window_shows_on_the_scanout(vm):
    before, after = vm.screenshots["before"], vm.screenshots["after"]
    white = lambda p: p == (255, 255, 255)
    blue = lambda p: all(abs(a - b) < 30 for a, b in zip(p, PIN))
    # The pin, in the colour the client gave, before and after.
    head = (W // 2 - 12, H // 2 - 42, W // 2 + 12, H // 2 - 18)
    assert fraction(before, head, blue) > 0.3 and fraction(after, head, blue) > 0.3
    # Above it the white info window: absent before the tap, there after.
    window = (W // 2 - 25, H // 2 - 90, W // 2 + 25, H // 2 - 62)
    assert fraction(before, window, white) < 0.05
    assert fraction(after, window, white) > 0.5


def test_the_screenshot_command_writes_the_frame_on_the_display(vm):
    reply = json.loads(vm.text("shot.json"))
    assert reply["ok"] is True and (reply["width"], reply["height"]) == (W, H)
    w, h, rgb = read_png(vm.files["ctl-shot.png"])
    assert (w, h) == (W, H)
    assert differing_fraction(rgb, vm.screenshots["after"].rgb, w, h) < 0.01


def test_an_unknown_command_fails_the_cli(vm):
    assert vm.text("bogus-exit.txt").strip() == "1"
    assert "unknown command 'bogus'" in vm.text("bogus.err")
    assert json.loads(vm.text("bogus.json"))["ok"] is False


RASTER = Path(kioskvm.REPO) / "Tests/RenderingTests/Fixtures/node-mbtiles_plain_1.mbtiles"
# Left out of the comparison: the pin and its info window (centre), the scale bar and the
# attribution (bottom strip), the compass corner.
AROUND_THE_MARKER = ((W // 2 - 200, H // 2 - 200, 400, 260), (0, H - 60, W, 60), (W - 90, 0, 90, 90))


def test_reload_switches_the_running_kiosk_to_a_new_tiles_file(vm, kiosk_binary, tmp_path):
    assert 'tiles = "' in vm.text("reloaded.toml")
    assert vm.text("reload-exit.txt").strip() == "0", vm.text("reload.err")
    reply = json.loads(vm.text("reload.json"))
    assert reply["ok"] is True and reply["restart_needed"] == [] and "tiles" in reply["applied"], reply
    out = tmp_path / "ref.png"
    subprocess.run([str(kiosk_binary), "render", "--size", f"{W}x{H}", "--tiles", str(RASTER), "--out", str(out),
                    "--camera", "47.14,9.52,9"], check=True, capture_output=True)
    w, h, ref = read_png(out)
    assert (w, h) == (W, H)
    reloaded, before = vm.screenshots["reloaded"], vm.screenshots["after"]
    # The scanout after the reload is the new tiles' map, as render draws it for the same camera
    # (the same pixels: 0 % differ by more than 4 levels on the run that wrote this test)...
    now = differing_fraction(reloaded.rgb, ref, W, H, threshold=4, masks=AROUND_THE_MARKER)
    assert now < 0.02, f"after the reload the scanout differs from the tiles' map in {now:.1%} of pixels"
    # ... and was not before: the built-in world's beige land against the tile set's grey (close
    # colours, hence the small threshold; nearly every pixel differs).
    was = differing_fraction(before.rgb, ref, W, H, threshold=4, masks=AROUND_THE_MARKER)
    assert was > 0.5, f"the built-in map and the tiles' map differ in only {was:.1%} of pixels: the test proves nothing"
    # The marker added over the socket and its info window stayed through the reload.
    white = lambda p: p == (255, 255, 255)
    assert fraction(reloaded, (W // 2 - 25, H // 2 - 90, W // 2 + 25, H // 2 - 62), white) > 0.5
