"""Overlays, the route, the position and clustering over the control socket against a real
kiosk process on the host (`touchbridge run`, PNG backend): every overlay command, what the
replies say, what the frames show, broken and hostile GeoJSON refused with a clear message and
the kiosk still answering, and `[[overlays]]` / `[route]` from the configuration file, reloaded."""

from __future__ import annotations

import json
import math
import time
from pathlib import Path

import pytest

from pngread import read_png
from test_control_host import Kiosk, write_png, settle

W, H = 320, 240
LAT0, LON0, ZOOM = 47.14, 9.52, 9


def lonlat(sx: float, sy: float, zoom: float = ZOOM) -> list[float]:
    size = 256 * 2 ** zoom
    s = math.sin(math.radians(LAT0))
    cx = (LON0 + 180) / 360 * size
    cy = (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * size
    x, y = cx + sx - W / 2, cy + sy - H / 2
    return [x / size * 360 - 180, math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / size))))]


def square(x0, y0, x1, y1):
    r = [lonlat(x0, y0), lonlat(x1, y0), lonlat(x1, y1), lonlat(x0, y1)]
    return r + [r[0]]


def shot(c, path: Path):
    time.sleep(0.3)   # the frame after the last change is drawn (paced at max_fps 30) first
    c.ok("screenshot", path=str(path))
    w, h, rgb = read_png(path)
    return lambda x, y: tuple(rgb[(y * w + x) * 3:(y * w + x) * 3 + 3])


@pytest.fixture
def kiosk(kiosk_binary, tmp_path):
    k = Kiosk(kiosk_binary, tmp_path).start()
    yield k
    k.stop()


def test_add_list_update_remove_and_clear(kiosk, tmp_path):
    c = kiosk.client()
    poly = {"type": "Feature", "properties": {"fill": "#e00000", "fill-opacity": 1, "stroke": "#e00000", "title": "Red"},
            "geometry": {"type": "Polygon", "coordinates": [square(40, 40, 120, 120)]}}
    r = c.ok("add_overlay", overlay="red", geojson=poly, z_index=2)
    assert r["overlay"] == {"overlay": "red", "title": "Red", "shapes": 1, "kinds": ["polygon"], "markers": 0,
                            "vertices": r["overlay"]["vertices"], "z_index": 2, "tappable": True}
    settle(c)
    px = shot(c, tmp_path / "a.png")
    assert px(80, 80) == (224, 0, 0)
    # Adding the same id again is refused; update changes the style only.
    assert "exists already" in c.call("add_overlay", overlay="red", geojson=poly)["error"]
    c.ok("update_overlay", overlay="red", style={"fill": "#0000e0"})
    settle(c)
    # The feature's own fill wins over the overlay's style (simplestyle: properties first).
    assert shot(c, tmp_path / "b.png")(80, 80) == (224, 0, 0)
    bare = {"type": "Polygon", "coordinates": [square(40, 40, 120, 120)]}
    c.ok("update_overlay", overlay="red", geojson=bare, style={"fill": "#0000e0", "fill-opacity": 1})
    settle(c)
    assert shot(c, tmp_path / "c.png")(80, 80) == (0, 0, 224)
    # A point with radius_m is a circle; other points are markers with their titles.
    fc = {"type": "FeatureCollection", "features": [
        {"type": "Feature", "properties": {"title": "Shop", "description": "Open 9-18"},
         "geometry": {"type": "Point", "coordinates": lonlat(250, 60)}}]}
    r = c.ok("add_overlay", overlay="pts", geojson=fc)
    assert r["overlay"]["markers"] == 1 and r["overlay"]["shapes"] == 0
    markers = {m["marker"]: m for m in c.ok("list_markers")["markers"]}
    assert markers["pts/0"]["title"] == "Shop" and markers["pts/0"]["snippet"] == "Open 9-18"
    c.ok("add_overlay", overlay="ring", geojson={"type": "Point", "coordinates": lonlat(250, 180)},
         style={"radius_m": 5000, "fill": "#00b000", "fill-opacity": 1})
    listed = [o["overlay"] for o in c.ok("list_overlays")["overlays"]]
    assert listed == ["red", "pts", "ring"]
    c.ok("remove_overlay", overlay="pts")
    assert "pts/0" not in {m["marker"] for m in c.ok("list_markers")["markers"]}
    assert "no overlay with id 'pts'" in c.call("remove_overlay", overlay="pts")["error"]
    # fit on an overlay frames it.
    c.ok("fit", overlay="red", padding=10)
    settle(c)
    cam = c.ok("get_camera")["camera"]
    assert cam["zoom"] > ZOOM + 0.5
    assert "no overlay with id 'nope'" in c.call("fit", overlay="nope")["error"]
    c.ok("clear_overlays")
    assert c.ok("list_overlays")["overlays"] == []
    c.ok("add_marker", marker="m", latitude=47.1, longitude=9.5)
    c.ok("clear_markers")
    assert c.ok("list_markers")["markers"] == []


