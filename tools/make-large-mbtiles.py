#!/usr/bin/env python3
"""Writes a large raster MBTiles for measuring open time and memory (docs/benchmarks.md,
"Large tile sets"). Tiles are 256x256 PNGs of random pixels (about 197 KB each, as stored:
incompressible), over a square of zoom-ZOOM tiles around Vaduz and all their ancestors, so
the file is real SQLite pages, not a sparse hole. Nothing here goes into git.

    tools/make-large-mbtiles.py OUT.mbtiles SIZE_MB [--no-zoom-metadata]

--no-zoom-metadata leaves minzoom/maxzoom out, so opening asks the tiles table (its index)."""
import math, os, random, sqlite3, struct, sys, zlib

out, size_mb = sys.argv[1], int(sys.argv[2])
zoom_meta = "--no-zoom-metadata" not in sys.argv
zoom = 14

def png(seed):
    rnd = random.Random(seed)
    raw = b"".join(b"\x00" + rnd.randbytes(256 * 3) for _ in range(256))
    def chunk(t, body):
        return struct.pack(">I", len(body)) + t + body + struct.pack(">I", zlib.crc32(t + body) & 0xffffffff)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 256, 256, 8, 2, 0, 0, 0)) \
        + chunk(b"IDAT", zlib.compress(raw, 0)) + chunk(b"IEND", b"")

tiles = [png(i) for i in range(16)]          # 16 different tiles, reused
per_tile = len(tiles[0])
count = max(1, size_mb * 1024 * 1024 // per_tile)
side = max(1, int(math.sqrt(count)))
lon, lat = 9.52, 47.14
n = 1 << zoom
cx = int((lon + 180) / 360 * n)
cy = int((1 - math.log(math.tan(math.radians(lat)) + 1 / math.cos(math.radians(lat))) / math.pi) / 2 * n)
x0, y0 = cx - side // 2, cy - side // 2

if os.path.exists(out):
    os.unlink(out)
db = sqlite3.connect(out)
db.execute("PRAGMA journal_mode = OFF")
db.execute("PRAGMA synchronous = OFF")
db.execute("CREATE TABLE metadata (name text, value text)")
db.execute("CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)")
db.execute("CREATE UNIQUE INDEX tile_index ON tiles (zoom_level, tile_column, tile_row)")
meta = [("name", f"large {size_mb} MB"), ("format", "png")]
if zoom_meta:
    meta += [("minzoom", "0"), ("maxzoom", str(zoom))]
db.executemany("INSERT INTO metadata VALUES (?, ?)", meta)
written = set()
rows = []
for i in range(side):
    for j in range(side):
        x, y = x0 + i, y0 + j
        for z in range(zoom, -1, -1):
            k = (z, x >> (zoom - z), y >> (zoom - z))
            if k in written:
                break
            written.add(k)
            rows.append((k[0], k[1], (1 << k[0]) - 1 - k[2], tiles[len(written) % 16]))
        if len(rows) >= 500:
            db.executemany("INSERT INTO tiles VALUES (?, ?, ?, ?)", rows)
            rows = []
db.executemany("INSERT INTO tiles VALUES (?, ?, ?, ?)", rows)
db.commit()
db.close()
print(f"{out}: {len(written)} tiles, {os.path.getsize(out) / 1e6:.0f} MB")
