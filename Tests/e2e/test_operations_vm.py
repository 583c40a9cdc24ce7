"""An operator's kiosk in the VM (issue 30): `touchbridge run` on the bochs DRM card with a uinput
touchscreen, `[kiosk] attract_after_s`, `[display] blank_after_s` and `[metrics] textfile`.

One boot, in order: a pan (a visitor), the metrics textfile read back while the kiosk runs;
idle 20 s, the attract tour starts and moves the map (its lines marked "attract"); a tap stops it
and is no gesture; idle 40 s, the display blanks (the connector's DPMS reads Off in sysfs and
nothing is drawn); a tap wakes it (DPMS On) and is no gesture; the next tap is a tap; the
touchscreen is unplugged and `ctl stats` shows it gone."""

from __future__ import annotations

import json

import pytest

import kioskvm
from evemu import Touchscreen

W, H = 1280, 800
PANEL = Touchscreen("panel", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12,
                    name="TouchBridge operations panel")

CONFIG = """
[display]
backend = "drm"
blank_after_s = 40
[kiosk]
attract_after_s = 20
attract = "demo"
[metrics]
textfile = "/tmp/tb/metrics/touchbridge.prom"
interval_s = 1
[[touch]]
match = "name:TouchBridge operations panel"
[map]
latitude = 47.0
longitude = 6.0
zoom = 5
[control]
socket = "/tmp/tb/control.sock"
"""


def unit(x: float, y: float) -> tuple[int, int]:
    return round(x / W * 4095), round(y / H * 4095)


def tap_file(sx: float, sy: float) -> str:
    x, y = unit(sx, sy)
    return PANEL.script().frame(0.00, [(1, x, y)]).frame(0.03, [(1, x, y)]).frame(0.08, []).text()


def pan_file() -> str:
    s = PANEL.script()
    for i in range(31):
        x, y = unit(800 - i * 10, 400 - i * 3)
        s.frame(i / 60, [(1, x, y)])
    return s.frame(31 / 60 + 0.3, [(1, *unit(500, 310))]).frame(31 / 60 + 0.35, []).text()


SCRIPT = r"""
set +e
cd "$TB_WORK"
mkdir -p /tmp/tb/metrics
NODE="$TB_DEV_PANEL"
"$TB_BIN" run --config "$TB_WORK/kiosk.toml" --events "$TB_WORK/events.jsonl" > run.out 2> run.err &
PID=$!
tb_wait_started
CTL="$TB_BIN ctl --socket /tmp/tb/control.sock"
# The first frames build caches (seconds each under TCG): let them go out, so no input waits
# in the kernel's buffer behind them (the tour starts 20 s after the loop does).
sleep 8
mark() { wc -l < events.jsonl > "mark-$1.txt"; }
waitlog() {  # TEXT COUNT: until run.err has COUNT lines with TEXT (at most 60 s)
  _i=0; until [ "$(grep -c "$1" run.err)" -ge "$2" ]; do sleep 0.2; _i=$((_i+1)); [ $_i -gt 400 ] && { echo "never: $1" >&2; return 1; }; done; return 0
}
dpms() { cat /sys/class/drm/card0-*/dpms | head -1; }

# 1. A visitor pans; the metrics file shows it while the kiosk runs.
mark start
tb_play "$NODE" pan.events
sleep 2
cp /tmp/tb/metrics/touchbridge.prom metrics-after-pan.prom
ls -a /tmp/tb/metrics > metrics-folder.txt

# 2. Idle: the attract tour plays and moves the map.
waitlog 'attract: no touch' 1
sleep 4
tb_screenshot attract > /dev/null
$CTL get_camera > camera-attract.json
$CTL stats > stats-attract.json
mark attract
# 3. A tap stops it (and is no gesture); the camera goes home.
tb_play "$NODE" tap.events
waitlog 'attract: stopped by a touch' 1
sleep 3
mark stopped
$CTL get_camera > camera-home.json

# 4. Idle 40 s: the display blanks (the tour started again at 20 s is stopped by the blank).
waitlog 'display blanked' 1
sleep 1
dpms > dpms-blanked.txt
$CTL stats > stats-blanked.json
sleep 2
$CTL stats > stats-blanked-later.json
mark blanked
# 5. A tap wakes it (no gesture); the next tap is a tap.
tb_play "$NODE" tap.events
waitlog 'display woken' 1
sleep 2
dpms > dpms-woken.txt
tb_screenshot woken > /dev/null
mark woken
tb_play "$NODE" tap.events
sleep 2
mark tapped

# 6. Unplugged: stats shows the touchscreen gone.
kill -TERM $(pgrep -f 'evemu-device.*panel.desc') 2>/dev/null
i=0; while [ -e "$NODE" ]; do sleep 0.1; i=$((i+1)); [ $i -gt 100 ] && break; done
sleep 1
$CTL stats > stats-unplugged.json
sleep 1.5
cp /tmp/tb/metrics/touchbridge.prom metrics-unplugged.prom
kill -TERM $PID
wait $PID
echo $? > run-exit.txt
"""


@pytest.fixture(scope="module")
def vm(kiosk_ready, tmp_path_factory):
    files = {"kiosk.toml": CONFIG, "tap.events": tap_file(W / 2 - 200, H / 2 + 150), "pan.events": pan_file()}
    return kioskvm.run_vm(SCRIPT, devices=[PANEL], screen=(W, H), files=files, timeout=900,
                          work_dir=tmp_path_factory.mktemp("operations"))


def lines(vm) -> list[dict]:
    return [json.loads(l) for l in vm.text("events.jsonl").splitlines() if l.strip()]


def segment(vm, a: str, b: str) -> list[dict]:
    ls = lines(vm)
    return ls[int(vm.text(f"mark-{a}.txt")):int(vm.text(f"mark-{b}.txt"))]


