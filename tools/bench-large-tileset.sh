#!/usr/bin/env bash
# Open time, file reads and memory of a large MBTiles against a small one (docs/benchmarks.md,
# "Large tile sets"). Writes the files with tools/make-large-mbtiles.py into DIR (default
# /tmp/touchbridge-large, about 2.9 GB; nothing goes into git), then for each draws one 800x600
# frame at zoom 3 with the release binary under strace, from a cold page cache when run as root:
# reads and bytes read from the tile file, time from its open to its last read, peak RSS.
#   swift build -c release --product touchbridge && tools/bench-large-tileset.sh [DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${1:-/tmp/touchbridge-large}
BIN=.build/release/touchbridge
mkdir -p "$DIR"
[ -f "$DIR/small.mbtiles" ] || python3 tools/make-large-mbtiles.py "$DIR/small.mbtiles" 10
[ -f "$DIR/large.mbtiles" ] || python3 tools/make-large-mbtiles.py "$DIR/large.mbtiles" 1024
[ -f "$DIR/large-nozoom.mbtiles" ] || python3 tools/make-large-mbtiles.py "$DIR/large-nozoom.mbtiles" 1024 --no-zoom-metadata
/usr/bin/time -f "no tile set: peak RSS %M KB" "$BIN" render --camera=-40,-100,3 --size 800x600 --out "$DIR/frame.png" 2>&1 | tail -1
for f in small large large-nozoom; do
  [ "$(id -u)" = 0 ] && { sync; echo 3 > /proc/sys/vm/drop_caches || true; }
  strace -f -tt -e trace=openat,pread64 -o "$DIR/$f.strace" /usr/bin/time -f "%M" -o "$DIR/$f.rss" \
    "$BIN" render --tiles "$DIR/$f.mbtiles" --camera=-40,-100,3 --size 800x600 --out "$DIR/frame.png" > /dev/null 2>&1
  python3 - "$DIR" "$f" <<'PY'
import os, re, sys
d, f = sys.argv[1], sys.argv[2]
path = os.path.join(d, f + ".mbtiles")
fds, first, last, nbytes, calls = set(), None, None, 0, 0
def t(l):
    h, m, s = l.split()[1].split(":"); return int(h) * 3600 + int(m) * 60 + float(s)
for l in open(os.path.join(d, f + ".strace")):
    m = re.search(r'openat\(.*"' + re.escape(path) + r'".* = (\d+)', l)
    if m:
        fds.add(m.group(1)); first = first or t(l); continue
    m = re.search(r'pread64\((\d+), .*\) = (\d+)', l)
    if m and m.group(1) in fds:
        nbytes += int(m.group(2)); calls += 1; last = t(l)
rss = int(open(os.path.join(d, f + ".rss")).read().split()[-1])
size = os.path.getsize(path) / 1e6
print(f"{f} ({size:.0f} MB): {calls} reads, {nbytes / 1024:.0f} KiB read, open to last read {1000 * (last - first):.0f} ms, peak RSS {rss / 1024:.1f} MiB")
PY
done
