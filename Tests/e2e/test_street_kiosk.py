"""The street map in the VM: `touchbridge run` on the bochs DRM card with the Liechtenstein vector
tiles (the configuration `touchbridge demo --street` writes), the tour's first gestures played
into a uinput panel; screenshots compared with `touchbridge render --tiles` for the camera the
event stream reports (tiles are decoded on the kiosk's worker thread, so this also shows that
late tiles are drawn once they arrive)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import kioskvm
from pngread import differing_fraction, read_png

REPO = Path(__file__).resolve().parents[2]
TILES = REPO / "Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.pmtiles"
# DemoTour.streetMarkers
MARKERS = "47.1397,9.5222;47.1394,9.525;47.1385,9.5213"

SCRIPT = r"""
set +e
NODE=$(tb_evemu_device panel) || exit 90
cd "$TB_WORK"
"$TB_BIN" run --config demo/tour.toml --events "$TB_WORK/events.jsonl" > run.out 2> run.err &
PID=$!
tb_wait_started
tb_settle 3
tb_screenshot step00 > /dev/null
for n in 01 02 03; do
  tb_play "$NODE" "demo/tour-steps/$n.events"
  tb_settle 3
done
tb_screenshot step03 > /dev/null
kill -TERM $PID
wait $PID
echo $? > run-exit.txt
"""


def test_street_map_on_the_drm_card_matches_render(kiosk_ready, kiosk_binary, tmp_path):
    work = tmp_path / "work"
    demo = work / "demo"
    demo.mkdir(parents=True)
    shutil.copy(TILES, demo / "li.pmtiles")
    # Relative to the work folder, where the kiosk runs in the VM.
    subprocess.run([str(kiosk_binary), "demo", "--street", "--tiles", "demo/li.pmtiles", "--out", "demo"],
                   check=True, capture_output=True, cwd=work)
    files = {"devices/panel.desc": (demo / "tour.desc").read_text()}
    r = kioskvm.run_vm(SCRIPT, screen=(1280, 800), work_dir=work, files=files, timeout=600)
    assert r.text("run-exit.txt").strip() == "0"
    lines = [json.loads(l) for l in r.text("events.jsonl").splitlines() if l.strip()]
    types = [l["type"] for l in lines]
    assert "didTapMarker" in types and "didTapAt" in types
    start = lines[0]["camera"]
    end = [l["camera"] for l in lines if "camera" in l][-1]
    assert end["lon"] != start["lon"]      # the pan moved the map
    for name, cam in (("step00", start), ("step03", end)):
        shot = r.screenshots[name]
        out = tmp_path / f"ref-{name}.png"
        subprocess.run([str(kiosk_binary), "render", "--size", "1280x800", "--out", str(out), "--tiles", str(TILES),
                        "--markers", MARKERS, "--camera",
                        f"{cam['lat']},{cam['lon']},{cam['zoom']},{cam['bearing']},{cam['tilt']}"],
                       check=True, capture_output=True)
        w, h, ref = read_png(out)
        assert (w, h) == (shot.width, shot.height) == (1280, 800)
        # The compass corner is left out (as in test_kiosk.py).
        diff = differing_fraction(shot.rgb, ref, w, h, masks=((1280 - 90, 0, 90, 90),))
        assert diff < 0.01, f"{name}: the screenshot differs from render's frame in {diff:.1%} of pixels"
