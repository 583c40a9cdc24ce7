"""The control socket against a real kiosk process on the host: `touchbridge run` with the PNG
display backend (no VM needed), clients speaking the wire protocol of docs/control.md. Every
command, bad input, two clients, a subscriber that never reads while frames go on, a client
killed in the middle of a line, the socket's mode and its stale-socket rules, and the `ctl` and
`events` command-line clients."""

from __future__ import annotations

import json
import os
import signal
import socket
import stat
import struct
import subprocess
import sys
import time
import zlib
from pathlib import Path

import pytest

from pngread import read_png

SIZE = (320, 240)


class Kiosk:
    runs = 0

    def __init__(self, binary: Path, work: Path, extra: str = ""):
        self.binary, self.work = binary, work
        self.sock = str(work / "control.sock")
        self.frames = work / "frames"
        self.config = work / "kiosk.toml"
        self.config.write_text(f"""
[display]
backend = "png"
png_dir = "{self.frames}"
size = "{SIZE[0]}x{SIZE[1]}"
max_fps = 30
[map]
latitude = 47.14
longitude = 9.52
zoom = 9
[control]
socket = "{self.sock}"
[log]
level = "debug"
{extra}
""")
        Kiosk.runs += 1
        self.err_path = work / f"run{Kiosk.runs}.err"   # one per process, so each start waits for its own
        self.proc: subprocess.Popen | None = None
        self.prefix: list[str] = []   # e.g. prlimit, to start the kiosk with fewer descriptors

    def start(self, wait: bool = True) -> "Kiosk":
        self.err = open(self.err_path, "ab")
        self.proc = subprocess.Popen(self.prefix + [str(self.binary), "run", "--config", str(self.config), "--duration", "300"],
                                     stdout=subprocess.DEVNULL, stderr=self.err)
        if wait:
            deadline = time.time() + 30
            while "first frame on the display" not in self.stderr():
                assert self.proc.poll() is None, f"kiosk exited: {self.stderr()}"
                assert time.time() < deadline, f"kiosk did not start: {self.stderr()}"
                time.sleep(0.05)
        return self

    def stderr(self) -> str:
        return self.err_path.read_text(errors="replace") if self.err_path.exists() else ""

    def frame_count(self) -> int:
        return len(list(self.frames.glob("frame-*.png"))) if self.frames.exists() else 0

    def stop(self, sig=signal.SIGTERM) -> int:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.err.close()
        return self.proc.returncode if self.proc else 0

    def client(self) -> "Client":
        return Client(self.sock)


