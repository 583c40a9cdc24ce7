"""Overlays over the control socket in the kiosk VM (issue 26): `touchbridge run` on the bochs
DRM card with a uinput touchscreen; a client adds a polygon, a circle and a line as GeoJSON,
sets a route and a position with an accuracy circle, and subscribes. The scanout shows each
shape where Web Mercator puts it, the route with its travelled part grey, and the puck; a
touch through the kernel beside the line (within a finger's width, not on its pixels) reaches
the subscriber as didTapOverlay; remove_overlay takes the polygon off the screen again."""

from __future__ import annotations

import json
import math

import pytest

import kioskvm
from evemu import Touchscreen

W, H = 1280, 800
LAT0, LON0, ZOOM = 47.14, 9.52, 13
PANEL = Touchscreen("panel", "protocolB", slots=10, x_max=4095, y_max=4095, resolution=12,
                    name="TouchBridge overlay panel")

CONFIG = f"""
[display]
backend = "drm"
[[touch]]
match = "name:TouchBridge overlay panel"
[map]
latitude = {LAT0}
longitude = {LON0}
zoom = {ZOOM}
[position]
accuracy_m = 150
[control]
socket = "/tmp/tb/control.sock"
"""


def world(lat: float, lon: float) -> tuple[float, float]:
    size = 256 * 2 ** ZOOM
    s = math.sin(math.radians(lat))
    return (lon + 180) / 360 * size, (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * size


def screen(lat: float, lon: float) -> tuple[float, float]:
    cx, cy = world(LAT0, LON0)
    x, y = world(lat, lon)
    return W / 2 + x - cx, H / 2 + y - cy


def lonlat(sx: float, sy: float) -> tuple[float, float]:
    """The coordinate under a screen point (flat, north up)."""
    cx, cy = world(LAT0, LON0)
    size = 256 * 2 ** ZOOM
    x, y = cx + sx - W / 2, cy + sy - H / 2
    lon = x / size * 360 - 180
    lat = math.degrees(math.atan(math.sinh(math.pi * (1 - 2 * y / size))))
    return lon, lat


# Shapes placed by their screen boxes (then turned into coordinates), so the checks read simply.
POLY = [lonlat(200, 150), lonlat(420, 150), lonlat(420, 330), lonlat(200, 330)]
HOLE = [lonlat(280, 210), lonlat(340, 210), lonlat(340, 270), lonlat(280, 270)]
CIRCLE_C = lonlat(1000, 200)
LINE = [lonlat(150, 600), lonlat(600, 600)]
ROUTE = [lonlat(700, 700), lonlat(900, 500), lonlat(1150, 500)]
POS = lonlat(800, 600)   # on the route's first leg: (700,700)->(900,500) passes through (800,600)


def geo(kind: str, coords, props: dict) -> str:
    g = {"type": "Feature", "properties": props, "geometry": {"type": kind, "coordinates": coords}}
    return json.dumps(g, separators=(",", ":"))


def ring(points):
    r = [list(p) for p in points]
    return r + [r[0]]


POLY_JSON = geo("Polygon", [ring(POLY), ring(HOLE)], {"fill": "#e00000", "fill-opacity": 1, "stroke": "#e00000", "title": "Market"})
LINE_JSON = geo("LineString", [list(p) for p in LINE], {"stroke": "#0000e0", "stroke-width": 6})
CIRCLE_JSON = geo("Point", list(CIRCLE_C), {"fill": "#00b000", "fill-opacity": 1, "stroke": "#00b000"})
ROUTE_JSON = json.dumps({"type": "LineString", "coordinates": [list(p) for p in ROUTE]}, separators=(",", ":"))


def tap_file(sx: float, sy: float) -> str:
    x, y = round(sx / W * 4095), round(sy / H * 4095)
    return PANEL.script().frame(0.00, [(1, x, y)]).frame(0.03, [(1, x, y)]).frame(0.08, []).text()


SCRIPT = r"""
set +e
cd "$TB_WORK"
mkdir -p /tmp/tb
"$TB_BIN" run --config "$TB_WORK/kiosk.toml" > run.out 2> run.err &
PID=$!
i=0
until [ -S /tmp/tb/control.sock ] && grep -q 'first frame on the display' run.err; do
  sleep 0.2; i=$((i + 1)); [ $i -gt 300 ] && { echo "kiosk did not start" >&2; cat run.err >&2; exit 91; }
done
CTL="$TB_BIN ctl --socket /tmp/tb/control.sock"
"$TB_BIN" events --socket /tmp/tb/control.sock > sub.jsonl 2> sub.err &
SUB=$!
i=0
until grep -q '"type":"start"' sub.jsonl 2>/dev/null; do
  sleep 0.2; i=$((i + 1)); [ $i -gt 150 ] && { echo "no subscription" >&2; cat sub.err >&2; break; }
done
$CTL add_overlay overlay=market "geojson=$(cat poly.json)" z_index=1 > add-poly.json 2> add-poly.err
$CTL add_overlay overlay=plaza "geojson=$(cat circle.json)" 'style={"radius_m":RADIUS,"fill":"#00b000","fill-opacity":1}' > add-circle.json 2> add-circle.err
$CTL add_overlay overlay=walk "geojson=$(cat line.json)" > add-line.json 2> add-line.err
$CTL set_route "geojson=$(cat route.json)" > route.json.out 2> route.err
$CTL set_position latitude=POSLAT longitude=POSLON > pos.json 2> pos.err
$CTL add_overlay overlay=bad 'geojson={"type":"Polygon","coordinates":[[[0,0],[1,1]]]}' > bad.json 2> bad.err
echo $? > bad-exit.txt
$CTL list_overlays > list.json
sleep 2
tb_screenshot shapes > /dev/null
tb_play "$TB_DEV_PANEL" tap.events
i=0
until grep -q '"type":"didTapOverlay"' sub.jsonl; do
  sleep 0.2; i=$((i + 1)); [ $i -gt 150 ] && { echo "no didTapOverlay" >&2; break; }
done
$CTL remove_overlay overlay=market > remove.json 2> remove.err
sleep 2
tb_screenshot removed > /dev/null
kill -TERM $PID
wait $PID
echo $? > run-exit.txt
wait $SUB
echo $? > sub-exit.txt
"""

RADIUS = 400.0


@pytest.fixture(scope="module")
def vm(kiosk_ready, tmp_path_factory):
    # The tap lands 9 px below the 6 px line: off its pixels, within a finger's width.
    script = (SCRIPT.replace("RADIUS", str(RADIUS)).replace("POSLAT", f"{POS[1]:.7f}")
              .replace("POSLON", f"{POS[0]:.7f}"))
    files = {"kiosk.toml": CONFIG, "tap.events": tap_file(375, 609), "poly.json": POLY_JSON,
             "circle.json": CIRCLE_JSON, "line.json": LINE_JSON, "route.json": ROUTE_JSON}
    return kioskvm.run_vm(script, devices=[PANEL], screen=(W, H), files=files, timeout=600,
                          work_dir=tmp_path_factory.mktemp("overlays"))


def near(p, rgb, tol=40) -> bool:
    return all(abs(a - b) <= tol for a, b in zip(p, rgb))


def fraction(shot, box, pred) -> float:
    x0, y0, x1, y1 = box
    hits = sum(1 for y in range(y0, y1) for x in range(x0, x1) if pred(shot.pixel(x, y)))
    return hits / ((x1 - x0) * (y1 - y0))


def test_the_socket_accepts_the_shapes_and_refuses_a_broken_one(vm):
    for name in ("add-poly", "add-circle", "add-line"):
        assert json.loads(vm.text(f"{name}.json"))["ok"] is True, vm.text(f"{name}.err")
    assert json.loads(vm.text("route.json.out"))["points"] == 3, vm.text("route.err")
    assert vm.text("bad-exit.txt").strip() == "1"
    assert "ring" in vm.text("bad.err").lower(), vm.text("bad.err")
    listed = {o["overlay"]: o for o in json.loads(vm.text("list.json"))["overlays"]}
    assert set(listed) == {"market", "plaza", "walk"}
    assert listed["market"]["kinds"] == ["polygon"] and listed["plaza"]["kinds"] == ["circle"]
    assert vm.text("run-exit.txt").strip() == "0", vm.text("run.err")


def test_the_scanout_shows_each_shape_where_mercator_puts_it(vm):
    shot = vm.screenshots["shapes"]
    red = lambda p: near(p, (224, 0, 0))
    # The polygon's body is red, its hole is not.
    assert fraction(shot, (215, 165, 265, 200), red) > 0.95
    assert fraction(shot, (290, 220, 330, 260), red) < 0.05
    assert fraction(shot, (440, 165, 480, 200), red) < 0.05   # beside it
    # The circle: 400 m at this zoom and latitude, in px.
    m_per_px = 156543.03392 * math.cos(math.radians(CIRCLE_C[1])) / 2 ** ZOOM
    r = RADIUS / m_per_px
    green = lambda p: near(p, (0, 176, 0))
    cx, cy = 1000, 200
    assert fraction(shot, (int(cx - r * 0.6), int(cy - 5), int(cx + r * 0.6), int(cy + 5)), green) > 0.95
    assert fraction(shot, (int(cx + r + 4), cy - 3, int(cx + r + 14), cy + 3), green) < 0.05
    # The line: blue on its path, not 10 px beside it.
    blue = lambda p: near(p, (0, 0, 224), 60)
    assert fraction(shot, (200, 599, 550, 602), blue) > 0.9
    assert fraction(shot, (200, 612, 550, 615), blue) < 0.05


def test_the_route_is_grey_behind_the_puck_and_blue_ahead_with_the_puck_on_it(vm):
    shot = vm.screenshots["shapes"]
    # Ahead: the last leg (900,500)->(1150,500) in the route blue.
    route_blue = lambda p: near(p, (26, 115, 232), 45)
    assert fraction(shot, (950, 499, 1100, 502), route_blue) > 0.8
    # Travelled: the first leg before the position (700,700)->(800,600): grey.
    grey = lambda p: near(p, (154, 160, 166), 40)
    pts = [(round(720 + i), round(680 - i)) for i in range(0, 50, 5)]
    assert sum(1 for x, y in pts if grey(shot.pixel(x, y))) >= 7, [shot.pixel(x, y) for x, y in pts]
    # The puck: a blue dot at the position, a white ring round it.
    assert near(shot.pixel(800, 600), (26, 115, 232), 45), shot.pixel(800, 600)
    ring_white = sum(1 for dx, dy in ((11, 0), (-11, 0), (0, 11), (0, -11)) if near(shot.pixel(800 + dx, 600 + dy), (255, 255, 255), 30))
    assert ring_white >= 3


def test_a_touch_beside_the_line_reaches_the_client_as_didTapOverlay(vm):
    lines = [json.loads(l) for l in vm.text("sub.jsonl").splitlines() if l.strip()]
    hits = [l for l in lines if l["type"] == "didTapOverlay"]
    assert [h["overlay"] for h in hits] == ["walk"], lines
    lon, lat = lonlat(375, 609)
    assert abs(hits[0]["lon"] - lon) < 1e-3 and abs(hits[0]["lat"] - lat) < 1e-3
    assert not [l for l in lines if l["type"] == "didTapAt"]


def test_remove_overlay_takes_the_polygon_off_the_screen(vm):
    assert json.loads(vm.text("remove.json"))["ok"] is True, vm.text("remove.err")
    shot = vm.screenshots["removed"]
    assert fraction(shot, (215, 165, 265, 200), lambda p: near(p, (224, 0, 0))) < 0.05
    # The others stay.
    assert fraction(shot, (200, 599, 550, 602), lambda p: near(p, (0, 0, 224), 60)) > 0.9
