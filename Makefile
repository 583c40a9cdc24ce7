# TouchBridge: the README's commands. Each target installs its Debian/PyPI needs when missing.
PREFIX ?= /usr/local
SWIFT ?= swift
OUT ?= out/demo
export PATH := /opt/swift/usr/bin:$(PATH)

.PHONY: all deps test-deps build release demo test unit-test e2e-test bench install uninstall clean

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

unit-test: deps
	$(SWIFT) test

e2e-test: test-deps release
	$(E2E)

bench: release
	.build/release/touchbridge bench

install: release
	install -D -m 0755 .build/release/touchbridge $(DESTDIR)$(PREFIX)/bin/touchbridge
	install -D -m 0644 udev/70-touchbridge.rules $(DESTDIR)/etc/udev/rules.d/70-touchbridge.rules
	install -D -m 0644 Configs/touchbridge.service $(DESTDIR)/etc/systemd/system/touchbridge.service
	test -e $(DESTDIR)/etc/touchbridge/touchbridge.toml || \
	  install -D -m 0644 Configs/default.toml $(DESTDIR)/etc/touchbridge/touchbridge.toml
	getent group touchbridge >/dev/null || groupadd --system touchbridge || true
	getent passwd touchbridge >/dev/null || useradd --system --gid touchbridge --groups video,input \
	  --home-dir /var/lib/touchbridge --shell /usr/sbin/nologin touchbridge || true

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/touchbridge $(DESTDIR)/etc/udev/rules.d/70-touchbridge.rules \
	  $(DESTDIR)/etc/systemd/system/touchbridge.service

clean:
	rm -rf .build out
