#!/usr/bin/env bash
# Installs what TouchBridge needs to build, run and test on Debian 12, only when missing.
# Usage: scripts/install-deps.sh [build|package|test|sprite]   (package adds debhelper and lintian; test adds those and the VM and e2e tools;
# sprite: only what scripts/build-sprite.sh needs, which building does not)
set -euo pipefail
want=${1:-build}
# make and the C toolchain/libraries the Swift toolchain itself needs on Debian 12, then ours.
pkgs=(make git ca-certificates binutils gcc libc6-dev libstdc++-12-dev libcurl4-openssl-dev libxml2-dev
      libedit2 libz3-dev libncurses-dev libpython3-dev uuid-dev tzdata python3
      pkg-config libevdev-dev libdrm-dev libudev-dev libcairo2-dev libpango1.0-dev
      libsqlite3-dev fonts-dejavu-core)
# Labels in every script: Noto for Arabic, Hebrew, Devanagari, Thai... and CJK (pango falls back to them).
pkgs+=(fonts-noto-core fonts-noto-cjk)
# Street maps: zlib (gzip'd vector tiles, PMTiles), libjpeg-turbo and libwebp (raster tiles).
pkgs+=(zlib1g-dev libjpeg62-turbo-dev libwebp-dev)
# Palette PNG tiles kept compact (libpng, read directly).
pkgs+=(libpng-dev)
# The POI sprite's source symbols (CC0) and SVG rasterizer: only for scripts/build-sprite.sh
# (its output is committed), never for building.
if [ "$want" = sprite ]; then
  pkgs=(python3 openstreetmap-carto-common librsvg2-bin)
fi
if [ "$want" = test ]; then
  pkgs+=(qemu-system-x86 busybox-static evemu-tools kmod cpio python3 python3-pytest python3-pytest-xdist)
fi
# The Debian package (`make package`, also part of `make test`) and its VM test.
if [ "$want" = package ] || [ "$want" = test ]; then
  pkgs+=(dpkg-dev debhelper lintian fakeroot)
fi
if [ "$want" = test ]; then
  pkgs+=(debootstrap e2fsprogs qemu-utils)
fi
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
export PATH="/opt/swift/usr/bin:$PATH"
[ "$want" = sprite ] && exit 0
if ! command -v swift >/dev/null 2>&1; then
  if [ -x /opt/swift/usr/bin/swift ]; then
    echo "install-deps: swift is at /opt/swift/usr/bin; add it to PATH" >&2
  else
    echo "install-deps: Swift 6.x is needed (https://swift.org/install/linux/debian/12)" >&2
  fi
  exit 1
fi
if [ "$want" = test ]; then
  # python3-pytest covers Debian's python3; another python3 first on PATH gets it from PyPI.
  python3 -c 'import pytest' 2>/dev/null || python3 -m pip install --quiet pytest
  # pytest-xdist runs two VM test files at a time (the Makefile's E2E).
  python3 -c 'import xdist' 2>/dev/null || python3 -m pip install --quiet pytest-xdist
  # hid-tools builds the HID reports of real panels for Tests/e2e/test_live_replay.py.
  python3 -c 'import hidtools.hid' 2>/dev/null || python3 -m pip install --quiet hid-tools
fi
exit 0
