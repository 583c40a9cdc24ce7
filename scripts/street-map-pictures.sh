#!/usr/bin/env bash
# Regenerates the pictures of docs/street-map.md from the Liechtenstein test tiles in the
# repository: road names along their roads flat, turned and tilted, and POI icons with their
# names in the centre of Vaduz, and the map with `--language ja` and `--language ar` (the
# fixture keeps name:ja, name:zh, name:ko, name:ar and name:ru: scripts/street-fixture-languages.py).
# Usage: scripts/street-map-pictures.sh [path/to/touchbridge]   (default: the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
tb=${1:-.build/release/touchbridge}
tiles=Tests/StreetMapTests/Fixtures/liechtenstein-openmaptiles.mbtiles
out=docs/images
"$tb" render --tiles "$tiles" --camera 47.141,9.521,16 --size 1024x640 --out "$out/street-labels-flat.png"
"$tb" render --tiles "$tiles" --camera 47.141,9.521,16,135,0 --size 1024x640 --out "$out/street-labels-turned.png"
"$tb" render --tiles "$tiles" --camera 47.141,9.521,16,30,50 --size 1024x640 --out "$out/street-labels-tilted.png"
"$tb" render --tiles "$tiles" --camera 47.1405,9.5215,17.3 --size 1024x640 --out "$out/street-icons-flat.png"
"$tb" render --tiles "$tiles" --camera 47.1405,9.5215,17.3,135,0 --size 1024x640 --out "$out/street-icons-turned.png"
"$tb" render --tiles "$tiles" --camera 47.1405,9.5215,17.3,30,50 --size 1024x640 --out "$out/street-icons-tilted.png"
for lang in ja ar; do
  "$tb" render --tiles "$tiles" --language $lang --camera 47.1395,9.5225,14.6 --size 1024x640 --out "$out/street-$lang-flat.png"
  "$tb" render --tiles "$tiles" --language $lang --camera 47.1395,9.5225,14.6,135,0 --size 1024x640 --out "$out/street-$lang-turned.png"
  "$tb" render --tiles "$tiles" --language $lang --camera 47.1395,9.5225,14.6,30,50 --size 1024x640 --out "$out/street-$lang-tilted.png"
done
echo "wrote $out/street-labels-{flat,turned,tilted}.png and $out/street-icons-{flat,turned,tilted}.png and $out/street-{ja,ar}-{flat,turned,tilted}.png"
