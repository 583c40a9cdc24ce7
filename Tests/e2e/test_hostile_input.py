"""Hostile input to the release binary, on the host (no VM): numbers out of range on the command
line are refused with a message and exit 2 (never a trap: a Swift trap exits 132 or 133 and
systemd would restart into it), a recording of 200 MB replays in little memory, CRLF recordings
replay, and a reader closing the event stream's pipe ends a replay cleanly."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path

import pytest

import kioskvm

FIXTURES = kioskvm.REPO / "Tests" / "TouchCoreTests" / "Fixtures" / "evemu"
NTRIG = FIXTURES / "N-Trig MultiTouch"


def run(binary: Path, *args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("args, says", [
    (["render", "--size", "9223372036854775807x800"], "width and height must be 1 to 32767"),
    (["render", "--size", "40000x100"], "width and height must be 1 to 32767"),
    (["render", "--size", "20000x20000"], "more than the 134 a frame may have"),
    (["render", "--size", "0x10"], "width and height must be 1 to 32767"),
    (["render", "--info", ""], "--info needs TITLE[|SNIPPET] with a title", ),
    (["render", "--info", "|only a snippet"], "--info needs TITLE[|SNIPPET] with a title"),
    (["render", "--camera", "10,20,nan"], "--camera needs LAT,LON,ZOOM"),
    (["render", "--camera", "10,20,3,inf"], "--camera needs LAT,LON,ZOOM"),
    (["render", "--camera", "10,20,3,0,1e300"], "tilt 0...90"),
    (["render", "--pan-frames=-1"], "--pan-frames needs a number from 0"),
    (["render", "--hold", "nan"], "--hold needs seconds"),
    (["render", "--markers", "nan,0"], "--markers wants LAT,LON"),
    (["run", "--duration", "inf"], "--duration needs seconds from 0 to 1e+09; got inf"),
    (["run", "--duration", "nan"], "--duration needs seconds"),
    (["replay", "x.evemu", "--screen", "99999x99999"], "width and height must be 1 to 32767"),
    (["replay", "x.evemu", "--duration=-1"], "--duration needs seconds"),
    (["tune", "--duration", "1e300"], "--duration needs seconds"),
    (["record", "--device", "/dev/null", "--duration", "nan"], "--duration needs seconds"),
    (["calibrate", "--timeout", "inf"], "--timeout needs seconds"),
    (["ctl", "--timeout", "inf", "get_camera"], "--timeout needs seconds"),
    (["ctl", "--timeout=-1", "get_camera"], "--timeout needs seconds"),
    (["demo", "--step-seconds", "1e12"], "--step-seconds needs seconds"),
])
def test_numbers_out_of_range_exit_2_with_a_message(kiosk_binary, args, says):
    r = run(kiosk_binary, *(args if args[0] != "render" else [*args, "--out", os.devnull]))
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert says in r.stderr, r.stderr


def combined_recording(path: Path, megabytes: int) -> int:
    """The N-Trig description, then its one-finger drag repeated (times shifted) to `megabytes`."""
    events = [l for l in (FIXTURES / "N-Trig MultiTouch.1-finger-drag-NW-SE.events").read_text().splitlines()
              if l.startswith("E:")]
    parsed = [(float(l.split()[1]), " ".join(l.split()[2:])) for l in events]
    span = parsed[-1][0] - parsed[0][0] + 0.5
    count = 0
    with path.open("w") as f:
        f.write((FIXTURES / "N-Trig MultiTouch.desc").read_text())
        shift = 0.0
        while f.tell() < megabytes << 20:
            f.write("".join(f"E: {t + shift:.6f} {rest}\n" for t, rest in parsed))
            count += len(parsed)
            shift += span
    return count


def test_a_200_mb_recording_replays_in_little_memory(kiosk_binary, tmp_path):
    rec = tmp_path / "long.evemu"
    events = combined_recording(rec, 200)
    proc = subprocess.Popen([str(kiosk_binary), "replay", str(rec)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    lines = 0
    last = b""
    for line in proc.stdout:
        lines += 1
        last = line
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    assert proc.returncode == 0, proc.stderr.read().decode()
    assert b'"type":"end"' in last and b'"contacts":0' in last
    assert lines > events // 100  # the drags came out as gestures
    peak_mb = usage.ru_maxrss / 1024
    print(f"replay of {rec.stat().st_size >> 20} MB ({events} events): peak RSS {peak_mb:.0f} MB")
    assert peak_mb < 100, f"peak RSS {peak_mb:.0f} MB for a 200 MB recording: it is not streamed"


def test_a_crlf_recording_replays_like_its_lf_original(kiosk_binary, tmp_path):
    text = (FIXTURES / "N-Trig MultiTouch.desc").read_text() + \
        (FIXTURES / "N-Trig MultiTouch.1-finger-drag-NW-SE.events").read_text()
    (tmp_path / "lf.evemu").write_text(text)
    (tmp_path / "crlf.evemu").write_bytes(text.replace("\n", "\r\n").encode())
    lf = run(kiosk_binary, "replay", str(tmp_path / "lf.evemu"))
    crlf = run(kiosk_binary, "replay", str(tmp_path / "crlf.evemu"))
    assert lf.returncode == 0 and crlf.returncode == 0, crlf.stderr
    assert crlf.stdout == lf.stdout and '"gesture":"pan"' in lf.stdout


def test_a_bad_line_names_file_and_line(kiosk_binary, tmp_path):
    bad = tmp_path / "bad.evemu"
    bad.write_bytes(((FIXTURES / "N-Trig MultiTouch.desc").read_text() + "E: 0.1 0003 0035 nope\n")
                    .replace("\n", "\r\n").encode())
    lines = (FIXTURES / "N-Trig MultiTouch.desc").read_text().count("\n") + 1
    r = run(kiosk_binary, "replay", str(bad))
    assert r.returncode == 1
    assert f"{bad}:{lines}: bad number nope" in r.stderr, r.stderr


@pytest.mark.parametrize("sigpipe", ["default", "ignored"])
def test_a_closed_pipe_ends_a_replay_cleanly(kiosk_binary, tmp_path, sigpipe):
    rec = tmp_path / "rec.evemu"
    combined_recording(rec, 20)
    # systemd and many supervisors start programs with SIGPIPE ignored; a shell does not.
    pre = (lambda: signal.signal(signal.SIGPIPE, signal.SIG_IGN)) if sigpipe == "ignored" else None
    proc = subprocess.Popen([str(kiosk_binary), "replay", str(rec)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=pre)
    assert proc.stdout.readline().startswith(b'{"t":0')
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert "Fatal error" not in err and err == "", err


# The control socket's promises and confined paths (issue 31), on a kiosk drawing PNG frames.
from test_control_host import Kiosk  # noqa: E402  (the same kiosk as the control tests)


def test_socket_promises_and_confined_paths(kiosk_binary, tmp_path):
    import socket as so
    import time
    shots = tmp_path / "shots"
    shots.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.png").write_bytes(b"not yours")
    (shots / "link.png").symlink_to(outside / "precious.png")
    os.mkfifo(shots / "fifo.png")
    k = Kiosk(kiosk_binary, tmp_path)
    text = k.config.read_text()
    k.config.write_text(text.replace(f'socket = "{k.sock}"\n', f'socket = "{k.sock}"\nscreenshot_dir = "{shots}"\nfiles_dir = "{shots}"\n'))
    k.start()
    try:
        # `events | head -1` on an idle kiosk: ends when head does, not at the next event.
        t0 = time.time()
        p = subprocess.run(["sh", "-c", f"'{kiosk_binary}' events --socket '{k.sock}' | head -1"],
                           capture_output=True, text=True, timeout=10)
        assert p.stdout.count("\n") == 1 and '"start"' in p.stdout, p
        assert time.time() - t0 < 5, f"events | head -1 took {time.time() - t0:.1f} s"
        # A 20-digit id comes back as its own digits.
        s = so.socket(so.AF_UNIX, so.SOCK_STREAM)
        s.connect(k.sock)
        s.settimeout(10)
        s.sendall(b'{"id": 12345678901234567890, "cmd": "get_camera"}\n')
        buf = b""
        while b"\n" not in buf:
            buf += s.recv(65536)
        assert buf.startswith(b'{"id":12345678901234567890,"ok":true'), buf
        def call(line: bytes) -> str:
            nonlocal buf
            s.sendall(line + b"\n")
            buf = b""
            while b"\n" not in buf:
                buf += s.recv(65536)
            return buf.decode()
        assert '"ok":true' in call(f'{{"id":1,"cmd":"screenshot","path":"{shots}/a.png"}}'.encode())
        assert (shots / "a.png").read_bytes()[:4] == b"\x89PNG"
        for path, says in [(outside / "x.png", "must lie in control.screenshot_dir"), (shots / "link.png", "symbolic link"),
                           (shots / "fifo.png", "not a regular file"), (shots / ".." / "outside" / "y.png", "must lie in")]:
            r = call(f'{{"id":2,"cmd":"screenshot","path":"{path}"}}'.encode())
            assert says in r, (path, r)
        assert (outside / "precious.png").read_bytes() == b"not yours"
        assert not (outside / "x.png").exists() and not (outside / "y.png").exists()
        # Icons from outside files_dir are refused whether or not they exist.
        a = call(f'{{"id":3,"cmd":"add_marker","marker":"a","latitude":1,"longitude":2,"icon":"{outside}/precious.png"}}'.encode())
        b = call(f'{{"id":3,"cmd":"add_marker","marker":"a","latitude":1,"longitude":2,"icon":"{outside}/absent.png"}}'.encode())
        assert a.replace("precious", "X") == b.replace("absent", "X") and "must lie in control.files_dir" in a, (a, b)
        assert k.proc.poll() is None
    finally:
        k.stop()
