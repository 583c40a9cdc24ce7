"""Faults in the kiosk VM, all in one boot, against the real `touchbridge run` on the bochs DRM
card (issue 19):

- a uinput touchscreen unplugged in the middle of a pinch, then plugged back: the pinch is
  cancelled (no contact left down), the device is opened again by hotplug and a new pinch works;
- a tap, then an unplug within the double-tap timeout: the tap is still delivered;
- SIGSTOP while two fingers are down, a flood that overflows the evdev buffer (SYN_DROPPED) and
  lifts them, SIGCONT: nothing stays down and a tap afterwards is a tap;
- a second DRM master takes the display (red) and gives it back: the kiosk survives and the
  scanout shows the map again;
- after the kiosk stopped (every gesture finished), `touchbridge calibrate` whose
  configuration lives on a full tmpfs: it fails with a clear message and the old file stays.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

import kioskvm
from evemu import Touchscreen
from pngread import differing_fraction
from test_calibrate import PANEL, TARGETS, touch_file

W, H = 1280, 800
PAD = Touchscreen("pad", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12,
                  name="TouchBridge faults pad")

KIOSK_CONFIG = """[display]
backend = "drm"

[[touch]]
match = "name:TouchBridge faults pad"
"""

CAL_CONFIG = """# full-disk test: this file must survive
[display]
backend = "drm"

[[touch]]
match = "name:TouchBridge skewed panel"
rotation = 0
"""

SCRIPT = r"""
set +e
cd "$TB_WORK"
node_named() {  # NAME: the event node of the input device called NAME
  _i=0
  while :; do
    for _e in /sys/class/input/event*; do
      [ "$(cat "$_e/device/name" 2>/dev/null)" = "$1" ] && { echo "/dev/input/${_e##*/}"; return 0; }
    done
    sleep 0.05; _i=$((_i+1)); [ $_i -gt 400 ] && return 1
  done
}
gone() {  # NODE: until the node has disappeared
  _i=0; while [ -e "$1" ]; do sleep 0.05; _i=$((_i+1)); [ $_i -gt 200 ] && return 1; done; return 0
}
settle() { tb_settle 1; }
mark() { wc -l < events.jsonl > "mark-$1.txt"; }
PADNAME="TouchBridge faults pad"
plug() { evemu-device devices/pad.desc > /tmp/evemu-pad.log 2>&1 & EPID=$!; NODE=$(node_named "$PADNAME") || exit 91; }

plug
"$TB_BIN" run --config kiosk.toml --events "$TB_WORK/events.jsonl" > run.out 2> run.err &
PID=$!
i=0
until grep -q 'first frame on the display' run.err 2>/dev/null; do
  sleep 0.2; i=$((i + 1)); [ $i -gt 300 ] && { echo "kiosk did not start" >&2; cat run.err >&2; exit 92; }
done
settle
mark start

# 1. Unplug mid-pinch, then replug and pinch again.
tb_play "$NODE" pinch-half.events
sleep 0.3
mark pinch-down
kill -TERM $EPID; wait $EPID; gone "$NODE"
settle
mark unplugged
plug
i=0; until [ "$(grep -c 'found by hotplug' run.err)" -ge 1 ]; do sleep 0.1; i=$((i+1)); [ $i -gt 200 ] && break; done
tb_play "$NODE" pinch-full.events
settle
mark replugged

# 2. A tap, then an unplug 100 ms later (within the double-tap timeout), then replug.
tb_play "$NODE" tap.events
sleep 0.1
kill -TERM $EPID; wait $EPID; gone "$NODE"
settle
mark tap-unplugged
plug
i=0; until [ "$(grep -c 'found by hotplug' run.err)" -ge 2 ]; do sleep 0.1; i=$((i+1)); [ $i -gt 200 ] && break; done
settle
mark tap-replugged

# 3. SIGSTOP with two fingers down; a flood lifts them while the kiosk sleeps; SIGCONT.
tb_play "$NODE" down.events
sleep 0.5
kill -STOP $PID
tb_play "$NODE" flood.events
sleep 0.3
kill -CONT $PID
settle
mark resumed
tb_play "$NODE" tap.events
settle
mark tapped

