#!/usr/bin/env bash
# Behaviour check for refactors (issue 25): writes what a touchbridge binary produces (the demo
# tours' event streams and frames, and frames at the bench's cameras) into a folder, so that two
# binaries' folders can be compared byte for byte:
#   scripts/same-output.sh OLD_BINARY /tmp/before
#   scripts/same-output.sh .build/release/touchbridge /tmp/after
#   scripts/same-output.sh --compare /tmp/before /tmp/after
# The demo's tour.events (an evemu recording of the scripted fingers) is left out: it lists the
# fingers lifted in the same frame in dictionary order, which differs from run to run; and the
# logs (they name the folder and the time taken).
set -euo pipefail
if [ "${1:-}" = --compare ]; then
  if diff -rq -x '*.log' -x 'tour.events' -x '[0-9][0-9].events' "$2" "$3"; then echo "same-output: identical"; exit 0; fi
  echo "same-output: the outputs differ (above)" >&2; exit 1
fi
bin=$(readlink -f "$1"); out=$2
cd "$(dirname "$0")/.."
tiles=Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.pmtiles
rm -rf "$out"; mkdir -p "$out"
"$bin" demo --out "$out/demo" > "$out/demo.log" 2>&1
"$bin" demo --street --out "$out/demo-street" > "$out/demo-street.log" 2>&1
# The bench's cameras: the world (flat, turned), Europe with pins, Vaduz flat, turned and tilted.
r() { local name=$1; shift; "$bin" render --size 1920x1080 --out "$out/$name.png" "$@" > /dev/null 2>&1; }
r world --camera 20,0,3
r world-turned --camera 48,2,6,20
r europe-pins --camera 48.5,9.0,5 --markers '48.85,2.35;52.52,13.4;41.9,12.5' --info 'Paris|Capital'
r vaduz --camera 47.141,9.521,15.5 --tiles "$tiles"
r vaduz-turned --camera 47.141,9.521,15.5,30,0 --tiles "$tiles"
r vaduz-tilted --camera 47.141,9.521,15.5,30,50 --tiles "$tiles"
ls -R "$out" | wc -l | xargs echo "same-output: files written:"
