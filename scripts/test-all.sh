#!/usr/bin/env bash
# Every test: what `make test` (the README's test command, `./tb test`, and CI) runs. Red if
# any part fails.
#   1. Three compiles at once: the unit tests (debug, in .build), the Debian package's static
#      release build (`make package`, .build-static) and the fuzzers' debug build
#      (Fuzz/run.sh build, .build-fuzz/debug: 308 CPU seconds against 520 in release). A
#      release compile spends most of its minutes in one compiler process (one core busy, the
#      other idle: vmstat every 5 s during the fuzzers' release build of a clean clone showed
#      the machine half idle for 5 of its 6.5 minutes), so the background builds run beside
#      the unit tests' compile instead of one after another (README.md, "How long the tests
#      take"). Beside them, the VM tests' kernel, initramfs and debootstrapped Debian image
#      are made (once a machine: cached).
#   2. The unit tests (swift test), once their build is done (the background builds may still run).
#   3. The kiosk end-to-end tests in QEMU on the package's binary, alone: their guests keep
#      both cores busy, and their timeouts are sized for the machine's two cores.
#   4. bench --quick, then the fuzzers (seed corpus and 20 s each) beside the 2-minute soak.
# The background builds' output goes to out/package.log and out/fuzz-build.log (printed when one
# fails).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=/opt/swift/usr/bin:$PATH
SWIFT=${SWIFT:-swift}
STATIC_BIN=.build-static/release/touchbridge
mkdir -p out

stamp() { echo "== test-all: $* ($(date -u +%T))"; }
# Each background build in a process group of its own (job control), so that a failure
# elsewhere stops it whole (make, dpkg-buildpackage, swift-build and the compilers under them).
set -m
background=()
cleanup() { for p in "${background[@]}"; do kill -- "-$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# The dependencies resolved once, before three builds read Package.resolved.
$SWIFT package resolve
stamp "background builds started: the package (out/package.log) and the fuzzers (out/fuzz-build.log)"
make --no-print-directory package > out/package.log 2>&1 & package=$!
Fuzz/run.sh build > out/fuzz-build.log 2>&1 & fuzzbuild=$!
# The VM tests' kernel, initramfs and debootstrapped Debian 12, cached in /var/cache (instant
# once there): on a fresh machine the debootstrap took 11 minutes of the VM tests' first setup
# while the other worker waited for it (1,409 s of VM tests against about 800 with the cache);
# made here, beside the compiles, it is mostly the network's and the disk's time.
stamp "the VM tests' cache started (out/vm-cache.log)"
python3 Tests/e2e/debianvm.py > out/vm-cache.log 2>&1 & vmcache=$!
background=("$package" "$fuzzbuild" "$vmcache")

# Waits for a background build; on failure prints the end of its log and fails.
finish() {
  local pid=$1 name=$2 log=$3
  if ! wait "$pid"; then
    echo "test-all: $name failed; the end of $log:" >&2
    tail -60 "$log" >&2
    exit 1
  fi
  stamp "$name done"
}

stamp "unit tests: build"
$SWIFT build --product TouchBridgePackageTests
$SWIFT build --product hello-map
stamp "unit tests: run"
$SWIFT test --skip-build
finish "$package" "make package" out/package.log
tail -3 out/package.log
finish "$fuzzbuild" "the fuzzers' build" out/fuzz-build.log
finish "$vmcache" "the VM tests' cache" out/vm-cache.log
cat out/vm-cache.log
background=()

stamp "end-to-end tests"
TB_BINARY="$PWD/$STATIC_BIN" make --no-print-directory e2e-run
stamp "bench --quick"
$STATIC_BIN bench --quick --json --static-binary $STATIC_BIN
stamp "fuzzers beside the soak"
make --no-print-directory fuzz-beside-soak
stamp "every test passed"
