"""Touch input end to end in the kiosk VM: real recordings are played into uinput nodes with
evemu-device + evemu-play, `touchbridge replay --live` reads them from the kernel and must
give the same contact frames as the offline replay of the same file; `touchbridge record`
captures the live device in evemu format that replays to the same frames; unplugging a device
mid-touch cancels its contact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evemu import Touchscreen

FIXTURES = Path(__file__).resolve().parents[1] / "TouchCoreTests" / "Fixtures" / "evemu"
SCREEN = "1280x800"

# key -> (device description file, events file)
RECORDINGS = {
    "atmel2": ("Atmel maXTouch Touchscreen.2-fingers-touch-release.events", None),
    "atmel4": ("Atmel maXTouch Touchscreen.4-finger-drag-down.events", None),
    "ntrig2": ("N-Trig MultiTouch.2-fingers-touch-release.events", "N-Trig MultiTouch.desc"),
}

UNPLUG = Touchscreen("unplug", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12)
REPLUG = Touchscreen("replug", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12)
INITIAL = Touchscreen("initial", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12)
DROP = Touchscreen("drop", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12)


def drop_scripts() -> tuple[str, str, str]:
    """A two-finger drag in three parts: both fingers down; a flood of 400 frames (far more
    than the evdev client buffer of 512 events holds) during which finger 1 lifts and finger 2
    goes on moving; finger 2 lifts."""
    script = DROP.script()
    t = 0.0
    for i in range(5):
        script.frame(t, [(1, 1000 + i, 1000), (2, 3000 + i, 3000)]); t += 0.01
    start = len(script.events)
    for i in range(300):
        script.frame(t, [(1, 1100 + i, 1000), (2, 3100 + i, 3000)]); t += 0.001
    for i in range(100):
        script.frame(t, [(2, 3400 + i, 3100)]); t += 0.001
    flood = len(script.events)
    script.frame(t + 0.01, [])
    events = script.events

    def text(part) -> str:
        script.events = part
        return script.text()
    return text(events[:start]), text(events[start:flood]), text(events[flood:])


def split_recording(events_name: str, desc_name: str | None) -> tuple[str, str]:
    """(description, events only) of a recording: combined file, or events + .desc."""
    text = (FIXTURES / events_name).read_text()
    events = "".join(l + "\n" for l in text.splitlines() if l.startswith("E:"))
    if desc_name:
        desc = (FIXTURES / desc_name).read_text()
    else:
        desc = "".join(l + "\n" for l in text.splitlines() if not l.startswith("E:"))
    return desc, events


def guest_script() -> str:
    lines = [r"""
wait_for_output() {  # FILE: until touchbridge has written its first line (the device is open)
  _i=0; while [ ! -s "$1" ]; do sleep 0.05; _i=$((_i+1)); [ $_i -gt 600 ] && { echo "no output in $1" >&2; return 1; }; done
  return 0
}
node_named() {  # NAME: the event node of the input device called NAME
  _i=0
  while :; do
    for _e in /sys/class/input/event*; do
      [ "$(cat "$_e/device/name" 2>/dev/null)" = "$1" ] && { echo "/dev/input/${_e##*/}"; return 0; }
    done
    sleep 0.05; _i=$((_i+1)); [ $_i -gt 400 ] && return 1
  done
}
play_and_read() {  # KEY NODE: live replay + record while evemu-play plays KEY.events
  "$TB_BIN" replay --live "$2" --screen $SCREEN --contacts --duration 60 > "$1.live.jsonl" 2> "$1.live.err" &
  _lp=$!
  "$TB_BIN" record --device "$2" --output "$1.recorded.evemu" --duration 60 2> "$1.record.err" &
  _rp=$!
  wait_for_output "$1.live.jsonl" && wait_for_output "$1.recorded.evemu" || exit 1
  tb_play "$2" "$1.events"
  sleep 0.5
  kill -TERM $_lp $_rp
  wait $_lp; echo "$?" > "$1.live.exit"
  wait $_rp; echo "$?" > "$1.record.exit"
  "$TB_BIN" replay "$1.events" --desc "devices/$1.desc" --screen $SCREEN --contacts > "$1.offline.jsonl"
  "$TB_BIN" replay "$1.recorded.evemu" --screen $SCREEN --contacts > "$1.recorded.jsonl"
}
""".replace("$SCREEN", SCREEN)]
    for key in RECORDINGS:
        lines.append(f'NODE=$(tb_evemu_device {key}) || exit 90\nplay_and_read {key} "$NODE"\n')
    lines.append(r"""