# 4. A second DRM master takes the display and gives it back.
tb_screenshot before > /dev/null
"$DRM_STEAL" $PID 4 > steal.out 2> steal.err &
SPID=$!
i=0; until grep -q taken steal.out 2>/dev/null; do sleep 0.1; i=$((i+1)); [ $i -gt 100 ] && break; done
sleep 2
tb_screenshot stolen > /dev/null
wait $SPID; echo $? > steal-exit.txt
i=0; until grep -q 'showing the map again' run.err; do sleep 0.2; i=$((i+1)); [ $i -gt 100 ] && break; done
sleep 1
tb_screenshot back > /dev/null
kill -0 $PID; echo $? > alive.txt

kill -TERM $PID
wait $PID; echo $? > run-exit.txt

# 5. A full disk under a calibration write.
mkdir -p /tmp/full && mount -t tmpfs -o size=128k tmpfs /tmp/full
cp cal.toml /tmp/full/kiosk.toml
dd if=/dev/zero of=/tmp/full/filler bs=4k 2> /dev/null
df -k /tmp/full > full-df.txt
CAL=$(node_named "TouchBridge skewed panel") || exit 93
"$TB_BIN" calibrate --device "$CAL" --config /tmp/full/kiosk.toml --verify-seconds 1 --timeout 200 > cal.jsonl 2> cal.err &
CPID=$!
wait_lines() {
  i=0
  while [ "$(grep -c '"type":"target"' cal.jsonl 2>/dev/null)" -lt "$1" ]; do
    sleep 0.2; i=$((i + 1)); [ $i -gt 600 ] && return 1
  done
  return 0
}
n=1
for f in t0 t1 t2 t3 t4; do
  wait_lines $n || break
  tb_play "$CAL" "$f.events"
  n=$((n + 1))