def test_ground_overlay_route_position_and_clusters(kiosk, tmp_path):
    c = kiosk.client()
    img = tmp_path / "plan.png"
    write_png(img, 40, 20, (10, 200, 30))
    w0, n0 = lonlat(20, 20)
    e0, s0 = lonlat(100, 60)
    c.ok("add_overlay", overlay="plan", image=str(img), bounds=[w0, s0, e0, n0], opacity=1)
    assert "absolute" in c.call("add_overlay", overlay="rel", image="plan.png", bounds=[0, 0, 1, 1])["error"]
    assert "not a PNG" in c.call("add_overlay", overlay="bad", image=str(tmp_path / "kiosk.toml"), bounds=[0, 0, 1, 1])["error"]
    # (The Re-center button takes the bottom right corner once there is a position.)
    route = {"type": "LineString", "coordinates": [lonlat(170, 90), lonlat(300, 90)]}
    assert c.ok("set_route", geojson=route)["points"] == 2
    assert "LineString" in c.call("set_route", geojson={"type": "Point", "coordinates": [0, 0]})["error"]
    c.ok("set_position", latitude=lonlat(235, 90)[1], longitude=lonlat(235, 90)[0], accuracy_m=2000)
    time.sleep(1.5)   # the puck glides to a new position in at most a second
    settle(c)
    px = shot(c, tmp_path / "g.png")
    assert px(60, 40) == (10, 200, 30)
    near = lambda p, q, t=45: all(abs(a - b) <= t for a, b in zip(p, q))
    assert near(px(285, 90), (26, 115, 232)), px(285, 90)        # the route ahead: blue
    assert near(px(185, 90), (154, 160, 166)), px(185, 90)       # behind the position: grey
    assert near(px(235, 90), (26, 115, 232)), px(235, 90)        # the puck's dot
    assert c.ok("set_route", geojson=None)["points"] == 0
    assert c.ok("set_cluster_markers", enabled=True)["enabled"] is True
    assert "true or false" in c.call("set_cluster_markers", enabled="yes")["error"]


@pytest.mark.parametrize("geojson,words", [
    ({"type": "Polygon", "coordinates": [[[0, 0], [1, 1]]]}, "ring"),
    ({"type": "LineString", "coordinates": [[0, 0]]}, "2"),
    ({"type": "LineString", "coordinates": [[0, 0], [200, 0]]}, "longitude"),
    ({"type": "Nonsense", "coordinates": []}, "type"),
    ({"type": "FeatureCollection", "features": [{"type": "Feature", "properties": {"stroke": "red"},
      "geometry": {"type": "LineString", "coordinates": [[0, 0], [1, 1]]}}]}, "features[0]"),
])
def test_broken_geojson_is_refused_with_where_and_what(kiosk, geojson, words):
    c = kiosk.client()
    r = c.call("add_overlay", overlay="x", geojson=geojson)
    assert r["ok"] is False and words in r["error"], r
    assert c.ok("list_overlays")["overlays"] == []


def test_hostile_geojson_leaves_the_kiosk_answering(kiosk):
    c = kiosk.client()
    deep = {"type": "GeometryCollection", "geometries": []}
    for _ in range(12):   # GeoJSON's own bound (8 levels), inside the JSON parser's (64)
        deep = {"type": "GeometryCollection", "geometries": [deep]}
    r = c.call("add_overlay", overlay="deep", geojson=deep)
    assert r["ok"] is False and "GeometryCollection" in r["error"], r
    # Nesting past the JSON parser's limit, in one line.
    line = '{"id":9,"cmd":"add_overlay","overlay":"n","geojson":' + "[" * 5000 + "]" * 5000 + "}\n"
    c.send_raw(line.encode())
    r = c.reply()
    assert r["ok"] is False
    # Nearly a megabyte of points in one line: refused or taken, never a crash.
    pts = [[9.5 + i * 1e-6, 47.1] for i in range(40000)]
    r = c.call("add_overlay", overlay="big", geojson={"type": "LineString", "coordinates": pts})
    assert "ok" in r
    assert c.ok("get_camera")
    assert kiosk.proc.poll() is None


