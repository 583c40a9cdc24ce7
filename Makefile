# TouchBridge: the README's commands. Each target installs its Debian/PyPI needs when missing.
PREFIX ?= /usr/local
SWIFT ?= swift
OUT ?= out/demo
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: all deps test-deps build release kiosk-release demo test unit-test e2e-test bench install uninstall clean fuzz fuzz-ci soak soak-ci

all: build

deps:
	@scripts/install-deps.sh build

test-deps:
	@scripts/install-deps.sh test

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product touchbridge

# The main job. With no touchscreen or display attached this is the built-in demo.
demo: release
	.build/release/touchbridge demo --out $(OUT)

# Every test: unit tests (swift test), then the kiosk VM end-to-end tests. Red if either fails.
# The e2e tests boot a Debian kernel under QEMU (see Tests/e2e/README.md); the kernel is cached
# in /var/cache/touchbridge-vm (TB_VM_CACHE) after the first run.
E2E = python3 -m pytest -q -ra -p no:cacheprovider --durations=5 Tests/e2e
test: test-deps
	$(SWIFT) build -c release --product touchbridge
	$(SWIFT) test
	$(E2E)
	.build/release/touchbridge bench --quick --json
	$(MAKE) fuzz-ci soak-ci

unit-test: deps
	$(SWIFT) test

e2e-test: test-deps release
	$(E2E)

bench: release
	.build/release/touchbridge bench

# The installed binary carries the Swift runtime (--static-swift-stdlib): a kiosk needs only
# Debian's libraries (libevdev, libdrm, libudev, cairo, pango, sqlite3), not the toolchain.
kiosk-release: deps
	$(SWIFT) build -c release --static-swift-stdlib --product touchbridge --scratch-path .build-static

install: kiosk-release
	install -D -m 0755 .build-static/release/touchbridge $(DESTDIR)$(PREFIX)/bin/touchbridge
	install -D -m 0644 Sources/Rendering/Resources/world.bin $(DESTDIR)$(PREFIX)/share/touchbridge/world.bin
	install -D -m 0644 udev/70-touchbridge.rules $(DESTDIR)/etc/udev/rules.d/70-touchbridge.rules
	install -D -m 0644 Configs/touchbridge.service $(DESTDIR)/etc/systemd/system/touchbridge.service
	test -e $(DESTDIR)/etc/touchbridge/touchbridge.toml || \
	  install -D -m 0644 Configs/default.toml $(DESTDIR)/etc/touchbridge/touchbridge.toml
	@# The kiosk user and group (not when staging into DESTDIR for a package).
	@if [ -z "$(DESTDIR)" ]; then \
	  getent group touchbridge >/dev/null || groupadd --system touchbridge; \
	  groups=$$(for g in video input render; do getent group $$g >/dev/null && printf '%s,' $$g; done); \
	  getent passwd touchbridge >/dev/null || useradd --system --gid touchbridge $${groups:+--groups $${groups%,}} \
	    --home-dir /var/lib/touchbridge --no-create-home --shell /usr/sbin/nologin touchbridge; \
	  command -v udevadm >/dev/null && udevadm control --reload || true; \
	  command -v systemctl >/dev/null && systemctl daemon-reload 2>/dev/null || true; \
	  echo "installed: systemctl enable --now touchbridge"; \
	fi

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/share/touchbridge
	rm -f $(DESTDIR)$(PREFIX)/bin/touchbridge $(DESTDIR)/etc/udev/rules.d/70-touchbridge.rules \
	  $(DESTDIR)/etc/systemd/system/touchbridge.service

clean:
	rm -rf .build .build-fuzz out

# Fuzzing (Fuzz/README.md): libFuzzer targets in a separate scratch path (.build-fuzz).
# fuzz-ci replays the seed corpus and fuzzes each target FUZZ_SECONDS (20); `make fuzz` runs
# each for FUZZ_SECONDS (600) into a corpus kept in .build-fuzz/corpus. FUZZ_TARGETS picks some.
FUZZ_TARGETS ?=
fuzz: deps
	Fuzz/run.sh long $(FUZZ_TARGETS)

fuzz-ci: deps
	Fuzz/run.sh ci $(FUZZ_TARGETS)

# Soak: random gestures at 120 Hz through the pipeline and renderer; RSS flat, no stuck
# contact, camera within its limits. soak-ci runs 2 minutes, `make soak` SOAK_MINUTES (60).
SOAK_MINUTES ?= 60
soak: release
	.build/release/touchbridge soak --minutes $(SOAK_MINUTES)

soak-ci: release
	.build/release/touchbridge soak --minutes 2
