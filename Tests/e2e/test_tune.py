"""`touchbridge tune` in the kiosk VM: two fingers pinch on a uinput touchscreen and stay down;
the screenshot of the bochs scanout shows both contacts with their trails and the recognised
gesture's name in the status box; stdout carries the same events as JSON lines."""

from __future__ import annotations

import json

import pytest

import kioskvm
from evemu import Touchscreen, TouchScript

W, H = 1280, 800
PANEL = Touchscreen("panel", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12,
                    name="TouchBridge tune panel")


def px(x: float, y: float) -> tuple[int, int]:
    return round(x / W * 4095), round(y / H * 4095)


def pinch_and_hold() -> str:
    s = TouchScript(PANEL)
    n = 80
    for i in range(n + 1):
        f = i / n
        a = px(560 - 260 * f, 400)
        b = px(720 + 260 * f, 400)
        s.frame(i * 0.01, [(1, *a), (2, *b)])
    return s.text()  # no lift: the fingers stay down for the screenshot


SCRIPT = r"""
set +e
cd "$TB_WORK"
printf '[display]\nbackend = "drm"\n[[touch]]\nmatch = "name:TouchBridge tune panel"\n' > tune.toml
"$TB_BIN" tune --config "$TB_WORK/tune.toml" > tune.jsonl 2> tune.err &
PID=$!
i=0
until grep -q 'first frame on the display' tune.err; do sleep 0.2; i=$((i + 1)); [ $i -gt 300 ] && { cat tune.err >&2; exit 91; }; done
sleep 3
tb_play "$TB_DEV_PANEL" pinch.events
sleep 4
tb_screenshot pinch > /dev/null
kill -TERM $PID
wait $PID
echo $? > tune-exit.txt
"""


@pytest.fixture(scope="module")
def tune(kiosk_ready, tmp_path_factory):
    return kioskvm.run_vm(SCRIPT, devices=[PANEL], screen=(W, H), files={"pinch.events": pinch_and_hold()},
                          timeout=400, work_dir=tmp_path_factory.mktemp("tune"))


def test_stdout_has_contacts_and_the_pinch(tune):
    assert tune.text("tune-exit.txt").strip() == "0", tune.text("tune.err")
    out = [json.loads(l) for l in tune.text("tune.jsonl").splitlines() if l.startswith("{")]
    two = [l for l in out if l["type"] == "contacts" and len(l["contacts"]) == 2]
    assert len(two) > 20
    assert any(l["type"] == "gesture" and l["gesture"] == "pinch" and l["phase"] == "began" for l in out)


def test_screenshot_shows_two_trails_and_the_gesture(tune):
    shot = tune.screenshots["pinch"]
    # Contact 0 (red) went from (560, 400) to (300, 400); contact 1 (blue) from (720, 400) to (980, 400).
    def near(x, y, test):
        return any(test(*shot.pixel(x + dx, y + dy)) for dx in range(-4, 5) for dy in range(-4, 5))
    red = lambda r, g, b: r > 170 and g < 110 and b < 110
    blue = lambda r, g, b: b > 170 and r < 110
    for f in (0.25, 0.5, 0.75):
        assert near(round(560 - 260 * f), 400, red), f"no red trail at {f}"
        assert near(round(720 + 260 * f), 400, blue), f"no blue trail at {f}"
    # The status box (white, top left) holds dark text: the gesture line.
    dark = sum(1 for x in range(20, 420) for y in range(18, 38) if shot.pixel(x, y)[0] < 90)
    assert dark > 60