def test_overlays_and_route_from_the_configuration_are_reloaded(kiosk_binary, tmp_path):
    geo = tmp_path / "site.geojson"
    geo.write_text(json.dumps({"type": "Feature", "properties": {"fill": "#e00000", "fill-opacity": 1},
                               "geometry": {"type": "Polygon", "coordinates": [square(40, 40, 120, 120)]}}))
    rt = tmp_path / "route.geojson"
    rt.write_text(json.dumps({"type": "LineString", "coordinates": [lonlat(150, 200), lonlat(300, 200)]}))
    extra = f"""
[[overlays]]
id = "site"
geojson = "site.geojson"
[[overlays]]
id = "zone"
type = "circle"
center = {json.dumps(lonlat(250, 80))}
radius_m = 4000.0
fill = "#00b000"
fill_opacity = 1.0
[route]
geojson = "route.geojson"
"""
    k = Kiosk(kiosk_binary, tmp_path, extra).start()
    try:
        c = k.client()
        assert [o["overlay"] for o in c.ok("list_overlays")["overlays"]] == ["site", "zone"]
        c.ok("add_overlay", overlay="mine", geojson={"type": "Point", "coordinates": [9.5, 47.1]}, style={"radius_m": 100})
        px = shot(c, tmp_path / "r.png")
        assert px(80, 80) == (224, 0, 0) and px(250, 80) == (0, 176, 0)
        # A new file without the circle: reload drops it, keeps the socket's overlay.
        k.config.write_text(k.config.read_text().replace('[[overlays]]\nid = "zone"', '[[overlays]]\nid = "zone2"'))
        c.ok("reload")
        assert [o["overlay"] for o in c.ok("list_overlays")["overlays"]] == ["site", "zone2", "mine"] or \
            sorted(o["overlay"] for o in c.ok("list_overlays")["overlays"]) == ["mine", "site", "zone2"]
        # A broken overlay in the new file: reload refused, the running set stays.
        k.config.write_text(k.config.read_text().replace('radius_m = 4000.0', 'radius_m = -1.0'))
        r = c.call("reload")
        assert r["ok"] is False and "radius_m" in r["error"]
        assert len(c.ok("list_overlays")["overlays"]) == 3
    finally:
        k.stop()


def test_check_reports_overlay_errors_with_file_line_and_key(kiosk_binary, tmp_path):
    import subprocess
    cfg = tmp_path / "k.toml"
    cfg.write_text('[[overlays]]\nid = "a"\ntype = "polygon"\ncoordinates = [[0.0, 0.0], [1.0, 1.0]]\n')
    r = subprocess.run([str(kiosk_binary), "check", "--config", str(cfg)], capture_output=True, text=True)
    assert r.returncode == 2 and "k.toml:4" in r.stderr and "overlays.coordinates" in r.stderr, r.stderr
    cfg.write_text('[[overlays]]\nid = "a"\ngeojson = "missing.geojson"\n')
    r = subprocess.run([str(kiosk_binary), "check", "--config", str(cfg)], capture_output=True, text=True)
    assert r.returncode == 2 and "missing.geojson" in r.stderr, r.stderr
    cfg.write_text('[route]\ngeojson = "r.geojson"\n')
    (tmp_path / "r.geojson").write_text('{"type":"LineString","coordinates":[[9.5,47.1],[9.6,47.2]]}')
    r = subprocess.run([str(kiosk_binary), "check", "--config", str(cfg)], capture_output=True, text=True)
    assert r.returncode == 0 and "route of 2 points" in r.stdout, r.stderr


def test_clustered_markers_show_one_bubble_with_their_count(kiosk, tmp_path):
    """`set_cluster_markers`: 25 pins within a few pixels of each other become one bubble (the
    10-99 colour, #F29900) instead of a heap of red pins; off again, the pins come back."""
    c = kiosk.client()
    lon, lat = lonlat(160, 150)
    for i in range(25):
        c.ok("add_marker", marker=f"p{i}", latitude=lat + (i % 5) * 0.001, longitude=lon + (i // 5) * 0.001)
    red = lambda p: p[0] > 200 and p[1] < 90 and p[2] < 90
    amber = lambda p: abs(p[0] - 242) < 20 and abs(p[1] - 153) < 25 and p[2] < 40
    def count(px, pred):
        return sum(1 for y in range(100, 170) for x in range(120, 200) if pred(px(x, y)))
    pins = shot(c, tmp_path / "pins.png")
    assert count(pins, red) > 200 and count(pins, amber) == 0
    assert c.ok("set_cluster_markers", enabled=True)["enabled"] is True
    bubble = shot(c, tmp_path / "bubble.png")
    assert count(bubble, amber) > 300 and count(bubble, red) < 20
    c.ok("set_cluster_markers", enabled=False)
    assert count(shot(c, tmp_path / "again.png"), red) > 200
