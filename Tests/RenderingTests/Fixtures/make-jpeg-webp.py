#!/usr/bin/env python3
"""Makes quadrants-jpeg.mbtiles and quadrants-webp.mbtiles: one 256 px raster tile at 0/0/0,
four flat quadrants (NW red, NE green, SW blue, SE yellow), encoded by libjpeg-turbo's cjpeg
(quality 90) and libwebp's cwebp (lossy, quality 90). Run once (needs libjpeg-turbo-progs and
webp from Debian 12); the files are committed."""
import os, sqlite3, subprocess, tempfile

COLOURS = {"nw": (208, 64, 64), "ne": (64, 160, 64), "sw": (64, 96, 208), "se": (224, 192, 64)}
here = os.path.dirname(os.path.abspath(__file__))
with tempfile.TemporaryDirectory() as tmp:
    ppm = os.path.join(tmp, "q.ppm")
    with open(ppm, "wb") as f:
        f.write(b"P6\n256 256\n255\n")
        for y in range(256):
            for x in range(256):
                f.write(bytes(COLOURS[("n" if y < 128 else "s") + ("w" if x < 128 else "e")]))
    jpg, webp = os.path.join(tmp, "q.jpg"), os.path.join(tmp, "q.webp")
    subprocess.run(["cjpeg", "-quality", "90", "-outfile", jpg, ppm], check=True)
    subprocess.run(["cwebp", "-quiet", "-q", "90", ppm, "-o", webp], check=True)
    for name, fmt, path in [("quadrants-jpeg.mbtiles", "jpg", jpg), ("quadrants-webp.mbtiles", "webp", webp)]:
        out = os.path.join(here, name)
        if os.path.exists(out):
            os.remove(out)
        db = sqlite3.connect(out)
        db.execute("CREATE TABLE metadata (name text, value text)")
        db.execute("CREATE TABLE tiles (zoom_level integer, tile_column integer, tile_row integer, tile_data blob)")
        db.executemany("INSERT INTO metadata VALUES (?, ?)",
                       [("name", "quadrants"), ("format", fmt), ("minzoom", "0"), ("maxzoom", "0"),
                        ("attribution", "TouchBridge test pattern")])
        db.execute("INSERT INTO tiles VALUES (0, 0, 0, ?)", (open(path, "rb").read(),))
        db.commit()
        db.close()
