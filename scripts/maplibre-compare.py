#!/usr/bin/env python3
"""Time MapLibre Native (through pymgl) against TouchBridge on the same street map views.

Both renderers draw the same OpenMapTiles tiles (the Liechtenstein fixture) with the same style
(TouchBridge's street-style.json) at 1920x1080 over Vaduz, the views of TouchBridge's street
bench (Sources/KioskTools/Benchmarks+StreetMap.swift):

  full    centre 47.141 N 9.521 E, TouchBridge zoom 15.5; frame k looks 40*(k%7) px further
          east (7 places, so no frame repeats the one before)       -> street_full_1080p_ms
  tilted  the same centre, bearing 30, tilt 45 + k%10 degrees (the bench's timed tilts, 50 in
          the middle; the PNG written is at 50)                      -> street_tilted_1080p_ms

TouchBridge's zoom counts 256 px tiles, MapLibre's 512 px tiles, so TouchBridge 15.5 is
MapLibre 14.5 (512 * 2^14.5 px around the world either way).

MapLibre Native runs through pymgl on Mesa's llvmpipe (CPU OpenGL, EGL_PLATFORM=surfaceless,
set here when unset). Each renderBuffer() call (a still render: layout, placement, drawing,
reading the 8 MB frame back) is timed on the wall clock after 3 warm-up renders. MapLibre
needs glyph PBFs, which the style lacks: they are made by scripts/glyph-pbfs.py (Noto Sans) into
a temporary directory (or --glyphs DIR). The style is rewritten in memory: the source's url
points at the .mbtiles, "glyphs" at those PBFs, "sprite" at TouchBridge's own sprite
(Sources/Rendering/Resources/sprite; removed, with a note, if pymgl cannot load it).

With --touchbridge BIN, `TOUCHBRIDGE_BENCH_ONLY=street BIN bench --quick --json` runs (from the
repository root, where it finds its resources and tiles) between MapLibre rounds: MapLibre
round, TouchBridge run, MapLibre round, ... so a busy machine slows both alike.

Usage:
  python3 scripts/maplibre-compare.py [--quick] [--frames N] [--rounds R] [--out DIR]
                                      [--touchbridge .build/release/touchbridge] [--glyphs DIR]
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
STYLE = REPO / "Sources/VectorTiles/Resources/street-style.json"
TILES = REPO / "Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.mbtiles"
SPRITE = REPO / "Sources/Rendering/Resources/sprite/sprite"   # MapLibre adds .json/.png (@2x)

WIDTH, HEIGHT = 1920, 1080
VADUZ = (47.141, 9.521)                 # latitude, longitude
TB_ZOOM = 15.5                          # TouchBridge's bench zoom (256 px tiles)
ML_ZOOM = TB_ZOOM - 1                   # the same scale in MapLibre's 512 px tiles
STEP_PX = 40                            # the full views' eastward step
BEARING = 30

# pymgl's source revision -> the maplibre-native commit it vendors (pymgl reports no version
# of MapLibre Native; its CHANGES.md and submodule pin say this).
MAPLIBRE_NATIVE_BY_PYMGL = {
    "5a84edf68626baf8e9e48759d639cf4adace2e2b": "maplibre-native 9dbc0ae (vendored by pymgl 0.5.0)",
}

# Per view: the TouchBridge bench key with the same frames.
TB_KEYS = {"full": "street_full_1080p_ms", "tilted": "street_tilted_1080p_ms"}


def load_glyph_module():
    """scripts/glyph-pbfs.py (a hyphenated file name, so not importable by `import`)."""
    spec = importlib.util.spec_from_file_location("glyph_pbfs", Path(__file__).with_name("glyph-pbfs.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod            # dataclasses look their module up here
    spec.loader.exec_module(mod)
    return mod


# ---------------------------------------------------------------------------------------------
# Machine and library facts

def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def gl_renderer() -> str | None:
    """GL_RENDERER and GL_VERSION of a surfaceless EGL GLES context (what pymgl gets), read
    with ctypes. Run in a child process (--gl-info) so this EGL display never meets pymgl's."""
    egl = ctypes.CDLL("libEGL.so.1")
    gles = ctypes.CDLL("libGLESv2.so.2")
    vp, ip = ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)
    egl.eglGetDisplay.restype, egl.eglGetDisplay.argtypes = vp, [vp]
    egl.eglInitialize.argtypes = [vp, ip, ip]
    egl.eglCreateContext.restype, egl.eglCreateContext.argtypes = vp, [vp, vp, vp, ip]
    egl.eglMakeCurrent.argtypes = [vp, vp, vp, vp]
    gles.glGetString.restype, gles.glGetString.argtypes = ctypes.c_char_p, [ctypes.c_uint]
    display = egl.eglGetDisplay(None)
    major, minor = ctypes.c_int(), ctypes.c_int()
    if not egl.eglInitialize(display, ctypes.byref(major), ctypes.byref(minor)):
        return None
    egl.eglBindAPI(0x30A0)                                        # EGL_OPENGL_ES_API
    attrs = (ctypes.c_int * 3)(0x3098, 2, 0x3038)                 # CLIENT_VERSION 2, NONE
    context = egl.eglCreateContext(display, None, None, attrs)    # EGL_KHR_no_config_context
    if not context or not egl.eglMakeCurrent(display, None, None, context):  # surfaceless
        return None
    renderer, version = gles.glGetString(0x1F01), gles.glGetString(0x1F02)
    return f"{renderer.decode()} ({version.decode()})" if renderer else None


