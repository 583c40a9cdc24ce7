#!/usr/bin/env python3
"""Make MapLibre glyph PBFs (signed-distance-field font ranges) from the system's Noto Sans.

MapLibre Native draws text from pre-rendered glyph ranges, fetched from the style's "glyphs"
URL as `{fontstack}/{start}-{end}.pbf`. TouchBridge's street style has no "glyphs" key (the
renderer shapes text itself), so to draw that style with MapLibre Native
(scripts/maplibre-compare.py) we make the ranges here, in the format node-fontnik writes
(the tool behind most glyph servers):

    message glyphs    { repeated fontstack stacks = 1; }
    message fontstack { required string name = 1; required string range = 2; repeated glyph glyphs = 3; }
    message glyph     { required uint32 id = 1; optional bytes bitmap = 2; required uint32 width = 3;
                        required uint32 height = 4; required sint32 left = 5; required sint32 top = 6;
                        required uint32 advance = 7; }

Each glyph is rendered at 24 px. Its bitmap is a signed distance field with a 3 px border on
every side ((width+6) x (height+6) bytes, rows top to bottom): 255 - clamp(d * 256/8 + 64),
d the distance in px to the outline, negative inside (fontnik's radius 8 and cutoff 0.25), so
the glyph's edge is at 191 and the value falls by 32 a pixel outside it. `left` and `top` are
the outline's rounded bounding box relative to the pen on the baseline, `top` minus the font's
ascender (as fontnik stores it); `advance` is the 24 px advance, truncated.

fontnik measures distances to the vector outline; here the glyph is rasterized with Pillow
(FreeType) 4x larger, and the distance is the Euclidean distance transform of that bitmap
(scipy when installed, else brute force), scaled back: within about 1/8 px of fontnik's.

Fonts: Debian's fonts-noto-core (Noto Sans Regular, Bold, Italic, Bold Italic); any other
font stack name is drawn with Noto Sans Regular. A character Noto Sans lacks (such as the
style's peak triangle U+25B2) is taken from DejaVu Sans of the same weight when present.
Protobuf is written by hand (varints, zigzag for sint32): no protobuf package needed.

Usage: python3 scripts/glyph-pbfs.py OUTDIR [STACK ...]
  (no STACK: the font stacks the street style uses, plus MapLibre's default stack)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

try:  # Optional: a fast exact distance transform.
    from scipy.ndimage import distance_transform_edt
except ImportError:  # pragma: no cover - depends on the machine
    distance_transform_edt = None

REPO = Path(__file__).resolve().parent.parent
STYLE = REPO / "Sources/VectorTiles/Resources/street-style.json"

# MapLibre's text-font default, used by symbol layers that set no "text-font".
DEFAULT_STACK = "Open Sans Regular,Arial Unicode MS Regular"

# Latin-1, Latin Extended-A/B, IPA + spacing modifiers, Latin Extended Additional + Greek
# Extended, General Punctuation (dashes, quotes), Geometric Shapes (the peak label's U+25B2).
DEFAULT_RANGES = [(0, 255), (256, 511), (512, 767), (7680, 7935), (7936, 8191), (8192, 8447),
                  (9472, 9727)]

SIZE = 24        # px, as fontnik (MapLibre scales from a 24 px em)
BUFFER = 3       # px of field around the glyph's box
RADIUS = 8       # px of distance across the field's range
CUTOFF = 0.25    # share of the range given to the inside
SCALE = 4        # supersampling of the rasterized glyph the distances are measured on

# Noto Sans style words -> (Noto Sans file, DejaVu Sans fallback file).
FACES = {
    "Regular": ("NotoSans-Regular.ttf", "DejaVuSans.ttf"),
    "Bold": ("NotoSans-Bold.ttf", "DejaVuSans-Bold.ttf"),
    "Italic": ("NotoSans-Italic.ttf", "DejaVuSans-Oblique.ttf"),
    "Bold Italic": ("NotoSans-BoldItalic.ttf", "DejaVuSans-BoldOblique.ttf"),
}


# ---------------------------------------------------------------------------------------------
# Fonts and font stacks

def font_files() -> dict[str, Path]:
    """Every font file fontconfig knows, by file name (fc-list), plus Debian's usual places."""
    found: dict[str, Path] = {}
    try:
        out = subprocess.run(["fc-list", "--format", "%{file}\n"], capture_output=True, text=True,
                             check=False).stdout
        for line in out.splitlines():
            p = Path(line.strip())
            found.setdefault(p.name, p)
    except FileNotFoundError:
        pass
    for d in ("/usr/share/fonts/truetype/noto", "/usr/share/fonts/truetype/dejavu"):
        for p in Path(d).glob("*.ttf") if Path(d).is_dir() else []:
            found.setdefault(p.name, p)
    return found


