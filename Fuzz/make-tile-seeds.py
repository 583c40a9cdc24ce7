#!/usr/bin/env python3
"""Writes the seed corpus of fuzz-mvt and fuzz-pmtiles from the Liechtenstein test tiles
(Tests/StreetMapTests/Fixtures, ODbL: see its README). Small files on purpose: libFuzzer mutates
bytes, and a 1 KB seed is worth more than the 700 KB archive.

    PYTHONPATH=/path/to/pmtiles-3.8.1 python3 Fuzz/make-tile-seeds.py

Needs the reference `pmtiles` Python package 3.8.1 (header and directory serialisation)."""
import gzip, json, os, sqlite3, sys
from pmtiles.tile import Entry, serialize_directory, serialize_header, zxy_to_tileid, Compression, TileType

root = os.path.join(os.path.dirname(__file__), "..")
db = sqlite3.connect(os.path.join(root, "Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.mbtiles"))
def tile(z, x, y):  # XYZ address; the file is TMS
    row = db.execute("SELECT tile_data FROM tiles WHERE zoom_level=? AND tile_column=? AND tile_row=?",
                     (z, x, (1 << z) - 1 - y)).fetchone()
    return row[0]

mvt = os.path.join(root, "Fuzz/corpus/fuzz-mvt")
# Plain protobuf tiles of growing size, and one as stored (gzip).
for name, (z, x, y) in {"z0": (0, 0, 0), "z5": (5, 16, 11), "z7": (7, 67, 44), "z8": (8, 134, 89)}.items():
    open(os.path.join(mvt, f"liechtenstein-{name}.mvt"), "wb").write(gzip.decompress(tile(z, x, y)))
open(os.path.join(mvt, "liechtenstein-z7.mvt.gz"), "wb").write(tile(7, 67, 44))

def archive(tiles, internal, leaf_size=None):
    """A PMTiles v3 file: header, root directory (with leaves when leaf_size is given),
    metadata, leaves, tile data; internal compression gzip or none."""
    entries, data = [], b""
    for (z, x, y), blob in sorted(tiles.items(), key=lambda t: zxy_to_tileid(*t[0])):
        entries.append(Entry(zxy_to_tileid(z, x, y), len(data), len(blob), 1))
        data += blob
    pack = (lambda b: gzip.compress(b, mtime=0)) if internal == Compression.GZIP else (lambda b: b)
    # The reference serialize_directory gzips its output.
    directory = (lambda es: serialize_directory(es)) if internal == Compression.GZIP else (lambda es: gzip.decompress(serialize_directory(es)))
    leaves = b""
    if leaf_size:
        roots = []
        for i in range(0, len(entries), leaf_size):
            leaf = directory(entries[i:i + leaf_size])
            roots.append(Entry(entries[i].tile_id, len(leaves), len(leaf), 0))
            leaves += leaf
        rootdir = directory(roots)
    else:
        rootdir = directory(entries)
    meta = pack(json.dumps({"name": "seed", "vector_layers": [{"id": "water"}]}).encode())
    zs = [z for (z, _, _) in tiles]
    h = {"root_offset": 127, "root_length": len(rootdir), "metadata_offset": 127 + len(rootdir), "metadata_length": len(meta),
         "leaf_directory_offset": 127 + len(rootdir) + len(meta), "leaf_directory_length": len(leaves),
         "tile_data_offset": 127 + len(rootdir) + len(meta) + len(leaves), "tile_data_length": len(data),
         "addressed_tiles_count": len(entries), "tile_entries_count": len(entries), "tile_contents_count": len(entries),
         "clustered": True, "internal_compression": internal, "tile_compression": Compression.GZIP,
         "tile_type": TileType.MVT, "min_zoom": min(zs), "max_zoom": max(zs),
         "min_lon_e7": 94710780, "min_lat_e7": 470477400, "max_lon_e7": 96362170, "max_lat_e7": 472712800,
         "center_zoom": 7, "center_lon_e7": 95536480, "center_lat_e7": 471595100}
    return serialize_header(h) + rootdir + meta + leaves + data

small = {(z, x, y): tile(z, x, y) for (z, x, y) in [(0, 0, 0), (1, 1, 0), (2, 2, 1), (3, 4, 2), (4, 8, 5), (5, 16, 11), (6, 33, 22)]}
pm = os.path.join(root, "Fuzz/corpus/fuzz-pmtiles")
open(os.path.join(pm, "liechtenstein-z0-6.pmtiles"), "wb").write(archive(small, Compression.GZIP))
open(os.path.join(pm, "liechtenstein-z0-6-plain-dirs.pmtiles"), "wb").write(archive(small, Compression.NONE))
open(os.path.join(pm, "liechtenstein-z0-6-leaves.pmtiles"), "wb").write(archive(small, Compression.NONE, leaf_size=2))