def mesa_description() -> str:
    try:
        out = subprocess.run([sys.executable, __file__, "--gl-info"], capture_output=True, text=True,
                             timeout=30, env=os.environ).stdout.strip()
        if out:
            return out
    except (OSError, subprocess.SubprocessError):
        pass
    try:  # the packaged version, when no context could be made
        v = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "libgl1-mesa-dri"], capture_output=True,
                           text=True).stdout.strip()
        return f"llvmpipe (Mesa {v.split('-')[0]}, from dpkg)" if v else "llvmpipe (Mesa, version unknown)"
    except OSError:
        return "llvmpipe (Mesa 22.3.6)"


# ---------------------------------------------------------------------------------------------
# Views

def east_of(lat_lon: tuple[float, float], px: float, zoom: float) -> tuple[float, float]:
    """The point `px` screen pixels east at MapLibre `zoom` (Web Mercator: 512 * 2^zoom px
    around the world; due east keeps the latitude)."""
    lat, lon = lat_lon
    return lat, lon + px * 360.0 / (512.0 * 2.0 ** zoom)


def camera(view: str, k: int) -> dict:
    """Frame k of a view, as the TouchBridge bench draws it."""
    if view == "full":
        lat, lon = east_of(VADUZ, STEP_PX * (k % 7), ML_ZOOM)
        return dict(lat=lat, lon=lon, bearing=0, pitch=0)
    lat, lon = VADUZ
    return dict(lat=lat, lon=lon, bearing=BEARING, pitch=45 + k % 10)


def place(m, cam: dict) -> None:
    m.setCenter(cam["lon"], cam["lat"])
    m.setZoom(ML_ZOOM)
    m.setBearing(cam["bearing"])
    m.setPitch(cam["pitch"])


# ---------------------------------------------------------------------------------------------

def make_style(glyph_dir: Path, sprite: bool) -> str:
    style = json.loads(STYLE.read_text())
    style["sources"]["openmaptiles"]["url"] = f"mbtiles://{TILES}"
    style["glyphs"] = f"file://{glyph_dir}/{{fontstack}}/{{range}}.pbf"
    if sprite:
        style["sprite"] = f"file://{SPRITE}"
    else:
        style.pop("sprite", None)
    return json.dumps(style)


def save_png(buffer, path: Path) -> None:
    from PIL import Image
    Image.fromarray(buffer.reshape(HEIGHT, WIDTH, 4)).save(path)