def face_for_stack(stack: str) -> str:
    """The Noto Sans style drawing `stack`: the first "Noto Sans <style>" named in it, else Regular."""
    for name in (n.strip() for n in stack.split(",")):
        if name.startswith("Noto Sans "):
            style = name[len("Noto Sans "):]
            if style in FACES:
                return style
    return "Regular"


def style_font_stacks(style: dict) -> list[str]:
    """The font stacks a style's symbol layers name, as MapLibre spells them in glyph URLs
    (font names joined by ","), plus the default stack (used by layers without text-font).

    Reads plain arrays (["Noto Sans Bold"]), arrays inside expressions (["literal", [...]],
    e.g. as the outputs of "match" or "step"), and zoom functions ({"stops": ...}).
    """
    stacks: list[str] = []

    def add(names: list[str]) -> None:
        s = ",".join(names)
        if s not in stacks:
            stacks.append(s)

    def walk(value, top: bool) -> None:
        if isinstance(value, dict):
            for stop in value.get("stops", []):
                if isinstance(stop, list) and len(stop) == 2:
                    walk(stop[1], True)
        elif isinstance(value, list):
            if top and value and all(isinstance(v, str) for v in value):
                add(value)   # a plain font list (inside an expression an array needs "literal")
                return
            if len(value) == 2 and value[0] == "literal" and isinstance(value[1], list):
                add([v for v in value[1] if isinstance(v, str)])
                return
            for v in value[1:]:
                walk(v, False)

    for layer in style.get("layers", []):
        font = layer.get("layout", {}).get("text-font")
        if font is not None:
            walk(font, True)
    if DEFAULT_STACK not in stacks:
        stacks.append(DEFAULT_STACK)
    return stacks


# ---------------------------------------------------------------------------------------------
# Glyph rendering

@dataclass
class Glyph:
    id: int
    width: int
    height: int
    left: int
    top: int        # top of the box minus the font's ascender, as stored
    advance: int
    bitmap: bytes   # (width + 2*BUFFER) * (height + 2*BUFFER) bytes, or b"" when width == 0


def signed_distance(inside: np.ndarray) -> np.ndarray:
    """Distance (in pixels of `inside`) from each pixel centre to the inside/outside boundary,
    negative inside. The boundary lies half a pixel from the nearest pixel of the other kind."""
    if distance_transform_edt is not None:
        # One transform instead of two: the distance to the nearest edge pixel (an inside pixel
        # with an outside 4-neighbour). Outside, that is the distance to the nearest inside
        # pixel; inside, it is one less than the distance to the nearest outside pixel.
        pad = np.pad(inside, 1)
        interior = pad[:-2, 1:-1] & pad[2:, 1:-1] & pad[1:-1, :-2] & pad[1:-1, 2:]
        d = distance_transform_edt(~(inside & ~interior))
        return np.where(inside, -0.5 - d, d - 0.5)
    return None  # brute force is done at the sample points only (see Face.sdf)