def gestures(ls: list[dict]) -> list[tuple[str, str, bool]]:
    return [(l["gesture"], l["phase"], l.get("attract", False)) for l in ls if l["type"] == "gesture"]


def prom(text: str) -> dict[str, float]:
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            out[name] = float(value)
    return out


def test_the_metrics_textfile_shows_the_pan_while_the_kiosk_runs(vm):
    m = prom(vm.text("metrics-after-pan.prom"))
    assert m['touchbridge_gestures_total{kind="pan"}'] == 1
    assert m["touchbridge_touches_total"] == 1
    assert m["touchbridge_frames_drawn_total"] > 1
    assert m['touchbridge_touchscreen_up{path="' + next(k for k in m if k.startswith("touchbridge_touchscreen_up"))[len('touchbridge_touchscreen_up{path="'):]] == 1
    assert m["touchbridge_display_blanked"] == 0
    assert m["touchbridge_touchscreens_waiting"] == 0
    # Written whole: no temporary file left beside it.
    assert [n for n in vm.text("metrics-folder.txt").split() if n not in (".", "..")] == ["touchbridge.prom"]


def test_the_attract_tour_plays_marked_and_a_tap_stops_it(vm):
    tour = gestures(segment(vm, "start", "attract"))
    visitor = [g for g in tour if not g[2]]
    marked = [g for g in tour if g[2]]
    assert [g[0] for g in visitor if g[1] in ("began", "recognized")] == ["pan"], visitor
    assert len({g[0] for g in marked}) >= 2, marked            # several kinds of gesture
    stats = json.loads(vm.text("stats-attract.json"))
    assert stats["attract"]["playing"] is True and stats["attract"]["runs"] >= 1
    assert stats["gestures"]["pan"] == 1                        # the tour's are not counted
    # The tap that stopped it is no gesture; nothing after it is marked.
    after = gestures(segment(vm, "attract", "stopped"))
    assert not [g for g in after if not g[2] and g[1] in ("began", "recognized")], after
    stopped = segment(vm, "attract", "stopped")
    assert any(l["type"] == "contacts" or l["type"] in ("willMove", "didChange", "idleAt") for l in stopped)
    home = json.loads(vm.text("camera-home.json"))["camera"]
    assert abs(home["lat"] - 47.0) < 1e-3 and abs(home["lon"] - 6.0) < 1e-3 and abs(home["zoom"] - 5) < 1e-3, home
    # The tour moved the map: the camera mid-tour is not home.
    mid = json.loads(vm.text("camera-attract.json"))["camera"]
    assert (abs(mid["lat"] - 47.0), abs(mid["lon"] - 6.0), abs(mid["zoom"] - 5)) != (0, 0, 0), mid


def test_idle_blanks_the_display_through_dpms_and_a_tap_wakes_it(vm):
    assert vm.text("dpms-blanked.txt").strip() == "Off", vm.text("run.err")
    assert vm.text("dpms-woken.txt").strip() == "On"
    blanked, later = json.loads(vm.text("stats-blanked.json")), json.loads(vm.text("stats-blanked-later.json"))
    assert blanked["display"]["state"] == "blanked" and blanked["display"]["blanks"] == 1
    assert blanked["attract"]["playing"] is False
    # Idle means idle: no frame drawn while blanked (the two stats requests draw none either).
    assert later["frames"] == blanked["frames"], (blanked["frames"], later["frames"])
    # The waking tap is no gesture; the tap after it is.
    assert not [g for g in gestures(segment(vm, "blanked", "woken")) if g[1] in ("began", "recognized")]
    assert ("tap", "recognized", False) in gestures(segment(vm, "woken", "tapped"))
    # The woken screen shows the map again (not black).
    shot = vm.screenshots["woken"]
    lit = sum(1 for y in range(0, H, 40) for x in range(0, W, 40) if sum(shot.pixel(x, y)) > 60)
    assert lit > 0.8 * (W // 40) * (H // 40)


def test_an_unplugged_touchscreen_shows_in_stats_and_metrics(vm):
    stats = json.loads(vm.text("stats-unplugged.json"))
    screens = stats["touchscreens"]
    assert len(screens) == 1 and screens[0]["state"] == "gone" and screens[0]["disconnects"] == 1, screens
    assert screens[0]["name"] == "TouchBridge operations panel"
    # Which words depends on whether udev's remove or the read error comes first.
    assert "disappeared" in stats["last_warning"]["text"] or "was removed" in stats["last_warning"]["text"], stats["last_warning"]
    assert stats["touches"] == 4 and stats["gestures"]["tap"] == 1 and stats["gestures"]["pan"] == 1
    assert stats["frames"] > 10 and stats["frame_time"]["p50_ms"] > 0
    # Input to page flip on the DRM card: measured for the frames that showed the visitors' touches.
    assert stats["touch_to_flip"]["count"] > 0 and stats["touch_to_flip"]["p50_ms"] > 0, stats["touch_to_flip"]
    assert stats["memory"]["rss_mib"] > 0 and stats["memory"]["caches_mib"] > 0, stats["memory"]
    m = prom(vm.text("metrics-unplugged.prom"))
    assert [v for k, v in m.items() if k.startswith("touchbridge_touchscreen_up")] == [0]
    # The configured panel is waited for again, by its table and match.
    waiting = stats["touchscreens_waiting"]
    assert len(waiting) == 1 and "[[touch]] table 1" in waiting[0] and "TouchBridge operations panel" in waiting[0], waiting
    assert m["touchbridge_touchscreens_waiting"] == 1
    assert vm.text("run-exit.txt").strip() == "0", vm.text("run.err")
