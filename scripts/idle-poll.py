#!/usr/bin/env python3
"""Idle means idle while an app polls (issue 30): frames drawn and CPU used by a kiosk polled
with `get_camera` at a steady rate.

Starts `touchbridge run` (PNG display at 1920x1080, the built-in world at zoom 5 over Europe,
300 markers: the kiosk of `bench`'s control_roundtrip keys), waits until its first frame is
out, then sends `get_camera` every 1/RATE seconds for SECONDS and prints one JSON object: the
polls sent, the frames drawn meanwhile (`stats` before and after), the kiosk's CPU time over
the polling (utime + stime from /proc) and the round trips' p50 and p99.

    scripts/idle-poll.py [--binary .build/release/touchbridge] [--seconds 60] [--rate 10]

Exits 1 when a frame was drawn while polled.
"""
import argparse, json, os, random, socket, subprocess, sys, tempfile, time


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap.add_argument("--binary", default=os.path.join(root, ".build/release/touchbridge"))
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--rate", type=float, default=10, help="requests a second")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="tb-idle-poll-") as d:
        os.mkdir(f"{d}/frames")
        sock = f"{d}/c.sock"
        rng = random.Random(30)
        toml = (f'[display]\nbackend = "png"\npng_dir = "{d}/frames"\nsize = "1920x1080"\n'
                f'[map]\nlatitude = 48.5\nlongitude = 9.0\nzoom = 5.0\n[control]\nsocket = "{sock}"\n')
        for i in range(300):
            toml += (f'[[markers]]\nid = "m{i}"\nlatitude = {42 + 12 * rng.random():.5f}\n'
                     f'longitude = {-5 + 28 * rng.random():.5f}\ntitle = "Marker {i}"\n')
        open(f"{d}/kiosk.toml", "w").write(toml)
        kiosk = subprocess.Popen([a.binary, "run", "--config", f"{d}/kiosk.toml"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.time() + 60
            while not os.path.exists(sock):
                if time.time() > deadline or kiosk.poll() is not None:
                    sys.exit(f"idle-poll: the kiosk never opened {sock} (exit {kiosk.poll()})")
                time.sleep(0.05)
            s = socket.socket(socket.AF_UNIX)
            s.connect(sock)
            f = s.makefile("rw")
            n = 0

            def call(cmd):
                nonlocal n
                n += 1
                f.write(json.dumps({"id": n, "cmd": cmd}) + "\n")
                f.flush()
                reply = json.loads(f.readline())
                if not reply.get("ok"):
                    sys.exit(f"idle-poll: {cmd} failed: {reply}")
                return reply

            while call("stats")["frames"] < 1 and time.time() < deadline:
                time.sleep(0.05)
            time.sleep(1)   # the settled frame after the first (docs/architecture.md)
            before = call("stats")["frames"]
            cpu0 = cpu_seconds(kiosk.pid)
            trips = []
            start = time.monotonic()
            polls = int(a.seconds * a.rate)
            for i in range(polls):
                wait = start + i / a.rate - time.monotonic()
                if wait > 0:
                    time.sleep(wait)
                t0 = time.monotonic()
                call("get_camera")
                trips.append((time.monotonic() - t0) * 1000)
            elapsed = time.monotonic() - start
            cpu = cpu_seconds(kiosk.pid) - cpu0
            drawn = call("stats")["frames"] - before
        finally:
            kiosk.terminate()
            kiosk.wait(timeout=30)
    trips.sort()
    pick = lambda q: round(trips[min(len(trips) - 1, int(q * len(trips)))], 3)
    print(json.dumps({"polls": polls, "seconds": round(elapsed, 1), "rate_hz": a.rate, "frames_drawn": drawn,
                      "kiosk_cpu_s": round(cpu, 3), "roundtrip_p50_ms": pick(0.5), "roundtrip_p99_ms": pick(0.99),
                      "loadavg": open("/proc/loadavg").read().split()[:3]}))
    sys.exit(1 if drawn else 0)


if __name__ == "__main__":
    main()