def bilinear(grid: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """grid sampled at (y, x) index coordinates (pixel centres at integers), edges clamped."""
    h, w = grid.shape
    y = np.clip(y, 0, h - 1)
    x = np.clip(x, 0, w - 1)
    y0 = np.minimum(np.floor(y).astype(int), h - 2) if h > 1 else np.zeros_like(y, int)
    x0 = np.minimum(np.floor(x).astype(int), w - 2) if w > 1 else np.zeros_like(x, int)
    fy, fx = y - y0, x - x0
    y1, x1 = np.minimum(y0 + 1, h - 1), np.minimum(x0 + 1, w - 1)
    return ((grid[y0, x0] * (1 - fx) + grid[y0, x1] * fx) * (1 - fy)
            + (grid[y1, x0] * (1 - fx) + grid[y1, x1] * fx) * fy)


def brute_force_distance(inside: np.ndarray, y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Without scipy: signed distance from points (index coordinates) to the midpoints of the
    edges between inside and outside pixels."""
    pad = np.pad(inside, 1)
    mids = []
    dy, dx = np.nonzero(pad[1:, :] != pad[:-1, :])     # horizontal edges between rows
    mids.append(np.stack([dy - 0.5, dx - 1.0], 1))
    dy, dx = np.nonzero(pad[:, 1:] != pad[:, :-1])     # vertical edges between columns
    mids.append(np.stack([dy - 1.0, dx - 0.5], 1))
    m = np.concatenate(mids).astype(np.float32)
    pts = np.stack([y.ravel(), x.ravel()], 1).astype(np.float32)
    best = np.full(len(pts), np.inf, np.float32)
    for i in range(0, len(m), 512):                    # chunks keep memory small
        d = ((pts[:, None, :] - m[None, i:i + 512, :]) ** 2).sum(-1).min(1)
        best = np.minimum(best, d)
    dist = np.sqrt(best).reshape(y.shape)
    h, w = inside.shape
    iy = np.clip(np.round(y).astype(int), 0, h - 1)
    ix = np.clip(np.round(x).astype(int), 0, w - 1)
    return np.where(inside[iy, ix], -dist, dist)


class Face:
    """One Noto Sans style with its DejaVu fallback, rendering glyphs as fontnik does."""

    def __init__(self, primary: Path, fallback: Path | None):
        basic = ImageFont.Layout.BASIC   # one glyph per character, no shaping
        self.fonts = []
        for path in [primary] + ([fallback] if fallback else []):
            hi = ImageFont.truetype(str(path), SIZE * SCALE, layout_engine=basic)
            lo = ImageFont.truetype(str(path), SIZE, layout_engine=basic)
            self.fonts.append((hi, lo, self._signature(lo, chr(0x10FFFD))))  # .notdef's look
        # fontnik stores top - ascender (FreeType's 24 px ascender, rounded up); the primary
        # font's for every glyph, so fallback glyphs sit on the same baseline.
        self.ascender = self.fonts[0][1].getmetrics()[0]
        self.path = primary

    @staticmethod
    def _signature(font: ImageFont.FreeTypeFont, ch: str):
        x0, y0, x1, y1 = bbox = font.getbbox(ch, anchor="ls")
        im = Image.new("L", (max(1, x1 - x0), max(1, y1 - y0)))
        ImageDraw.Draw(im).text((-x0, -y0), ch, font=font, fill=255, anchor="ls")
        return bbox, font.getlength(ch), im.tobytes()

    def glyph(self, cp: int) -> Glyph | None:
        """The glyph for code point `cp`, or None when no font has it (fontnik skips those)."""
        ch = chr(cp)
        for hi, lo, notdef in self.fonts:
            # Pillow has no cmap lookup: a character the font lacks renders as .notdef.
            if self._signature(lo, ch) != notdef:
                return self._render(hi, cp)
        return None

    def _render(self, font: ImageFont.FreeTypeFont, cp: int) -> Glyph:
        ch = chr(cp)
        advance = int(font.getlength(ch) / SCALE)        # fontnik: horiAdvance / 64, truncated
        empty = Glyph(cp, 0, 0, 0, -self.ascender, advance, b"")
        x0, y0, x1, y1 = font.getbbox(ch, anchor="ls")   # at SCALE x, y down, pen at (0, 0)
        if x1 <= x0 or y1 <= y0:
            return empty
        # Rasterize with room for the field's border around the ink.
        pad = (BUFFER + 2) * SCALE
        ox, oy = pad - x0, pad - y0                      # the pen's position in the canvas
        canvas = Image.new("L", (x1 - x0 + 2 * pad, y1 - y0 + 2 * pad), 0)
        ImageDraw.Draw(canvas).text((ox, oy), ch, font=font, fill=255, anchor="ls")
        inside = np.asarray(canvas) >= 128
        rows, cols = np.nonzero(inside.any(1))[0], np.nonzero(inside.any(0))[0]
        if len(rows) == 0:
            return empty
        # The outline's box in 24 px units, y up from the baseline, rounded as fontnik does.
        rnd = lambda v: int(math.floor(v + 0.5))
        left, right = rnd((cols[0] - ox) / SCALE), rnd((cols[-1] + 1 - ox) / SCALE)
        top, bottom = rnd((oy - rows[0]) / SCALE), rnd((oy - rows[-1] - 1) / SCALE)
        width, height = right - left, top - bottom
        if width <= 0 or height <= 0:
            return empty
        # Field pixel (r, c) (r from the top) has its centre at x = left - B + c + 0.5,
        # y = top + B - r - 0.5 (24 px units, y up); in canvas index coordinates (pixel
        # centres at integers) that is x * SCALE + ox - 0.5, -y * SCALE + oy - 0.5.
        xs = (left - BUFFER + np.arange(width + 2 * BUFFER) + 0.5) * SCALE + ox - 0.5
        ys = -(top + BUFFER - np.arange(height + 2 * BUFFER) - 0.5) * SCALE + oy - 0.5
        gy, gx = np.meshgrid(ys, xs, indexing="ij")
        sd = signed_distance(inside)
        d = (bilinear(sd, gy, gx) if sd is not None else brute_force_distance(inside, gy, gx)) / SCALE
        n = np.clip(d * (256 / RADIUS) + CUTOFF * 256, 0, 255).astype(np.int32)  # int(): truncation
        bitmap = (255 - n).astype(np.uint8).tobytes()
        return Glyph(cp, width, height, left, top - self.ascender, advance, bitmap)


# ---------------------------------------------------------------------------------------------
# Protobuf encoding (proto2 wire format)

def _varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def _key(field: int, wire: int) -> bytes:
    return _varint(field << 3 | wire)


def _uint(field: int, n: int) -> bytes:
    return _key(field, 0) + _varint(n)


def _sint(field: int, n: int) -> bytes:
    return _key(field, 0) + _varint(((n << 1) ^ (n >> 31)) & 0xFFFFFFFF)   # zigzag32


def _bytes(field: int, data: bytes) -> bytes:
    return _key(field, 2) + _varint(len(data)) + data


def encode_range(stack: str, start: int, end: int, glyphs: list[Glyph]) -> bytes:
    """A `glyphs` message holding one font stack's range."""
    body = _bytes(1, stack.encode()) + _bytes(2, f"{start}-{end}".encode())
    for g in glyphs:
        msg = _uint(1, g.id)
        if g.width > 0:
            msg += _bytes(2, g.bitmap)
        msg += _uint(3, g.width) + _uint(4, g.height) + _sint(5, g.left) + _sint(6, g.top) + _uint(7, g.advance)
        body += _bytes(3, msg)
    return _bytes(1, body)


# ---------------------------------------------------------------------------------------------

def build(outdir: Path, stacks: list[str], ranges=DEFAULT_RANGES, log=print) -> dict[str, str]:
    """Write OUTDIR/{stack}/{start}-{end}.pbf for every stack and range. Stacks drawn by the
    same font share the rendering. Returns {stack: font file drawing it}."""
    files = font_files()
    faces: dict[str, Face] = {}
    used: dict[str, str] = {}
    cache: dict[tuple[str, int, int], list[Glyph]] = {}
    for stack in stacks:
        style = face_for_stack(stack)
        primary_name, fallback_name = FACES[style]
        if primary_name not in files:
            sys.exit(f"glyph-pbfs: {primary_name} not found (install fonts-noto-core)")
        if style not in faces:
            faces[style] = Face(files[primary_name], files.get(fallback_name))
        face = faces[style]
        used[stack] = str(face.path)
        d = outdir / stack
        d.mkdir(parents=True, exist_ok=True)
        count = 0
        for start, end in ranges:
            key = (style, start, end)
            if key not in cache:
                cache[key] = [g for cp in range(start, end + 1) if (g := face.glyph(cp)) is not None]
            (d / f"{start}-{end}.pbf").write_bytes(encode_range(stack, start, end, cache[key]))
            count += len(cache[key])
        log(f"  {stack!r}: {face.path.name}, {count} glyphs in {len(ranges)} ranges")
    return used


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", type=Path, help="directory for {fontstack}/{start}-{end}.pbf")
    ap.add_argument("stacks", nargs="*", help="font stacks (names joined by ','); default: the street style's")
    ap.add_argument("--style", type=Path, default=STYLE, help="style whose text-font stacks are the default")
    args = ap.parse_args()
    stacks = args.stacks or style_font_stacks(json.loads(args.style.read_text()))
    print(f"glyph PBFs into {args.outdir} (distance transform: {'scipy' if distance_transform_edt else 'brute force'})")
    build(args.outdir, stacks)


if __name__ == "__main__":
    main()