def maplibre_round(m, frames: int, k0: int) -> dict[str, list[float]]:
    """`frames` timed renders of each view; frame numbers start at k0."""
    times: dict[str, list[float]] = {}
    for view in ("full", "tilted"):
        times[view] = []
        for i in range(frames):
            place(m, camera(view, k0 + i))
            t0 = time.perf_counter()
            m.renderBuffer()
            times[view].append((time.perf_counter() - t0) * 1e3)
    return times


def touchbridge_run(binary: Path, quick: bool) -> dict[str, float]:
    env = dict(os.environ, TOUCHBRIDGE_BENCH_ONLY="street")
    args = [str(binary), "bench", "--json"] + (["--quick"] if quick else [])
    res = subprocess.run(args, cwd=REPO, env=env, capture_output=True, text=True, timeout=1800)
    if res.returncode != 0:
        sys.exit(f"touchbridge bench failed ({res.returncode}):\n{res.stderr[-2000:]}")
    # stdout is the JSON object ({"key": value, ...}); take its last line starting with "{".
    line = next((l for l in reversed(res.stdout.splitlines()) if l.startswith("{")), None)
    if line is None:
        sys.exit(f"no JSON in the touchbridge bench output:\n{res.stdout[-2000:]}")
    figures = json.loads(line)
    missing = [k for k in TB_KEYS.values() if k not in figures]
    if missing:
        sys.exit(f"touchbridge bench JSON lacks {missing} (were the street tiles found?)")
    return {view: figures[key] for view, key in TB_KEYS.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description="MapLibre Native (pymgl) vs TouchBridge street map timing.")
    ap.add_argument("--out", type=Path, default=Path("/tmp/maplibre-compare"), help="PNGs and results.json")
    ap.add_argument("--frames", type=int, default=None, help="timed renders per view per round (20; --quick 4)")
    ap.add_argument("--rounds", type=int, default=None, help="MapLibre rounds, each followed by a TouchBridge run (2; --quick 1)")
    ap.add_argument("--quick", action="store_true", help="few frames and one round (a check, not a measurement)")
    ap.add_argument("--touchbridge", type=Path, help="touchbridge binary (e.g. .build/release/touchbridge)")
    ap.add_argument("--full-bench", action="store_true", help="run the TouchBridge bench without --quick (more frames)")
    ap.add_argument("--glyphs", type=Path, help="glyph PBF directory to use (made there when it has none)")
    ap.add_argument("--gl-info", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()

    if args.gl_info:                       # child process of mesa_description()
        os.environ.setdefault("EGL_PLATFORM", "surfaceless")
        print(gl_renderer() or "")
        return
    frames = args.frames or (4 if args.quick else 20)
    rounds = args.rounds or (1 if args.quick else 2)
    binary = args.touchbridge.resolve() if args.touchbridge else None
    if binary and not binary.is_file():
        sys.exit(f"no touchbridge binary at {binary}")

    # EGL must pick the surfaceless platform (no display server) before pymgl makes its context.
    if os.environ.get("EGL_PLATFORM", "surfaceless") != "surfaceless":
        print(f"note: EGL_PLATFORM={os.environ['EGL_PLATFORM']} (surfaceless expected)")
    os.environ.setdefault("EGL_PLATFORM", "surfaceless")
    import pymgl
    from pymgl import _version as pymgl_version

    revision = pymgl_version.get_versions().get("full-revisionid", "")
    print(f"CPU:              {cpu_model()} ({os.cpu_count()} logical CPUs)")
    print(f"GL:               {mesa_description()}; llvmpipe threads: "
          f"{os.environ.get('LP_NUM_THREADS', f'{os.cpu_count()} (default: one per CPU)')}")
    print(f"pymgl:            {pymgl.__version__} ({revision[:7] or 'revision unknown'})")
    print(f"MapLibre Native:  {MAPLIBRE_NATIVE_BY_PYMGL.get(revision, 'not reported by pymgl')}")

    # Glyphs: made once per run (about 10 s of one core) unless --glyphs names a made directory.
    glyphs = load_glyph_module()
    stacks = glyphs.style_font_stacks(json.loads(STYLE.read_text()))
    tmp = None
    if args.glyphs and all((args.glyphs / s / "0-255.pbf").is_file() for s in stacks):
        glyph_dir = args.glyphs.resolve()
        print(f"glyphs:           {glyph_dir} (made before)")
    else:
        if args.glyphs:
            glyph_dir = args.glyphs.resolve()
        else:
            tmp = tempfile.TemporaryDirectory(prefix="maplibre-glyphs-")
            glyph_dir = Path(tmp.name)
        print(f"glyphs:           making Noto Sans SDF PBFs in {glyph_dir}")
        glyphs.build(glyph_dir, stacks, log=lambda s: print("                 " + s.strip()))

    # The map, and the 3 warm-up renders (which also load every tile the views need: the first
    # and last full views span the others). A render that fails with the sprite is tried again
    # without it (pymgl reports "Failed to load sprite" and raises).
    args.out.mkdir(parents=True, exist_ok=True)
    sprite = SPRITE.with_suffix(".json").is_file() and SPRITE.with_suffix(".png").is_file()
    lat, lon = VADUZ
    while True:
        m = pymgl.Map(make_style(glyph_dir, sprite), WIDTH, HEIGHT, 1, lon, lat, ML_ZOOM)
        try:
            place(m, camera("full", 0))
            save_png(m.renderBuffer(), args.out / "maplibre-full-0.png")
            break
        except RuntimeError as e:
            if not sprite:
                sys.exit(f"pymgl render failed: {e or 'see the errors above'} (glyphs? tiles?)")
            sprite = False
            print("sprite:           pymgl could not load it; removed from the style (no POI icons)")
    if sprite:
        print(f"sprite:           file://{SPRITE} (.json/.png)")
    place(m, camera("full", 6))
    m.renderBuffer()
    place(m, dict(camera("tilted", 5), pitch=50))
    save_png(m.renderBuffer(), args.out / "maplibre-tilted-50.png")
    print(f"PNGs:             {args.out}/maplibre-full-0.png, maplibre-tilted-50.png")
    print(f"timing:           {rounds} round(s) x {frames} frames per view, 1920x1080, "
          f"MapLibre zoom {ML_ZOOM} (TouchBridge {TB_ZOOM})" + (", TouchBridge bench between rounds" if binary else ""))

    ml: dict[str, list[float]] = {"full": [], "tilted": []}
    tb: dict[str, list[float]] = {"full": [], "tilted": []}
    k = 0
    for r in range(rounds):
        times = maplibre_round(m, frames, k)
        k += frames
        for view, t in times.items():
            ml[view] += t
        line = f"  round {r + 1}: MapLibre " + ", ".join(f"{v} {statistics.median(t):.1f} ms" for v, t in times.items())
        if binary:
            figures = touchbridge_run(binary, quick=not args.full_bench)
            for view, v in figures.items():
                tb[view].append(v)
            line += "; TouchBridge " + ", ".join(f"{v} {x:.1f} ms" for v, x in figures.items())
        print(line, flush=True)

    print()
    print(f"{'view':<8} {'MapLibre Native ms':>19} {'TouchBridge ms':>15} {'ratio':>7}")
    results = {}
    for view in ("full", "tilted"):
        a = statistics.median(ml[view])
        b = statistics.median(tb[view]) if tb[view] else None
        results[view] = dict(maplibre_ms=a, maplibre_frames=ml[view], touchbridge_ms=b,
                             touchbridge_runs=tb[view], touchbridge_key=TB_KEYS[view])
        tb_text = f"{b:15.1f}" if b else f"{'-':>15}"
        ratio = f"{a / b:6.1f}x" if b else f"{'-':>7}"
        print(f"{view:<8} {a:19.1f} {tb_text} {ratio}")
    print("(medians; ratio = MapLibre Native / TouchBridge; TouchBridge: the median of its bench runs' medians)")
    (args.out / "results.json").write_text(json.dumps(dict(
        cpu=cpu_model(), pymgl=pymgl.__version__, frames=frames, rounds=rounds, sprite=sprite,
        views=results), indent=1))
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