class Client:
    def __init__(self, path: str, rcvbuf: int | None = None):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.connect(path)
        self.s.settimeout(10)
        self.buf = b""
        self.events: list[dict] = []
        self.n = 0

    def send_raw(self, data: bytes):
        self.s.sendall(data)

    def line(self) -> dict:
        while b"\n" not in self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("the kiosk closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def reply(self) -> dict:
        """The next reply; event-stream lines before it are kept in self.events."""
        while True:
            obj = self.line()
            if "ok" in obj:
                return obj
            self.events.append(obj)

    def call(self, cmd: str, **args) -> dict:
        self.n += 1
        self.s.sendall((json.dumps({"id": self.n, "cmd": cmd, **args}) + "\n").encode())
        r = self.reply()
        assert r["id"] == self.n, r
        return r

    def ok(self, cmd: str, **args) -> dict:
        r = self.call(cmd, **args)
        assert r["ok"] is True, r
        return r

    def wait_event(self, pred, timeout=10) -> dict:
        deadline = time.time() + timeout
        for e in self.events:
            if pred(e):
                return e
        while time.time() < deadline:
            e = self.line()
            self.events.append(e)
            if pred(e):
                return e
        raise AssertionError(f"no such event in {self.events[-10:]}")

    def close(self):
        self.s.close()


def write_png(path: Path, w: int, h: int, rgb: tuple[int, int, int]):
    raw = b"".join(b"\x00" + bytes(rgb) * w for _ in range(h))
    chunk = lambda k, d: struct.pack(">I", len(d)) + k + d + struct.pack(">I", zlib.crc32(k + d) & 0xFFFFFFFF)
    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


@pytest.fixture
def kiosk(kiosk_binary, tmp_path):
    k = Kiosk(kiosk_binary, tmp_path).start()
    yield k
    k.stop()


def settle(c: Client, timeout=10):
    """Waits until the camera is idle (get_camera says moving false)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not c.ok("get_camera")["moving"]:
            return
        time.sleep(0.05)
    raise AssertionError("the camera never went idle")


# MARK: the socket file


def test_socket_mode_group_and_removal_at_exit(kiosk_binary, tmp_path):
    k = Kiosk(kiosk_binary, tmp_path).start()
    st = os.stat(k.sock)
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o660
    assert st.st_gid == os.getegid()
    assert k.stop() == 0
    assert not os.path.exists(k.sock), "the socket was left behind at exit"


def test_stale_socket_is_replaced_and_a_live_one_refused(kiosk_binary, tmp_path):
    first = Kiosk(kiosk_binary, tmp_path).start()
    # A second kiosk on the same path while the first lives: refused, the first keeps working.
    (tmp_path / "second").mkdir()
    second = Kiosk(kiosk_binary, tmp_path / "second")
    second.sock = first.sock
    second.config.write_text(first.config.read_text().replace(str(first.frames), str(second.frames)))
    r = subprocess.run([str(kiosk_binary), "run", "--config", str(second.config), "--duration", "5"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0
    assert "another program (a running kiosk?) is listening on " + first.sock in r.stderr
    assert first.client().ok("get_camera")
    # The first dies without cleaning up: its socket file stays, stale; the next kiosk replaces it.
    first.stop(signal.SIGKILL)
    assert stat.S_ISSOCK(os.stat(first.sock).st_mode)
    third = Kiosk(kiosk_binary, tmp_path).start()
    assert "replaced the stale socket" in third.stderr()
    assert third.client().ok("get_camera")
    third.stop()
    # A path that is not a socket is never removed.
    Path(first.sock).write_text("precious")
    r = subprocess.run([str(kiosk_binary), "run", "--config", str(first.config), "--duration", "5"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "exists and is not a socket" in r.stderr
    assert Path(first.sock).read_text() == "precious"


# MARK: commands


def test_camera_commands(kiosk):
    c = kiosk.client()
    r = c.ok("get_camera")
    assert r["camera"] == {"lat": 47.14, "lon": 9.52, "zoom": 9, "bearing": 0, "tilt": 0} and r["mode"] == "free"
    sub = kiosk.client()
    sub.ok("subscribe")
    assert sub.line()["type"] == "start"
    r = c.ok("move_camera", latitude=47.2, zoom=11, bearing=30, tilt=20, animate=0.4)
    assert r["camera"]["zoom"] == 11
    # The app sees a programmatic move: willMove with gesture false, changes, then idle.
    assert sub.wait_event(lambda e: e["type"] == "willMove")["gesture"] is False
    idle = sub.wait_event(lambda e: e["type"] == "idleAt")
    assert idle["camera"] == {"lat": 47.2, "lon": 9.52, "zoom": 11.0, "bearing": 30.0, "tilt": 20.0}
    assert any(e["type"] == "didChange" for e in sub.events)
    settle(c)
    cam = c.ok("get_camera")["camera"]
    assert (cam["lat"], cam["lon"], cam["zoom"], cam["bearing"], cam["tilt"]) == (47.2, 9.52, 11, 30, 20)
    # Only what is given changes; no animate: at once.
    c.ok("move_camera", longitude=9.6)
    cam = c.ok("get_camera")["camera"]
    assert cam["lon"] == 9.6 and cam["zoom"] == 11 and cam["lat"] == 47.2
    # fit: north up, flat, the box in view.
    c.ok("fit", bounds=[9.47, 47.05, 9.64, 47.27], padding=10)
    cam = c.ok("get_camera")["camera"]
    assert cam["bearing"] == 0 and cam["tilt"] == 0
    assert abs(cam["lat"] - 47.16) < 0.01 and abs(cam["lon"] - 9.555) < 0.01
    assert 8 < cam["zoom"] < 11


def test_marker_commands(kiosk, tmp_path):
    c = kiosk.client()
    icon = tmp_path / "blue.png"
    write_png(icon, 24, 30, (20, 40, 230))
    r = c.ok("add_marker", marker="shop", latitude=47.14, longitude=9.52, title="Shop", snippet="Open",
             color="#00A000")
    assert r["marker"]["color"] == "#00A000"
    c.ok("add_marker", marker="bus", latitude=47.05, longitude=9.35, icon=str(icon))
    r = c.call("add_marker", marker="shop", latitude=1, longitude=2)
    assert r["ok"] is False and "exists already" in r["error"]
    listed = c.ok("list_markers")
    assert [m["marker"] for m in listed["markers"]] == ["shop", "bus"]
    assert listed["markers"][1]["icon"] == str(icon) and listed["selected"] is None
    c.ok("update_marker", marker="shop", title="Big shop", color=None)
    m = c.ok("list_markers")["markers"][0]
    assert m["title"] == "Big shop" and m["snippet"] == "Open" and m["color"] is None and m["latitude"] == 47.14
    assert "no marker" in c.call("update_marker", marker="nope", title="x")["error"]
    bad = c.call("add_marker", marker="x", latitude=1, longitude=2, icon=str(tmp_path / "missing.png"))
    assert bad["ok"] is False and "missing.png" in bad["error"]
    notpng = tmp_path / "text.png"
    notpng.write_text("hello")
    assert "not a PNG" in c.call("add_marker", marker="x", latitude=1, longitude=2, icon=str(notpng))["error"]
    # The info window: select, switch, close with null (the app hears didCloseInfoWindow).
    sub = kiosk.client()
    sub.ok("subscribe")
    assert c.ok("select_marker", marker="shop")["selected"] == "shop"
    assert "no info window" in c.call("select_marker", marker="bus")["error"]
    assert c.ok("select_marker", marker=None)["selected"] is None
    assert sub.wait_event(lambda e: e["type"] == "didCloseInfoWindow")["marker"] == "shop"
    # The icon and the info window on the frame: screenshot of what is on the display.
    c.ok("select_marker", marker="shop")
    time.sleep(0.5)
    shot = tmp_path / "shot.png"
    r = c.ok("screenshot", path=str(shot))
    assert (r["width"], r["height"]) == SIZE
    w, h, rgb = read_png(shot)
    assert (w, h) == SIZE
    px = lambda x, y: tuple(rgb[(y * w + x) * 3:(y * w + x) * 3 + 3])
    # The bus icon: 24x30, bottom centre on its coordinate, drawn at its own size and colour.
    cam = c.ok("get_camera")["camera"]
    import math
    def screen(lat, lon):
        scale = 256 * 2 ** cam["zoom"]
        wx = lambda lo: (lo + 180) / 360 * scale
        wy = lambda la: (1 - math.log(math.tan(math.pi / 4 + math.radians(la) / 2)) / math.pi) / 2 * scale
        return SIZE[0] / 2 + wx(lon) - wx(cam["lon"]), SIZE[1] / 2 + wy(lat) - wy(cam["lat"])
    bx, by = screen(47.05, 9.35)
    assert px(round(bx), round(by - 15)) == (20, 40, 230)
    # The info window above the shop's pin is white.
    sx, sy = screen(47.14, 9.52)
    assert px(round(sx), round(sy - 60)) == (255, 255, 255)
    c.ok("remove_marker", marker="shop")
    assert [m["marker"] for m in c.ok("list_markers")["markers"]] == ["bus"]
    assert c.ok("list_markers")["selected"] is None
    assert "no marker" in c.call("remove_marker", marker="shop")["error"]
    assert "absolute" in c.call("screenshot", path="rel.png")["error"]
    # Outside screenshot_dir (by default the socket's folder) the path is refused from its text alone.
    assert "must lie in control.screenshot_dir" in c.call("screenshot", path="/nonexistent/dir/x.png")["error"]


def test_modes_position_and_gestures(kiosk):
    c = kiosk.client()
    r = c.call("set_camera_mode", mode="following")
    assert r["ok"] is False and "set_position" in r["error"]
    assert "not a camera mode" in c.call("set_camera_mode", mode="sideways")["error"]
    sub = kiosk.client()
    sub.ok("subscribe")
    c.ok("set_position", latitude=47.15, longitude=9.53, heading=90)
    assert c.ok("set_camera_mode", mode="following")["mode"] == "following"
    assert sub.wait_event(lambda e: e["type"] == "cameraMode")["mode"] == "following"
    settle(c)
    cam = c.ok("get_camera")["camera"]
    # The Navigation SDK's following camera: facing the heading, tilted, the position low on
    # the screen, so the camera's target lies ahead of it (east, for heading 90).
    assert cam["bearing"] == 90 and cam["tilt"] == 45
    assert abs(cam["lat"] - 47.15) < 1e-4 and cam["lon"] > 9.53
    # A new position moves the following camera with it (gliding there, then idle).
    c.ok("set_position", latitude=47.10, longitude=9.55, heading=180)
    settle(c)
    cam = c.ok("get_camera")["camera"]
    assert cam["bearing"] == 180 and abs(cam["lon"] - 9.55) < 1e-4 and cam["lat"] < 47.10
    c.ok("add_marker", marker="a", latitude=47.0, longitude=9.4)
    c.ok("add_marker", marker="b", latitude=47.3, longitude=9.7)
    assert c.ok("set_camera_mode", mode="overview")["mode"] == "overview"
    settle(c)
    cam = c.ok("get_camera")["camera"]
    # Overview frames the pins as drawn (a pin's head above its point, the controls clear): both
    # pins, heads included, lie on the screen.
    import math
    def world(lat, lon, z):
        s, size = math.sin(math.radians(lat)), 256 * 2 ** z
        return (lon + 180) / 360 * size, (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * size
    cx, cy = world(cam["lat"], cam["lon"], cam["zoom"])
    for lat, lon in ((47.0, 9.4), (47.3, 9.7)):
        x, y = world(lat, lon, cam["zoom"])
        sx, sy = SIZE[0] / 2 + x - cx, SIZE[1] / 2 + y - cy
        assert 0 <= sx <= SIZE[0] and 49 <= sy <= SIZE[1], (sx, sy, cam)
    assert c.ok("set_camera_mode", mode="free")["mode"] == "free"
    # Gestures: configuration names; the reply says what is on.
    assert c.ok("set_gestures", enabled=["pan", "pinch"])["enabled"] == ["pan", "pinch"]
    r = c.call("set_gestures", enabled=["pan", "pinh"])
    assert r["ok"] is False and "did you mean 'pinch'" in r["error"]
    assert len(c.ok("set_gestures", enabled=["all"])["enabled"]) == 11


def test_reload_applies_the_file_or_keeps_the_old_one(kiosk):
    c = kiosk.client()
    text = kiosk.config.read_text()
    kiosk.config.write_text(text + '\n[[markers]]\nid = "fromfile"\nlatitude = 47.1\nlongitude = 9.5\n')
    c.ok("reload")
    assert [m["marker"] for m in c.ok("list_markers")["markers"]] == ["fromfile"]
    kiosk.config.write_text(text + "\n[map]\nzoom = 99\n")
    r = c.call("reload")
    assert r["ok"] is False and "keeping the running configuration" in r["error"]
    assert [m["marker"] for m in c.ok("list_markers")["markers"]] == ["fromfile"]


# MARK: bad input


def test_bad_requests_get_errors_and_the_connection_stays(kiosk):
    c = kiosk.client()
    cases = [
        (b"this is not json\n", None, "not valid JSON"),
        (b"[1, 2]\n", None, "a request is a JSON object"),
        (b'{"id": 7}\n', 7, 'no "cmd"'),
        (b'{"id": "s", "cmd": 3}\n', "s", '"cmd" must be a string'),
        (b'{"id": [1, {"a": 2}], "cmd": "warp"}\n', [1, {"a": 2}], "unknown command 'warp'"),
        (b'{"id": 1, "cmd": "get_camra"}\n', 1, "did you mean 'get_camera'"),
        (b'{"id": 2, "cmd": "move_camera", "zoom": "big"}\n', 2, '"zoom" must be a number'),
        (b'{"id": 3, "cmd": "move_camera", "latitude": 123}\n', 3, '"latitude" must be within'),
        (b'{"id": 4, "cmd": "move_camera", "zoon": 3}\n', 4, 'takes no argument "zoon"'),
        (b'{"id": 5, "cmd": "fit", "bounds": [1, 2]}\n', 5, "array of 4 numbers"),
        (b'{"id": 9, "cmd": "fit", "bounds": [10, 47, 9, 48]}\n', 9, "west must not be east of east"),
        (b'{"id": 6, "cmd": "add_marker", "marker": "m"}\n', 6, "needs \"latitude\""),
        (b'{"id": 8, "cmd": "add_marker", "marker": "m", "latitude": 1, "longitude": 2, "color": "red"}\n', 8, "not a colour"),
        (b'{"id": null, "cmd": "select_marker", "marker": 5}\n', None, "a marker id"),
        (b'{"cmd": "get_camera", "id": "last"} trailing\n', None, "not valid JSON"),
    ]
    for raw, want_id, want in cases:
        c.send_raw(raw)
        r = c.reply()
        assert r["ok"] is False and want in r["error"], (raw, r)
        assert r.get("id") == want_id, (raw, r)
        assert list(r)[:3] == ["id", "ok", "error"]
    # Still the same connection, still answering; an empty line is ignored.
    c.send_raw(b"\n\r\n")
    assert c.ok("get_camera")["mode"] == "free"


def test_two_clients_each_get_their_own_replies(kiosk):
    a, b = kiosk.client(), kiosk.client()
    b.ok("subscribe")
    assert b.line()["type"] == "start"
    # Interleaved: a's two requests in one write, b's in between; replies go to their sender.
    a.send_raw(b'{"id":"a1","cmd":"add_marker","marker":"m1","latitude":47.1,"longitude":9.5}\n{"id":"a2","cmd":"list_ma')
    b.send_raw(b'{"id":"b1","cmd":"get_camera"}\n')
    assert b.reply()["id"] == "b1"
    a.send_raw(b'rkers"}\n')
    assert a.reply()["id"] == "a1"
    r = a.reply()
    assert r["id"] == "a2" and [m["marker"] for m in r["markers"]] == ["m1"]
    # b sees a's programmatic move in the stream; a (not subscribed) gets only its reply.
    a.ok("move_camera", zoom=10)
    assert b.wait_event(lambda e: e["type"] == "idleAt")["camera"]["zoom"] == 10.0
    a.s.settimeout(0.3)
    with pytest.raises(socket.timeout):
        a.line()


def test_a_subscriber_that_never_reads_does_not_hold_up_frames(kiosk):
    stuck = Client(kiosk.sock, rcvbuf=4096)
    stuck.send_raw(b'{"id":1,"cmd":"subscribe"}\n')   # and never reads again
    c = kiosk.client()
    for i in range(60):
        c.ok("add_marker", marker=f"m{i:02d}", latitude=47 + i / 200, longitude=9.5, title="A marker title " * 4,
             snippet="A longer snippet of text " * 8)
    frames0 = kiosk.frame_count()
    worst = 0.0
    t_end = time.time() + 3
    zoom = 9
    while time.time() < t_end:
        zoom = 10 if zoom == 9 else 9
        t0 = time.time()
        c.ok("move_camera", zoom=zoom, bearing=zoom * 10, animate=0.3)
        worst = max(worst, time.time() - t0)
        time.sleep(0.1)
    settle(c)
    frames = kiosk.frame_count() - frames0
    sys.__stderr__.write(f"\n[control host] {frames} frames in 3 s with a stuck subscriber; slowest reply {worst * 1000:.0f} ms\n")
    assert frames > 20, f"only {frames} frames while the camera animated"
    # Its queue fills from the event stream and its own unread replies: it is cut off, with a warning.
    for _ in range(200):
        try:
            stuck.send_raw(b'{"id":2,"cmd":"list_markers"}\n')
        except (BrokenPipeError, ConnectionResetError):
            break
        if "is not reading" in kiosk.stderr():
            break
        time.sleep(0.005)
    deadline = time.time() + 10
    while "is not reading" not in kiosk.stderr() and time.time() < deadline:
        time.sleep(0.05)
    assert "warning: control: client 1 is not reading" in kiosk.stderr()
    stuck.s.settimeout(5)
    got = b""
    try:
        while chunk := stuck.s.recv(1 << 20):
            got += chunk
    except ConnectionResetError:
        pass
    assert len(got) < 2 << 20   # at most the queue bound (1 MiB) plus what the socket held
    assert c.ok("get_camera")["camera"]["zoom"] in (9, 10)
    assert kiosk.proc.poll() is None


def test_a_client_killed_mid_line_is_forgotten(kiosk):
    code = ("import socket, os, signal\n"
            f"s = socket.socket(socket.AF_UNIX); s.connect({kiosk.sock!r})\n"
            "s.sendall(b'{\"id\": 1, \"cmd\": \"add_mar')\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n")
    p = subprocess.run([sys.executable, "-c", code])
    assert p.returncode == -signal.SIGKILL
    deadline = time.time() + 10
    while "disconnected in the middle of a line" not in kiosk.stderr() and time.time() < deadline:
        time.sleep(0.05)
    assert "disconnected in the middle of a line; the partial request was dropped" in kiosk.stderr()
    # Its half line went nowhere: a new client's first line is read on its own.
    c = kiosk.client()
    c.send_raw(b'ker", "marker": "x", "latitude": 1, "longitude": 2}\n')
    assert c.reply()["ok"] is False
    assert c.ok("list_markers")["markers"] == []
    assert kiosk.proc.poll() is None


# MARK: the command-line clients


def test_ctl_and_events(kiosk, kiosk_binary):
    tb = [str(kiosk_binary)]
    r = subprocess.run(tb + ["ctl", "--socket", kiosk.sock, "get_camera"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["camera"]["zoom"] == 9
    r = subprocess.run(tb + ["ctl", "--config", str(kiosk.config), "add_marker", "marker=cafe", "latitude=47.14",
                             "longitude=9.52", "title=Cafe 1", 'snippet="12"', "z_index=3"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)["marker"]
    # Values are JSON when they parse (3, "12"), else plain strings (Cafe 1).
    assert (m["title"], m["snippet"], m["z_index"]) == ("Cafe 1", "12", 3)
    r = subprocess.run(tb + ["ctl", "--socket", kiosk.sock, "move_camera", "zoom=high"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and '"zoom" must be a number' in r.stderr
    assert json.loads(r.stdout)["ok"] is False
    r = subprocess.run(tb + ["ctl", "--socket", kiosk.sock, "frobnicate"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "unknown command 'frobnicate'" in r.stderr
    r = subprocess.run(tb + ["ctl", "--socket", str(kiosk.work / "nope.sock"), "get_camera"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 1 and "cannot connect" in r.stderr
    ev = subprocess.Popen(tb + ["events", "--socket", kiosk.sock, "--count", "4"], stdout=subprocess.PIPE, text=True)
    time.sleep(1)
    subprocess.run(tb + ["ctl", "--socket", kiosk.sock, "select_marker", "marker=cafe"], check=True, capture_output=True)
    subprocess.run(tb + ["ctl", "--socket", kiosk.sock, "move_camera", "zoom=10"], check=True, capture_output=True)
    out, _ = ev.communicate(timeout=30)
    assert ev.returncode == 0
    lines = [json.loads(l) for l in out.splitlines()]
    assert [l["type"] for l in lines] == ["start", "willMove", "didChange", "idleAt"]
    assert lines[1]["gesture"] is False


def test_read_only_requests_draw_no_frame(kiosk):
    """Idle means idle (mpv's and sway's get_* rule): polling get_camera, list_markers,
    list_overlays and help at 20 Hz draws nothing; a request that changes the map does."""
    c = kiosk.client()
    settle(c)
    time.sleep(0.5)
    before = kiosk.frame_count()
    for i in range(40):
        c.ok(["get_camera", "list_markers", "list_overlays", "help"][i % 4])
        time.sleep(0.05)
    time.sleep(0.3)
    assert kiosk.frame_count() == before, f"{kiosk.frame_count() - before} frames drawn while only read"
    c.ok("add_marker", marker="x", latitude=47.1, longitude=9.5)
    deadline = time.time() + 5
    while kiosk.frame_count() == before and time.time() < deadline:
        time.sleep(0.05)
    assert kiosk.frame_count() > before


def test_fit_answers_its_camera_and_set_gestures_takes_all_as_a_string(kiosk):
    """Issue 30's small items: `fit` answers the camera it goes to; `set_gestures` takes
    "all" as a string as the configuration's list does."""
    c = kiosk.client()
    r = c.ok("fit", bounds=[9.47, 47.05, 9.64, 47.27], padding=10)
    cam = r["camera"]
    assert 47.05 < cam["lat"] < 47.27 and 9.47 < cam["lon"] < 9.64 and cam["zoom"] > 9
    settle(c)
    now = c.ok("get_camera")["camera"]
    assert abs(now["lat"] - cam["lat"]) < 1e-6 and abs(now["zoom"] - cam["zoom"]) < 1e-3
    assert len(c.ok("set_gestures", enabled="all")["enabled"]) == 11
    assert "array of strings" in c.call("set_gestures", enabled="pan")["error"]


# MARK: issue 30: check that checks, reload that reloads, the smaller items

REPO = Path(__file__).resolve().parents[2]
RASTER = REPO / "Tests/RenderingTests/Fixtures/node-mbtiles_plain_1.mbtiles"


def test_check_lists_every_error_and_run_refuses_the_same(kiosk_binary, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    cfg = tmp_path / "bad.toml"
    cfg.write_text(f"""[display]
backend = "png"
png_dir = "{blocker}/frames"
[map]
tiles = "{tmp_path}/missing.mbtiles"
latitude = 48.85
longitude = 2.35
bounds = [48.8, 2.2, 48.9, 2.5]
[control]
socket = "{tmp_path}/no-such-folder/control.sock"
""")
    check = subprocess.run([str(kiosk_binary), "check", "--config", str(cfg)], capture_output=True, text=True, timeout=60)
    assert check.returncode == 2, check
    lines = check.stderr.strip().splitlines()
    keys = ["display.png_dir", "map.tiles", "map.bounds", "control.socket"]
    for key, line in zip(keys, lines):
        assert f"key '{key}'" in line and f"{cfg}:" in line, (key, line)
    assert lines[-1] == f"4 errors in {cfg}", check.stderr
    assert "swapped" in check.stderr and "missing.mbtiles" in check.stderr
    assert "MBTiles" not in check.stdout and "Error:" not in check.stderr
    # run refuses the same file with the same errors, before opening anything: no world map instead.
    run = subprocess.run([str(kiosk_binary), "run", "--config", str(cfg), "--duration", "5"],
                         capture_output=True, text=True, timeout=60)
    assert run.returncode == 2, run
    for key in keys:
        assert f"key '{key}'" in run.stderr
    assert "Showing the built-in world map" not in run.stderr and "NSCocoaErrorDomain" not in run.stderr


def test_check_names_the_tile_container_and_passes_the_example_files(kiosk_binary):
    for name, container in (("street-map.toml", "PMTiles"), ("mbtiles-map.toml", "MBTiles")):
        r = subprocess.run([str(kiosk_binary), "check", "--config", f"Configs/{name}"], cwd=REPO,
                           capture_output=True, text=True, timeout=60)
        assert r.returncode == 0, r.stderr
        assert f"map: {container} Tests/" in r.stdout, r.stdout


def test_reload_switches_the_tiles_and_lists_what_needs_a_restart(kiosk_binary, tmp_path):
    k = Kiosk(kiosk_binary, tmp_path, extra='[[touch]]\nmatch = "/dev/input/event-nonexistent"\n').start()
    try:
        # The absent touchscreen is named with its match and why.
        assert 'match = "/dev/input/event-nonexistent"' in k.stderr() and "does not exist" in k.stderr()
        c = k.client()
        waiting = c.ok("stats")["touchscreens_waiting"]
        assert len(waiting) == 1 and 'match = "/dev/input/event-nonexistent"' in waiting[0], waiting
        settle(c)
        frames = k.frame_count()
        before = read_png_file(c, tmp_path / "before.png")
        text = k.config.read_text()
        k.config.write_text(text.replace("[map]\n", f'[map]\ntiles = "{RASTER}"\n')
                            .replace(f'size = "{SIZE[0]}x{SIZE[1]}"', 'size = "640x480"'))
        r = c.ok("reload")
        assert r["restart_needed"] == ["display.size"], r
        assert "tiles" in r["applied"], r
        assert "restart" in k.stderr() and "display.size" in k.stderr()
        deadline = time.time() + 10
        while k.frame_count() == frames and time.time() < deadline:
            time.sleep(0.05)
        assert k.frame_count() > frames, "no frame after the reload"
        after = read_png_file(c, tmp_path / "after.png")
        assert after[:2] == before[:2] == SIZE   # the size needs a restart: unchanged
        changed = sum(1 for a, b in zip(after[2], before[2]) if a != b)
        assert changed > len(before[2]) // 10, f"only {changed} bytes changed: the new tiles are not shown"
        # A tiles file that does not open: refused, the running map stays.
        k.config.write_text(text.replace("[map]\n", f'[map]\ntiles = "{tmp_path}/gone.mbtiles"\n'))
        bad = c.call("reload")
        assert bad["ok"] is False and "gone.mbtiles" in bad["error"], bad
        assert read_png_file(c, tmp_path / "again.png")[2] == after[2]
        # The counters and the connection survived: the same client still talks.
        assert c.ok("get_camera")["camera"]["zoom"] == 9
    finally:
        k.stop()


def read_png_file(c: Client, path: Path):
    c.ok("screenshot", path=str(path))
    return read_png(path)


def test_get_gestures_reads_without_drawing(kiosk):
    c = kiosk.client()
    g = c.ok("get_gestures")
    assert len(g["enabled"]) == 11 and g["two_finger_horizontal"] == "rotate"
    c.ok("set_gestures", enabled=["pan", "pinch"])
    settle(c)
    time.sleep(0.5)
    before = kiosk.frame_count()
    for _ in range(10):
        assert c.ok("get_gestures")["enabled"] == ["pan", "pinch"]
    time.sleep(0.3)
    assert kiosk.frame_count() == before
    assert "get_gestures" in c.ok("help")["commands"]


def test_events_fails_when_the_kiosk_dies(kiosk, kiosk_binary):
    ev = subprocess.Popen([str(kiosk_binary), "events", "--socket", kiosk.sock], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    time.sleep(1)
    kiosk.stop(signal.SIGKILL)
    out, err = ev.communicate(timeout=30)
    assert ev.returncode == 1, (out, err)
    assert json.loads(out.splitlines()[0])["type"] == "start"
    assert "closed the control socket" in err


def test_small_command_line_items(kiosk, kiosk_binary, tmp_path):
    tb = str(kiosk_binary)
    help_text = subprocess.run([tb, "ctl", "--help"], capture_output=True, text=True, timeout=30).stdout
    assert "id=null" not in help_text and "marker=null" in help_text
    # What the help shows works.
    assert subprocess.run([tb, "ctl", "--socket", kiosk.sock, "select_marker", "marker=null"],
                          capture_output=True, text=True, timeout=30).returncode == 0
    rec = subprocess.run([tb, "record", "--device", str(tmp_path / "no-such-node")], capture_output=True, text=True, timeout=30)
    assert rec.returncode == 1 and rec.stderr.startswith("touchbridge: ") and "Error:" not in rec.stderr, rec.stderr
    icon = tmp_path / "icon.png"
    write_png(icon, 8, 8, (255, 0, 0))
    r = kiosk.client().call("add_marker", marker="rel", latitude=47.1, longitude=9.5, icon="icon.png")
    assert r["ok"] is False and "absolute" in r["error"]


def test_replay_reads_a_libinput_record_file(kiosk_binary):
    fixtures = REPO / "Tests/TouchCoreTests/Fixtures"
    yml = subprocess.run([str(kiosk_binary), "replay", "--contacts", str(fixtures / "libinput-record/atmel-2-fingers.yml")],
                         capture_output=True, text=True, timeout=60)
    evemu = subprocess.run([str(kiosk_binary), "replay", "--contacts", str(fixtures / "evemu/Atmel maXTouch Touchscreen.2-fingers-touch-release.events")],
                           capture_output=True, text=True, timeout=60)
    assert yml.returncode == 0 and evemu.returncode == 0, yml.stderr
    assert len(yml.stdout.splitlines()) > 5 and yml.stdout == evemu.stdout


def test_no_op_updates_draw_no_frame_and_stats_counts_frames(kiosk):
    """Idle means idle (issue 30): a request that changes nothing on the screen (the same
    marker again, a move to where the camera is, a gesture mask) draws nothing; `stats` reads
    without drawing and its frame count is the display's."""
    c = kiosk.client()
    c.ok("add_marker", marker="same", latitude=47.1, longitude=9.5, title="Shop")
    settle(c)
    time.sleep(0.5)
    before = kiosk.frame_count()
    cam = c.ok("get_camera")["camera"]
    c.ok("update_marker", marker="same", latitude=47.1, longitude=9.5, title="Shop")
    c.ok("move_camera", latitude=cam["lat"], longitude=cam["lon"], zoom=cam["zoom"])
    c.ok("set_gestures", enabled=["pan", "pinch"])
    c.ok("set_gestures", enabled="all")
    s = c.ok("stats")
    time.sleep(0.5)
    assert kiosk.frame_count() == before, f"{kiosk.frame_count() - before} frames drawn by no-op requests"
    assert s["frames"] == before
    assert s["markers"] == 1 and s["display"]["state"] == "on" and s["uptime_s"] > 0
    assert set(s["gestures"]) >= {"tap", "pan", "pinch"}
    assert s["memory"]["rss_mib"] > 0 and s["memory"]["peak_rss_mib"] >= s["memory"]["rss_mib"], s["memory"]
    assert set(s["tiles"]) == {"hits", "misses"}
    # A real change draws (the pin moves); a title alone would not (no info window is open).
    c.ok("update_marker", marker="same", latitude=47.12)
    deadline = time.time() + 5
    while kiosk.frame_count() == before and time.time() < deadline:
        time.sleep(0.05)
    assert kiosk.frame_count() == before + 1
    assert c.ok("stats")["frames"] == before + 1


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_at_the_descriptor_limit_the_kiosk_neither_spins_nor_floods_the_log(kiosk_binary, tmp_path):
    """Issue 31: with every descriptor held, accept fails (EMFILE) while the listener stays
    readable; the kiosk used to retry at once for ever (a full core, tens of MB of log every
    5 s). Now it pauses accepting, says so once, and serves again when descriptors free up."""
    k = Kiosk(kiosk_binary, tmp_path)
    k.prefix = ["prlimit", "--nofile=48:48"]
    k.start()
    try:
        # Connect until the kiosk takes no more: it accepts until its descriptors run out, then
        # the listen backlog fills and a connect fails at once (EAGAIN). A busy machine accepts
        # slowly, so a refused connect is retried until 20 in a row are refused.
        clients, refused = [], 0
        while len(clients) < 150 and refused < 20:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.setblocking(False)
            try:
                s.connect(k.sock)
                clients.append(s)
                refused = 0
            except BlockingIOError:
                s.close()
                refused += 1
                time.sleep(0.1)
        assert len(clients) > 30, f"only {len(clients)} connections before the backlog stayed full"
        time.sleep(1)
        cpu0, size0 = cpu_seconds(k.proc.pid), len(k.stderr())
        time.sleep(4)
        cpu = cpu_seconds(k.proc.pid) - cpu0
        grown = len(k.stderr()) - size0
        assert cpu < 1.0, f"the kiosk used {cpu:.2f} s of CPU in 4 s at the descriptor limit"
        assert grown < 20_000, f"{grown} bytes of log in 4 s"
        warnings = [l for l in k.stderr().splitlines() if "cannot accept a client" in l]
        assert 1 <= len(warnings) <= 2, warnings
        assert "descriptor limit" in warnings[0]
        for s in clients:
            s.close()
        # Descriptors free again: a new client is served once the pause ends.
        deadline = time.time() + 10
        while True:
            try:
                c = Client(k.sock)
                c.s.settimeout(3)
                assert c.ok("get_camera")["camera"]
                c.close()
                break
            except (OSError, EOFError):
                assert time.time() < deadline, k.stderr()[-2000:]
                time.sleep(0.2)
    finally:
        k.stop()
