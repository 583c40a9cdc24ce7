"""The release binary draws the same frame whether its base map is built on one thread or in
bands on two, in every process (host only, no VM). A shared array written from the band
builders' threads once lost the land from about one process in a hundred, only in release
builds (a constant array literal there is a static object, so every write copied it): the
unit tests, built for debugging, could not see it, and the kiosk VM's screenshot test met it
in one CI run. Many short processes give a regression of that kind a fair chance to show."""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path

import kioskvm

RUNS = 150
WORLD = ["--camera", "40.0,-4.0,4.5", "--size", "640x480"]
STREET = ["--tiles", str(kioskvm.REPO / "Tests" / "StreetMapTests" / "Fixtures" / "liechtenstein-openmaptiles.pmtiles"),
          "--camera", "47.14,9.52,15.5,0,40", "--size", "640x480"]
# A pan frame (`render --interactive` at a whole zoom, north up: the settled frame builds the
# base map's cache, the interactive frame copies it out, in row chunks shared by two threads
# with two bands, while the labels follow).
STREET_PAN = ["--tiles", STREET[1], "--camera", "47.14,9.52,16", "--size", "640x480", "--interactive"]
# The built-in world's pan frame: the overlay layer (names over the cached base map) composed
# into the frame a row of tiles at a time by two threads.
WORLD_PAN = ["--camera", "40.0,-4.0,5", "--size", "640x480", "--interactive", "--markers", "40.4,-3.7;41.4,2.2"]


def digest(binary: Path, out: Path, args: list[str], bands: int) -> str:
    env = dict(os.environ, TOUCHBRIDGE_RENDER_BANDS=str(bands))
    subprocess.run([str(binary), "render", *args, "--out", str(out)], check=True, env=env,
                   capture_output=True, timeout=60)
    return hashlib.sha256(out.read_bytes()).hexdigest()


def differing_runs(binary: Path, out: Path, args: list[str], runs: int) -> tuple[str, dict[str, int]]:
    single = digest(binary, out, args, 1)
    seen: dict[str, int] = {}
    for _ in range(runs):
        d = digest(binary, out, args, 2)
        if d != single:
            seen[d] = seen.get(d, 0) + 1
    return single, seen


def test_world_frames_in_bands_are_the_single_threaded_frame_in_every_process(kiosk_binary, tmp_path):
    _, differing = differing_runs(kiosk_binary, tmp_path / "world.png", WORLD, RUNS)
    assert not differing, f"{sum(differing.values())} of {RUNS} two-band frames differ from the one-thread frame"


def test_street_frames_in_bands_are_the_single_threaded_frame_in_every_process(kiosk_binary, tmp_path):
    _, differing = differing_runs(kiosk_binary, tmp_path / "street.png", STREET, RUNS // 3)
    assert not differing, f"{sum(differing.values())} of {RUNS // 3} two-band street frames differ from the one-thread frame"


def test_street_pan_frames_copied_by_two_threads_are_the_single_threaded_frame_in_every_process(kiosk_binary, tmp_path):
    _, differing = differing_runs(kiosk_binary, tmp_path / "pan.png", STREET_PAN, RUNS // 3)
    assert not differing, f"{sum(differing.values())} of {RUNS // 3} two-band street pan frames differ from the one-thread frame"


def test_world_pan_frames_composed_by_two_threads_are_the_single_threaded_frame_in_every_process(kiosk_binary, tmp_path):
    _, differing = differing_runs(kiosk_binary, tmp_path / "world-pan.png", WORLD_PAN, RUNS // 3)
    assert not differing, f"{sum(differing.values())} of {RUNS // 3} two-band world pan frames differ from the one-thread frame"