# Unplug mid-touch: the finger is down when the uinput device goes away.
evemu-device "$TB_WORK/devices/unplug.desc" > /tmp/evemu-unplug.log 2>&1 &
EPID=$!
NODE=$(node_named "$(sed -n 's/^N: //p' devices/unplug.desc)") || exit 91
"$TB_BIN" replay --live "$NODE" --screen $SCREEN --contacts --duration 60 > unplug.jsonl 2> unplug.err &
LPID=$!
wait_for_output unplug.jsonl || exit 1
tb_play "$NODE" unplug.events
sleep 0.5
kill -TERM $EPID
wait $LPID; echo "$?" > unplug.exit

# SYN_DROPPED mid drag: the reader is stopped while a flood overflows its evdev buffer.
NODE=$(tb_evemu_device drop) || exit 92
"$TB_BIN" replay --live "$NODE" --screen $SCREEN --contacts --duration 60 > drop.jsonl 2> drop.err &
LPID=$!
wait_for_output drop.jsonl || exit 1
tb_play "$NODE" drop-start.events
sleep 0.5
kill -STOP $LPID
tb_play "$NODE" drop-flood.events
kill -CONT $LPID
sleep 0.5
tb_play "$NODE" drop-end.events
sleep 0.5
kill -TERM $LPID
wait $LPID; echo "$?" > drop.exit

# Replug: followed by name, the device vanishes mid-touch and comes back; it is opened again.
NAME="$(sed -n 's/^N: //p' devices/replug.desc)"
evemu-device "$TB_WORK/devices/replug.desc" > /tmp/evemu-replug.log 2>&1 &
EPID=$!
NODE=$(node_named "$NAME") || exit 93
"$TB_BIN" replay --live "$NAME" --follow --screen 1280x800 --contacts --duration 60 > replug.jsonl 2> replug.err &
LPID=$!
wait_for_output replug.jsonl || exit 1
tb_play "$NODE" replug-1.events
sleep 0.5
kill -TERM $EPID; wait $EPID
_i=0; until grep -q "closed" replug.err; do sleep 0.05; _i=$((_i+1)); [ $_i -gt 400 ] && break; done
evemu-device "$TB_WORK/devices/replug.desc" > /tmp/evemu-replug.log 2>&1 &
EPID=$!
NODE=$(node_named "$NAME") || exit 94
_i=0; until [ "$(grep -c opened replug.err)" -ge 2 ]; do sleep 0.05; _i=$((_i+1)); [ $_i -gt 400 ] && break; done
tb_play "$NODE" replug-2.events
sleep 0.5
kill -TERM $LPID
wait $LPID; echo "$?" > replug.exit
kill -TERM $EPID

