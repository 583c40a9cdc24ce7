#!/usr/bin/env python3
"""Gives the Liechtenstein test tiles the names tilemaker keeps in other languages.

Debian 12's tilemaker 2.2.0 with its example OpenMapTiles configuration writes `name:latin`,
`name_int`, `name_en` and `name_de`; with `additional_languages = { "ja", "zh", "ko", "ar",
"ru" }` in process-openmaptiles.lua it also writes `name:ja`, `name:zh`, `name:ko`, `name:ar`
and `name:ru` where OpenStreetMap has them (in the 2013 extract: Vaduz). This script runs
tilemaker so (with `include_ids`, as the fixtures were made), then copies those attributes
onto the same features (same layer, OpenStreetMap id, type and geometry) of the committed
fixture, keeping everything else byte for byte: tilemaker writes a tile's features in a
different order from run to run (its threads), and the order decides which labels are placed
first, so tiles made afresh would change the pictures the tests compare.

Usage: scripts/street-fixture-languages.py [OSM_PBF]
  (default ../shared/data/osm/liechtenstein-2013-08-03.osm.pbf; needs tilemaker, and the
  pmtiles package 3.8.1 from PyPI for the PMTiles copy). Run again, it finds the names there
  and changes no tile.
"""
import gzip
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

LANGUAGES = ["ja", "zh", "ko", "ar", "ru"]
HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, "..", "Tests", "StreetMapTests", "Fixtures")
MBTILES = os.path.join(FIXTURES, "liechtenstein-openmaptiles.mbtiles")
PMTILES = os.path.join(FIXTURES, "liechtenstein-openmaptiles.pmtiles")
EXAMPLES = "/usr/share/doc/tilemaker/examples"


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if c < 0x80:
            return r, i


def put_varint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def fields(b):
    """(field number, wire type, value, raw bytes of the whole field) of a protobuf message."""
    i = 0
    while i < len(b):
        start = i
        k, i = varint(b, i)
        n, t = k >> 3, k & 7
        if t == 0:
            v, i = varint(b, i)
        elif t == 2:
            ln, i = varint(b, i)
            v = bytes(b[i:i + ln])
            i += ln
        elif t == 5:
            v = bytes(b[i:i + 4]); i += 4
        elif t == 1:
            v = bytes(b[i:i + 8]); i += 8
        else:
            raise ValueError("wire type %d" % t)
        yield n, t, v, bytes(b[start:i])


def field_bytes(n, payload):
    return put_varint(n << 3 | 2) + put_varint(len(payload)) + payload


def parse_layer(lb):
    name, keys, values, features = None, [], [], []
    for n, _, v, _ in fields(lb):
        if n == 1:
            name = v.decode()
        elif n == 3:
            keys.append(v.decode())
        elif n == 4:
            values.append(v)
        elif n == 2:
            features.append(v)
    return name, keys, values, features


def feature_key(fb):
    """(id, type, geometry) and the tag index pairs of a feature."""
    fid, typ, geom, tags = 0, 0, b"", []
    for n, _, v, _ in fields(fb):
        if n == 1:
            fid = v
        elif n == 3:
            typ = v
        elif n == 4:
            geom = v
        elif n == 2:
            j = 0
            while j < len(v):
                x, j = varint(v, j)
                tags.append(x)
    return (fid, typ, geom), tags


def string_value(vb):
    for n, _, v, _ in fields(vb):
        if n == 1:
            return v.decode()
    return None


def wanted_names(layer_bytes):
    """Per feature key of a tilemaker layer: its name:xx values for LANGUAGES."""
    _, keys, values, features = parse_layer(layer_bytes)
    out = {}
    for fb in features:
        key, tags = feature_key(fb)
        names = {}
        for k in range(0, len(tags), 2):
            kname = keys[tags[k]]
            if kname in ("name:" + l for l in LANGUAGES):
                names[kname] = string_value(values[tags[k + 1]])
        if names:
            out.setdefault(key, []).append(names)
    return out


