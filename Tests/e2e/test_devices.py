"""`touchbridge devices` in the kiosk VM: three uinput touchscreens (protocol B, protocol A,
single-touch) and the bochs DRM card, as root and as a user without access."""

import json

import pytest

from evemu import Touchscreen

DEVICES = [
    Touchscreen("mtb", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12,
                vendor=0x0EEF, product=0x0001),
    Touchscreen("mta", "protocolA", x_max=1919, y_max=1079, resolution=0, fuzz=4,
                vendor=0x1FD2, product=0x6007),
    Touchscreen("st", "singleTouch", x_max=1023, y_max=767, resolution=5,
                vendor=0x0596, product=0x0001),
]

SCRIPT = """
echo "$TB_DEV_MTB $TB_DEV_MTA $TB_DEV_ST" > nodes.txt
"$TB_BIN" devices --json > devices.json
"$TB_BIN" devices > devices.txt
setpriv --reuid=65534 --regid=65534 --clear-groups "$TB_BIN" devices --json > devices-nobody.json
echo "nobody exit $?" > nobody-exit.txt
"""


@pytest.fixture(scope="module")
def listing(kiosk_ready, tmp_path_factory):
    import kioskvm
    r = kioskvm.run_vm(SCRIPT, devices=DEVICES, screen=(1024, 768),
                       work_dir=tmp_path_factory.mktemp("devices"))
    return r


def by_name(report):
    return {d.get("name"): d for d in report["input"]}


def test_lists_all_three_touchscreens_with_their_kind(listing):
    report = json.loads(listing.text("devices.json"))
    nodes = listing.text("nodes.txt").split()
    devs = by_name(report)
    b, a, s = (devs[d.name] for d in DEVICES)
    assert [b["path"], a["path"], s["path"]] == nodes
    assert (b["touchscreen"], b["kind"], b["slots"]) == (True, "protocolB", 10)
    assert (a["touchscreen"], a["kind"]) == (True, "protocolA") and "slots" not in a
    assert (s["touchscreen"], s["kind"]) == (True, "singleTouch") and "slots" not in s
    assert (b["vendor"], b["product"]) == ("0eef", "0001")
    assert (a["vendor"], a["product"]) == ("1fd2", "6007")


def test_reports_axis_ranges_fuzz_and_resolution(listing):
    devs = by_name(json.loads(listing.text("devices.json")))
    b, a, s = (devs[d.name] for d in DEVICES)
    assert b["axes"]["ABS_MT_POSITION_X"] == {"min": 0, "max": 4095, "fuzz": 0, "resolution": 12}
    assert b["axes"]["ABS_MT_SLOT"] == {"min": 0, "max": 9, "fuzz": 0, "resolution": 0}
    assert "ABS_MT_TRACKING_ID" in b["axes"]
    assert a["axes"]["ABS_MT_POSITION_Y"] == {"min": 0, "max": 1079, "fuzz": 4, "resolution": 0}
    assert "ABS_MT_SLOT" not in a["axes"]
    assert s["axes"] == {"ABS_X": {"min": 0, "max": 1023, "fuzz": 0, "resolution": 5},
                         "ABS_Y": {"min": 0, "max": 767, "fuzz": 0, "resolution": 5}}


def test_keyboard_is_listed_but_not_a_touchscreen(listing):
    report = json.loads(listing.text("devices.json"))
    keyboards = [d for d in report["input"] if "keyboard" in d["name"].lower()]
    assert keyboards and keyboards[0]["touchscreen"] is False and "kind" not in keyboards[0]


def test_lists_bochs_card_with_connected_connector_and_preferred_mode(listing):
    report = json.loads(listing.text("devices.json"))
    (card,) = report["drm"]
    assert (card["path"], card["driver"]) == ("/dev/dri/card0", "bochs-drm")
    (conn,) = card["connectors"]
    assert (conn["name"], conn["connected"]) == ("Virtual-1", True)
    preferred = [m for m in conn["modes"] if m["preferred"]]
    assert preferred == [{"name": "1024x768", "width": 1024, "height": 768, "refresh": 75, "preferred": True}]


def test_text_output_names_kinds_and_modes(listing):
    text = listing.text("devices.txt")
    assert "touchscreen: multitouch protocol B, 10 slots" in text
    assert "touchscreen: multitouch protocol A" in text
    assert "touchscreen: single-touch" in text
    assert "Virtual-1  connected" in text
    assert "1024x768 @ 75 Hz  (preferred)" in text


def test_user_without_access_gets_reasons_and_advice_not_a_crash(listing):
    assert listing.text("nobody-exit.txt").strip() == "nobody exit 0"
    report = json.loads(listing.text("devices-nobody.json"))
    assert len(report["input"]) == 4
    for d in report["input"]:
        assert "Permission denied" in d["error"] and "'input' group" in d["advice"]
    (card,) = report["drm"]
    assert "Permission denied" in card["error"] and "'video' group" in card["advice"]