# A finger already down (in slot 2) when the reader opens the device.
NODE=$(tb_evemu_device initial) || exit 95
tb_play "$NODE" initial-1.events
"$TB_BIN" replay --live "$NODE" --screen 1280x800 --contacts --duration 60 > initial.jsonl 2> initial.err &
LPID=$!
wait_for_output initial.jsonl || exit 1
tb_play "$NODE" initial-2.events
sleep 0.5
kill -TERM $LPID
wait $LPID; echo "$?" > initial.exit
""".replace("$SCREEN", SCREEN))
    return "\n".join(lines)


@pytest.fixture(scope="module")
def vm(kiosk_ready, tmp_path_factory):
    import kioskvm
    files = {}
    for key, (events_name, desc_name) in RECORDINGS.items():
        desc, events = split_recording(events_name, desc_name)
        files[f"devices/{key}.desc"] = desc
        files[f"{key}.events"] = events
    files["devices/unplug.desc"] = UNPLUG.desc()
    touch = UNPLUG.script().frame(0.0, [(1, 1024, 2048)]).frame(0.02, [(1, 1034, 2048)]) \
        .frame(0.04, [(1, 1044, 2050)])  # and no lift
    files["unplug.events"] = touch.text()
    files["devices/drop.desc"] = DROP.desc()
    files["devices/replug.desc"] = REPLUG.desc()
    files["devices/initial.desc"] = INITIAL.desc()
    initial = INITIAL.script()
    initial.frame(0.0, [(1, 100, 100), (2, 200, 200), (3, 2048, 2048)]).frame(0.01, [(3, 2048, 2048)])
    files["initial-1.events"] = initial.text()  # slots 0 and 1 lifted, slot 2 down and current
    initial.events = []
    initial.frame(0.0, [(3, 2100, 2048)]).frame(0.01, [(3, 2200, 2048)]).frame(0.02, [])
    files["initial-2.events"] = initial.text()
    files["replug-1.events"] = REPLUG.script().frame(0.0, [(1, 2048, 2048)]).frame(0.02, [(1, 2050, 2048)]).text()
    files["replug-2.events"] = REPLUG.script().stroke(0.0, 0.1, 1, (1000, 1000), (1200, 1000)).text()
    files["drop-start.events"], files["drop-flood.events"], files["drop-end.events"] = drop_scripts()
    return kioskvm.run_vm(guest_script(), files=files, timeout=240,
                          work_dir=tmp_path_factory.mktemp("input"))


def lines(vm, name: str) -> list[dict]:
    return [json.loads(l) for l in vm.text(name).splitlines() if l.strip()]


def contact_states(stream: list[dict]) -> list[list[tuple[int, float, float]]]:
    """The sequence of distinct contact sets (the kernel drops reports that change nothing,
    so consecutive identical frames are folded)."""
    out: list[list[tuple[int, float, float]]] = []
    for l in stream:
        if l["type"] != "contacts":
            continue
        state = [(c["id"], c["x"], c["y"]) for c in l["contacts"]]
        if not out or out[-1] != state:
            out.append(state)
    return out


@pytest.mark.parametrize("key", list(RECORDINGS))
def test_live_device_gives_the_same_frames_as_offline_replay(vm, key):
    assert vm.text(f"{key}.live.exit").strip() == "0", vm.text(f"{key}.live.err")
    live, offline = lines(vm, f"{key}.live.jsonl"), lines(vm, f"{key}.offline.jsonl")
    assert live[0]["type"] == "start" and live[0]["screen"] == [1280, 800]
    assert live[-1]["type"] == "end" and live[-1]["contacts"] == 0
    assert offline[-1]["type"] == "end" and offline[-1]["contacts"] == 0
    assert contact_states(live) == contact_states(offline)
    assert len(contact_states(live)) > 3
    # t counts from the first event on the kernel's clock. evemu-play sleeps between events,
    # and under TCG it runs slower than the recording (N-Trig: 5.7 s for 3.0 s), never faster.
    live_end = [l["t"] for l in live if l["type"] == "contacts"][-1]
    offline_end = [l["t"] for l in offline if l["type"] == "contacts"][-1]
    assert live_end >= offline_end - 0.05


@pytest.mark.parametrize("key", list(RECORDINGS))
def test_record_writes_evemu_that_replays_to_the_same_frames(vm, key):
    assert vm.text(f"{key}.record.exit").strip() == "0", vm.text(f"{key}.record.err")
    recorded = vm.text(f"{key}.recorded.evemu")
    assert recorded.startswith("# EVEMU 1.3")
    assert contact_states(lines(vm, f"{key}.recorded.jsonl")) == contact_states(lines(vm, f"{key}.live.jsonl"))


def test_unplug_mid_touch_cancels_the_contact(vm):
    stream = lines(vm, "unplug.jsonl")
    assert vm.text("unplug.exit").strip() == "0", vm.text("unplug.err")
    frames = [l for l in stream if l["type"] == "contacts"]
    down = [f for f in frames if f["contacts"]]
    assert down, stream
    (cid,) = {c["id"] for f in down for c in f["contacts"]}
    last = frames[-1]
    assert last["contacts"] == [] and last["cancelled"] == [cid]
    assert stream[-1]["type"] == "end" and stream[-1]["contacts"] == 0
    assert "disappeared" in vm.text("unplug.err")


def test_syn_dropped_mid_drag_lifts_the_finger_that_lifted_and_keeps_the_other(vm):
    assert vm.text("drop.exit").strip() == "0", vm.text("drop.err")
    stream = lines(vm, "drop.jsonl")
    frames = [l for l in stream if l["type"] == "contacts"]
    two = [f for f in frames if len(f["contacts"]) == 2]
    assert two, stream[:10]
    first, second = (c["id"] for c in two[0]["contacts"])
    # The frame after the overflow (issue 29: live as replay): the finger that lifted while
    # events were lost ends as a lift, not a cancellation (its gesture completes as it would
    # have), and the other goes on from the state libevdev re-read.
    resync = frames[frames.index(two[-1]) + 1]
    assert [c["id"] for c in resync["contacts"]] == [second]
    assert "cancelled" not in resync
    # libevdev re-read the final state: finger 2 is where the flood left it (x 3499 of 4095).
    assert resync["contacts"][0]["x"] == pytest.approx(3499 / 4095 * 1280, abs=0.1)
    assert not [f for f in frames if f.get("cancelled")]
    after = frames[frames.index(resync) + 1:]
    assert after and after[-1]["contacts"] == [] and "cancelled" not in after[-1]
    assert stream[-1]["type"] == "end" and stream[-1]["contacts"] == 0


def test_device_is_picked_up_again_when_it_comes_back(vm):
    assert vm.text("replug.exit").strip() == "0", vm.text("replug.err")
    log = vm.text("replug.err")
    assert log.count("opened /dev/input/event") == 2, log
    # ENODEV on the device's fd or udev's "remove", whichever the hub sees first.
    assert "closed (gone)" in log or "closed (removed)" in log
    frames = [l for l in lines(vm, "replug.jsonl") if l["type"] == "contacts"]
    cancel = [i for i, f in enumerate(frames) if f.get("cancelled")]
    assert len(cancel) == 1 and frames[cancel[0]]["contacts"] == []
    before, after = frames[:cancel[0]], frames[cancel[0] + 1:]
    assert before and all(len(f["contacts"]) == 1 for f in before)
    # The second touch, on the device as it came back: a stroke to the right, then a lift.
    moving = [f["contacts"][0]["x"] for f in after if f["contacts"]]
    assert len(moving) >= 5 and moving == sorted(moving) and moving[-1] > moving[0]
    assert after[-1]["contacts"] == [] and "cancelled" not in after[-1]


def test_a_finger_already_down_at_open_is_followed(vm):
    assert vm.text("initial.exit").strip() == "0", vm.text("initial.err")
    frames = [l for l in lines(vm, "initial.jsonl") if l["type"] == "contacts"]
    assert [len(f["contacts"]) for f in frames] == [1, 1, 1, 0]
    (cid,) = {f["contacts"][0]["id"] for f in frames[:3]}
    xs = [f["contacts"][0]["x"] for f in frames[:3]]
    assert xs == [pytest.approx(v / 4095 * 1280, abs=0.1) for v in (2048, 2100, 2200)]
    assert "cancelled" not in frames[-1]