def patched_layer(lb, names_by_key):
    """The layer with the names added to its matching features; None when nothing changes."""
    name, keys, values, features = parse_layer(lb)
    value_strings = [string_value(v) for v in values]
    changed = False
    new_features = []
    for fb in features:
        key, tags = feature_key(fb)
        have = {keys[tags[k]] for k in range(0, len(tags), 2)}
        add = {}
        for names in names_by_key.get(key, [])[:1]:
            add = {k: v for k, v in names.items() if k not in have}
        if not add:
            new_features.append(fb)
            continue
        changed = True
        for k, v in sorted(add.items()):
            if k not in keys:
                keys.append(k)
            if v not in value_strings:
                value_strings.append(v)
                values.append(field_bytes(1, v.encode()))
            tags += [keys.index(k), value_strings.index(v)]
        out = b""
        for n, _, v, raw in fields(fb):
            out += field_bytes(2, b"".join(put_varint(t) for t in tags)) if n == 2 else raw
        new_features.append(out)
    if not changed:
        return None
    body = b""
    for n, _, v, raw in fields(lb):
        if n in (2, 3, 4):
            continue
        body += raw
    body += b"".join(field_bytes(2, f) for f in new_features)
    body += b"".join(field_bytes(3, k.encode()) for k in keys)
    body += b"".join(field_bytes(4, v) for v in values)
    return body


def tile_layers(data):
    return [(n, v, raw) for n, _, v, raw in fields(data)]


def main():
    pbf = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", "shared", "data", "osm", "liechtenstein-2013-08-03.osm.pbf")
    work = tempfile.mkdtemp(prefix="street-fixture-")
    try:
        config = json.load(open(os.path.join(EXAMPLES, "config-openmaptiles.json")))
        config["settings"]["include_ids"] = True
        json.dump(config, open(os.path.join(work, "config.json"), "w"))
        lua = open(os.path.join(EXAMPLES, "process-openmaptiles.lua")).read()
        lua, n = re.subn(r"^additional_languages = \{[^}]*\}", "additional_languages = { %s }" % ", ".join('"%s"' % l for l in LANGUAGES), lua, flags=re.M)
        assert n == 1, "additional_languages not found in process-openmaptiles.lua"
        open(os.path.join(work, "process.lua"), "w").write(lua)
        made = os.path.join(work, "names.mbtiles")
        subprocess.run(["tilemaker", "--input", pbf, "--output", made, "--config", os.path.join(work, "config.json"),
                        "--process", os.path.join(work, "process.lua")], check=True, stdout=subprocess.DEVNULL)
        src = sqlite3.connect(made)
        names = {}
        for z, x, y, data in src.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles"):
            data = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
            for n, v, _ in tile_layers(data):
                if n == 3:
                    lname = parse_layer(v)[0]
                    w = wanted_names(v)
                    if w:
                        names[(z, x, y, lname)] = w
        new_json = dict(src.execute("SELECT name, value FROM metadata"))["json"]
        dst = sqlite3.connect(MBTILES)
        patched = 0
        for z, x, y, data in list(dst.execute("SELECT zoom_level, tile_column, tile_row, tile_data FROM tiles")):
            raw = gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data
            out, changed = b"", False
            for n, v, fraw in tile_layers(raw):
                w = names.get((z, x, y, parse_layer(v)[0])) if n == 3 else None
                p = patched_layer(v, w) if w else None
                if p is None:
                    out += fraw
                else:
                    out += field_bytes(3, p)
                    changed = True
            if changed:
                patched += 1
                dst.execute("UPDATE tiles SET tile_data = ? WHERE zoom_level = ? AND tile_column = ? AND tile_row = ?",
                            (gzip.compress(out, mtime=0), z, x, y))
        # The metadata's field lists: tilemaker's, which name the languages kept.
        dst.execute("UPDATE metadata SET value = ? WHERE name = 'json'", (new_json,))
        dst.commit()
        dst.execute("VACUUM")
        dst.close()
        print("%d tiles given names in %s" % (patched, ", ".join(LANGUAGES)))
        from pmtiles.convert import mbtiles_to_pmtiles
        mbtiles_to_pmtiles(MBTILES, PMTILES, 15)
        print("wrote", os.path.relpath(MBTILES), "and", os.path.relpath(PMTILES))
    finally:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