done
wait $CPID; echo $? > cal-exit.txt
cp /tmp/full/kiosk.toml after.toml
ls -a /tmp/full > full-ls.txt
"""


def pinch(script, t0: float, duration: float, lift: bool) -> None:
    steps = int(duration / 0.01)
    for i in range(steps + 1):
        d = 400 * i / steps
        script.frame(t0 + i * 0.01, [(1, int(1600 - d), 2048), (2, int(2500 + d), 2048)])
    if lift:
        script.frame(t0 + duration + 0.01, [])


def event_files() -> dict[str, str]:
    half = PAD.script()
    pinch(half, 0.0, 0.4, lift=False)
    full = PAD.script()
    pinch(full, 0.0, 0.5, lift=True)
    tap = PAD.script().frame(0.0, [(1, 1000, 1200)]).frame(0.06, [])
    down = PAD.script()
    for i in range(5):
        down.frame(i * 0.01, [(1, 1500, 1500 + i), (2, 2500, 1500 + i)])
    # 400 frames at 1 ms (about 2800 events, far more than the evdev client buffer holds),
    # then every finger lifts: the kiosk, stopped, sees only SYN_DROPPED and the final state.
    flood = PAD.script()
    for i in range(400):
        flood.frame(i * 0.001, [(1, 1500 + i, 1505), (2, 2500 + i, 1505)])
    flood.frame(0.41, [])
    return {"pinch-half.events": half.text(), "pinch-full.events": full.text(), "tap.events": tap.text(),
            "down.events": down.text(), "flood.events": flood.text()}


def build_drm_steal() -> Path:
    """The DRM-master thief (tools/drm_steal.c), built on the host where the guest can run it
    (under the repo's .build: the guest's /tmp is its own tmpfs)."""
    out = kioskvm.REPO / ".build" / "e2e-tools" / "drm_steal"
    src = Path(__file__).resolve().parent / "tools" / "drm_steal.c"
    cc = shutil.which("cc") or shutil.which("clang") or "/opt/swift/usr/bin/clang"
    out.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([cc, "-O1", "-Wall", "-I/usr/include/libdrm", "-o", str(out), str(src), "-ldrm"], check=True)
    return out


@pytest.fixture(scope="module")
def faults(kiosk_ready, tmp_path_factory):
    steal = build_drm_steal()
    files = {"kiosk.toml": KIOSK_CONFIG, "cal.toml": CAL_CONFIG, "devices/pad.desc": PAD.desc(), **event_files()}
    for i, (x, y) in enumerate(TARGETS):
        files[f"t{i}.events"] = touch_file(x, y)
    script = f"DRM_STEAL={steal}\n" + SCRIPT
    return kioskvm.run_vm(script, devices=[PANEL], screen=(W, H), files=files, timeout=900,
                          work_dir=tmp_path_factory.mktemp("faults"))


def stream(r) -> list[dict]:
    return [json.loads(l) for l in r.text("events.jsonl").splitlines() if l.strip()]


def segment(r, a: str, b: str) -> list[dict]:
    lines = stream(r)
    return lines[int(r.text(f"mark-{a}.txt")):int(r.text(f"mark-{b}.txt"))]


def gestures(lines: list[dict]) -> list[tuple[str, str]]:
    return [(l["gesture"], l["phase"]) for l in lines if l["type"] == "gesture"]


def test_unplug_mid_pinch_cancels_it_and_a_replugged_pinch_works(faults):
    assert ("pinch", "began") in gestures(segment(faults, "start", "pinch-down")), faults.text("run.err")
    after_unplug = gestures(segment(faults, "pinch-down", "unplugged"))
    assert ("pinch", "cancelled") in after_unplug, after_unplug
    err = faults.text("run.err")
    assert "disappeared" in err and "found by hotplug" in err
    replugged = gestures(segment(faults, "unplugged", "replugged"))
    assert ("pinch", "began") in replugged and ("pinch", "ended") in replugged, replugged


def test_a_tap_just_before_an_unplug_is_delivered(faults):
    seg = segment(faults, "replugged", "tap-unplugged")
    assert ("tap", "recognized") in gestures(seg), gestures(seg)
    assert any(l["type"] == "didTapAt" for l in seg)


def test_sigstop_flood_sigcont_leaves_no_contact_down(faults):
    resumed = segment(faults, "tap-replugged", "resumed")
    kinds = gestures(resumed)
    # Whatever the two fingers began, it ended or was cancelled once the kiosk resumed.
    began = [g for g, p in kinds if p == "began"]
    finished = [g for g, p in kinds if p in ("ended", "cancelled")]
    assert sorted(began) == sorted(finished), kinds
    tapped = gestures(segment(faults, "resumed", "tapped"))
    assert ("tap", "recognized") in tapped, tapped


def test_every_gesture_finished_and_the_kiosk_stopped_cleanly(faults):
    assert faults.text("run-exit.txt").strip() == "0", faults.text("run.err")
    # Every continuous gesture that began also finished: none was left hanging by a fault.
    open_gestures = 0
    for g, p in gestures(stream(faults)):
        open_gestures += {"began": 1, "ended": -1, "cancelled": -1}.get(p, 0)
        assert open_gestures >= 0
    assert open_gestures == 0


def test_a_second_drm_master_takes_the_display_and_gives_it_back(faults):
    assert faults.text("steal-exit.txt").strip() == "0", faults.text("steal.err")
    assert faults.text("alive.txt").strip() == "0"
    before, stolen, back = (faults.screenshots[n] for n in ("before", "stolen", "back"))
    red = (255, 0, 0)
    assert stolen.pixel(W // 2, H // 2) == red and stolen.pixel(10, 10) == red
    assert before.pixel(W // 2, H // 2) != red
    assert differing_fraction(before.rgb, back.rgb, W, H) < 0.02
    err = faults.text("run.err")
    assert err.count("Waiting to take the display back") == 1, err
    assert "display: showing the map again" in err


def test_a_full_disk_keeps_the_old_configuration(faults):
    assert "filler" in faults.text("full-ls.txt")
    assert faults.text("cal-exit.txt").strip() not in ("0", ""), faults.text("cal.err")
    assert faults.text("after.toml") == CAL_CONFIG
    assert any(json.loads(l)["type"] == "matrix" for l in faults.text("cal.jsonl").splitlines() if l.startswith("{"))
    assert "/tmp/full/kiosk.toml" in faults.text("cal.err")
    # No temporary or half-written file left behind on the full disk.
    listing = faults.text("full-ls.txt").split()
    assert sorted(l for l in listing if l not in (".", "..")) == ["filler", "kiosk.toml"], listing


def test_a_full_disk_is_named_as_such(faults):
    err = faults.text("cal.err")
    assert "the disk is full" in err, err
    assert "permission" not in err, err
